#!/bin/sh
# Install what is missing, build cwsc, and compile the bundled example for this
# host: the exact bubblewrap argv for `--mode ask`, one token per line.
set -eu
cd "$(dirname "$0")/.."
tools/install_deps.sh
if [ ! -f build/build.ninja ]; then
  meson setup build --wrap-mode=nodownload -Dtests=enabled -Dbench=enabled
fi
meson compile -C build cwsc
exec build/cli/cwsc compile examples/workspace.toml --target bwrap --mode ask -- sh -c 'echo hello from the sandbox'
