#define _GNU_SOURCE
#include "CRaw.h"

#include <dlfcn.h>
#include <libraw/libraw.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define RAW_FUNCTIONS(X)                                                                                       \
  X(libraw_init) X(libraw_open_buffer) X(libraw_unpack) X(libraw_unpack_thumb) X(libraw_dcraw_process)        \
  X(libraw_dcraw_make_mem_image) X(libraw_dcraw_make_mem_thumb) X(libraw_dcraw_clear_mem) X(libraw_close)    \
  X(libraw_strerror)

#define DECLARE(name) __typeof__(&name) name;
static struct { RAW_FUNCTIONS(DECLARE) } raw;
#undef DECLARE

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static char load_error[256] = "libraw was not loaded";
static int loaded = -1;

static void load(void) {
  void *library = dlopen("libraw.so.20", RTLD_LAZY | RTLD_LOCAL);
  if (!library) library = dlopen("libraw.so", RTLD_LAZY | RTLD_LOCAL);
  if (!library) {
    snprintf(load_error, sizeof load_error, "camera RAW files need libraw (Debian: libraw20): %s", dlerror());
    return;
  }
#define LOOKUP(name)                                                                   \
  if (!(raw.name = (__typeof__(raw.name))dlsym(library, #name))) {                    \
    snprintf(load_error, sizeof load_error, "libraw lacks %s (too old?)", #name);     \
    return;                                                                            \
  }
  RAW_FUNCTIONS(LOOKUP)
#undef LOOKUP
  loaded = 0;
}

int CRaw_load(char *error, unsigned long size) {
  pthread_once(&load_once, load);
  if (loaded) snprintf(error, size, "%s", load_error);
  return loaded;
}

static int fail(libraw_data_t *data, int code, char *error, unsigned long size) {
  snprintf(error, size, "libraw: %s", raw.libraw_strerror(code));
  if (data) raw.libraw_close(data);
  return -1;
}

int CRaw_decode(const void *bytes, unsigned long length, CRaw_image *image, char *error, unsigned long size) {
  if (CRaw_load(error, size)) return -1;
  memset(image, 0, sizeof *image);
  libraw_data_t *data = raw.libraw_init(0);
  if (!data) return snprintf(error, size, "libraw: cannot start"), -1;
  int code = raw.libraw_open_buffer(data, (void *)bytes, length);
  if (code != LIBRAW_SUCCESS) return fail(data, code, error, size);
  image->raw_width = data->sizes.width;
  image->raw_height = data->sizes.height;
  image->flip = data->sizes.flip;
  libraw_processed_image_t *processed = NULL;
  // The camera's own preview when it has a JPEG one (fast, and as the camera rendered it);
  // else the raw data developed at half size.
  if (raw.libraw_unpack_thumb(data) == LIBRAW_SUCCESS) {
    processed = raw.libraw_dcraw_make_mem_thumb(data, &code);
    if (processed && processed->type != LIBRAW_IMAGE_JPEG) {
      raw.libraw_dcraw_clear_mem(processed);
      processed = NULL;
    }
  }
  if (!processed) {
    data->params.half_size = 1;
    data->params.output_bps = 8;
    if ((code = raw.libraw_unpack(data)) != LIBRAW_SUCCESS) return fail(data, code, error, size);
    if ((code = raw.libraw_dcraw_process(data)) != LIBRAW_SUCCESS) return fail(data, code, error, size);
    processed = raw.libraw_dcraw_make_mem_image(data, &code);
    if (!processed) return fail(data, code, error, size);
    if (processed->bits != 8 || processed->colors < 1 || processed->colors > 4 ||
        (unsigned long)processed->width * processed->height * processed->colors != processed->data_size) {
      raw.libraw_dcraw_clear_mem(processed);
      raw.libraw_close(data);
      return snprintf(error, size, "libraw: an image of an unexpected shape"), -1;
    }
  }
  image->jpeg = processed->type == LIBRAW_IMAGE_JPEG;
  image->data = processed->data;
  image->length = processed->data_size;
  image->width = processed->width;
  image->height = processed->height;
  image->colors = processed->colors;
  image->owner = processed;
  raw.libraw_close(data);
  return 0;
}

void CRaw_release(CRaw_image *image) {
  if (image->owner) raw.libraw_dcraw_clear_mem(image->owner);
  image->owner = NULL;
}
