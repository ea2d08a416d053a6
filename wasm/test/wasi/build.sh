#!/bin/sh
# Rebuilds the WASI test modules (Debian: clang, lld, wasi-libc, libclang-rt-14-dev-wasm32, wabt).
set -eu
cd "$(dirname "$0")"
for c in *.c; do clang --target=wasm32-wasi --sysroot=/usr -O2 -Wl,--strip-all -o "${c%.c}.wasm" "$c"; done
for w in *.wat; do wat2wasm "$w" -o "${w%.wat}.wasm"; done
