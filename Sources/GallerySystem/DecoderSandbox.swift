import CGallerySystem

/// The confinement of the process that decodes formats whose libvips loaders are not
/// trusted in ours (see `SandboxedDecoder` in GalleryImaging).
package enum DecoderSandbox {
  package struct Failure: Error, CustomStringConvertible {
    package var description: String
    package init(description: String) { self.description = description }
  }

  /// Confines this process for good: `memoryBytes` of address space, `cpuSeconds` of CPU,
  /// files written only through the descriptors it has and at most `outputBytes` each, no
  /// network, no program run, no file changed (seccomp, and Landlock where the kernel has
  /// it), no signal to another process. Returns whether Landlock took part.
  @discardableResult
  package static func enter(memoryBytes: Int, cpuSeconds: Int, outputBytes: Int) throws(Failure) -> Bool {
    var landlock: Int32 = 0
    let status = CGallerySystem_enter_decoder_sandbox(
      UInt64(memoryBytes), Int32(cpuSeconds), UInt64(outputBytes), &landlock)
    guard status == 0 else { throw Failure(description: "cannot enter the decoder's sandbox: \(FileSystem.errorText(status))") }
    return landlock == 1
  }
}
