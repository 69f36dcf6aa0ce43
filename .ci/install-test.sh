#!/usr/bin/env bash
# The install steps of README.md, python/README.md and node/README.md, run
# as written in a clean clone of this checkout, so that they cannot drift:
# each README's fenced block after `<!-- install-test: NAME -->` runs in the
# clone's root with bash -e, and what it installed is then used (the CLI
# checks a fixture, the Python package imports its guard, the Node tarball
# installs into an empty project and loads). Each block's time is printed.
#
# Run after .ci/python-test.sh and .ci/node-test.sh: the Python and Node
# builds share those scripts' cargo target directory (the registry crates
# they compiled are reused; the clone's own crates are rebuilt, as their
# path differs), so CI compiles each dependency once. The CLI is
# installed below the work folder, never into ~/.cargo/bin.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "install-test: $*" >&2
  exit 1
}

git clone --quiet "$repo" "$work/agui-lint"
clone=$work/agui-lint

# The lines of the fenced block after the marker `<!-- install-test: NAME -->`.
block() { # file, name
  awk -v marker="<!-- install-test: $2 -->" '
    $0 == marker { found = 1; next }
    found == 1 && /^```/ { found = 2; next }
    found == 2 && /^```/ { exit }
    found == 2 { print }
  ' "$1"
}

# Runs a README's block in the clone, with the environment given before it.
steps() { # file, name
  local script start
  script=$(block "$clone/$1" "$2")
  [ -n "$script" ] || fail "$1 has no \`<!-- install-test: $2 -->\` block"
  echo "install-test: $1 ($2):"
  printf '  %s\n' "$script"
  start=$(date +%s)
  (cd "$clone" && bash -e -c "$script") >"$work/$2.log" 2>&1 || {
    tail -n 40 "$work/$2.log" >&2
    fail "the install steps of $1 ($2) failed"
  }
  echo "install-test: $1 ($2) took $(($(date +%s) - start)) s"
}

# The CLI, from the root README.
export CARGO_INSTALL_ROOT=$work/cargo-root
PATH="$CARGO_INSTALL_ROOT/bin:$PATH" CARGO_TARGET_DIR="$repo/target" steps README.md cli
"$CARGO_INSTALL_ROOT/bin/agui-lint" check "$clone/fixtures/1.1/message/valid" --quiet ||
  fail "the installed CLI does not pass the valid fixtures"

# The Python package. python-test.sh built for the target triple maturin's
# zig linking names (as napi-rs does); the same triple here makes their
# crates reusable.
bindings_target="${AGUI_LINT_BINDINGS_TARGET:-$repo/target/bindings}"
CARGO_TARGET_DIR="$bindings_target" CARGO_BUILD_TARGET="$(rustc -vV | sed -n 's/^host: //p')" \
  steps python/README.md python
"$clone/.venv/bin/python" -c "import agui_lint, agui_lint.asgi; assert agui_lint.Validator().check_run_agent_input(b'{}').valid is False" ||
  fail "the installed Python package does not check"
# What the FastAPI example imports, as the README installs it beside it.
steps python/README.md python-example

# The Node package, then the tarball in an empty project.
CARGO_TARGET_DIR="$bindings_target" steps node/README.md node
tarball=$(ls "$clone"/node/agui-lint-*.tgz) || fail "npm pack left no tarball in node/"
mkdir -p "$work/project"
(cd "$work/project" && npm init -y >/dev/null && npm install --no-audit --no-fund --loglevel=error "$tarball") ||
  fail "the packed tarball does not install"
(cd "$work/project" && node -e "
const { Validator } = require('agui-lint')
if (new Validator().checkRunAgentInput('{}').valid) process.exit(1)
") || fail "the installed Node package does not check"

echo "install-test: the install steps of README.md, python/README.md and node/README.md work as written"
