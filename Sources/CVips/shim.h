#ifndef GALLERY_CVIPS_SHIM_H
#define GALLERY_CVIPS_SHIM_H
#include <vips/vips.h>

// libvips' API is variadic (NULL-terminated option lists), which Swift cannot call.
// Each wrapper below fixes the options Gallery uses and is the only caller of its function.

/// Starts libvips once for the process. Wrapper around VIPS_INIT, a macro.
static inline int CVips_init(const char *argv0) {
  return VIPS_INIT(argv0);
}

/// Opens an image from memory for its header only (pixels are decoded lazily, never here).
/// Wrapper around vips_image_new_from_buffer(buf, len, "", NULL).
static inline VipsImage *CVips_header_from_buffer(const void *buf, size_t len) {
  return vips_image_new_from_buffer(buf, len, "", NULL);
}

/// Reads the EXIF orientation (1 to 8) or returns 1.
static inline int CVips_orientation(VipsImage *image) {
  int orientation = 1;
  if (vips_image_get_typeof(image, VIPS_META_ORIENTATION) &&
      vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) == 0 &&
      orientation >= 1 && orientation <= 8)
    return orientation;
  return 1;
}

/// Shrink-on-load thumbnail that fits in size x size, EXIF orientation applied; fails on
/// truncated data instead of padding it with grey.
/// Wrapper around vips_thumbnail_buffer(..., "height", ..., "size", DOWN, "option_string", ...).
static inline int CVips_thumbnail_buffer(const void *buf, size_t len, int size, VipsImage **out) {
  return vips_thumbnail_buffer((void *)buf, len, out, size,
                               "height", size,
                               "size", VIPS_SIZE_DOWN,
                               "option_string", "fail_on=truncated",
                               NULL);
}

/// Square thumbnail cropped at the centre, for the cover mosaic.
static inline int CVips_square_thumbnail_buffer(const void *buf, size_t len, int size, VipsImage **out) {
  return vips_thumbnail_buffer((void *)buf, len, out, size,
                               "height", size,
                               "crop", VIPS_INTERESTING_CENTRE,
                               NULL);
}

/// Forces every pixel to be computed, so decode errors surface here and not later.
static inline int CVips_min(VipsImage *image) {
  double out;
  return vips_min(image, &out, NULL);
}

/// Removes an alpha channel by compositing on white; returns a new reference either way.
static inline int CVips_flatten_white(VipsImage *in, VipsImage **out) {
  if (!vips_image_hasalpha(in)) {
    g_object_ref(in);
    *out = in;
    return 0;
  }
  double white[3] = {255, 255, 255};
  VipsArrayDouble *background = vips_array_double_new(white, 3);
  int result = vips_flatten(in, out, "background", background, NULL);
  vips_area_unref(VIPS_AREA(background));
  return result;
}

/// Saves as baseline JPEG without metadata (orientation has been applied already).
/// Wrapper around vips_jpegsave_buffer(..., "Q", q, "keep", none / "strip", TRUE).
static inline int CVips_jpegsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
  VipsImage *flat = NULL;
  if (CVips_flatten_white(in, &flat)) return -1;
  int result = vips_jpegsave_buffer(flat, buf, len, "Q", quality, "strip", TRUE, NULL);
  g_object_unref(flat);
  return result;
}

/// Saves as WebP without metadata; keeps an alpha channel.
static inline int CVips_webpsave_buffer(VipsImage *in, int quality, void **buf, size_t *len) {
  return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", TRUE, NULL);
}

/// A flat grey tile, for covers of galleries with fewer than four images.
static inline int CVips_grey_tile(int size, VipsImage **out) {
  VipsImage *black = NULL;
  if (vips_black(&black, size, size, "bands", 3, NULL)) return -1;
  int result = vips_linear1(black, out, 1.0, 224.0, "uchar", TRUE, NULL);
  g_object_unref(black);
  return result;
}

/// Joins images in a grid, `across` per row. Wrapper around vips_arrayjoin.
static inline int CVips_arrayjoin(VipsImage **in, int n, int across, VipsImage **out) {
  return vips_arrayjoin(in, out, n, "across", across, NULL);
}

/// Converts to 8-bit sRGB with 3 bands, so mosaic tiles can be joined.
static inline int CVips_srgb(VipsImage *in, VipsImage **out) {
  VipsImage *flat = NULL;
  if (CVips_flatten_white(in, &flat)) return -1;
  VipsImage *srgb = NULL;
  int result = vips_colourspace(flat, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
  g_object_unref(flat);
  if (result) return result;
  result = vips_cast(srgb, out, VIPS_FORMAT_UCHAR, NULL);
  g_object_unref(srgb);
  return result;
}

static inline void CVips_unref(VipsImage *image) { if (image) g_object_unref(image); }

// MARK: - Fixtures (test images and samples, made by libvips)

/// A smooth, colourful w x h image from Perlin noise: 3 bands, or 4 with `alpha`.
static inline int CVips_fixture(int width, int height, int seed, int alpha, VipsImage **out) {
  int bands = alpha ? 4 : 3;
  VipsImage *planes[4] = {NULL, NULL, NULL, NULL};
  int result = 0;
  for (int i = 0; i < bands && result == 0; i++)
    result = vips_perlin(&planes[i], width, height, "cell_size", 64, "uchar", TRUE, "seed", seed * 4 + i, NULL);
  if (result == 0) result = vips_bandjoin(planes, out, bands, NULL);
  for (int i = 0; i < bands; i++) if (planes[i]) g_object_unref(planes[i]);
  if (result == 0) (*out)->Type = VIPS_INTERPRETATION_sRGB;
  return result;
}

/// A copy of the image that carries an EXIF orientation tag.
static inline int CVips_with_orientation(VipsImage *in, int orientation, VipsImage **out) {
  if (vips_copy(in, out, NULL)) return -1;
  vips_image_set_int(*out, VIPS_META_ORIENTATION, orientation);
  return 0;
}

/// Encodes in the format the suffix names (".jpg", ".png", ".webp", ".gif", ".tif").
/// Wrapper around vips_image_write_to_buffer(in, suffix, &buf, &len, NULL).
static inline int CVips_write_to_buffer(VipsImage *in, const char *suffix, void **buf, size_t *len) {
  return vips_image_write_to_buffer(in, suffix, buf, len, NULL);
}

#endif
