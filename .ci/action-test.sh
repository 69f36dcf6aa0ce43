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

for input in paths protocol format sarif strict exit-zero select ignore exclude config kind args version; do
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
  env "$@" GITHUB_OUTPUT="$work/output" bash "$repo/action/run.sh" >"$work/stdout" 2>"$work/stderr" || code=$?
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

# The same check writes the annotations and the SARIF file.
check 1 AGUI_LINT_PATHS="fixtures/0/run-agent-input/invalid" AGUI_LINT_PROTOCOL=0 AGUI_LINT_SARIF="$work/same.sarif"
cp "$work/stdout" "$work/annotations"
agui-lint check fixtures/0/run-agent-input/invalid --protocol 0 --format sarif >"$work/direct.sarif" || true
cmp -s "$work/same.sarif" "$work/direct.sarif" || fail "the SARIF file differs from --format sarif's"

# exit-zero passes findings, and only "true" or "false" is taken.
check 0 AGUI_LINT_PATHS="fixtures/0/run-agent-input/invalid" AGUI_LINT_PROTOCOL=0 AGUI_LINT_EXIT_ZERO=true
contains "$work/stdout" 'title=invalid-value::'
check 2 AGUI_LINT_PATHS="fixtures/0/run-agent-input/invalid" AGUI_LINT_EXIT_ZERO=1
contains "$work/stderr" 'exit-zero must be "true" or "false"'

# select and ignore, with commas, spaces or newlines between rules.
typo=fixtures/0/run-agent-input/invalid/invalid-value-role-typo.json
check 0 AGUI_LINT_PATHS="$typo" AGUI_LINT_PROTOCOL=0 AGUI_LINT_SELECT=$'missing-field,\n unknown-field'
[ ! -s "$work/stdout" ] || fail "select: annotations for rules not selected"
check 1 AGUI_LINT_PATHS="$typo" AGUI_LINT_PROTOCOL=0 AGUI_LINT_SELECT="invalid-value missing-field"
contains "$work/stdout" 'title=invalid-value::'
check 0 AGUI_LINT_PATHS="$typo" AGUI_LINT_PROTOCOL=0 AGUI_LINT_IGNORE="invalid-value"
check 2 AGUI_LINT_PATHS="$typo" AGUI_LINT_IGNORE="no-such-rule"
contains "$work/stderr" 'no-such-rule'

# exclude: a walk that skips the invalid fixtures passes.
check 1 AGUI_LINT_PATHS="fixtures/0/run-agent-input" AGUI_LINT_PROTOCOL=0
check 0 AGUI_LINT_PATHS="fixtures/0/run-agent-input" AGUI_LINT_PROTOCOL=0 AGUI_LINT_EXCLUDE=$'invalid\n*.jsonl'

# config: an agui-lint.toml that turns the rule off.
printf 'protocol = "0"\nignore = ["invalid-value"]\n' >"$work/agui-lint.toml"
check 0 AGUI_LINT_PATHS="$typo" AGUI_LINT_CONFIG="$work/agui-lint.toml"
check 2 AGUI_LINT_PATHS="$typo" AGUI_LINT_CONFIG="$work/missing.toml"

# kind: a message judged as a RunAgentInput is missing its keys.
message=fixtures/0/message/valid/user-string-content.json
[ -f "$message" ] || fail "no fixture $message"
check 0 AGUI_LINT_PATHS="$message" AGUI_LINT_PROTOCOL=0
check 1 AGUI_LINT_PATHS="$message" AGUI_LINT_PROTOCOL=0 AGUI_LINT_KIND=run-agent-input
contains "$work/stdout" 'title=missing-field::'

# args: passed through, after the others.
check 0 AGUI_LINT_PATHS="$typo" AGUI_LINT_PROTOCOL=0 AGUI_LINT_FORMAT=human AGUI_LINT_ARGS="--exit-zero --statistics"
contains "$work/stdout" 'invalid-value'

# A walk over a repository with a package.json: not AG-UI, skipped.
mkdir -p "$work/repo/payloads"
printf '{"name": "web", "version": "1.0.0", "dependencies": {}}\n' >"$work/repo/package.json"
cp fixtures/0/message/valid/user-string-content.json "$work/repo/payloads/"
(cd "$work/repo" && check 0 AGUI_LINT_PROTOCOL=0)

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
  AGUI_LINT_FORMAT=human AGUI_LINT_SARIF="$work/out.sarif" AGUI_LINT_EXIT_ZERO=true \
  AGUI_LINT_SELECT="a, b" AGUI_LINT_IGNORE="c" AGUI_LINT_EXCLUDE=$'old/**\n*.har' \
  AGUI_LINT_CONFIG=ci.toml AGUI_LINT_KIND=events AGUI_LINT_ARGS="--statistics  --mask-values"
