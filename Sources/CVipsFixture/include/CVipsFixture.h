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
/// The sRGB image converted to the ICC profile `profile` (a file, or libvips' own "p3" or
/// "cmyk") at `depth` bits, carrying it as a camera or an editor embeds it.
int CVipsFixture_to_profile(void *in, const char *profile, int depth, void **out);
/// The mean CIEDE2000 difference between an sRGB image and `reference` as a colour-managed
/// viewer shows it (converted to sRGB with its own profile), scaled to the image's size.
int CVipsFixture_mean_de00(const void *data, unsigned long length, const void *reference,
                           unsigned long reference_length, double *mean);

#endif
