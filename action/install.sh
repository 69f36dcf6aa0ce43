#!/usr/bin/env bash
# Installs agui-lint for the GitHub Action (action.yml), from its inputs as
# environment variables:
#   AGUI_LINT_VERSION     a tag of the action's repository, or empty for the
#                         action's own source (AGUI_LINT_SOURCE)
#   AGUI_LINT_REPOSITORY  the repository's URL, when a version is given
#   AGUI_LINT_ROOT        where to install (`bin/agui-lint` below it)
#
# `install.sh --plan` prints `root=` and `key=` (to $GITHUB_OUTPUT when set):
# the install root and the cache key, which names the version or, for the
# action's own source, a hash of that source, so a cached binary is reused
# exactly as long as it is what would be built. Any other arguments are
# passed to `cargo install`.
set -euo pipefail

version="${AGUI_LINT_VERSION:-}"
source_dir="${AGUI_LINT_SOURCE:?AGUI_LINT_SOURCE: the source of the action}"

sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum; else shasum -a 256; fi
}

# Every file the binary is built from, by name and content.
source_hash() {
  cd "$source_dir"
  find Cargo.toml Cargo.lock src -type f | LC_ALL=C sort | while IFS= read -r file; do
    printf '%s\n' "$file"
    sha256 <"$file"
  done | sha256
}

if [ "${1:-}" = --plan ]; then
  if [ -n "$version" ]; then
    key="tag-$version"
  else
    hash=$(source_hash)
    key="source-${hash:0:16}"
  fi
  root="${RUNNER_TOOL_CACHE:-${TMPDIR:-/tmp}}/agui-lint/$key"
  if [ -n "${GITHUB_OUTPUT:-}" ]; then
    printf 'root=%s\nkey=%s\n' "$root" "$key" >>"$GITHUB_OUTPUT"
  else
    printf 'root=%s\nkey=%s\n' "$root" "$key"
  fi
  exit 0
fi

root="${AGUI_LINT_ROOT:?AGUI_LINT_ROOT names the install root}"
if [ -n "$version" ]; then
  cargo install agui-lint --locked --root "$root" \
    --git "${AGUI_LINT_REPOSITORY:?AGUI_LINT_REPOSITORY names the repository}" --tag "$version" "$@"
else
  cargo install --locked --root "$root" --path "$source_dir" "$@"
fi
"$root/bin/agui-lint" --version
