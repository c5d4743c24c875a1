import GalleryCommands

@main
enum GalleryMain {
  static func main() async { await GalleryCommand.runFromCommandLine() }
}
