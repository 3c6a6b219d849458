#!/usr/bin/env bash
# Set-up and entry point for Gobang on Debian 12. Installs what is missing, then:
#   ./dev.sh run    builds and starts the app
#   ./dev.sh test   runs the whole test suite (format, lint, documentation links,
#                   unit/integration/GUI tests under Xvfb, desktop-file validation)
#   ./dev.sh install  installs the app, its desktop file, metainfo and icon under $PREFIX
#                   (default ~/.local)
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  build-essential pkg-config curl ca-certificates libgtk-4-dev libadwaita-1-dev
  xvfb xauth xdotool desktop-file-utils appstream
)
# The oldest Rust that builds the crate (Cargo.toml's rust-version); Debian 12's own rustc is older.
MIN_RUST=1.85

install_missing() {
  local missing=()
  for pkg in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done
  if [ "${#missing[@]}" -gt 0 ]; then
    echo "Installing: ${missing[*]}"
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -q
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
  fi
  install_rust
  cargo fetch --locked -q
}

# True when the rustc on the PATH is at least $MIN_RUST.
rust_is_recent() {
  local version
  version=$(rustc --version 2>/dev/null | awk '{print $2}') || return 1
  [ -n "$version" ] && [ "$(printf '%s\n%s\n' "$MIN_RUST" "$version" | sort -V | head -n1)" = "$MIN_RUST" ]
}

# Installs a stable toolchain with rustup (for this user) when cargo is missing or too old, and
# makes sure rustfmt and clippy are there.
install_rust() {
  [ -f "$HOME/.cargo/env" ] && . "$HOME/.cargo/env"
  if ! command -v cargo >/dev/null 2>&1 || ! rust_is_recent; then
    echo "Installing a stable Rust toolchain with rustup (needs $MIN_RUST or newer)"
    curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs |
      sh -s -- -y --profile minimal --default-toolchain stable --component rustfmt,clippy
    . "$HOME/.cargo/env"
  fi
  if command -v rustup >/dev/null 2>&1; then
    rustup component add rustfmt clippy >/dev/null 2>&1 || true
  fi
}

run_tests() {
  cargo fmt --check
  cargo clippy --locked --all-targets -- -D warnings
  cargo clippy --locked --no-default-features --all-targets -- -D warnings
  RUSTDOCFLAGS="-D warnings" cargo doc --locked --no-deps
  if [ -f data/org.gobang.Gobang.desktop ]; then
    desktop-file-validate data/org.gobang.Gobang.desktop
  fi
  if [ -f data/org.gobang.Gobang.metainfo.xml ]; then
    appstreamcli validate --no-net data/org.gobang.Gobang.metainfo.xml
  fi
  local log
  log=$(mktemp)
  set +e
  GSK_RENDERER=cairo xvfb-run -a -s "-screen 0 1280x900x24" \
    cargo test --locked --all-targets 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  set -e
  # One closing line for the whole run, summed over every test binary.
  awk '/^test result:/ { passed += $4; failed += $6 }
       END { printf "all tests: %d passed, %d failed\n", passed, failed }' "$log"
  rm -f "$log"
  return "$status"
}

case "${1:-}" in
  run)
    install_missing
    shift
    cargo run --locked --release --bin gobang -- "$@"
    ;;
  test)
    install_missing
    run_tests
    ;;
  install)
    install_missing
    prefix="${PREFIX:-$HOME/.local}"
    cargo build --locked --release --bin gobang
    install -Dm755 target/release/gobang "$prefix/bin/gobang"
    install -Dm644 data/org.gobang.Gobang.desktop "$prefix/share/applications/org.gobang.Gobang.desktop"
    install -Dm644 data/org.gobang.Gobang.metainfo.xml "$prefix/share/metainfo/org.gobang.Gobang.metainfo.xml"
    install -Dm644 data/icons/hicolor/scalable/apps/org.gobang.Gobang.svg \
      "$prefix/share/icons/hicolor/scalable/apps/org.gobang.Gobang.svg"
    echo "Installed gobang under $prefix"
    ;;
  *)
    echo "usage: ./dev.sh run|test|install" >&2
    exit 2
    ;;
esac
