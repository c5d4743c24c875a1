#define _GNU_SOURCE
#include "CVips.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// The libvips functions Gallery uses, typed after their declarations. The names are only
// used inside __typeof__, so nothing here links against libvips.
#define VIPS_FUNCTIONS(X) \
  X(vips_init) X(vips_error_buffer) X(vips_error_clear) X(vips_cache_set_max) \
  X(vips_block_untrusted_set) X(vips_concurrency_set) X(vips_image_get_width) \
  X(vips_image_get_height) X(vips_image_get_bands) X(vips_image_get_format) X(vips_image_hasalpha) X(vips_image_get_typeof) X(vips_image_get_int) \
  X(vips_foreign_find_load_buffer) X(vips_image_new_from_buffer) X(vips_thumbnail_buffer) \
  X(vips_jpegload_buffer) X(vips_thumbnail_image) \
  X(vips_flatten) X(vips_array_double_new) X(vips_area_unref) X(vips_jpegsave_buffer) \
  X(vips_webpsave_buffer) X(vips_black) X(vips_linear1) X(vips_linear) X(vips_arrayjoin) X(vips_colourspace) \
  X(vips_cast) X(vips_image_copy_memory) X(vips_bandjoin) \
  X(vips_image_write_to_buffer) X(vips_embed) X(vips_join) X(vips_text) X(vips_gravity) \
  X(vips_version) X(vips_image_new_from_memory_copy) X(vips_rot) X(vips_image_get_blob)

#define DECLARE(name) __typeof__(&name) name;
static struct { VIPS_FUNCTIONS(DECLARE) } vips;
#undef DECLARE

// Declared in vips/vector.h, which vips.h does not include; looked up optionally: a libvips
// built without Orc (newer ones vectorise with Highway) may not export them.
typedef void (*vector_set_enabled_fn)(gboolean enabled);
typedef gboolean (*vector_isenabled_fn)(void);
static vector_isenabled_fn vector_isenabled;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[512];

// libvips loads every module in its modules folder when it starts: HEIF, JPEG XL, ImageMagick,
// OpenSlide and PDF, each with its libraries, a cost to every command's start-up. All but
// HEIF are loaders libvips marks untrusted, which Gallery blocks. Started by `gallery`
// (CVips_prepare_environment), libvips looks for modules where there are none, and the HEIF
// module alone is loaded from the folder beside libvips.
static void load_heif_module(void *library) {
  // GModule comes with libvips (Gallery links only GObject): found among its dependencies.
  __typeof__(&g_module_open) open_module = (__typeof__(&g_module_open))dlsym(library, "g_module_open");
  __typeof__(&g_module_make_resident) make_resident =
      (__typeof__(&g_module_make_resident))dlsym(library, "g_module_make_resident");
  if (!open_module || !make_resident) return;
  Dl_info info;
  if (!dladdr((void *)vips.vips_init, &info) || !info.dli_fname) return;
  const char *slash = strrchr(info.dli_fname, '/');
  if (!slash) return;
  char path[4096];
  int length = snprintf(path, sizeof path, "%.*s/vips-modules-%d.%d/vips-heif.so", (int)(slash - info.dli_fname),
                        info.dli_fname, vips.vips_version(0), vips.vips_version(1));
  if (length <= 0 || (size_t)length >= sizeof path) return;
  // As libvips loads its modules: types it registers cannot be unloaded.
  GModule *module = open_module(path, G_MODULE_BIND_LAZY);
  if (module) make_resident(module);
}

void CVips_prepare_environment(int keep_warnings) {
  // Both must be set before any thread runs: setenv races with every getenv. libvips itself
  // sets VIPSHOME while it starts unless it is set already.
  if (!keep_warnings) setenv("VIPS_WARNING", "0", 0);
  setenv("VIPSHOME", CVIPS_HOME_WITHOUT_MODULES, 0);
}

