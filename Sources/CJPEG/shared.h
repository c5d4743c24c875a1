#ifndef GALLERY_CJPEG_SHARED_H
#define GALLERY_CJPEG_SHARED_H
// What the mosaic and the thumbnail share: libjpeg's error handling and the encoder.
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>

#include <jpeglib.h>

// libjpeg reports errors by calling error_exit, which must not return: jump back out. Its
// warnings (a corrupt or truncated body it would paper over) count as failures too, and
// nothing is printed.
struct cjpeg_failure {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
};

// Installs the handlers above on `failure` and returns its manager, for `info.err`.
struct jpeg_error_mgr *cjpeg_strict_errors(struct cjpeg_failure *failure);

// Encodes `components` (1: grey, 3: RGB) bytes a pixel as a baseline JPEG of `quality` with
// no metadata, into a buffer to release with free. Returns 0, or -1.
int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, int quality,
                 unsigned char **out, size_t *out_size);

#endif
