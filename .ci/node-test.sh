#!/usr/bin/env bash
# The Node package (node/): installs its pinned dev dependencies (the napi-rs
# CLI, the official @ag-ui SDK at 1.0.0, Express, TypeScript, vitest, jest)
# with npm ci, builds the addon in release with napi-rs, runs the Node test
# suite, the kit against @ag-ui/mastra (node/test-mastra) and the matchers
# under vitest and jest, then packs the package with
# `npm pack`, installs the tarball into an empty folder, and uses it from
# CommonJS, from an ES module and from TypeScript (`tsc --noEmit` on
# examples/fetch-handler.ts). Run after `cargo test`, whose CLI binary the
# suite compares the JSON document with, and after .ci/python-test.sh, whose
# virtual environment holds the pydantic SDK the differential test runs.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# npm's errors are printed (`--silent` would hide why an install failed),
# and an install that fails is tried again: the registry is a network away.
npm_ci() {
  local attempt
  for attempt in 1 2 3; do
    npm ci --prefix "$1" --no-audit --no-fund --loglevel=error && return 0
    echo "node-test: npm ci in $1 failed (attempt $attempt of 3)" >&2
    sleep $((attempt * 10))
  done
  return 1
}

npm_ci node
# The cargo target directory the Python binding's build used: the crates
# both bindings share are compiled once.
bindings_target="${AGUI_LINT_BINDINGS_TARGET:-$repo/target/bindings}"
(cd node && CARGO_TARGET_DIR="$bindings_target" npx napi build --platform --release --no-js --dts native.d.ts)
ls node/agui-lint.*.node >/dev/null

# The differential test (test/receivers.test.js) runs pydantic in the
# virtual environment .ci/python-test.sh made, with ag-ui-protocol 1.0.0.
AGUI_LINT_PYTHON="${AGUI_LINT_PYTHON:-$repo/target/ci-python/bin/python}" \
  AGUI_LINT_BIN="${CARGO_TARGET_DIR:-$repo/target}/debug/agui-lint" node --test node/test/
# The kit against @ag-ui/mastra: Mastra's dependencies in a folder of
# their own (test-mastra/package-lock.json; ~40 s to install on a cold
# cache), so the package's dev dependencies stay small.
npm_ci node/test-mastra
node --test node/test-mastra/
# The matchers under vitest and jest themselves (each fails with no test).
(cd node && npx vitest run --dir test-vitest && npx jest --config test-jest/jest.config.js)

# The package as a user installs it.
(cd node && npm pack --loglevel=error --pack-destination "$work" >/dev/null)
tarball=$(ls "$work"/agui-lint-*.tgz)
tar -tzf "$tarball" >"$work/files"
for member in package/index.js package/index.mjs package/index.d.ts package/lib/native.js \
  package/lib/guard.js package/lib/matchers.js package/README.md; do
  grep -qx "$member" "$work/files" || { echo "node-test: the package lacks $member" >&2; exit 1; }
done
grep -q '^package/agui-lint\..*\.node$' "$work/files" || { echo "node-test: the package has no addon" >&2; exit 1; }
if grep -q '^package/\(test\|src\|node_modules\)/' "$work/files"; then
  echo "node-test: the package carries its tests, sources or dependencies" >&2
  exit 1
fi

mkdir "$work/app"
cd "$work/app"
npm init -y >/dev/null
npm install --no-audit --no-fund --loglevel=error "$tarball"
node -e '
const agui = require("agui-lint")
const result = new agui.Validator().checkRunAgentInput("{\"threadId\":\"t\"}")
if (result.valid || result.diagnostics[0].rule !== "missing-field") throw new Error(JSON.stringify(result))
console.log("node-test: require(\"agui-lint\") works:", result.diagnostics.length, "findings")
'
node --input-type=module -e '
import { Validator, version } from "agui-lint"
import { matchers } from "agui-lint/matchers"
const stream = new Validator().checkStream([{ type: "TEXT_MESSAGE_END", messageId: "m" }])
if (stream.valid) throw new Error("a message ended that never started passed")
if (matchers.toBeValidRunAgentInput("{}").pass) throw new Error("the matcher passed {}")
console.log("node-test: import from \"agui-lint\" works, version", version)
'
cp "$repo/node/examples/fetch-handler.ts" .
cat >tsconfig.json <<JSON
{
  "compilerOptions": {
    "strict": true,
    "noEmit": true,
    "module": "nodenext",
    "moduleResolution": "nodenext",
    "target": "es2022",
    "lib": ["es2022", "dom"],
    "typeRoots": ["$repo/node/node_modules/@types"],
    "types": ["node"],
    "skipLibCheck": false
  },
  "files": ["fetch-handler.ts"]
}
JSON
"$repo/node/node_modules/.bin/tsc" -p tsconfig.json
echo "node-test: the packed package installs and works from JavaScript and TypeScript"
