#include "CJPEG.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"

// --- The header --------------------------------------------------------------------------

static unsigned read16(const unsigned char *p, int little) { return little ? p[0] | p[1] << 8 : p[0] << 8 | p[1]; }

static unsigned long read32(const unsigned char *p, int little) {
  return little ? (unsigned long)p[0] | (unsigned long)p[1] << 8 | (unsigned long)p[2] << 16 | (unsigned long)p[3] << 24
                : (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

// The orientation tag (0x0112) of an APP1 "Exif" block's first directory, or 0 when there
// is none. Every offset is checked against the block: it comes from the file.
static int exif_orientation(const unsigned char *block, size_t size) {
  if (size < 6 + 8 || memcmp(block, "Exif\0\0", 6) != 0) return 0;
  const unsigned char *tiff = block + 6;
  size_t length = size - 6;
  int little;
  if (tiff[0] == 'I' && tiff[1] == 'I')
    little = 1;
  else if (tiff[0] == 'M' && tiff[1] == 'M')
    little = 0;
  else
    return 0;
  if (read16(tiff + 2, little) != 42) return 0;
  unsigned long directory = read32(tiff + 4, little);
  if (directory > length - 2) return 0;
  unsigned count = read16(tiff + directory, little);
  for (unsigned i = 0; i < count; i++) {
    unsigned long entry = directory + 2 + 12ul * i;
    if (entry + 12 > length) return 0;
    if (read16(tiff + entry, little) != 0x0112) continue;
    // SHORT, one value, stored in the first two bytes of the value field.
    if (read16(tiff + entry + 2, little) != 3 || read32(tiff + entry + 4, little) < 1) return 0;
    unsigned value = read16(tiff + entry + 8, little);
    return value >= 1 && value <= 8 ? (int)value : 0;
  }
  return 0;
}

static int contains(const unsigned char *bytes, size_t size, const char *needle, size_t length) {
  for (size_t i = 0; i + length <= size; i++)
    if (memcmp(bytes + i, needle, length) == 0) return 1;
  return 0;
}

// Whether an APP2 block holds a whole ICC profile (one chunk of one) that describes itself
// as sRGB ("sRGB IEC61966-2.1", as cameras and editors embed it; ASCII in a version 2
// `desc` tag, UTF-16 in a version 4 one): such a JPEG needs no colour conversion and keeps
// the fast path. Any other profile is left to libvips, which converts with it.
static int is_srgb_profile(const unsigned char *block, size_t size) {
  if (size < 14 + 132 || block[12] != 1 || block[13] != 1) return 0;
  const unsigned char *profile = block + 14;
  size_t length = size - 14;
  if (memcmp(profile + 16, "RGB ", 4) != 0) return 0;
  unsigned long count = read32(profile + 128, 0);
  if (count > (length - 132) / 12) return 0;
  for (unsigned long i = 0; i < count; i++) {
    const unsigned char *tag = profile + 132 + 12 * i;
    if (memcmp(tag, "desc", 4) != 0) continue;
    unsigned long offset = read32(tag + 4, 0), tag_size = read32(tag + 8, 0);
    if (offset > length || tag_size > length - offset || tag_size > 4096) return 0;
    const unsigned char *text = profile + offset;
    int srgb = contains(text, tag_size, "sRGB", 4) || contains(text, tag_size, "\0s\0R\0G\0B", 8);
    int linear = contains(text, tag_size, "inear", 5) || contains(text, tag_size, "\0i\0n\0e\0a\0r", 10);
    return srgb && !linear;
  }
  return 0;
}

// Copies an ASCII value of at most `capacity - 1` bytes, stopping at its NUL, printable
// characters only (a value comes from the file), trailing spaces trimmed.
static void copy_ascii(const unsigned char *value, size_t length, char *out, size_t capacity) {
  size_t n = 0;
  for (size_t i = 0; i < length && n + 1 < capacity && value[i]; i++) out[n++] = value[i] >= 0x20 && value[i] < 0x7F ? (char)value[i] : '?';
  while (n > 0 && out[n - 1] == ' ') n--;
  out[n] = 0;
}

// The `index`th unsigned rational of an entry (type 5: two 32-bit numbers each, stored at
// an offset), as a double; 0 when it is not one or lies outside the block.
static double rational(const unsigned char *tiff, size_t length, int little, unsigned long entry, unsigned index) {
  if (read16(tiff + entry + 2, little) != 5 || read32(tiff + entry + 4, little) <= index) return 0;
  unsigned long at = read32(tiff + entry + 8, little);
  if (at > length || length - at < 8ul * (index + 1)) return 0;
  unsigned long numerator = read32(tiff + at + 8 * index, little), denominator = read32(tiff + at + 8 * index + 4, little);
  return denominator ? (double)numerator / (double)denominator : 0;
}

// The first value of a SHORT or LONG entry, stored in the entry itself; 0 otherwise.
static unsigned long integer(const unsigned char *tiff, int little, unsigned long entry) {
  unsigned type = read16(tiff + entry + 2, little);
  if (read32(tiff + entry + 4, little) < 1) return 0;
  return type == 3 ? read16(tiff + entry + 8, little) : type == 4 ? read32(tiff + entry + 8, little) : 0;
}

// The offset of a sub-directory an entry points to (types LONG or IFD), or 0.
static unsigned long pointer(const unsigned char *tiff, int little, unsigned long entry) {
  unsigned type = read16(tiff + entry + 2, little);
  return type == 4 || type == 13 ? read32(tiff + entry + 8, little) : 0;
}

// The ASCII entries of one directory that `wanted` names, into `outs`, and the numbers and
// sub-directories a photo's facts are in, into `exif`: the EXIF (0x8769) and GPS (0x8825)
// sub-directories' offsets go to `sub` and `gps` (when not NULL).
static void read_directory(const unsigned char *tiff, size_t length, int little, unsigned long directory,
                           const unsigned short *wanted, char *const *outs, const size_t *capacities, int count,
                           CJPEG_exif *exif, unsigned long *sub, unsigned long *gps) {
  if (length < 2 || directory > length - 2) return;
  unsigned entries = read16(tiff + directory, little);
  for (unsigned i = 0; i < entries; i++) {
    unsigned long entry = directory + 2 + 12ul * i;
    if (entry + 12 > length) break;
    unsigned tag = read16(tiff + entry, little), type = read16(tiff + entry + 2, little);
    if (sub && tag == 0x8769) *sub = pointer(tiff, little, entry);
    if (gps && tag == 0x8825) *gps = pointer(tiff, little, entry);
    if (sub == NULL && gps == NULL) {  // the EXIF sub-directory's numbers
      if (tag == 0x829A) exif->exposure_time = rational(tiff, length, little, entry, 0);
      if (tag == 0x829D) exif->f_number = rational(tiff, length, little, entry, 0);
      if (tag == 0x920A) exif->focal_length = rational(tiff, length, little, entry, 0);
      if (tag == 0x8827) exif->iso = (unsigned)integer(tiff, little, entry);
    }
    unsigned long items = read32(tiff + entry + 4, little);
    if (type != 2 || items == 0 || items > 4096) continue;
    unsigned long at = items <= 4 ? entry + 8 : read32(tiff + entry + 8, little);
    if (at > length || items > length - at) continue;
    for (int w = 0; w < count; w++)
      if (tag == wanted[w]) copy_ascii(tiff + at, items, outs[w], capacities[w]);
  }
}

// The GPS directory's position: N/S and E/W references (ASCII) and three rationals each
// (degrees, minutes, seconds).
static void read_position(const unsigned char *tiff, size_t length, int little, unsigned long directory,
                          CJPEG_exif *exif) {
  if (length < 2 || directory > length - 2) return;
  unsigned entries = read16(tiff + directory, little);
  char latitude_ref = 0, longitude_ref = 0;
  double latitude = -1, longitude = -1;
  for (unsigned i = 0; i < entries; i++) {
    unsigned long entry = directory + 2 + 12ul * i;
    if (entry + 12 > length) break;
    unsigned tag = read16(tiff + entry, little), type = read16(tiff + entry + 2, little);
    if (tag == 1 && type == 2) latitude_ref = (char)tiff[entry + 8];
    if (tag == 3 && type == 2) longitude_ref = (char)tiff[entry + 8];
    if ((tag == 2 || tag == 4) && read32(tiff + entry + 4, little) == 3) {
      double value = rational(tiff, length, little, entry, 0) + rational(tiff, length, little, entry, 1) / 60 +
                     rational(tiff, length, little, entry, 2) / 3600;
      if (tag == 2) latitude = value; else longitude = value;
    }
  }
  if ((latitude_ref != 'N' && latitude_ref != 'S') || (longitude_ref != 'E' && longitude_ref != 'W')) return;
  if (!(latitude >= 0 && latitude <= 90 && longitude >= 0 && longitude <= 180)) return;
  exif->has_position = 1;
  exif->latitude = latitude_ref == 'S' ? -latitude : latitude;
  exif->longitude = longitude_ref == 'W' ? -longitude : longitude;
}

int CJPEG_read_exif(const unsigned char *block, size_t size, CJPEG_exif *exif) {
  memset(exif, 0, sizeof *exif);
  if (size >= 6 && memcmp(block, "Exif\0\0", 6) == 0) block += 6, size -= 6;
  if (size < 8) return -1;
  int little;
  if (block[0] == 'I' && block[1] == 'I')
    little = 1;
  else if (block[0] == 'M' && block[1] == 'M')
    little = 0;
  else
    return -1;
  if (read16(block + 2, little) != 42) return -1;
  const unsigned short first[] = {0x010F, 0x0110};
  char *const first_outs[] = {exif->make, exif->model};
  const size_t first_capacities[] = {sizeof exif->make, sizeof exif->model};
  unsigned long sub = 0, gps = 0;
  read_directory(block, size, little, read32(block + 4, little), first, first_outs, first_capacities, 2, exif, &sub,
                 &gps);
  if (sub) {
    const unsigned short second[] = {0x9003, 0x9011, 0xA434};
    char *const second_outs[] = {exif->taken, exif->offset, exif->lens};
    const size_t second_capacities[] = {sizeof exif->taken, sizeof exif->offset, sizeof exif->lens};
    read_directory(block, size, little, sub, second, second_outs, second_capacities, 3, exif, NULL, NULL);
  }
  if (gps) read_position(block, size, little, gps, exif);
  return 0;
}

// Reads the header of `data` into `info` (created by the caller, errors set up) and fills
// `header`. The APP1 and APP2 markers are kept for the orientation and the ICC profile (an
// sRGB profile leaves the image plain).
static void read_header(struct jpeg_decompress_struct *info, const unsigned char *data, size_t size,
                        CJPEG_header *header, CJPEG_exif *exif) {
  jpeg_mem_src(info, data, (unsigned long)size);
  jpeg_save_markers(info, JPEG_APP0 + 1, 0xFFFF);
  jpeg_save_markers(info, JPEG_APP0 + 2, 0xFFFF);
  jpeg_read_header(info, TRUE);
  memset(header, 0, sizeof *header);
  header->width = (int)info->image_width;
  header->height = (int)info->image_height;
  header->components = info->num_components;
  header->progressive = info->progressive_mode ? 1 : 0;
  header->orientation = 1;
  int has_profile = 0, found_orientation = 0;
  for (jpeg_saved_marker_ptr marker = info->marker_list; marker; marker = marker->next) {
    if (marker->marker == JPEG_APP0 + 1 && !found_orientation) {
      int orientation = exif_orientation(marker->data, marker->data_length);
      if (orientation) {
        header->orientation = orientation;
        found_orientation = 1;
      }
      // The photo's facts from the first EXIF block (the one the orientation is read from).
      if (exif && !exif->make[0] && !exif->taken[0]) CJPEG_read_exif(marker->data, marker->data_length, exif);
    } else if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 12 &&
               memcmp(marker->data, "ICC_PROFILE", 12) == 0) {
      if (!is_srgb_profile(marker->data, marker->data_length)) has_profile = 1;
    }
  }
  int grey = info->jpeg_color_space == JCS_GRAYSCALE && info->num_components == 1;
  int colour = (info->jpeg_color_space == JCS_YCbCr || info->jpeg_color_space == JCS_RGB) && info->num_components == 3;
  header->plain = info->data_precision == 8 && (grey || colour) && !has_profile && header->width > 0 && header->height > 0;
}

int CJPEG_read_header(const unsigned char *data, size_t size, CJPEG_header *header, CJPEG_exif *exif) {
  struct jpeg_decompress_struct info;
  struct cjpeg_failure failure;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    return -1;
  }
  jpeg_create_decompress(&info);
  read_header(&info, data, size, header, exif);
  jpeg_destroy_decompress(&info);
  return 0;
}

