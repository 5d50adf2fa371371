#!/bin/sh
# Builds workbench in release mode and installs it for the current user: the binary, its man
# page and completion scripts for bash, zsh and fish, under PREFIX (default ~/.local).
#
#   scripts/install.sh                  # ~/.local/bin/workbench, man page, completions
#   PREFIX=/opt/workbench scripts/install.sh
set -eu

prefix="${PREFIX:-$HOME/.local}"
cd "$(dirname "$0")/.."

# The Swift runtime is linked into the binary (--static-swift-stdlib): a script calls
# `workbench -c` many times, and a binary that does not load twenty shared libraries first
# starts in about the time of a hello-world (docs/performance.md). It is larger (about 33 MB
# instead of 12); `swift run workbench` keeps the dynamic build for development.
echo "building workbench (release, Swift runtime linked in)..."
swift build -c release --product workbench --static-swift-stdlib
bin="$(swift build -c release --show-bin-path)/workbench"

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
