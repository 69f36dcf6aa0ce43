#!/usr/bin/env bash
# The GitHub Action (action.yml) run locally on the fixtures: installs
# agui-lint with action/install.sh from this checkout, as the action does
# from its own source (with --debug --offline, reusing the test build), then
# runs action/run.sh, the action's check step, with the action's inputs as
# environment variables, and checks exit codes, annotations and SARIF.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() {
  echo "action-test: $*" >&2
  for file in "$work"/stdout "$work"/stderr; do
    [ -f "$file" ] && { echo "--- ${file##*/}" >&2; cat "$file" >&2; }
  done
  exit 1
}

# The action's steps run these scripts and nothing else.
grep -qF 'run: bash "$GITHUB_ACTION_PATH/action/install.sh" --plan' action.yml || fail "action.yml does not plan with install.sh"
grep -qF 'run: bash "$GITHUB_ACTION_PATH/action/install.sh"' action.yml || fail "action.yml does not install with install.sh"
grep -qF 'run: bash "$GITHUB_ACTION_PATH/action/run.sh"' action.yml || fail "action.yml does not check with run.sh"

for input in paths protocol format sarif strict version; do
  grep -q "^  $input:$" action.yml || fail "action.yml has no input '$input'"
done
grep -A3 '^  format:$' action.yml | grep -q 'default: github' || fail "format does not default to github"

# Plan and install, as the action's first steps do.
RUNNER_TOOL_CACHE="$work/tools" AGUI_LINT_SOURCE="$repo" GITHUB_OUTPUT="$work/plan" \
  bash action/install.sh --plan
root=$(sed -n 's/^root=//p' "$work/plan")
key=$(sed -n 's/^key=//p' "$work/plan")
[[ "$key" == source-* && "$root" == "$work/tools/agui-lint/$key" ]] || fail "plan: $(cat "$work/plan")"
AGUI_LINT_SOURCE="$repo" AGUI_LINT_ROOT="$root" CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$repo/target}" \
  bash action/install.sh --debug --offline --quiet >/dev/null
[ -x "$root/bin/agui-lint" ] || fail "install.sh installed no $root/bin/agui-lint"
export PATH="$root/bin:$PATH"

# run.sh with the given inputs; the exit code must be $1.
check() {
  local expected=$1
  shift
  local code=0
  rm -f "$work/output"
  env "$@" GITHUB_OUTPUT="$work/output" bash action/run.sh >"$work/stdout" 2>"$work/stderr" || code=$?
  [ "$code" = "$expected" ] || fail "run.sh $* exited $code, not $expected"
  grep -qx "exit-code=$expected" "$work/output" || fail "run.sh $*: no exit-code=$expected output"
}
contains() {
  grep -qF -- "$2" "$1" || fail "${1##*/} lacks: $2"
}

# Clean payloads: exit 0, no annotation, a SARIF file all the same.
check 0 AGUI_LINT_PATHS="fixtures/0/run-agent-input/valid fixtures/0/message/valid" AGUI_LINT_PROTOCOL=0 AGUI_LINT_SARIF="$work/clean.sarif"
[ ! -s "$work/stdout" ] || fail "annotations for clean payloads"
contains "$work/clean.sarif" '"version": "2.1.0"'

# Findings: annotations, exit 1, and the SARIF file written anyway.
check 1 AGUI_LINT_PATHS="fixtures/0/run-agent-input/invalid" AGUI_LINT_PROTOCOL=0 AGUI_LINT_SARIF="$work/findings.sarif"
contains "$work/stdout" '::error file=fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json,line=8,col=15,title=invalid-value::'
contains "$work/findings.sarif" '"ruleId": "invalid-value"'

# Warnings pass unless strict; strict is "true" or "false".
warning=fixtures/0/message/invalid/unknown-field-timestamp.json
check 0 AGUI_LINT_PATHS="$warning"
contains "$work/stdout" "::warning file=$warning"
check 1 AGUI_LINT_PATHS="$warning" AGUI_LINT_STRICT=true
check 2 AGUI_LINT_PATHS="$warning" AGUI_LINT_STRICT=yes
contains "$work/stderr" 'strict must be "true" or "false"'

# Paths on separate lines; a missing one is reported, the rest checked.
check 2 AGUI_LINT_PATHS=$'nope.json\n  fixtures/0/streams/valid\n' AGUI_LINT_PROTOCOL=0
contains "$work/stdout" '::error file=nope.json,title=agui-lint::no such file or directory'

# Another format.
check 1 AGUI_LINT_PATHS="fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json" AGUI_LINT_PROTOCOL=0 AGUI_LINT_FORMAT=json
contains "$work/stdout" '"rule": "invalid-value"'

# The protocol input: the official 1.0 traffic is clean, even strict, as
# each document declares 1.0 (fixtures/1.0 also holds invalid fixtures);
# the pre-1.0 profile requires what 1.x made optional.
check 0 AGUI_LINT_PATHS="tests/upstream/traffic-1.0" AGUI_LINT_STRICT=true
check 1 AGUI_LINT_PATHS="fixtures/1.1/run-agent-input/valid/minimal-undeclared.json" AGUI_LINT_PROTOCOL=0
contains "$work/stdout" 'title=missing-field::'

# Every input reaches the command line as it should (a stand-in binary
# records its arguments).
mkdir -p "$work/stub"
cat >"$work/stub/agui-lint" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$*" >>"$AGUI_LINT_STUB_LOG"
STUB
chmod +x "$work/stub/agui-lint"
PATH="$work/stub:$PATH" check 0 AGUI_LINT_STUB_LOG="$work/args" \
  AGUI_LINT_PATHS="a.json 'b c'/*.json" AGUI_LINT_PROTOCOL=1.1 AGUI_LINT_STRICT=true \
  AGUI_LINT_FORMAT=human AGUI_LINT_SARIF="$work/out.sarif"
expected="check a.json 'b c'/*.json --protocol 1.1 --strict --format human
check a.json 'b c'/*.json --protocol 1.1 --strict --format sarif --output $work/out.sarif --exit-zero"
[ "$(cat "$work/args")" = "$expected" ] || fail "arguments: $(cat "$work/args")"

echo "action-test: action.yml's install and check steps pass on the fixtures"
