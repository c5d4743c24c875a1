#ifndef GALLERY_CRAW_H
#define GALLERY_CRAW_H
// Camera RAW files through libraw, loaded with dlopen on first use: only the sandboxed
// decoder opens raw files (libraw parses hostile formats), and `gallery` needs libraw only
// when one is dropped. This header includes no system header (see CGallerySystem.h).

/// What a raw file holds: its size as the sensor stored it and libraw's flip (0 none,
/// 3 half a turn, 5 a quarter turn anticlockwise, 6 clockwise), and an image: the camera's
/// embedded preview (JPEG bytes, `jpeg` set) or the raw developed at half size (8-bit,
/// `colors` samples a pixel, `width` x `height`).
typedef struct {
  int raw_width, raw_height, flip;
  int jpeg;
  const unsigned char *data;
  unsigned long length;
  int width, height, colors;
  void *owner;
} CRaw_image;

/// 0 when libraw could be loaded, else -1 with the reason in `error` (`size` bytes).
int CRaw_load(char *error, unsigned long size);
/// Reads a raw file from memory: 0 and `image` filled (release it with CRaw_release), or -1
/// with libraw's reason in `error`.
int CRaw_decode(const void *data, unsigned long length, CRaw_image *image, char *error, unsigned long size);
void CRaw_release(CRaw_image *image);

#endif
