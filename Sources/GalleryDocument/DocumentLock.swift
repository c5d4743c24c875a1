import Foundation
import GalleryImaging
import GalleryModel
import GallerySystem

#if canImport(Glibc)
  import Glibc
#endif

/// The writers' lock: an exclusive `flock` on the document file itself.
///
/// Compaction replaces the file by rename, so after taking the lock we check that the path
/// still names the inode we locked; if not, we lock the new one. Readers never take it.
package struct DocumentLock {
  package let file: FileHandleFD

  package init(path: String) throws(DocumentError) {
    while true {
      let candidate = try GalleryDocument.openRegularFile(path, flags: O_RDWR)
      do { try candidate.lockExclusive() } catch { throw .io(error) }
      let current: stat
      do { current = try FileSystem.statusOrError(of: path) } catch {
        if error.errno == ENOENT { throw .notFound(path) }
        throw .io(error)
      }
      guard let locked = try? candidate.status() else { continue }
      if locked.st_ino == current.st_ino && locked.st_dev == current.st_dev {
        file = candidate
        return
      }
      // Replaced while we waited: closing `candidate` drops that lock.
    }
  }
}
