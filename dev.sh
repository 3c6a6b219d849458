#!/usr/bin/env bash
# Set-up and entry point for Gobang on Debian 12. Installs what is missing, then:
#   ./dev.sh run    builds and starts the app
#   ./dev.sh test   runs the whole test suite (format, lint, unit/integration/GUI tests under Xvfb,
#                   desktop-file validation)
#   ./dev.sh install  installs the app, its desktop file, metainfo and icon under $PREFIX
#                   (default ~/.local)
set -euo pipefail
cd "$(dirname "$0")"

APT_PACKAGES=(
  build-essential pkg-config libgtk-4-dev libadwaita-1-dev
  xvfb xauth xdotool desktop-file-utils appstream
)

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
  if ! command -v cargo >/dev/null 2>&1; then
    echo "cargo was not found: install a stable Rust toolchain (1.85 or newer) first." >&2
    exit 1
  fi
  cargo fetch --locked -q
}

run_tests() {
  cargo fmt --check
  cargo clippy --locked --all-targets -- -D warnings
  cargo clippy --locked --no-default-features --all-targets -- -D warnings
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
