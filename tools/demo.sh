#!/bin/sh
# Install what is missing, build cwsc, and compile the bundled example for this
# host: the exact bubblewrap argv for `--mode ask`, one token per line.
# build/ is the build tools/run_tests.sh uses (tools/setup_build.sh main).
set -eu
cd "$(dirname "$0")/.."
tools/install_deps.sh >&2
dir=$(tools/setup_build.sh main)
# cli/cwsc, not `cwsc`: libcwsc's shared and static libraries share that name.
meson compile -C "$dir" cli/cwsc >&2  # stdout is the argv alone
exec "$dir"/cli/cwsc compile examples/workspace.toml --target bwrap --mode ask -- sh -c 'echo hello from the sandbox'