static void load(void) {
  const char *names[] = {"libvips.so.42", "libvips.so"};
  void *library = NULL;
  for (size_t i = 0; i < sizeof names / sizeof *names && !library; i++)
    library = dlopen(names[i], RTLD_LAZY | RTLD_GLOBAL);
  if (!library) {
    snprintf(load_error, sizeof load_error, "cannot load libvips: %s", dlerror());
    return;
  }
#define LOOKUP(name)                                                                      \
  if (!(vips.name = (__typeof__(vips.name))dlsym(library, #name))) {                     \
    snprintf(load_error, sizeof load_error, "libvips lacks %s (too old?)", #name);        \
    return;                                                                               \
  }
  VIPS_FUNCTIONS(LOOKUP)
#undef LOOKUP
  if (vips.vips_init("gallery") != 0) {
    snprintf(load_error, sizeof load_error, "vips_init failed: %s", vips.vips_error_buffer());
    return;
  }
  const char *home = getenv("VIPSHOME");
  if (home && strcmp(home, CVIPS_HOME_WITHOUT_MODULES) == 0) load_heif_module(library);
  // Orc, the run-time code generator libvips vectorises some operations with (the vertical
  // reduce of every thumbnail), frees its code memory without its lock in the Orc Debian 12
  // ships (0.4.33): two images thumbnailed at once in one process can then run code another
  // thread overwrote (a drop crashed so, once in about 10,000 images; scripts/orc-race shows
  // it within minutes). The plain C paths cost a few percent more CPU on a thumbnail, and a
  // JIT is one less thing exposed to hostile images.
  vector_set_enabled_fn set_enabled = (vector_set_enabled_fn)dlsym(library, "vips_vector_set_enabled");
  vector_isenabled = (vector_isenabled_fn)dlsym(library, "vips_vector_isenabled");
  if (set_enabled) set_enabled(FALSE);
  // Gallery never repeats an operation on the same input: the cache would only cost memory.
  vips.vips_cache_set_max(0);
  // Loaders for exotic formats are fuzzed less upstream; dropped files are untrusted.
  vips.vips_block_untrusted_set(TRUE);
  // Images are processed one per core already; inner threads would only compete.
  vips.vips_concurrency_set(1);
  load_status = 0;
}

int CVips_load(void) {
  pthread_once(&load_once, load);
  return load_status;
}

const char *CVips_load_error(void) { return load_error; }
void CVips_allow_untrusted(void) { vips.vips_block_untrusted_set(FALSE); }
int CVips_vector_enabled(void) { return vector_isenabled ? vector_isenabled() : 0; }
const char *CVips_error_buffer(void) { return vips.vips_error_buffer(); }
void CVips_error_clear(void) { vips.vips_error_clear(); }

int CVips_width(VipsImage *image) { return vips.vips_image_get_width(image); }
int CVips_height(VipsImage *image) { return vips.vips_image_get_height(image); }
int CVips_has_alpha(VipsImage *image) { return vips.vips_image_hasalpha(image); }

int CVips_orientation(VipsImage *image) {
  int orientation = 1;
  if (vips.vips_image_get_typeof(image, VIPS_META_ORIENTATION) &&
      vips.vips_image_get_int(image, VIPS_META_ORIENTATION, &orientation) == 0 &&
      orientation >= 1 && orientation <= 8)
    return orientation;
  return 1;
}

int CVips_pages(VipsImage *image) {
  int pages = 1;
  if (vips.vips_image_get_typeof(image, VIPS_META_N_PAGES) && vips.vips_image_get_int(image, VIPS_META_N_PAGES, &pages) == 0 &&
      pages >= 1)
    return pages;
  return 1;
}

long long CVips_full_decode_bytes(VipsImage *image) {
  int interlaced = 0;
  if (!vips.vips_image_get_typeof(image, "interlaced") ||
      vips.vips_image_get_int(image, "interlaced", &interlaced) != 0 || !interlaced)
    return 0;
  long long element;
  switch (vips.vips_image_get_format(image)) {
  case VIPS_FORMAT_UCHAR: case VIPS_FORMAT_CHAR: element = 1; break;
  case VIPS_FORMAT_USHORT: case VIPS_FORMAT_SHORT: element = 2; break;
  case VIPS_FORMAT_DOUBLE: case VIPS_FORMAT_COMPLEX: element = 8; break;
  case VIPS_FORMAT_DPCOMPLEX: element = 16; break;
  default: element = 4; break;
  }
  // A progressive JPEG keeps its coefficients (2 bytes each) for the whole image.
  if (element < 2) element = 2;
  return (long long)vips.vips_image_get_width(image) * vips.vips_image_get_height(image) *
         vips.vips_image_get_bands(image) * element;
}

void CVips_unref(VipsImage *image) { if (image) g_object_unref(image); }
void CVips_free(void *buffer) { g_free(buffer); }

const char *CVips_find_load_buffer(const void *data, size_t length) {
  return vips.vips_foreign_find_load_buffer(data, length);
}

VipsImage *CVips_header_from_buffer(const void *data, size_t length) {
  return vips.vips_image_new_from_buffer(data, length, "", NULL);
}

// Thumbnails are sRGB without a profile, as every consumer of an untagged image assumes
// (browsers, tumbler, GNOME): an image with an embedded profile (a phone's Display P3, Adobe
// RGB, a grey profile) is converted with it. Without a profile the pixels are taken as sRGB
// already, and the conversion (which costs a transform of every thumbnail pixel) is skipped.
// CMYK is converted by vips_thumbnail in any case, with its profile or libvips' own.
static int has_profile(VipsImage *header) { return vips.vips_image_get_typeof(header, VIPS_META_ICC_NAME) != 0; }

static const char *export_profile(VipsImage *header) { return has_profile(header) ? "srgb" : NULL; }

int CVips_thumbnail_buffer(const void *data, size_t length, int size, VipsImage **out) {
  VipsImage *header = vips.vips_image_new_from_buffer((void *)data, length, "", NULL);
  if (!header) return -1;
  const char *profile = export_profile(header);
  // A JPEG is decoded at the smallest DCT scale that still has `size` pixels on its longer
  // side. libvips' thumbnail leaves a factor of two for its resize (1/8 only from a shrink of
  // 16): a 3872-pixel photo thumbnailed to 256 would be decoded at 1/4 instead of 1/8, and
  // resized from 968 pixels instead of 484. The thumbnail is then made as before
  // (EXIF orientation, colour), from the decoded image.
  const char *loader = vips.vips_foreign_find_load_buffer(data, length);
  int longest = MAX(vips.vips_image_get_width(header), vips.vips_image_get_height(header));
  g_object_unref(header);
  if (loader && strcmp(loader, "VipsForeignLoadJpegBuffer") == 0) {
    int shrink = 8;
    while (shrink > 1 && longest / shrink < size) shrink /= 2;
    if (shrink > 1) {
      VipsImage *shrunk = NULL;
      if (vips.vips_jpegload_buffer((void *)data, length, &shrunk, "shrink", shrink, "fail_on", VIPS_FAIL_ON_TRUNCATED,
                                    NULL))
        return -1;
      int result = profile ? vips.vips_thumbnail_image(shrunk, out, size, "height", size, "size", VIPS_SIZE_DOWN,
                                                       "export_profile", profile, NULL)
                           : vips.vips_thumbnail_image(shrunk, out, size, "height", size, "size", VIPS_SIZE_DOWN, NULL);
      g_object_unref(shrunk);
      return result;
    }
  }
  return profile ? vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, "size", VIPS_SIZE_DOWN,
                                              "option_string", "fail_on=truncated", "export_profile", profile, NULL)
                 : vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, "size", VIPS_SIZE_DOWN,
                                              "option_string", "fail_on=truncated", NULL);
}

int CVips_drawing_buffer(const void *data, size_t length, int size, VipsImage **out) {
  VipsImage *header = vips.vips_image_new_from_buffer((void *)data, length, "", NULL);
  if (!header) return -1;
  const char *profile = export_profile(header);
  g_object_unref(header);
  return profile ? vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, "export_profile", profile,
                                              NULL)
                 : vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, NULL);
}

