#!/usr/bin/env bash
# Checks a built .deb: the app and its sandbox helper are both installed, side by side, as
# the app looks for the helper beside its own program (sandbox::probe).
set -euo pipefail
deb="${1:?usage: check-deb.sh FILE.deb}"
listing="$(dpkg-deb -c "$deb")"
for bin in usr/bin/tandem usr/bin/tandem-sandbox; do
  if ! grep -qE "[[:space:]](\./)?${bin}\$" <<<"$listing"; then
    echo "check-deb: $deb does not install /$bin" >&2
    exit 1
  fi
done
echo "check-deb: $deb installs /usr/bin/tandem and /usr/bin/tandem-sandbox"
