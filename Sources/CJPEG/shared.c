#include "shared.h"

#include <stdlib.h>

static void fail_now(j_common_ptr info) { longjmp(((struct cjpeg_failure *)info->err)->jump, 1); }

static void on_message(j_common_ptr info, int level) {
  if (level < 0) longjmp(((struct cjpeg_failure *)info->err)->jump, 1);
}

static void quiet(j_common_ptr info) { (void)info; }

struct jpeg_error_mgr *cjpeg_strict_errors(struct cjpeg_failure *failure) {
  failure->too_many_scans = 0;
  struct jpeg_error_mgr *manager = jpeg_std_error(&failure->manager);
  manager->error_exit = fail_now;
  manager->emit_message = on_message;
  manager->output_message = quiet;
  return manager;
}

static void count_scans(j_common_ptr info) {
  struct jpeg_decompress_struct *decompress = (struct jpeg_decompress_struct *)info;
  if (decompress->is_decompressor && decompress->input_scan_number > CJPEG_MAX_SCANS) {
    struct cjpeg_failure *failure = (struct cjpeg_failure *)info->err;
    failure->too_many_scans = 1;
    longjmp(failure->jump, 1);
  }
}

void cjpeg_limit_scans(struct jpeg_decompress_struct *info, struct jpeg_progress_mgr *progress) {
  progress->progress_monitor = count_scans;
  info->progress = progress;
}

int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, int quality,
                 unsigned char **out, size_t *out_size) {
  struct jpeg_compress_struct info;
  struct cjpeg_failure failure;
  unsigned long size = 0;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    // Only running out of memory gets here. The buffer is left: after the destination has
    // grown it, the pointer libjpeg gave back is stale, and freeing it would be worse.
    jpeg_destroy_compress(&info);
    return -1;
  }
  jpeg_create_compress(&info);
  unsigned char *target = NULL;
  jpeg_mem_dest(&info, &target, &size);
  info.image_width = width;
  info.image_height = height;
  info.input_components = components;
  info.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  jpeg_set_defaults(&info);
  jpeg_set_quality(&info, quality, TRUE);
  jpeg_start_compress(&info, TRUE);
  while (info.next_scanline < info.image_height) {
    JSAMPROW row = (JSAMPROW)(pixels + (size_t)info.next_scanline * width * components);
    jpeg_write_scanlines(&info, &row, 1);
  }
  jpeg_finish_compress(&info);
  jpeg_destroy_compress(&info);
  *out = target;
  *out_size = size;
  return 0;
}