int CVips_square_thumbnail_buffer(const void *data, size_t length, int size, VipsImage **out) {
  VipsImage *header = vips.vips_image_new_from_buffer((void *)data, length, "", NULL);
  if (!header) return -1;
  const char *profile = export_profile(header);
  g_object_unref(header);
  return profile ? vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, "crop",
                                              VIPS_INTERESTING_CENTRE, "export_profile", profile, NULL)
                 : vips.vips_thumbnail_buffer((void *)data, length, out, size, "height", size, "crop",
                                              VIPS_INTERESTING_CENTRE, NULL);
}

static int flatten_white(VipsImage *in, VipsImage **out) {
  if (!vips.vips_image_hasalpha(in)) {
    g_object_ref(in);
    *out = in;
    return 0;
  }
  double white[3] = {255, 255, 255};
  VipsArrayDouble *background = vips.vips_array_double_new(white, 3);
  int result = vips.vips_flatten(in, out, "background", background, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  return result;
}

int CVips_jpegsave_buffer(VipsImage *in, int quality, void **buffer, size_t *length) {
  VipsImage *flat = NULL;
  if (flatten_white(in, &flat)) return -1;
  int result = vips.vips_jpegsave_buffer(flat, buffer, length, "Q", quality, "strip", TRUE, NULL);
  g_object_unref(flat);
  return result;
}

int CVips_webpsave_buffer(VipsImage *in, int quality, void **buffer, size_t *length) {
  return vips.vips_webpsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, NULL);
}