// --- Orientation ---------------------------------------------------------------------------

// `source` (width x height) as displayed under EXIF `orientation`, into `target` (height x
// width for 5 to 8).
static void orient(const unsigned char *source, int width, int height, int channels, int orientation,
                   unsigned char *target) {
  int out_width = orientation >= 5 ? height : width;
  for (int y = 0; y < height; y++) {
    for (int x = 0; x < width; x++) {
      int tx, ty;
      switch (orientation) {
      case 2: tx = width - 1 - x, ty = y; break;
      case 3: tx = width - 1 - x, ty = height - 1 - y; break;
      case 4: tx = x, ty = height - 1 - y; break;
      case 5: tx = y, ty = x; break;
      case 6: tx = height - 1 - y, ty = x; break;
      case 7: tx = height - 1 - y, ty = width - 1 - x; break;
      case 8: tx = y, ty = width - 1 - x; break;
      default: tx = x, ty = y; break;
      }
      memcpy(target + ((size_t)ty * out_width + tx) * channels, source + ((size_t)y * width + x) * channels,
             (size_t)channels);
    }
  }
}

// --- The thumbnail -------------------------------------------------------------------------

int CJPEG_thumbnail(const unsigned char *data, size_t size, int box, int quality, unsigned char **out,
                    size_t *out_size, int *out_width, int *out_height) {
  if (box < 1) return -1;
  struct jpeg_decompress_struct info;
  struct cjpeg_failure failure;
  struct jpeg_progress_mgr progress;
  // volatile: set after setjmp and needed after a jump back.
  unsigned char *volatile decoded = NULL;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    free(decoded);
    return failure.too_many_scans ? -2 : -1;
  }
  jpeg_create_decompress(&info);
  cjpeg_limit_scans(&info, &progress);
  CJPEG_header header;
  read_header(&info, data, size, &header, NULL);
  if (!header.plain) longjmp(failure.jump, 1);
  // The size that fits the box, never larger than the image (libvips' thumbnail with
  // VIPS_SIZE_DOWN).
  int width = header.width, height = header.height;
  double shrink = fmax((double)width / box, (double)height / box);
  int to_width = width, to_height = height;
  if (shrink > 1) {
    to_width = (int)fmax(1, round(width / shrink));
    to_height = (int)fmax(1, round(height / shrink));
  }
  // The smallest DCT scale that still has the thumbnail's pixels.
  info.scale_num = 1;
  info.scale_denom = 1;
  for (int denom = 8; denom > 1; denom /= 2) {
    if ((width + denom - 1) / denom >= to_width && (height + denom - 1) / denom >= to_height) {
      info.scale_denom = denom;
      break;
    }
  }
  info.out_color_space = header.components == 1 ? JCS_GRAYSCALE : JCS_RGB;
  info.dct_method = JDCT_ISLOW;
  jpeg_start_decompress(&info);
  int decoded_width = (int)info.output_width, decoded_height = (int)info.output_height;
  int channels = info.output_components;
  if (decoded_width < to_width || decoded_height < to_height || (channels != 1 && channels != 3))
    longjmp(failure.jump, 1);
  decoded = malloc((size_t)decoded_width * decoded_height * channels);
  if (!decoded) longjmp(failure.jump, 1);
  while (info.output_scanline < info.output_height) {
    JSAMPROW row = decoded + (size_t)info.output_scanline * decoded_width * channels;
    jpeg_read_scanlines(&info, &row, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);

  size_t thumbnail_bytes = (size_t)to_width * to_height * channels;
  unsigned char *reduced = malloc(thumbnail_bytes), *oriented = malloc(thumbnail_bytes);
  int status = -1;
  if (!reduced || !oriented) goto done;
  if (decoded_width == to_width && decoded_height == to_height)
    memcpy(reduced, decoded, thumbnail_bytes);
  else if (cjpeg_resample(decoded, (size_t)decoded_width * channels, decoded_width, decoded_height, channels, reduced,
                          (size_t)to_width * channels, to_width, to_height))
    goto done;
  orient(reduced, to_width, to_height, channels, header.orientation, oriented);
  int swapped = header.orientation >= 5;
  *out_width = swapped ? to_height : to_width;
  *out_height = swapped ? to_width : to_height;
  status = cjpeg_encode(oriented, *out_width, *out_height, channels, quality, out, out_size);
done:
  free(decoded);
  free(reduced);
  free(oriented);
  return status;
}

