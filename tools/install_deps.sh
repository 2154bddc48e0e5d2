#!/bin/sh
# Install the Debian 12 packages cwsc needs to build and test, when missing.
# Runs as root (or through sudo when available). Idempotent.
set -eu
pkgs="meson ninja-build pkg-config g++ git python3 antlr4 libantlr4-runtime-dev libyaml-cpp-dev
nlohmann-json3-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev libtomlplusplus-dev
libcurl4-openssl-dev libseccomp-dev bubblewrap sudo ca-certificates time bsdutils libc6-dev
groff-base zsh fish rustc cargo
clang libclang-rt-14-dev llvm-14 gcovr ccache clang-format python3-jsonschema acl"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" = 0 ]; then as_root=""; else as_root="sudo"; fi
echo "installing:$missing" >&2
$as_root apt-get update -q
DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y -q --no-install-recommends $missing
