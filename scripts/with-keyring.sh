#!/usr/bin/env bash
# Runs a command inside a private D-Bus session with an unlocked gnome-keyring, so the OS
# keychain (Secret Service) can be tested headless. Usage: scripts/with-keyring.sh CMD ARGS…
set -euo pipefail
if [ -z "${TANDEM_IN_KEYRING_SESSION:-}" ]; then
  export TANDEM_IN_KEYRING_SESSION=1
  exec dbus-run-session -- "$0" "$@"
fi
# A throwaway keyring home, unlocked with a throwaway password.
export HOME_KEYRING_DIR
HOME_KEYRING_DIR=$(mktemp -d)
export XDG_DATA_HOME="$HOME_KEYRING_DIR"
printf 'tandem-test' | gnome-keyring-daemon --unlock --components=secrets >/dev/null
status=0
"$@" || status=$?
rm -rf "$HOME_KEYRING_DIR"
exit "$status"
