#!/usr/bin/env bash
# The Python package (python/): builds its wheel with maturin in a virtual
# environment made here from nothing, installs the wheel in it, and runs the
# pytest suite (the binding; FastAPI apps with the official ag-ui-protocol
# model and encoder behind the guard, under the pytest plugin and the probe;
# sse-starlette's EventSourceResponse; pydantic-ai's AGUIAdapter, a real
# adapter, with a FunctionModel). Run after `cargo test`, whose CLI
# binary the suite compares the JSON document with. A run that collects no
# test fails (pytest exits 5), and so does a skipped test (conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
venv=target/ci-python
wheels=target/ci-wheels

rm -rf "$venv" "$wheels"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.9.4,<2" "pytest>=7" "fastapi>=0.100" "httpx>=0.24" "uvicorn>=0.20" "ag-ui-protocol==1.0.0" \
  "sse-starlette==3.7.1" "pydantic-ai-slim[ag-ui]==2.68.0"

# The binding alone, in release: its own workspace and lock file, so the
# root crate's builds never include PyO3.
"$venv/bin/maturin" build --release --locked --manifest-path python/Cargo.toml --out "$wheels"
wheel=$(ls "$wheels"/agui_lint-*.whl)
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel"

# From the root, with the venv's pytest (not `python -m`, which would put
# the working directory on sys.path): the installed wheel is what is tested.
AGUI_LINT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/agui-lint" "$venv/bin/pytest" -p no:cacheprovider python/tests
