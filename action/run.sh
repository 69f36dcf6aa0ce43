#!/usr/bin/env bash
# The check step of the GitHub Action (action.yml), from its inputs as
# environment variables: AGUI_LINT_PATHS (separated by spaces or newlines,
# never glob-expanded), AGUI_LINT_PROTOCOL, AGUI_LINT_FORMAT, AGUI_LINT_SARIF
# (a SARIF file to write) and AGUI_LINT_STRICT ("true" or "false").
#
# Exits with agui-lint's code (0 clean, 1 findings, 2 a path or file it
# could not read, or a usage error) and writes it as the step's `exit-code`
# output. The SARIF file is written whatever the check finds, so that an
# upload step with `if: always()` has it.
set -euo pipefail

# Ends the step with `code`, also as the step's `exit-code` output.
finish() {
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    echo "exit-code=$1" >>"$GITHUB_OUTPUT"
  fi
  exit "$1"
}

set -f
# shellcheck disable=SC2206 # splitting on whitespace is the point
paths=(${AGUI_LINT_PATHS:-.})
set +f

options=()
if [ -n "${AGUI_LINT_PROTOCOL:-}" ]; then
  options+=(--protocol "$AGUI_LINT_PROTOCOL")
fi
case "${AGUI_LINT_STRICT:-false}" in
  true) options+=(--strict) ;;
  false | "") ;;
  *)
    echo "agui-lint action: strict must be \"true\" or \"false\", not \"$AGUI_LINT_STRICT\"" >&2
    finish 2
    ;;
esac

code=0
agui-lint check "${paths[@]}" ${options[@]+"${options[@]}"} \
  --format "${AGUI_LINT_FORMAT:-github}" || code=$?
if [ -n "${AGUI_LINT_SARIF:-}" ]; then
  sarif_code=0
  agui-lint check "${paths[@]}" ${options[@]+"${options[@]}"} \
    --format sarif --output "$AGUI_LINT_SARIF" --exit-zero || sarif_code=$?
  if [ "$code" -eq 0 ]; then
    code=$sarif_code
  fi
fi
finish "$code"
