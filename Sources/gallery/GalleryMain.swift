import GalleryCommands

@main extension Gallery {}
