#!/usr/bin/env bash
# Opt-in end-to-end check of the built-in model (`make test-builtin`, after the same task in the
# real window: tests/tests/builtin_window.rs): tandem-cli, the 1.5B model
# from the data folder (`make model`), full_auto, a toy project whose `add` is wrong. Passes when
# calc.py ends with `return a + b` and its tests pass. The model is not required to end the
# loop by itself: the step cap stops it (see ../shared/research/local-llm.md). The second
# function is `mul`, not a `sub` that also says `return a - b`: with two identical lines the
# 1.5B model's edit_file never named enough context to be unique (first run, 2026-11-30).
set -euo pipefail
cli=${1:?usage: test-builtin.sh path/to/tandem-cli}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
proj="$work/calc"
mkdir -p "$proj"
cat > "$proj/calc.py" <<'PY'
def add(a, b):
    return a - b


def mul(a, b):
    return a * b
PY
cat > "$proj/test_calc.py" <<'PY'
import unittest
from calc import add, mul


class TestCalc(unittest.TestCase):
    def test_add(self):
        self.assertEqual(add(2, 3), 5)

    def test_mul(self):
        self.assertEqual(mul(2, 3), 6)


if __name__ == "__main__":
    unittest.main()
PY
# The model `make model` put in the data folder (before that folder is moved aside below).
data_dir=${TANDEM_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/tandem}
model=${TANDEM_MODEL_PATH:-$data_dir/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf}
export TANDEM_DATA_DIR="$work/data" TANDEM_CONFIG_DIR="$work/config" TANDEM_NO_KEYCHAIN=1
export TANDEM_LOG=${TANDEM_LOG:-builtin=info}
started=$(date +%s)
set +e
timeout 900 "$cli" run --project "$proj" --provider builtin --model-path "$model" \
  --mode full_auto --approve all --max-steps 8 \
  "read calc.py, make add return a + b, run the tests, finish" \
  2>&1 | tail -40
set -e
echo "test-builtin: the run took $(( $(date +%s) - started )) s"
grep -q "return a + b" "$proj/calc.py" || { echo "test-builtin: FAILED: add was not fixed"; cat "$proj/calc.py"; exit 1; }
(cd "$proj" && python3 -m unittest test_calc) || { echo "test-builtin: FAILED: the tests do not pass"; exit 1; }
echo "test-builtin: passed"
