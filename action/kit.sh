#!/usr/bin/env bash
# The conformance kit step of the GitHub Action (action.yml): starts the
# server command, if any, waits for the endpoint to accept connections,
# runs `agui-lint probe URL --suite`, and stops the server. From the
# action's inputs as environment variables:
#   AGUI_LINT_KIT_URL        the endpoint (http://127.0.0.1:8000/agent)
#   AGUI_LINT_KIT_SERVER     a shell command starting the server; run in the
#                            background, in a process group of its own, and
#                            stopped (the whole group) when the kit is done
#   AGUI_LINT_KIT_WAIT       seconds the endpoint may take to accept a
#                            connection (default 60)
#   AGUI_LINT_KIT_SCENARIOS  scenarios, separated by commas, spaces or
#                            newlines (empty: all)
#   AGUI_LINT_KIT_LEVEL      must or should (--level)
#   AGUI_LINT_KIT_EXPECTED   an expected-failures file (--expected-failures)
#   AGUI_LINT_KIT_FILES      scenario files, separated by spaces or newlines
#   AGUI_LINT_FORMAT         human, json or junit (github, the check's
#                            default, prints the human report)
#   AGUI_LINT_KIT_OUTPUT     also a file the report is written to
#   AGUI_LINT_EXIT_ZERO      "true" or "false" (--exit-zero)
#   AGUI_LINT_ARGS           more arguments, split on whitespace, passed last
#
# Exits with agui-lint's code (0 passed, 1 a check failed, 2 the endpoint
# could not be reached, the server did not start, or a usage error) and
# writes it as the step's `exit-code` output.
set -euo pipefail

finish() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$1" >>"$GITHUB_OUTPUT"
  fi
  exit "$1"
}

url=${AGUI_LINT_KIT_URL:?the kit needs kit-url}
wait_s=${AGUI_LINT_KIT_WAIT:-60}
case "$wait_s" in
  '' | *[!0-9]*)
    echo "agui-lint action: kit-wait must be a number of seconds, not \"$wait_s\"" >&2
    finish 2
    ;;
esac

# host and port of the URL, for the wait.
rest=${url#*://}
authority=${rest%%/*}
host=${authority%:*}
port=${authority##*:}
if [ "$port" = "$authority" ]; then
  case "$url" in https://*) port=443 ;; *) port=80 ;; esac
fi
host=${host#[}
host=${host%]}

server_pid=""
log=$(mktemp)
stop_server() {
  if [ -n "$server_pid" ]; then
    kill -TERM -- "-$server_pid" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do
      kill -0 -- "-$server_pid" 2>/dev/null || break
      sleep 0.5
    done
    kill -KILL -- "-$server_pid" 2>/dev/null || true
  fi
  rm -f "$log"
}
trap stop_server EXIT

if [ -n "${AGUI_LINT_KIT_SERVER:-}" ]; then
  echo "agui-lint action: starting the server: $AGUI_LINT_KIT_SERVER" >&2
  setsid bash -c "$AGUI_LINT_KIT_SERVER" >"$log" 2>&1 &
  server_pid=$!
fi

waited=0
until (exec 3<>"/dev/tcp/$host/$port") 2>/dev/null; do
  if [ -n "$server_pid" ] && ! kill -0 "$server_pid" 2>/dev/null; then
    echo "agui-lint action: the server command ended before $host:$port accepted a connection; its output:" >&2
    cat "$log" >&2
    finish 2
  fi
  if [ "$waited" -ge $((wait_s * 5)) ]; then
    echo "agui-lint action: $host:$port accepted no connection within $wait_s s" >&2
    [ -n "$server_pid" ] && { echo "the server's output:" >&2; cat "$log" >&2; }
    finish 2
  fi
  sleep 0.2
  waited=$((waited + 1))
done

options=(--suite)
format=${AGUI_LINT_FORMAT:-github}
[ "$format" = github ] && format=human
options+=(--format "$format")
scenarios=${AGUI_LINT_KIT_SCENARIOS:-}
scenarios=$(echo "${scenarios//,/ }" | xargs)
if [ -n "$scenarios" ]; then
  options+=(--scenario "${scenarios// /,}")
fi
if [ -n "${AGUI_LINT_KIT_LEVEL:-}" ]; then
  options+=(--level "$AGUI_LINT_KIT_LEVEL")
fi
if [ -n "${AGUI_LINT_KIT_EXPECTED:-}" ]; then
  options+=(--expected-failures "$AGUI_LINT_KIT_EXPECTED")
fi
set -f
# shellcheck disable=SC2206 # splitting on whitespace is the point
files=(${AGUI_LINT_KIT_FILES:-})
# shellcheck disable=SC2206
extra=(${AGUI_LINT_ARGS:-})
set +f
for file in ${files[@]+"${files[@]}"}; do
  options+=(--scenario-file "$file")
done
case "${AGUI_LINT_EXIT_ZERO:-false}" in
  true) options+=(--exit-zero) ;;
  false | "") ;;
  *)
    echo "agui-lint action: exit-zero must be \"true\" or \"false\", not \"$AGUI_LINT_EXIT_ZERO\"" >&2
    finish 2
    ;;
esac
options+=(${extra[@]+"${extra[@]}"})

code=0
if [ -n "${AGUI_LINT_KIT_OUTPUT:-}" ]; then
  agui-lint probe "$url" "${options[@]}" | tee "$AGUI_LINT_KIT_OUTPUT" || code=${PIPESTATUS[0]}
else
  agui-lint probe "$url" "${options[@]}" || code=$?
fi
finish "$code"