int CVips_grey_tile(int size, VipsImage **out) {
  VipsImage *black = NULL;
  if (vips.vips_black(&black, size, size, "bands", 3, NULL)) return -1;
  int result = vips.vips_linear1(black, out, 1.0, 224.0, "uchar", TRUE, NULL);
  g_object_unref(black);
  return result;
}

int CVips_arrayjoin(VipsImage **in, int count, int across, VipsImage **out) {
  return vips.vips_arrayjoin(in, out, count, "across", across, NULL);
}

int CVips_srgb(VipsImage *in, VipsImage **out) {
  VipsImage *flat = NULL;
  if (flatten_white(in, &flat)) return -1;
  VipsImage *srgb = NULL;
  int result = vips.vips_colourspace(flat, &srgb, VIPS_INTERPRETATION_sRGB, NULL);
  g_object_unref(flat);
  if (result) return result;
  result = vips.vips_cast(srgb, out, VIPS_FORMAT_UCHAR, NULL);
  g_object_unref(srgb);
  return result;
}

int CVips_copy_memory(VipsImage *in, VipsImage **out) {
  *out = vips.vips_image_copy_memory(in);
  return *out ? 0 : -1;
}

int CVips_write_to_buffer(VipsImage *in, const char *suffix, void **buffer, size_t *length) {
  return vips.vips_image_write_to_buffer(in, suffix, buffer, length, NULL);
}

int CVips_thumbnail_exact(const void *data, size_t length, int width, int height, VipsImage **out) {
  VipsImage *header = vips.vips_image_new_from_buffer((void *)data, length, "", NULL);
  if (!header) return -1;
  const char *profile = export_profile(header);
  g_object_unref(header);
  VipsImage *thumbnail = NULL;
  // Filled and cropped at the centre: a tile whose shape the layout capped (a panorama)
  // shows the middle of the image, undistorted.
  if (profile ? vips.vips_thumbnail_buffer((void *)data, length, &thumbnail, width, "height", height, "crop",
                                           VIPS_INTERESTING_CENTRE, "export_profile", profile, NULL)
              : vips.vips_thumbnail_buffer((void *)data, length, &thumbnail, width, "height", height, "crop",
                                           VIPS_INTERESTING_CENTRE, NULL))
    return -1;
  int result = CVips_srgb(thumbnail, out);
  g_object_unref(thumbnail);
  return result;
}

int CVips_color_tile(int width, int height, double r, double g, double b, VipsImage **out) {
  VipsImage *black = NULL;
  if (vips.vips_black(&black, width, height, "bands", 3, NULL)) return -1;
  double multiply[3] = {1, 1, 1}, add[3] = {r, g, b};
  int result = vips.vips_linear(black, out, multiply, add, 3, "uchar", TRUE, NULL);
  g_object_unref(black);
  return result;
}

