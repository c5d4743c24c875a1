#ifndef GALLERY_CJPEG_H
#define GALLERY_CJPEG_H
#include <stddef.h>

/// A mosaic of JPEG thumbnails made with libjpeg alone: each input decoded (at the smallest
/// DCT scale that keeps its short side at least `tile`), its centre square resampled to
/// `tile` x `tile`, laid out `across` per row (grey 224 where `inputs[i]` is NULL or past
/// `count`, for `slots` tiles in all), and encoded as a baseline JPEG of `quality` with no
/// metadata. Returns 0 with a buffer to release with `CJPEG_free` in `*out`, or -1 when any
/// input is not a JPEG libjpeg reads cleanly in RGB or grey (or is larger than
/// `max_side`): the caller then makes the mosaic another way.
int CJPEG_mosaic(const unsigned char *const *inputs, const size_t *sizes, int count, int slots, int across, int tile,
                 int quality, int max_side, unsigned char **out, size_t *out_size);

void CJPEG_free(void *buffer);

#endif
