#include "CJPEG.h"

#include <stdlib.h>
#include <string.h>

#include "shared.h"

// Decodes one JPEG into its `tile` x `tile` square of `canvas` (3 bytes a pixel, `stride`
// bytes a row). Returns 0, or -1 when libjpeg does not read it cleanly.
static int draw_tile(const unsigned char *input, size_t size, int tile, int max_side, unsigned char *canvas,
                     size_t stride) {
  struct jpeg_decompress_struct info;
  struct cjpeg_failure failure;
  // volatile: changed after setjmp and needed after a jump back.
  unsigned char *volatile pixels = NULL;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    free(pixels);
    return -1;
  }
  jpeg_create_decompress(&info);
  struct jpeg_progress_mgr progress;
  cjpeg_limit_scans(&info, &progress);
  jpeg_mem_src(&info, input, (unsigned long)size);
  jpeg_read_header(&info, TRUE);
  if ((int)info.image_width > max_side || (int)info.image_height > max_side) longjmp(failure.jump, 1);
  if (info.jpeg_color_space != JCS_GRAYSCALE && info.jpeg_color_space != JCS_YCbCr && info.jpeg_color_space != JCS_RGB)
    longjmp(failure.jump, 1);
  info.out_color_space = JCS_RGB;
  // The largest reduction that keeps the short side at least a tile.
  int shortest = info.image_width < info.image_height ? info.image_width : info.image_height;
  info.scale_num = 1;
  info.scale_denom = 1;
  for (int denom = 8; denom > 1; denom /= 2) {
    if ((shortest + denom - 1) / denom >= tile) {
      info.scale_denom = denom;
      break;
    }
  }
  info.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&info);
  int width = info.output_width, height = info.output_height;
  if (width < 1 || height < 1 || info.output_components != 3) longjmp(failure.jump, 1);
  pixels = malloc((size_t)width * height * 3);
  if (!pixels) longjmp(failure.jump, 1);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = pixels + (size_t)info.output_scanline * width * 3;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  // The centre square, resampled as the thumbnails are.
  int side = width < height ? width : height;
  int left = (width - side) / 2, top = (height - side) / 2;
  int status = cjpeg_resample(pixels + ((size_t)top * width + left) * 3, (size_t)width * 3, side, side, 3, canvas,
                              stride, tile, tile);
  free(pixels);
  return status;
}

int CJPEG_mosaic(const unsigned char *const *inputs, const size_t *sizes, int count, int slots, int across, int tile,
                 int quality, int max_side, unsigned char **out, size_t *out_size) {
  if (across < 1 || slots < 1 || tile < 1 || tile > 4096 || count > slots) return -1;
  int down = (slots + across - 1) / across;
  int width = across * tile, height = down * tile;
  size_t stride = (size_t)width * 3;
  unsigned char *canvas = malloc(stride * height);
  if (!canvas) return -1;
  memset(canvas, 224, stride * height);
  for (int i = 0; i < count; i++) {
    if (!inputs[i]) continue;
    unsigned char *corner = canvas + (size_t)(i / across) * tile * stride + (size_t)(i % across) * tile * 3;
    if (draw_tile(inputs[i], sizes[i], tile, max_side, corner, stride)) {
      free(canvas);
      return -1;
    }
  }
  int result = cjpeg_encode(canvas, width, height, 3, quality, out, out_size);
  free(canvas);
  return result;
}

void CJPEG_free(void *buffer) { free(buffer); }
