import CGObject
import Foundation

/// The desktop's recent files (`$XDG_DATA_HOME/recently-used.xbel`), which GTK's file
/// choosers, GNOME Files and the shell's search list: written with GLib's `GBookmarkFile`,
/// the code GTK writes it with. Best effort: a file that does not read is left as it is.
package enum DesktopRecentFiles {
  package static var file: String { XDGDirectory.data.path + "/recently-used.xbel" }

  /// Adds or refreshes `uri` as used now by `application`, which opens it with `exec`
  /// (`%u` standing for the URI). The corresponding C functions are
  /// `g_bookmark_file_add_application` and `g_bookmark_file_set_mime_type`.
  @discardableResult
  package static func note(
    uri: String, mimeType: String, application: String, exec: String, in file: String = file
  ) -> Bool {
    edit(file) { bookmarks in
      g_bookmark_file_set_mime_type(bookmarks, uri, mimeType)
      g_bookmark_file_add_application(bookmarks, uri, application, exec)
      return true
    }
  }

  /// Takes `uri` out (a document deleted or renamed). The corresponding C function is
  /// `g_bookmark_file_remove_item`.
  @discardableResult
  package static func forget(uri: String, in file: String = file) -> Bool {
    edit(file) { bookmarks in g_bookmark_file_remove_item(bookmarks, uri, nil) != 0 }
  }

  /// Loads the file (a missing one is empty), lets `change` change it, and writes it back
  /// when it changed something. A file that does not load is never written over.
  private static func edit(_ file: String, _ change: (OpaquePointer) -> Bool) -> Bool {
    guard let bookmarks = g_bookmark_file_new() else { return false }
    defer { g_bookmark_file_free(bookmarks) }
    var error: UnsafeMutablePointer<GError>?
    defer { if error != nil { g_error_free(error) } }
    if FileSystem.linkStatus(of: file) != nil {
      guard PathBytes.withCString(file, { g_bookmark_file_load_from_file(bookmarks, $0, &error) }) != 0 else {
        return false
      }
    } else {
      try? OutputFile.makeFolder((file as NSString).deletingLastPathComponent)
    }
    guard change(bookmarks) else { return false }
    return PathBytes.withCString(file) { g_bookmark_file_to_file(bookmarks, $0, &error) } != 0
  }
}
