#define _GNU_SOURCE
#include "CVipsFixture.h"

#include <dlfcn.h>
#include <vips/vips.h>

#define FIND(name) __typeof__(&name) name##_ = (__typeof__(&name))dlsym(RTLD_DEFAULT, #name)

int CVipsFixture_make(int width, int height, int seed, int alpha, void **result_out) {
  VipsImage **out = (VipsImage **)result_out;
  FIND(vips_perlin);
  FIND(vips_bandjoin);
  FIND(g_object_unref);
  if (!vips_perlin_ || !vips_bandjoin_ || !g_object_unref_) return -1;
  int bands = alpha ? 4 : 3;
  VipsImage *planes[4] = {NULL, NULL, NULL, NULL};
  int result = 0;
  for (int i = 0; i < bands && result == 0; i++)
    result = vips_perlin_(&planes[i], width, height, "cell_size", 64, "uchar", TRUE, "seed", seed * 4 + i, NULL);
  if (result == 0) result = vips_bandjoin_(planes, out, bands, NULL);
  for (int i = 0; i < bands; i++)
    if (planes[i]) g_object_unref_(planes[i]);
  if (result == 0) (*out)->Type = VIPS_INTERPRETATION_sRGB;
  return result;
}

int CVipsFixture_with_orientation(void *image, int orientation, void **result_out) {
  VipsImage *in = image, **out = (VipsImage **)result_out;
  FIND(vips_copy);
  FIND(vips_image_set_int);
  if (!vips_copy_ || !vips_image_set_int_ || vips_copy_(in, out, NULL)) return -1;
  vips_image_set_int_(*out, VIPS_META_ORIENTATION, orientation);
  return 0;
}

int CVipsFixture_grey(void *image, void **result_out) {
  VipsImage *in = image, **out = (VipsImage **)result_out;
  FIND(vips_extract_band);
  if (!vips_extract_band_ || vips_extract_band_(in, out, 0, NULL)) return -1;
  (*out)->Type = VIPS_INTERPRETATION_B_W;
  return 0;
}

int CVipsFixture_to_profile(void *image, const char *profile, int depth, void **result_out) {
  VipsImage *in = image, **out = (VipsImage **)result_out;
  FIND(vips_icc_transform);
  if (!vips_icc_transform_) return -1;
  return vips_icc_transform_(in, out, profile, "input_profile", "srgb", "embedded", FALSE, "depth", depth, NULL);
}

int CVipsFixture_mean_de00(const void *data, unsigned long length, const void *reference,
                           unsigned long reference_length, double *mean) {
  FIND(vips_image_new_from_buffer);
  FIND(vips_thumbnail_image);
  FIND(vips_icc_transform);
  FIND(vips_colourspace);
  FIND(vips_dE00);
  FIND(vips_avg);
  FIND(vips_image_get_typeof);
  FIND(g_object_ref);
  FIND(g_object_unref);
  VipsImage *image = vips_image_new_from_buffer_((void *)data, length, "", NULL);
  VipsImage *whole = vips_image_new_from_buffer_((void *)reference, reference_length, "", NULL);
  VipsImage *srgb = NULL, *scaled = NULL, *small = NULL, *lab = NULL, *reference_lab = NULL, *difference = NULL;
  int result = -1;
  if (!image || !whole) goto done;
  // The reference as a colour-managed viewer shows it: converted with its own profile (or
  // libvips' CMYK one). Both are compared at an eighth of the image's size, where colour
  // shows and the thumbnail's JPEG coding and resampling average out.
  if (vips_image_get_typeof_(whole, VIPS_META_ICC_NAME) || whole->Type == VIPS_INTERPRETATION_CMYK) {
    if (vips_icc_transform_(whole, &srgb, "srgb", "embedded", TRUE, "depth", 8, NULL)) goto done;
  } else {
    srgb = whole;
    g_object_ref_(srgb);
  }
  if (vips_thumbnail_image_(srgb, &scaled, image->Xsize / 8, "height", image->Ysize / 8, "size", VIPS_SIZE_FORCE,
                            NULL) ||
      vips_thumbnail_image_(image, &small, image->Xsize / 8, "height", image->Ysize / 8, "size", VIPS_SIZE_FORCE,
                            NULL))
    goto done;
  if (vips_colourspace_(small, &lab, VIPS_INTERPRETATION_LAB, NULL) ||
      vips_colourspace_(scaled, &reference_lab, VIPS_INTERPRETATION_LAB, NULL) ||
      vips_dE00_(lab, reference_lab, &difference, NULL) || vips_avg_(difference, mean, NULL))
    goto done;
  result = 0;
done:;
  VipsImage *images[] = {image, whole, srgb, scaled, small, lab, reference_lab, difference};
  for (size_t i = 0; i < sizeof images / sizeof *images; i++)
    if (images[i]) g_object_unref_(images[i]);
  return result;
}
