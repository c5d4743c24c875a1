#include "shared.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

// --- Resampling ----------------------------------------------------------------------------

// A separable Lanczos-3 kernel from `from` samples to `to`, as libvips' reduce: reducing,
// each output sample weighs the source samples within three of its own widths of its
// centre; enlarging, within three source samples. The weight of a sample past an edge goes
// to the edge sample.
struct kernel {
  int span;       // the most weights an output sample has
  int *first;     // to entries: the first source sample weighed
  int *count;     // to entries: how many are
  float *weights; // to x span
};

static double lanczos3(double x) {
  if (x < 0) x = -x;
  if (x < 1e-9) return 1;
  if (x >= 3) return 0;
  double px = M_PI * x;
  return 3 * sin(px) * sin(px / 3) / (px * px);
}

static int make_kernel(int from, int to, struct kernel *kernel) {
  double scale = (double)from / to;
  double support = scale > 1 ? scale : 1;
  double radius = 3 * support;
  int span = (int)ceil(2 * radius) + 1;
  if (span > from) span = from;
  kernel->span = span;
  kernel->first = malloc(sizeof(int) * (size_t)to);
  kernel->count = malloc(sizeof(int) * (size_t)to);
  kernel->weights = calloc((size_t)to * span, sizeof(float));
  if (!kernel->first || !kernel->count || !kernel->weights) return -1;
  for (int o = 0; o < to; o++) {
    double centre = (o + 0.5) * scale - 0.5;
    int low = (int)floor(centre - radius) + 1, high = (int)ceil(centre + radius) - 1;
    int first = low < 0 ? 0 : low, last = high > from - 1 ? from - 1 : high;
    if (last < first) last = first;
    if (last - first + 1 > span) last = first + span - 1;
    float *weights = kernel->weights + (size_t)o * span;
    double sum = 0;
    for (int i = low; i <= high; i++) {
      double weight = lanczos3((i - centre) / support);
      int at = i < first ? first : i > last ? last : i;
      weights[at - first] += (float)weight;
      sum += weight;
    }
    for (int i = 0; i <= last - first; i++) weights[i] = (float)(weights[i] / sum);
    kernel->first[o] = first;
    kernel->count[o] = last - first + 1;
  }
  return 0;
}

static void free_kernel(struct kernel *kernel) {
  free(kernel->first);
  free(kernel->count);
  free(kernel->weights);
}

static unsigned char to_byte(float value) {
  int rounded = (int)lrintf(value);
  return (unsigned char)(rounded < 0 ? 0 : rounded > 255 ? 255 : rounded);
}

int cjpeg_resample(const unsigned char *source, size_t source_stride, int width, int height, int channels,
                   unsigned char *target, size_t target_stride, int to_width, int to_height) {
  struct kernel across = {0}, down = {0};
  size_t row_length = (size_t)to_width * channels;
  float *rows = malloc(sizeof(float) * (size_t)height * row_length);
  float *sums = malloc(sizeof(float) * row_length);
  int status = -1;
  if (!rows || !sums || make_kernel(width, to_width, &across) || make_kernel(height, to_height, &down)) goto done;
  for (int y = 0; y < height; y++) {
    const unsigned char *line = source + (size_t)y * source_stride;
    float *out = rows + (size_t)y * row_length;
    for (int x = 0; x < to_width; x++) {
      const float *weights = across.weights + (size_t)x * across.span;
      const unsigned char *p = line + (size_t)across.first[x] * channels;
      int count = across.count[x];
      if (channels == 3) {
        float r = 0, g = 0, b = 0;
        for (int i = 0; i < count; i++, p += 3) {
          r += weights[i] * p[0];
          g += weights[i] * p[1];
          b += weights[i] * p[2];
        }
        out[3 * x] = r, out[3 * x + 1] = g, out[3 * x + 2] = b;
      } else {
        float sum = 0;
        for (int i = 0; i < count; i++) sum += weights[i] * p[i];
        out[x] = sum;
      }
    }
  }
  for (int y = 0; y < to_height; y++) {
    const float *weights = down.weights + (size_t)y * down.span;
    const float *in = rows + (size_t)down.first[y] * row_length;
    // One source row at a time, into the row of sums (which the loop over it vectorises).
    memset(sums, 0, sizeof(float) * row_length);
    for (int i = 0; i < down.count[y]; i++, in += row_length) {
      float weight = weights[i];
      for (size_t x = 0; x < row_length; x++) sums[x] += weight * in[x];
    }
    unsigned char *out = target + (size_t)y * target_stride;
    for (size_t x = 0; x < row_length; x++) out[x] = to_byte(sums[x]);
  }
  status = 0;
done:
  free(rows);
  free(sums);
  free_kernel(&across);
  free_kernel(&down);
  return status;
}