// --- Scans -------------------------------------------------------------------------------

int CJPEG_count_scans(const unsigned char *data, size_t size, int limit) {
  if (size < 4 || data[0] != 0xFF || data[1] != 0xD8) return 0;
  size_t at = 2;
  int scans = 0;
  while (at + 4 <= size && scans <= limit) {
    if (data[at] != 0xFF) return scans;
    unsigned char marker = data[at + 1];
    if (marker == 0xFF) {  // fill byte
      at++;
      continue;
    }
    if (marker == 0xD9) return scans;  // end of image
    if (marker == 0x01 || (marker >= 0xD0 && marker <= 0xD7)) {  // no length
      at += 2;
      continue;
    }
    size_t length = (size_t)data[at + 2] << 8 | data[at + 3];
    if (length < 2) return scans;
    at += 2 + length;
    if (marker != 0xDA) continue;
    // Entropy-coded data runs to the next marker: 0xFF followed by neither a stuffed zero
    // nor a restart marker.
    scans++;
    while (at + 1 < size) {
      const unsigned char *found = memchr(data + at, 0xFF, size - at - 1);
      if (!found) return scans;
      at = (size_t)(found - data);
      unsigned char next = data[at + 1];
      if (next != 0x00 && !(next >= 0xD0 && next <= 0xD7) && next != 0xFF) break;
      at += next == 0xFF ? 1 : 2;
    }
  }
  return scans;
}

