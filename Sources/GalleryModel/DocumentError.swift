import Foundation
import GallerySystem

/// Why a document could not be opened, saved or edited. Every case names the file and says why.
public enum DocumentError: Error, CustomStringConvertible {
  case notFound(String)
  case exists(String)
  case notAGallery(String, String)
  case corrupt(String, String)
  /// The model breaks rules (see `ModelValidation`): all of them, for `gallery check`.
  case invalid(String, [String])
  /// Damage before the last revision: the document opens read-only; edits refuse it.
  case damaged(String, String)
  case unsupportedFormat(Int)
  case itemNotFound(String)
  /// A document name that names no file ("", ".", "..", "/").
  case badName(String)
  case io(Error)
  /// A save that failed (a full disk): cut off again, the file as it was before it.
  case saveFailed(String, Error)

  public var description: String {
    switch self {
    case .notFound(let path): "\(path): no such gallery document"
    case .exists(let path): "\(path): already exists (refusing to overwrite it)"
    case .notAGallery(let path, let why): "\(path): not a gallery document: \(why)"
    case .corrupt(let path, let why): "\(path): the document is damaged: \(why)"
    case .invalid(let path, let problems):
      "\(path): the document is damaged: \(problems.first ?? "invalid")"
        + (problems.count > 1 ? " (and \(problems.count - 1) more: `gallery check` lists them)" : "")
    case .damaged(let path, let why):
      "\(path): the document is damaged (\(why)); it opens read-only, as far as it can be read. "
        + "Nothing was changed. `gallery check --fix` rescues what can be read into a new revision and keeps the damaged file beside it"
    case .unsupportedFormat(let version):
      "format version \(version) is newer than this gallery understands (\(GalleryModel.formatVersion)); upgrade gallery"
    case .itemNotFound(let reference): "no item \(reference) in the document"
    case .badName(let name): "\(ModelValidation.quoted(name)) is not a document name"
    case .io(let error): SystemErrorText.describe(error)
    case .saveFailed(let path, let error):
      "\(path): could not save (\(SystemErrorText.describe(error))); the document is as it was before"
    }
  }
}

extension DocumentError: GalleryError {}
extension ModelValidation.Failure: GalleryError {}
extension JSONReadError: GalleryError {}
