#ifndef GALLERY_CARCHIVE_SHIM_H
#define GALLERY_CARCHIVE_SHIM_H
#include <archive.h>
#include <archive_entry.h>

// AE_IFREG is a macro with a cast, which Swift does not import.
static const unsigned int CArchive_AE_IFREG = AE_IFREG;
static const unsigned int CArchive_AE_IFDIR = AE_IFDIR;

#endif
