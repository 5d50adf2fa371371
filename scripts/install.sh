#!/bin/sh
# Builds workbench in release mode and installs it for the current user: the binary, its man
# page and completion scripts for bash, zsh and fish, under PREFIX (default ~/.local).
#
#   scripts/install.sh                  # ~/.local/bin/workbench, man page, completions
#   PREFIX=/opt/workbench scripts/install.sh
set -eu

prefix="${PREFIX:-$HOME/.local}"
cd "$(dirname "$0")/.."

# The Swift runtime and the C libraries (SQLite, libyaml, readline) are linked into the binary
# (--static-swift-stdlib, WORKBENCH_STATIC_C_LIBRARIES=1 in Package.swift): a script calls
# `workbench -c` many times, and a binary that does not load and bind two dozen shared
# libraries first starts in about the time of a hello-world (docs/performance.md). It is larger
# (about 35 MB instead of 12); `swift run workbench` keeps the dynamic build for development.
# It needs no libraries beside it, so it has no $ORIGIN search path (--disable-local-rpath):
# with one, the dynamic loader looked for libc and libstdc++ in 22 places in the binary's
# folder at every start. The build has a folder of its own, so it does not rebuild the
# development build's products.
#
# It is linked by the toolchain's lld with its relative relocations packed (DT_RELR, glibc 2.36
# and later), which the loader applies in a fraction of the instructions, and without exporting
# its own symbols (SwiftPM exports 4,300 of them for tests that link an executable, and every
# start's dladdr and symbol lookups walked them). It stays a position-independent executable:
# built without PIE it starts 0.3 ms sooner (the loader writes no pointers into 100 pages of
# its data), but its code, SQLite's and libyaml's with it, would sit at one known address for
# anyone crafting a hostile file. `workbench-bench startup` measures it; build hello-baseline
# with the same flags to compare like with like (docs/performance.md).
#
# The compiler is told to reach a concrete type's metadata through its accessor function, not by
# its mangled name (-disable-concrete-type-metadata-mangled-name-accessors): by name, the
# runtime demangled each generic type the first time it was used and, for a type like
# `[String: DocumentEntry]`, scanned the binary's 3,800 conformance records to check
# `String: Hashable` again; the one-shot query spent 0.7 M of its 4.6 M instructions there. The
# binary is 90 KB larger.
release_flags="-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic"
release_flags="$release_flags -Xswiftc -Xfrontend -Xswiftc -disable-concrete-type-metadata-mangled-name-accessors"
echo "building workbench (release, Swift runtime and C libraries linked in)..."
scratch=.build/install
# shellcheck disable=SC2086 # the flags are words
WORKBENCH_STATIC_C_LIBRARIES=1 swift build -c release --product workbench --static-swift-stdlib --disable-local-rpath \
  --scratch-path "$scratch" $release_flags
# shellcheck disable=SC2086
bin="$(WORKBENCH_STATIC_C_LIBRARIES=1 swift build -c release --show-bin-path --disable-local-rpath \
  --scratch-path "$scratch" $release_flags)/workbench"

install -d "$prefix/bin" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
  "$prefix/share/zsh/site-functions" "$prefix/share/fish/vendor_completions.d"
install -m 755 "$bin" "$prefix/bin/workbench"
"$bin" man > "$prefix/share/man/man1/workbench.1"
"$bin" completions bash > "$prefix/share/bash-completion/completions/workbench"
"$bin" completions zsh > "$prefix/share/zsh/site-functions/_workbench"
"$bin" completions fish > "$prefix/share/fish/vendor_completions.d/workbench.fish"

echo "installed $prefix/bin/workbench, its man page and completions for bash, zsh and fish"
case ":$PATH:" in
  *":$prefix/bin:"*) ;;
  *) echo "add $prefix/bin to PATH to run it as \`workbench\` (for example in ~/.profile: export PATH=\"$prefix/bin:\$PATH\")" ;;
esac
