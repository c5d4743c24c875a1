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

/// What a JPEG's header says, read by libjpeg alone.
typedef struct {
  int width, height;  // as stored
  int orientation;    // EXIF orientation, 1 to 8 (1 when there is none)
  int components;     // colour components
  int progressive;    // decoded whole: width x height x components x 2 bytes of coefficients
  int plain;          // 8-bit grey, YCbCr or RGB, no ICC profile but sRGB: what CJPEG_thumbnail makes
} CJPEG_header;

/// What a photo's EXIF block says of it, as text (empty when absent): the camera's make and
/// model, when it was taken ("YYYY:MM:DD HH:MM:SS", the camera's clock) and that clock's
/// offset from UTC ("+02:00"), when the camera wrote one, and the lens; as numbers (0 when
/// absent): the exposure time in seconds, the f-number, the ISO speed and the focal length
/// in millimetres; and where it was taken, in degrees (south and west negative), when
/// `has_position`.
typedef struct {
  char make[64], model[64], taken[20], offset[7], lens[64];
  double exposure_time, f_number, focal_length;
  unsigned iso;
  int has_position;
  double latitude, longitude;
} CJPEG_exif;

/// Reads an EXIF block ("Exif\0\0" then a TIFF structure, or the TIFF structure alone, as
/// libvips keeps it) into `exif`; every offset is checked against the block. 0 when it is
/// one, -1 otherwise.
int CJPEG_read_exif(const unsigned char *block, size_t size, CJPEG_exif *exif);

/// Reads the header (through the markers, up to the image data), and its EXIF block into
/// `exif` when not NULL. Returns 0, or -1 when libjpeg does not read it cleanly.
int CJPEG_read_header(const unsigned char *data, size_t size, CJPEG_header *header, CJPEG_exif *exif);

/// A thumbnail of a plain JPEG (see CJPEG_header) that fits `box` x `box`, never enlarged:
/// decoded at the smallest DCT scale that keeps its pixels, reduced with a Lanczos-3 kernel
/// (as libvips' thumbnail does), turned upright by its EXIF orientation, and encoded as a
/// baseline JPEG of `quality` with no metadata. Returns 0 with a buffer to release with
/// `CJPEG_free` and the thumbnail's size; -2 when the image has more than 500 scans (a
/// progressive JPEG made to take minutes to decode, which nothing should decode); or -1
/// when the image is not plain or libjpeg does not read it cleanly (a warning counts): the
/// caller then makes it another way.
int CJPEG_thumbnail(const unsigned char *data, size_t size, int box, int quality, unsigned char **out,
                    size_t *out_size, int *out_width, int *out_height);

/// The scans (start-of-scan markers) of a JPEG, counted by walking its markers without
/// decoding; counting stops past `limit`. A progressive JPEG is decoded scan by scan, each a
/// pass over the whole image: thousands of tiny scans make a file that takes minutes to
/// decode, in libjpeg and libvips alike.
int CJPEG_count_scans(const unsigned char *data, size_t size, int limit);

/// Whether a JPEG decodes whole, cleanly (a warning counts as a failure), at the smallest
/// DCT scale: its every scan is read and its entropy-coded data decoded, its pixels then
/// made at an eighth of its size. Refused without decoding: more than `max_pixels` pixels,
/// a progressive image whose coefficients take more than `max_coefficient_bytes`, more than
/// 500 scans. Returns 0 when it decodes, -1 otherwise.
int CJPEG_decodes(const unsigned char *data, size_t size, long long max_pixels, long long max_coefficient_bytes);

void CJPEG_free(void *buffer);

#endif
