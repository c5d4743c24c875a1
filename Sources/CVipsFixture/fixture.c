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
