// What a program that imports GalleryKit uses besides it: the model (items, their states,
// the settings), documents (edits, history, errors), blocking work off the caller's
// threads, and where the sandboxed decoder runs from. The types a program names are
// re-exported one by one too, so that GalleryKit's documentation shows them.
@_exported import GalleryDocument
@_exported import GalleryModel

@_exported import struct GalleryDocument.DocumentEdit
@_exported import enum GalleryDocument.DocumentHistory
@_exported import class GalleryDocument.GalleryDocument
@_exported import enum GalleryImaging.SandboxedDecoder
@_exported import enum GalleryModel.DocumentError
@_exported import struct GalleryModel.GalleryModel
@_exported import struct GalleryModel.Item
@_exported import enum GalleryModel.ItemQuery
@_exported import struct GalleryModel.JournalRecord
@_exported import struct GalleryModel.MetadataEdit
@_exported import struct GalleryModel.TrashedItem
@_exported import enum GallerySystem.BlockingWork
@_exported import protocol GallerySystem.GalleryError
