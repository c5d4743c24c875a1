import Foundation
import GallerySystem

extension DragPayload.Refusal: GalleryError {}
extension ImageRetry.Refusal: GalleryError {}
extension WatchConfigError: GalleryError {}
extension WebFailure: GalleryError {}
extension DropFailure: GalleryError {}
