#!/usr/bin/env bash
# The check step of the GitHub Action (action.yml), from its inputs as
# environment variables:
#   AGUI_LINT_PATHS      files and folders, separated by spaces or newlines
#                        (never glob-expanded by this script)
#   AGUI_LINT_PROTOCOL   --protocol
#   AGUI_LINT_FORMAT     --format (default github)
#   AGUI_LINT_SARIF      a SARIF file written by the same check (--sarif)
#   AGUI_LINT_STRICT     "true" or "false" (--strict)
#   AGUI_LINT_EXIT_ZERO  "true" or "false" (--exit-zero)
#   AGUI_LINT_SELECT     rules, separated by commas, spaces or newlines
#   AGUI_LINT_IGNORE     rules, likewise
#   AGUI_LINT_EXCLUDE    globs, separated by spaces or newlines (--exclude)
#   AGUI_LINT_CONFIG     an agui-lint.toml (--config)
#   AGUI_LINT_KIND       --kind
#   AGUI_LINT_ARGS       more arguments, split on whitespace, passed last
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

# A "true"/"false" input named $1 with value $2: adds flag $3 when true.
boolean() {
  case "$2" in
    true) options+=("$3") ;;
    false | "") ;;
    *)
      echo "agui-lint action: $1 must be \"true\" or \"false\", not \"$2\"" >&2
      finish 2
      ;;
  esac
}

# Splits an input on whitespace (and, with $2 = commas, on commas too),
# without glob expansion, into the array `words`.
split() {
  local text=$1
  if [ "${2:-}" = commas ]; then
    text=${text//,/ }
  fi
  set -f
  # shellcheck disable=SC2206 # splitting on whitespace is the point
  words=($text)
  set +f
}

words=()
split "${AGUI_LINT_PATHS:-.}"
paths=("${words[@]}")

options=()
if [ -n "${AGUI_LINT_PROTOCOL:-}" ]; then
  options+=(--protocol "$AGUI_LINT_PROTOCOL")
fi
boolean strict "${AGUI_LINT_STRICT:-false}" --strict
boolean exit-zero "${AGUI_LINT_EXIT_ZERO:-false}" --exit-zero
split "${AGUI_LINT_SELECT:-}" commas
if [ "${#words[@]}" -gt 0 ]; then
  options+=(--select "$(IFS=,; echo "${words[*]}")")
fi
split "${AGUI_LINT_IGNORE:-}" commas
if [ "${#words[@]}" -gt 0 ]; then
  options+=(--ignore "$(IFS=,; echo "${words[*]}")")
fi
split "${AGUI_LINT_EXCLUDE:-}"
for glob in ${words[@]+"${words[@]}"}; do
  options+=(--exclude "$glob")
done
if [ -n "${AGUI_LINT_CONFIG:-}" ]; then
  options+=(--config "$AGUI_LINT_CONFIG")
fi
if [ -n "${AGUI_LINT_KIND:-}" ]; then
  options+=(--kind "$AGUI_LINT_KIND")
fi
options+=(--format "${AGUI_LINT_FORMAT:-github}")
if [ -n "${AGUI_LINT_SARIF:-}" ]; then
  options+=(--sarif "$AGUI_LINT_SARIF")
fi
split "${AGUI_LINT_ARGS:-}"
options+=(${words[@]+"${words[@]}"})

code=0
agui-lint check "${paths[@]}" "${options[@]}" || code=$?
finish "$code"