expected="check a.json 'b c'/*.json --protocol 1.1 --strict --exit-zero --select a,b --ignore c --exclude old/** --exclude *.har --config ci.toml --kind events --format human --sarif $work/out.sarif --statistics --mask-values"
[ "$(cat "$work/args")" = "$expected" ] || fail "arguments: $(cat "$work/args")"

# The prebuilt path: a release served on 127.0.0.1 stands in for the
# repository's release assets (the test binary, packed as the release
# workflow packs it, with its SHA256SUMS).
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) target=x86_64-unknown-linux-musl ;;
  Linux-aarch64) target=aarch64-unknown-linux-musl ;;
  *) fail "no release target for $(uname -s) $(uname -m) in this test" ;;
esac
release() { # version, the files of its release folder
  local version=$1 dir="$work/releases/$1"
  mkdir -p "$dir/agui-lint-$version-$target"
  cp "$root/bin/agui-lint" "$dir/agui-lint-$version-$target/"
  tar -czf "$dir/agui-lint-$version-$target.tar.gz" -C "$dir" "agui-lint-$version-$target"
  rm -rf "${dir:?}/agui-lint-$version-$target"
  (cd "$dir" && sha256sum "agui-lint-$version-$target.tar.gz" >SHA256SUMS)
}
release v9.9.0
release v9.9.1
sed -i 's/^[0-9a-f]\{8\}/00000000/' "$work/releases/v9.9.1/SHA256SUMS" # tampered
mkdir -p "$work/releases/v9.9.2" && echo "0000  agui-lint-v9.9.2-other.tar.gz" >"$work/releases/v9.9.2/SHA256SUMS"
python3 -u -m http.server --bind 127.0.0.1 0 --directory "$work/releases" >"$work/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
port=""
for _ in $(seq 100); do
  port=$(sed -n 's/.*port \([0-9]*\).*/\1/p' "$work/server.log" | head -n1)
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || fail "the release server did not start: $(cat "$work/server.log")"
# A stand-in cargo: a build from source is recorded, not run.
mkdir -p "$work/cargo"
cat >"$work/cargo/cargo" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$*" >>"$AGUI_LINT_CARGO_LOG"
root=$(printf '%s\n' "$@" | sed -n '/^--root$/{n;p}')
mkdir -p "$root/bin" && printf '#!/bin/sh\necho agui-lint built\n' >"$root/bin/agui-lint" && chmod +x "$root/bin/agui-lint"
STUB
chmod +x "$work/cargo/cargo"
install() { # version, install root; the exit code of install.sh
  local code=0
  PATH="$work/cargo:$PATH" AGUI_LINT_CARGO_LOG="$work/cargo.log" AGUI_LINT_VERSION="$1" \
    AGUI_LINT_SOURCE="$repo" AGUI_LINT_ROOT="$2" AGUI_LINT_REPOSITORY= \
    AGUI_LINT_RELEASES="http://127.0.0.1:$port" \
    bash action/install.sh >"$work/stdout" 2>"$work/stderr" || code=$?
  return "$code"
}
install v9.9.0 "$work/prebuilt" || fail "install.sh of the served release failed"
contains "$work/stdout" "installed the prebuilt agui-lint-v9.9.0-$target.tar.gz"
[ ! -e "$work/cargo.log" ] || fail "a release with a binary was built from source: $(cat "$work/cargo.log")"
"$work/prebuilt/bin/agui-lint" check fixtures/0/message/valid --protocol 0 -q || fail "the prebuilt binary does not check"
# `uses: ...@v9.9.0` with no version input: the plan and the install take
# that release; a branch ref builds the source.
RUNNER_TOOL_CACHE="$work/tools" AGUI_LINT_SOURCE="$repo" AGUI_LINT_ACTION_REF=v9.9.0 GITHUB_OUTPUT= \
  bash action/install.sh --plan >"$work/plan-ref"
grep -qx "key=tag-v9.9.0" "$work/plan-ref" || fail "plan for uses: @v9.9.0: $(cat "$work/plan-ref")"
RUNNER_TOOL_CACHE="$work/tools" AGUI_LINT_SOURCE="$repo" AGUI_LINT_ACTION_REF=main GITHUB_OUTPUT= \
  bash action/install.sh --plan >"$work/plan-ref"
