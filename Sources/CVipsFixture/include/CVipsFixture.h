#ifndef GALLERY_CVIPSFIXTURE_H
#define GALLERY_CVIPSFIXTURE_H
// Test images made by libvips, for GalleryTestSupport only: never linked into `gallery`.
// libvips must be loaded already (CVips_load, which opens it RTLD_GLOBAL); its functions
// are found by name, as CVips does. Images are `VipsImage *` passed as `void *`: this
// header includes no system header, so that it cannot disagree with CVips' view of them.

/// A smooth, colourful w x h image from Perlin noise: 3 bands, or 4 with `alpha`.
int CVipsFixture_make(int width, int height, int seed, int alpha, void **out);
/// A copy of the image that carries an EXIF orientation tag.
int CVipsFixture_with_orientation(void *in, int orientation, void **out);
/// The image's first band alone, as grey.
int CVipsFixture_grey(void *in, void **out);

#endif
