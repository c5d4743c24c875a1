# Gallery: `make demo` and `make test` set everything up on a fresh Debian 12 machine
# (run as root, or with sudo available) that has a Swift 6 toolchain on PATH.

PREFIX ?= /usr/local
# The project machines keep the toolchain in /opt/swift.
export PATH := $(PATH):/opt/swift/usr/bin
DESTDIR ?=
SWIFT ?= swift

# Libraries Gallery links, the tools its tests and benchmarks compare against, and the real
# photographs (mate-backgrounds) and colour profiles (icc-profiles-free) its tests use;
# libraw (camera RAW files) is opened with dlopen, its headers are needed to build; the
# tests write EXIF blocks with exiftool.
DEBIAN_PACKAGES = pkg-config libvips-dev libvips-tools libarchive-dev libarchive-tools libssl-dev libjpeg62-turbo-dev zlib1g-dev \
	libinotifytools0-dev inotify-tools tar rsync python3 python3-jsonschema \
	desktop-file-utils libxml2-utils shared-mime-info libglib2.0-bin mandoc man-db curl ca-certificates \
	xvfb xclip openssl libx11-dev time systemd tmux fish zsh bubblewrap fonts-dejavu-core \
	tumbler dbus binutils lintian dpkg-dev mate-backgrounds icc-profiles-free libraw-dev libraw20 \
	libimage-exiftool-perl
BENCH_PACKAGES = imagemagick hyperfine time inotify-tools wrk valgrind binutils jq curl jpeginfo
# The browser view's tests and benchmarks: Debian's chromium, driven by Playwright for Python
# from a virtual environment (never `playwright install`: it would download a browser).
BROWSER_PACKAGES = chromium fonts-dejavu-core python3-venv
VENV = .venv-browser

DEMO = demo.gallery

.PHONY: setup setup-bench setup-browser browser-test build release demo test lint format fuzz fuzz-smoke bench docs examples clean install install-binary install-files deb \
	uninstall refresh-databases

setup:
	@./scripts/install-debian-packages $(DEBIAN_PACKAGES)

setup-bench: setup
	@./scripts/install-debian-packages $(BENCH_PACKAGES)

setup-browser: setup
	@./scripts/install-debian-packages $(BROWSER_PACKAGES)
	@[ -x $(VENV)/bin/python ] || python3 -m venv $(VENV)
	@$(VENV)/bin/pip install -q --disable-pip-version-check -r Tests/Browser/requirements.txt

# The browser view in a real chromium, against the debug build's binary.
browser-test: setup-browser
	$(SWIFT) build --product gallery
	GALLERY=$(CURDIR)/.build/debug/gallery $(VENV)/bin/python -m pytest -p no:cacheprovider Tests/Browser

build: setup
	$(SWIFT) build

release: setup
	$(SWIFT) build -c release

