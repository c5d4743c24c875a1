// What a program that imports GalleryKit uses besides it: the model (items, their states,
// the settings), documents (edits, history, errors) and blocking work off the caller's
// threads.
@_exported import GalleryDocument
@_exported import GalleryModel

@_exported import enum GallerySystem.BlockingWork
@_exported import protocol GallerySystem.GalleryError
@_exported import struct Logging.Logger