grep -q "^key=source-" "$work/plan-ref" || fail "plan for uses: @main: $(cat "$work/plan-ref")"
AGUI_LINT_ACTION_REF=v9.9.0 install "" "$work/by-ref" || fail "install.sh for uses: @v9.9.0 failed"
contains "$work/stdout" "installed the prebuilt agui-lint-v9.9.0-$target.tar.gz"
if install v9.9.1 "$work/tampered"; then fail "a binary whose checksum differs was installed"; fi
contains "$work/stderr" "does not match its checksum"
[ ! -e "$work/tampered/bin/agui-lint" ] || fail "the tampered binary is in place"
[ ! -e "$work/cargo.log" ] || fail "a tampered release fell back to a build"
# No binary for this runner: the tag built from source.
repository=$(sed -n 's/^repository = "\(.*\)"$/\1/p' Cargo.toml)
rm -f "$work/cargo.log"
install v9.9.2 "$work/built-v9.9.2" || fail "install.sh v9.9.2: no fallback to a build"
contains "$work/stderr" "building it from source"
contains "$work/cargo.log" "install agui-lint --locked --root $work/built-v9.9.2 --git $repository --tag v9.9.2"
# No such release (not published yet): the action's own source, said so.
rm -f "$work/cargo.log"
install v9.9.3 "$work/built-v9.9.3" || fail "install.sh v9.9.3: no fallback to the action's source"
contains "$work/stderr" "release v9.9.3 does not exist (not published yet?); building the action's own source instead"
contains "$work/cargo.log" "install --locked --root $work/built-v9.9.3 --path $repo"
"$work/built-v9.9.3/bin/agui-lint" | grep -q "agui-lint built" || fail "the source build is not in place"

# The kit step: kit.sh starts the example server (built by `cargo test
# --all-features`) as a server command, waits for it, runs the kit and
# stops it.
grep -qF 'run: bash "$GITHUB_ACTION_PATH/action/kit.sh"' action.yml || fail "action.yml does not run the kit with kit.sh"
for input in kit-url kit-server kit-wait kit-scenarios kit-level kit-expected-failures kit-scenario-files kit-output; do
  grep -q "^  $input:$" action.yml || fail "action.yml has no input '$input'"
done
example="${CARGO_TARGET_DIR:-$repo/target}/debug/examples/server"
[ -x "$example" ] || fail "no example server at $example: run cargo test --all-features first"
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
kit() {
  local expected=$1
  shift
  local code=0
  rm -f "$work/output"
  env "$@" GITHUB_OUTPUT="$work/output" bash "$repo/action/kit.sh" >"$work/stdout" 2>"$work/stderr" || code=$?
  [ "$code" = "$expected" ] || fail "kit.sh $* exited $code, not $expected"
  grep -qx "exit-code=$expected" "$work/output" || fail "kit.sh $*: no exit-code=$expected output"
}
kit 0 AGUI_LINT_KIT_URL="http://127.0.0.1:$port/agent" AGUI_LINT_KIT_SERVER="'$example' $port" \
  AGUI_LINT_KIT_SCENARIOS="text, multi-turn" AGUI_LINT_FORMAT=junit AGUI_LINT_KIT_OUTPUT="$work/kit.xml"
contains "$work/stderr" "starting the server"
contains "$work/kit.xml" '<testsuite name="multi-turn"'
[ "$(grep -c '<testcase ' "$work/kit.xml")" -ge 6 ] || fail "the kit's JUnit report: $(cat "$work/kit.xml")"
# The server was stopped: its port is free again.
if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then fail "kit.sh left the server running"; fi
# A listed failure that passes fails the run.
printf '[[expected]]\nscenario = "text"\ncheck = "run-served"\nreason = "r"\n' >"$work/kit-expected.toml"
kit 1 AGUI_LINT_KIT_URL="http://127.0.0.1:$port/agent" AGUI_LINT_KIT_SERVER="'$example' $port" \
  AGUI_LINT_KIT_SCENARIOS=text AGUI_LINT_KIT_EXPECTED="$work/kit-expected.toml"
contains "$work/stdout" "fixed but listed"
# A server command that fails, and a port nobody opens: exit 2, said why.
kit 2 AGUI_LINT_KIT_URL="http://127.0.0.1:$port/agent" AGUI_LINT_KIT_SERVER="echo no such app >&2; exit 3"
contains "$work/stderr" "the server command ended before 127.0.0.1:$port accepted a connection"
contains "$work/stderr" "no such app"
kit 2 AGUI_LINT_KIT_URL="http://127.0.0.1:$port/agent" AGUI_LINT_KIT_WAIT=1
contains "$work/stderr" "accepted no connection within 1 s"

echo "action-test: action.yml's install, check and kit steps pass on the fixtures and the example server"
