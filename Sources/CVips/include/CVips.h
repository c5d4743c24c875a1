#ifndef GALLERY_CVIPS_H
#define GALLERY_CVIPS_H
// libvips, loaded on first use (dlopen) rather than at start-up: it links about a hundred
// shared libraries, whose loading every `gallery` command would pay even when it draws nothing.
//
// Swift calls only the CVips_ functions below. libvips' own API is variadic (NULL-terminated
// option lists), which Swift cannot call, and is reached through pointers looked up when the
// library is loaded; each wrapper fixes the options Gallery uses.
#include <stddef.h>
#include <vips/vips.h>

/// What VIPSHOME is set to by CVips_prepare_environment: a prefix with no modules folder.
#define CVIPS_HOME_WITHOUT_MODULES "/proc/self/gallery-loads-only-the-vips-heif-module"
/// For the `gallery` executable, first thing, before any thread starts: hides libvips'
/// warnings unless `keep_warnings`, and makes libvips load only its HEIF module (the others
/// hold loaders Gallery blocks) unless VIPSHOME is set already.
void CVips_prepare_environment(int keep_warnings);
/// Loads libvips and starts it (vips_init) once; 0 on success. On failure,
/// CVips_load_error() says why.
int CVips_load(void);
const char *CVips_load_error(void);
/// Whether libvips runs Orc-generated code (never once loaded: see vips_shim.c).
int CVips_vector_enabled(void);

/// The process-global error buffer (copy it at once) and its reset.
const char *CVips_error_buffer(void);
void CVips_error_clear(void);

int CVips_width(VipsImage *image);
int CVips_height(VipsImage *image);
int CVips_has_alpha(VipsImage *image);
/// The EXIF orientation (1 to 8), or 1.
int CVips_orientation(VipsImage *image);
/// Bytes a decode needs when the image cannot be streamed (an interlaced PNG or GIF, a
/// progressive JPEG: decoded whole before it can be shrunk); 0 when it streams.
long long CVips_full_decode_bytes(VipsImage *image);
/// The number of pages (a multi-page TIFF or PDF), 1 when the loader does not say.
int CVips_pages(VipsImage *image);
void CVips_unref(VipsImage *image);
void CVips_free(void *buffer);

/// Lets libvips use the loaders it marks untrusted: only in the sandboxed decoder process.
void CVips_allow_untrusted(void);
/// The loader that recognises these bytes, or NULL (decides by content only).
const char *CVips_find_load_buffer(const void *data, size_t length);
/// Opens an image from memory for its header only (pixels are decoded lazily, never here).
VipsImage *CVips_header_from_buffer(const void *data, size_t length);
/// Shrink-on-load thumbnail fitting in size x size, EXIF orientation applied; fails on
/// truncated data instead of padding it with grey.
int CVips_thumbnail_buffer(const void *data, size_t length, int size, VipsImage **out);
/// Like CVips_thumbnail_buffer, but enlarged to fit when smaller: a drawing (SVG, PDF) is
/// rendered at the size asked, not at the few points its page may say.
int CVips_drawing_buffer(const void *data, size_t length, int size, VipsImage **out);
/// Square thumbnail cropped at the centre, for the cover mosaic.
int CVips_square_thumbnail_buffer(const void *data, size_t length, int size, VipsImage **out);
/// Saves as baseline JPEG without metadata, flattening any alpha onto white.
int CVips_jpegsave_buffer(VipsImage *in, int quality, void **buffer, size_t *length);
/// Saves as WebP without metadata; keeps an alpha channel.
int CVips_webpsave_buffer(VipsImage *in, int quality, void **buffer, size_t *length);
/// A flat grey size x size tile.
int CVips_grey_tile(int size, VipsImage **out);
/// Joins images in a grid, `across` per row.
int CVips_arrayjoin(VipsImage **in, int count, int across, VipsImage **out);
/// 8-bit sRGB with 3 bands (alpha flattened onto white), so mosaic tiles can be joined.
int CVips_srgb(VipsImage *in, VipsImage **out);
/// Computes every pixel into memory now.
int CVips_copy_memory(VipsImage *in, VipsImage **out);

/// Resizes to exactly width x height (up or down), filled and cropped at the centre.
int CVips_thumbnail_exact(const void *data, size_t length, int width, int height, VipsImage **out);
/// A width x height tile of one colour (r, g, b).
int CVips_color_tile(int width, int height, double r, double g, double b, VipsImage **out);
/// Joins two images side by side (or one above the other), `spacing` pixels apart, on a
/// white background, aligned to the top (or the left).
int CVips_join(VipsImage *a, VipsImage *b, int horizontal, int spacing, VipsImage **out);
/// Adds a `width`-pixel grey frame around an image (every band set to `grey`).
int CVips_frame(VipsImage *in, int width, double grey, VipsImage **out);
/// A width x height strip of dark text on white, left-aligned and cut to the width.
int CVips_caption(const char *text, int width, int height, VipsImage **out);
/// A note card: Pango markup (escaped by the caller) wrapped from the top left of a
/// `width` x `height` pale yellow card.
int CVips_note_card(const char *text, int width, int height, VipsImage **out);
/// Adds a white margin around an image.
int CVips_margin(VipsImage *in, int margin, VipsImage **out);

/// Encodes in the format the suffix names (".jpg", ".png", ".webp", ".gif", ".tif").
int CVips_write_to_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length);
/// An image of `width` x `height` 8-bit pixels of `bands` samples, copied from `data`.
int CVips_from_pixels(const void *data, size_t length, int width, int height, int bands, VipsImage **out);
/// The image made to fit `size` x `size`, never enlarged.
int CVips_shrunk(VipsImage *in, int size, VipsImage **out);
/// The image turned clockwise by `quarter_turns` quarter turns.
int CVips_rotate(VipsImage *in, int quarter_turns, VipsImage **out);
/// The image's EXIF block, as its loader found it (owned by the image): 0, or -1 when it
/// has none.
int CVips_exif(VipsImage *image, const void **data, size_t *length);

#endif
