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
  // Set between setjmp and the jump back, read after it.
  volatile int too_many_scans;
};

// Installs the handlers above on `failure` and returns its manager, for `info.err`.
struct jpeg_error_mgr *cjpeg_strict_errors(struct cjpeg_failure *failure);

// A progressive JPEG is decoded scan by scan, each scan a pass over the whole image: a file
// of thousands of tiny scans takes minutes to decode. More than this many is refused (the
// limit TurboJPEG applies with TJFLAG_LIMITSCANS).
#define CJPEG_MAX_SCANS 500

// Installs on `info` a progress monitor that fails the decode (through its error manager,
// with `failure->too_many_scans` set) past CJPEG_MAX_SCANS scans. `progress` must live as
// long as `info`.
void cjpeg_limit_scans(struct jpeg_decompress_struct *info, struct jpeg_progress_mgr *progress);

// Encodes `components` (1: grey, 3: RGB) bytes a pixel as a baseline JPEG of `quality` with
// no metadata, into a buffer to release with free. Returns 0, or -1.
int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, int quality,
                 unsigned char **out, size_t *out_size);

// Resamples `source` (width x height, `channels` 1 or 3 bytes a pixel, `source_stride` bytes
// a row) to `to_width` x `to_height` in `target` (`target_stride` bytes a row) with a
// separable Lanczos-3 kernel, as libvips' reduce does. Returns 0, or -1 out of memory.
int cjpeg_resample(const unsigned char *source, size_t source_stride, int width, int height, int channels,
                   unsigned char *target, size_t target_stride, int to_width, int to_height);

#endif
