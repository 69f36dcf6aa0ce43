#!/usr/bin/env bash
# The Python package (python/): builds its wheel with maturin in a virtual
# environment made here from nothing, installs the wheel in it, and runs the
# pytest suite (the binding; FastAPI apps with the official ag-ui-protocol
# model and encoder behind the guard, under the pytest plugin and the probe;
# sse-starlette's EventSourceResponse; pydantic-ai's AGUIAdapter, a real
# adapter, with a FunctionModel; ag-ui-langgraph over a scripted LangGraph
# graph; the conformance kit against all three in process, and against
# ag-ui-strands and ag-ui-adk with scripted models (the same pins as
# tests/data/frameworks/requirements.txt, one environment); the Dask recipe
# on a local cluster of two workers). Run after `cargo test`, whose CLI
# binary the suite compares the JSON document with. Then the kit against
# agent-framework-ag-ui, whose pin of ag-ui-protocol<0.2 needs an
# environment of its own (python/tests-agent-framework; ~10 s to install). A run that collects no
# test fails (pytest exits 5), and so does a skipped test (conftest.py).
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
venv=target/ci-python
wheels=target/ci-wheels

rm -rf "$venv" "$wheels"
"$python" -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
  "maturin>=1.9.4,<2" "ziglang>=0.13" "auditwheel>=6" "pytest>=7" "fastapi>=0.100" "httpx>=0.24" "uvicorn>=0.20" "ag-ui-protocol==1.0.0" \
  "sse-starlette==3.7.1" "pydantic-ai-slim[ag-ui]==2.68.0" \
  "ag-ui-langgraph==0.0.47" "langgraph==1.2.24" "langchain-core==1.8.3" "langchain==1.5.2" "dask[distributed]==2026.8.0" \
  "ag_ui_strands==1.0.2" "strands-agents==1.62.0" "ag_ui_adk==0.11.0" "google-adk==2.13.0" "google-genai==2.34.0"

# The binding alone, in release: its own workspace and lock file, so the
# root crate's builds never include PyO3. Linked through zig against
# glibc 2.17, as the release's wheels are, so the wheel is manylinux2014
# (maturin finds zig as the venv's `python -m ziglang`). The cargo target
# directory is the one the Node addon's build and .ci/install-test.sh use
# too: the crates the bindings share are compiled once.
bindings_target="${AGUI_LINT_BINDINGS_TARGET:-$PWD/target/bindings}"
CARGO_TARGET_DIR="$bindings_target" PATH="$PWD/$venv/bin:$PATH" "$venv/bin/maturin" build --release --locked --zig \
  --compatibility manylinux2014 --manifest-path python/Cargo.toml --out "$wheels"
wheel=$(ls "$wheels"/agui_lint-*.whl)
case "$wheel" in
  *-cp39-abi3-manylinux2014_*) ;;
  *) echo "python-test: the wheel is not abi3 manylinux2014: $wheel" >&2; exit 1 ;;
esac
# auditwheel reads the symbols the library links: none may need a glibc
# newer than manylinux2014's 2.17.
"$venv/bin/auditwheel" show "$wheel" | tr -s ' \n' ' ' | grep -q 'consistent with the following platform tag: "manylinux_2_17_' || {
  "$venv/bin/auditwheel" show "$wheel" >&2
  echo "python-test: $wheel needs more than manylinux2014" >&2
  exit 1
}
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps "$wheel"

# The source distribution: the binding, the root crate as published (its
# code and schemas, not the test corpus), the package's own README.
"$venv/bin/maturin" sdist --manifest-path python/Cargo.toml --out "$wheels" >/dev/null
sdist=$(ls "$wheels"/agui_lint-*.tar.gz)
tar -tzf "$sdist" >"$wheels/sdist.txt"
for member in pyproject.toml README.md agui_lint/asgi.py python/src/lib.rs src/lib.rs LICENSE-MIT; do
  grep -qx "agui_lint-[^/]*/$member" "$wheels/sdist.txt" || {
    echo "python-test: the sdist lacks $member" >&2
    exit 1
  }
done
if grep -q '/fixtures/\|/tests/upstream/' "$wheels/sdist.txt"; then
  echo "python-test: the sdist carries the test corpus" >&2
  exit 1
fi

# From the root, with the venv's pytest (not `python -m`, which would put
# the working directory on sys.path): the installed wheel is what is tested.
AGUI_LINT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/agui-lint" "$venv/bin/pytest" -p no:cacheprovider python/tests

# agent-framework-ag-ui pins ag-ui-protocol 0.1.22: its own environment, the
# recording's pins (no resolution), the same wheel, pytest.
af_venv=target/ci-python-agent-framework
rm -rf "$af_venv"
"$python" -m venv "$af_venv"
"$af_venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-deps \
  -r tests/data/frameworks/requirements-agent-framework.txt "$wheel"
"$af_venv/bin/python" -m pip install --quiet --disable-pip-version-check "pytest>=7"
"$af_venv/bin/python" -m pip check
"$af_venv/bin/pytest" -p no:cacheprovider python/tests-agent-framework
