#!/bin/sh
# Builds workbench in release mode and installs it for the current user: the binary, its man
# page and completion scripts for bash, zsh and fish, under PREFIX (default ~/.local).
#
#   scripts/install.sh                  # ~/.local/bin/workbench, man page, completions
#   PREFIX=/opt/workbench scripts/install.sh
set -eu

prefix="${PREFIX:-$HOME/.local}"
cd "$(dirname "$0")/.."

echo "building workbench (release)..."
swift build -c release --product workbench
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