int CVips_join(VipsImage *a, VipsImage *b, int horizontal, int spacing, VipsImage **out) {
  double white[3] = {255, 255, 255};
  VipsArrayDouble *background = vips.vips_array_double_new(white, 3);
  int result = vips.vips_join(a, b, out, horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL,
                              "expand", TRUE, "shim", spacing, "background", background,
                              "align", VIPS_ALIGN_LOW, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  return result;
}

int CVips_margin(VipsImage *in, int margin, VipsImage **out) {
  double white[3] = {255, 255, 255};
  VipsArrayDouble *background = vips.vips_array_double_new(white, 3);
  int result = vips.vips_embed(in, out, margin, margin, in->Xsize + 2 * margin, in->Ysize + 2 * margin,
                               "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  return result;
}

int CVips_frame(VipsImage *in, int width, double grey, VipsImage **out) {
  VipsArrayDouble *background = vips.vips_array_double_new(&grey, 1);
  int result = vips.vips_embed(in, out, width, width, in->Xsize + 2 * width, in->Ysize + 2 * width,
                               "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  return result;
}

int CVips_caption(const char *text, int width, int height, VipsImage **out) {
  VipsImage *mask = NULL, *ink = NULL, *bands[3] = {NULL, NULL, NULL}, *joined = NULL;
  // Pango markup, in a sans font the size of the strip (the caller escapes the text).
  char font[64];
  snprintf(font, sizeof font, "DejaVu Sans %d", height > 4 ? height - 4 : 1);
  // One line (no width: no wrapping); whatever is wider than the strip is cut off below.
  if (vips.vips_text(&mask, text, "font", font, "dpi", 72, NULL)) return -1;
  // Dark grey on white.
  int result = vips.vips_linear1(mask, &ink, -0.8, 255.0, "uchar", TRUE, NULL);
  g_object_unref(mask);
  if (result) return -1;
  bands[0] = bands[1] = bands[2] = ink;
  result = vips.vips_bandjoin(bands, &joined, 3, NULL);
  g_object_unref(ink);
  if (result) return -1;
  double white[1] = {255};
  VipsArrayDouble *background = vips.vips_array_double_new(white, 1);
  result = vips.vips_gravity(joined, out, VIPS_COMPASS_DIRECTION_WEST, width, height,
                             "extend", VIPS_EXTEND_BACKGROUND, "background", background, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  g_object_unref(joined);
  return result;
}

int CVips_note_card(const char *text, int width, int height, VipsImage **out) {
  VipsImage *mask = NULL, *bands[3] = {NULL, NULL, NULL}, *joined = NULL, *ink = NULL;
  // The text from the top left, less a margin, wrapped to the card in a size that follows the
  // card's; what does not fit is cut off below, as on the page.
  int margin = width / 14 + 2, inner_width = width - 2 * margin;
  if (inner_width < 8 || height < 2 * margin + 8) return CVips_color_tile(width, height, 255, 244, 186, out);
  char font[64];
  snprintf(font, sizeof font, "DejaVu Sans %d", height / 12 > 8 ? height / 12 : 8);
  if (vips.vips_text(&mask, text, "font", font, "dpi", 72, "width", inner_width, "wrap", VIPS_TEXT_WRAP_WORD_CHAR,
                     NULL))
    return -1;
  bands[0] = bands[1] = bands[2] = mask;
  int result = vips.vips_bandjoin(bands, &joined, 3, NULL);
  g_object_unref(mask);
  if (result) return -1;
  // Dark grey ink on a pale yellow card, as a paper note.
  double paper[3] = {255, 244, 186}, multiply[3];
  for (int band = 0; band < 3; band++) multiply[band] = -(paper[band] - 48) / 255.0;
  result = vips.vips_linear(joined, &ink, multiply, paper, 3, "uchar", TRUE, NULL);
  g_object_unref(joined);
  if (result) return -1;
  ink->Type = VIPS_INTERPRETATION_sRGB;
  VipsArrayDouble *background = vips.vips_array_double_new(paper, 3);
  result = vips.vips_embed(ink, out, margin, margin, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background",
                           background, NULL);
  vips.vips_area_unref(VIPS_AREA(background));
  g_object_unref(ink);
  return result;
}

int CVips_from_pixels(const void *data, size_t length, int width, int height, int bands, VipsImage **out) {
  if ((size_t)width * height * bands != length) return -1;
  *out = vips.vips_image_new_from_memory_copy(data, length, width, height, bands, VIPS_FORMAT_UCHAR);
  if (!*out) return -1;
  (*out)->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
  return 0;
}

int CVips_shrunk(VipsImage *in, int size, VipsImage **out) {
  return vips.vips_thumbnail_image(in, out, size, "height", size, "size", VIPS_SIZE_DOWN, NULL);
}

int CVips_rotate(VipsImage *in, int quarter_turns, VipsImage **out) {
  VipsAngle angles[] = {VIPS_ANGLE_D0, VIPS_ANGLE_D90, VIPS_ANGLE_D180, VIPS_ANGLE_D270};
  return vips.vips_rot(in, out, angles[((quarter_turns % 4) + 4) % 4], NULL);
}

int CVips_exif(VipsImage *image, const void **data, size_t *length) {
  if (!vips.vips_image_get_typeof(image, VIPS_META_EXIF_NAME)) return -1;
  return vips.vips_image_get_blob(image, VIPS_META_EXIF_NAME, data, length);
}