# Makes a gallery from Samples/ and shows it.
demo: release
	@rm -f $(DEMO)
	.build/release/gallery new $(DEMO) --title "Samples"
	.build/release/gallery drop $(DEMO) Samples/*.jpg Samples/*.heic Samples/*.tif Samples/*.png Samples/*.webp Samples/*.gif
	.build/release/gallery show $(DEMO)
	.build/release/gallery info $(DEMO)
	@echo "bsdtar lists it:" && bsdtar -tf $(DEMO)
	@echo "see it in the web browser: .build/release/gallery open $(DEMO)"

test: setup lint
	$(SWIFT) build
	$(SWIFT) build --product generate-manual
	$(MAKE) install-binary
	SWIFT=$(SWIFT) scripts/run-swift-tests
	$(MAKE) examples
	$(MAKE) browser-test
	$(MAKE) fuzz-smoke

# GalleryKit used as a library by the Examples/ package: built, and its programs run on Samples/.
examples: setup
	scripts/run-examples

# One formatter, its configuration committed (.swift-format); `make format` applies it.
lint:
	$(SWIFT) format lint --strict --recursive Sources Tests Plugins Package.swift Examples/Package.swift Examples/Sources
	scripts/check-layers

format:
	$(SWIFT) format format --in-place --recursive Sources Tests Plugins Package.swift Examples/Package.swift Examples/Sources

# The fuzz targets for FUZZ_SECONDS (default 1800) each; findings land in Tests/Fuzz/crashes.
fuzz: setup
	scripts/fuzz

# A fixed number of fuzz inputs per target, so a CI run always has the same length.
fuzz-smoke: setup
	FUZZ_RUNS=$${FUZZ_RUNS:-20000} scripts/fuzz

bench: setup-bench setup-browser
	bench/run
	bench/web
	bench/watch
	bench/view
	bench/format
	bench/json

# Regenerates the committed man pages and shell completions from the command definitions.
docs: release
	scripts/generate-docs .build/release/gallery

# Installs the binary, man pages, completions, desktop files and the user unit. Installs no
# system package: `make setup` (or `make test`, `make demo`) does that.
install: install-binary install-files

# The installed binary links the Swift standard library statically, so that it runs where no
# Swift toolchain is (a thumbnailer in GNOME's bubblewrap sandbox sees only /usr); it is
# stripped of debug information and symbols, and needs no RUNPATH (it loads nothing from
# beside itself).
STATIC_BUILD = .build/static
install-binary:
	$(SWIFT) build -c release --static-swift-stdlib --disable-local-rpath -Xlinker --strip-all \
	  --build-path $(STATIC_BUILD) --product gallery

# Where zsh finds completions: Debian's zsh reads /usr/share/zsh/vendor-completions (as
# Debian's own packages install them) and /usr/local/share/zsh/site-functions, not
# /usr/share/zsh/site-functions.
ZSH_COMPLETIONS = $(if $(filter /usr,$(PREFIX)),/usr/share/zsh/vendor-completions,$(PREFIX)/share/zsh/site-functions)

# A Debian package of the installed binary and files: gallery_VERSION-1_ARCH.deb here
# (lintian: `lintian gallery_*.deb`; its overrides say why, in share/debian/).
deb: install-binary
	scripts/make-deb $(STATIC_BUILD)/release/gallery

# Installs an already built binary (BINARY) and the data files; `make install` builds first.
BINARY ?= $(STATIC_BUILD)/release/gallery
MAN_PAGES = $(notdir $(wildcard man/*.1))
install-files:
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(BINARY) $(DESTDIR)$(PREFIX)/bin/gallery
	install -m 644 man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -D -m 644 completions/gallery.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gallery
	install -D -m 644 completions/_gallery $(DESTDIR)$(ZSH_COMPLETIONS)/_gallery
	install -D -m 644 completions/gallery.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gallery.fish
	install -D -m 644 share/mime/packages/gallery.xml $(DESTDIR)$(PREFIX)/share/mime/packages/gallery.xml
	install -D -m 644 share/applications/gallery.desktop $(DESTDIR)$(PREFIX)/share/applications/gallery.desktop
	install -D -m 644 share/thumbnailers/gallery.thumbnailer $(DESTDIR)$(PREFIX)/share/thumbnailers/gallery.thumbnailer
	install -D -m 644 Samples/systemd/gallery-watch@.service $(DESTDIR)$(PREFIX)/lib/systemd/user/gallery-watch@.service
	install -D -m 644 LICENSE $(DESTDIR)$(PREFIX)/share/doc/gallery/LICENSE
	@$(MAKE) --no-print-directory refresh-databases

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/gallery $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(MAN_PAGES))
	rm -f $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gallery
	rm -f $(DESTDIR)$(ZSH_COMPLETIONS)/_gallery
	rm -f $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gallery.fish
	rm -f $(DESTDIR)$(PREFIX)/share/mime/packages/gallery.xml
	rm -f $(DESTDIR)$(PREFIX)/share/applications/gallery.desktop
	rm -f $(DESTDIR)$(PREFIX)/share/thumbnailers/gallery.thumbnailer
	rm -f $(DESTDIR)$(PREFIX)/lib/systemd/user/gallery-watch@.service
	rm -f $(DESTDIR)$(PREFIX)/share/doc/gallery/LICENSE
	rmdir $(DESTDIR)$(PREFIX)/share/doc/gallery 2>/dev/null || true
	@$(MAKE) --no-print-directory refresh-databases

# The MIME and desktop databases, for a real install only (a DESTDIR is staged for a package,
# whose own scripts refresh them).
refresh-databases:
	@if [ -z "$(DESTDIR)" ]; then \
	  if command -v update-mime-database >/dev/null; then update-mime-database $(PREFIX)/share/mime; fi; \
	  if command -v update-desktop-database >/dev/null; then update-desktop-database -q $(PREFIX)/share/applications; fi; \
	fi

clean:
	rm -rf .build $(DEMO) $(VENV)
