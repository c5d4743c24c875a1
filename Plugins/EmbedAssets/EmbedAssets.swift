import Foundation
import PackagePlugin

/// Embeds the files of a target's `Assets/` folder (the browser view's HTML, CSS and
/// JavaScript) in its module as Swift string literals, so that the binary serves them
/// wherever it is installed, with no resource bundle beside it and no build step but
/// `swift build`.
@main
struct EmbedAssets: BuildToolPlugin {
  func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
    let folder = target.directoryURL.appending(path: "Assets")
    let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { !$0.hasPrefix(".") }.sorted()
    let inputs = names.map { folder.appending(path: $0) }
    let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedAssets.swift")
    return [
      .buildCommand(
        displayName: "Embedding \(names.count) assets of \(target.name)",
        executable: try context.tool(named: "embed-assets").url,
        arguments: [output.path] + inputs.map(\.path),
        inputFiles: inputs,
        outputFiles: [output])
    ]
  }
}
