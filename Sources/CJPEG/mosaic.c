#include "CJPEG.h"

#include <stdlib.h>
#include <string.h>

#include "shared.h"

// Weights of a separable resampling from `from` source samples to `to` output samples: each
// output sample averages the source interval it covers (area averaging) when shrinking, and
// interpolates linearly between the two nearest source samples when enlarging.
struct taps {
  int first;
  int count;
  float weights[64];
};

static int make_taps(int from, int to, struct taps *taps) {
  double scale = (double)from / to;
  for (int o = 0; o < to; o++) {
    struct taps *t = &taps[o];
    if (scale >= 1) {
      double start = o * scale, end = (o + 1) * scale;
      int first = (int)start, last = (int)end;
      if (last >= from) last = from - 1;
      if (last - first + 1 > 64) return -1;
      t->first = first;
      t->count = last - first + 1;
      for (int i = first; i <= last; i++) {
        double left = i > start ? i : start, right = i + 1 < end ? i + 1 : end;
        t->weights[i - first] = (float)((right > left ? right - left : 0) / scale);
      }
    } else {
      double centre = (o + 0.5) * scale - 0.5;
      if (centre < 0) centre = 0;
      int first = (int)centre;
      if (first >= from - 1) {
        t->first = from - 1;
        t->count = 1;
        t->weights[0] = 1;
      } else {
        t->first = first;
        t->count = 2;
        t->weights[1] = (float)(centre - first);
        t->weights[0] = 1 - t->weights[1];
      }
    }
  }
  return 0;
}

// Decodes one JPEG into its `tile` x `tile` square of `canvas` (3 bytes a pixel, `stride`
// bytes a row). Returns 0, or -1 when libjpeg does not read it cleanly.
static int draw_tile(const unsigned char *input, size_t size, int tile, int max_side, unsigned char *canvas,
                     size_t stride) {
  struct jpeg_decompress_struct info;
  struct cjpeg_failure failure;
  // volatile: changed after setjmp and needed after a jump back.
  unsigned char *volatile pixels = NULL;
  float *volatile rows = NULL;
  struct taps *volatile across = NULL, *volatile down = NULL;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    free(pixels);
    free(rows);
    free(across);
    free(down);
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
  // The centre square, resampled across then down.
  int side = width < height ? width : height;
  int left = (width - side) / 2, top = (height - side) / 2;
  across = malloc(sizeof(struct taps) * tile);
  down = malloc(sizeof(struct taps) * tile);
  rows = malloc(sizeof(float) * (size_t)side * tile * 3);
  if (!across || !down || !rows || make_taps(side, tile, across) || make_taps(side, tile, down)) longjmp(failure.jump, 1);
  for (int y = 0; y < side; y++) {
    const unsigned char *source = pixels + ((size_t)(top + y) * width + left) * 3;
    float *target = rows + (size_t)y * tile * 3;
    for (int x = 0; x < tile; x++) {
      const struct taps *t = &across[x];
      float sum[3] = {0, 0, 0};
      for (int i = 0; i < t->count; i++) {
        const unsigned char *p = source + (size_t)(t->first + i) * 3;
        sum[0] += t->weights[i] * p[0];
        sum[1] += t->weights[i] * p[1];
        sum[2] += t->weights[i] * p[2];
      }
      memcpy(target + x * 3, sum, sizeof sum);
    }
  }
  for (int y = 0; y < tile; y++) {
    const struct taps *t = &down[y];
    unsigned char *target = canvas + (size_t)y * stride;
    for (int x = 0; x < tile * 3; x++) {
      float sum = 0;
      for (int i = 0; i < t->count; i++) sum += t->weights[i] * rows[(size_t)(t->first + i) * tile * 3 + x];
      int value = (int)(sum + 0.5f);
      target[x] = (unsigned char)(value < 0 ? 0 : value > 255 ? 255 : value);
    }
  }
  jpeg_destroy_decompress(&info);
  free(pixels);
  free(rows);
  free(across);
  free(down);
  return 0;
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
