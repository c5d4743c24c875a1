#ifndef GALLERY_CZLIB_H
#define GALLERY_CZLIB_H
// zlib's CRC-32 (crc32): the checksum an index keeps of each items array.
#include <zlib.h>
#endif