// --- Whether it decodes --------------------------------------------------------------------

int CJPEG_decodes(const unsigned char *data, size_t size, long long max_pixels, long long max_coefficient_bytes) {
  struct jpeg_decompress_struct info;
  struct cjpeg_failure failure;
  struct jpeg_progress_mgr progress;
  // volatile: set after setjmp and needed after a jump back.
  unsigned char *volatile row = NULL;
  info.err = cjpeg_strict_errors(&failure);
  if (setjmp(failure.jump)) {
    jpeg_destroy_decompress(&info);
    free(row);
    return -1;
  }
  jpeg_create_decompress(&info);
  cjpeg_limit_scans(&info, &progress);
  jpeg_mem_src(&info, data, (unsigned long)size);
  jpeg_read_header(&info, TRUE);
  long long pixels = (long long)info.image_width * info.image_height;
  if (pixels < 1 || pixels > max_pixels) longjmp(failure.jump, 1);
  if (jpeg_has_multiple_scans(&info) && pixels * info.num_components * 2 > max_coefficient_bytes)
    longjmp(failure.jump, 1);
  info.scale_num = 1;
  info.scale_denom = 8;
  jpeg_start_decompress(&info);
  row = malloc((size_t)info.output_width * info.output_components);
  if (!row) longjmp(failure.jump, 1);
  while (info.output_scanline < info.output_height) {
    JSAMPROW rows = row;
    jpeg_read_scanlines(&info, &rows, 1);
  }
  jpeg_finish_decompress(&info);
  jpeg_destroy_decompress(&info);
  free(row);
  return 0;
}
