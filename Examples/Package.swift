// swift-tools-version: 6.1
import PackageDescription

// Small programs that use GalleryKit as a library, as another package would: each does one
// thing the `gallery` command does. `scripts/run-examples` builds and runs them.
let package = Package(
  name: "GalleryKitExamples",
  dependencies: [
    .package(name: "Gallery", path: ".."),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
  ],
  targets: [
    .executableTarget(name: "create-gallery", dependencies: [.product(name: "GalleryKit", package: "Gallery")]),
    .executableTarget(name: "drop-images", dependencies: [.product(name: "GalleryKit", package: "Gallery")]),
    .executableTarget(name: "list-items", dependencies: [.product(name: "GalleryKit", package: "Gallery")]),
    .executableTarget(
      name: "watch-folder",
      dependencies: [
        .product(name: "GalleryKit", package: "Gallery"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ]),
  ]
)
