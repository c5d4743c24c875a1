// swift-tools-version: 6.1
import PackageDescription

let package = Package(
  name: "Gallery",
  // Linux only (Debian 12 and later): the system layer calls inotify, /proc and glibc, so no
  // Apple platform is claimed.
  products: [
    .executable(name: "gallery", targets: ["gallery"]),
    // The library: documents, drops, drop folders, history (see GalleryKit.docc, and the
    // programs of Examples/).
    .library(name: "GalleryKit", targets: ["GalleryKit"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
    .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
  ],
  targets: [
    // Thin system modules: C names stay inside GallerySystem.
    .systemLibrary(
      name: "CArchive", pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"])]),
    .systemLibrary(
      name: "CGObject", pkgConfig: "gobject-2.0",
      providers: [.apt(["libglib2.0-dev"])]),
    // libvips is loaded with dlopen on first use (see Sources/CVips/include/CVips.h); this
    // target only needs its headers (libvips-dev) and GLib's include paths.
    .target(
      name: "CVips",
      dependencies: ["CGObject"]),
    // The X11 clipboard owner; libX11 is loaded with dlopen, this needs only its headers.
    .target(name: "CX11Selection"),
    // Camera RAW files; libraw is loaded with dlopen by the sandboxed decoder alone, this
    // needs only its headers (libraw-dev).
    .target(name: "CRaw"),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    .systemLibrary(
      name: "CZlib", pkgConfig: "zlib",
      providers: [.apt(["zlib1g-dev"])]),
    // libc calls Swift cannot make directly (variadic, or _GNU_SOURCE only).
    .target(name: "CGallerySystem"),
    // Covers of JPEG thumbnails with libjpeg alone (libjpeg62-turbo-dev): a save that
    // changes the cover need not load libvips and its hundred libraries.
    .target(
      name: "CJPEG",
      linkerSettings: [.linkedLibrary("jpeg")]),
    .systemLibrary(
      name: "CInotifyTools",
      providers: [.apt(["libinotifytools0-dev"])]),
    // The system layer: every C library and libc call, each behind a small Swift function
    // or type that owns its handle or its process-global state.
    .target(
      name: "GallerySystem",
      dependencies: [
        "CArchive", "CVips", "CCrypto", "CInotifyTools", "CX11Selection", "CGallerySystem", "CJPEG", "CRaw", "CZlib",
        .product(name: "NIOPosix", package: "swift-nio"),
      ]),
    // The document model: items, their rules, their one JSON codec. No I/O but a process's
    // liveness (GallerySystem's process table).
    .target(
      name: "GalleryModel",
      dependencies: ["GallerySystem"]),
    // Images: decoding, thumbnails, covers, with libvips through GallerySystem.
    .target(
      name: "GalleryImaging",
      dependencies: ["GallerySystem", "GalleryModel"]),
    // The `.gallery` file: reading, appending revisions under the lock, compaction, damage,
    // check and rescue, recent documents, the Trash, sheets.
    .target(
      name: "GalleryDocument",
      dependencies: ["GallerySystem", "GalleryModel", "GalleryImaging"]),
    .target(
      name: "GalleryKit",
      dependencies: [
        "GallerySystem", "GalleryModel", "GalleryImaging", "GalleryDocument",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "NIOSSL", package: "swift-nio-ssl"),
        .product(name: "NIOFoundationCompat", package: "swift-nio"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ]),
    // The browser view's rules, with no server: who may ask, what a page may send. Apart so
    // that the fuzz build (every target with -sanitize=fuzzer) needs no build plugin.
    .target(
      name: "GalleryViewRules",
      dependencies: ["GalleryModel"]),
    // The browser view (`gallery open`, `gallery serve`): an HTTP server on Hummingbird, the
    // page's files (Assets/) embedded in the binary by the EmbedAssets plugin.
    .target(
      name: "GalleryView",
      dependencies: [
        "GalleryViewRules", "GalleryKit", "GallerySystem", "GalleryModel", "GalleryImaging", "GalleryDocument",
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdCore", package: "hummingbird"),
        .product(name: "AsyncHTTPClient", package: "async-http-client"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      exclude: ["Assets"],
      plugins: ["EmbedAssets"]),
    .executableTarget(name: "embed-assets"),
    .plugin(name: "EmbedAssets", capability: .buildTool(), dependencies: ["embed-assets"]),
    .target(
      name: "GalleryCommands",
      dependencies: [
        "GalleryView", "GalleryKit", "GallerySystem", "GalleryModel", "GalleryImaging", "GalleryDocument",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
      ]),
    .executableTarget(
      name: "gallery",
      dependencies: ["GalleryCommands"]),
    // Fuzz targets of the readers of untrusted input (`make fuzz`); a plain build makes a
    // replayer of the same targets, which the tests run over the committed corpus.
    .executableTarget(
      name: "gallery-fuzz",
      dependencies: [
        "GalleryKit", "GalleryViewRules", "GallerySystem", "GalleryModel", "GalleryImaging", "GalleryDocument",
      ]),
    // The model's hand-written codec against Codable, on real checkpoints (`bench/json`).
    .executableTarget(
      name: "json-bench",
      dependencies: ["GalleryModel", "GalleryDocument"]),
    // What the tests need to make real images with libvips; never linked into `gallery`.
    .target(name: "CVipsFixture", dependencies: ["CGObject"]),
    .target(
      name: "GalleryTestSupport",
      dependencies: ["GalleryKit", "GalleryImaging", "GalleryDocument", "CVipsFixture"]),
    .testTarget(
      name: "GalleryTests",
      dependencies: [
        "GalleryKit", "GallerySystem", "GalleryModel", "GalleryImaging", "GalleryDocument", "GalleryCommands",
        "GalleryView", "GalleryViewRules", "GalleryTestSupport", "gallery",
        "gallery-fuzz",
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
      ],
      // Format-1 documents made by the previous release, opened and upgraded by the tests.
      exclude: ["Fixtures"]),
  ]
)
