#!/usr/bin/env bash
# Installs agui-lint for the GitHub Action (action.yml), from its inputs as
# environment variables:
#   AGUI_LINT_VERSION     a release tag of the action's repository, or empty
#                         for the action's own source (AGUI_LINT_SOURCE)
#   AGUI_LINT_ACTION_REF  the ref the workflow names in `uses:`; a release
#                         tag (vX.Y.Z) there stands for an empty version
#   AGUI_LINT_REPOSITORY  the repository the action was used from (empty:
#                         the `repository` of the action's Cargo.toml)
#   AGUI_LINT_RELEASES    where release assets are downloaded from (default
#                         $AGUI_LINT_REPOSITORY/releases/download)
#   AGUI_LINT_ROOT        where to install (`bin/agui-lint` below it)
#
# With a version, the release's prebuilt binary for this runner is
# downloaded (`agui-lint-VERSION-TARGET.tar.gz`, `.zip` on Windows, as the
# release workflow names them) and verified against the release's
# SHA256SUMS; a checksum that does not match fails the step. When the
# release has no binary for this runner, the tag is built from source with
# `cargo install`; when the release does not exist at all (no SHA256SUMS:
# not published yet, or a typo), the action's own source is built instead,
# and the step says so.
#
# `install.sh --plan` prints `root=` and `key=` (to $GITHUB_OUTPUT when set):
# the install root and the cache key, which names the version or, for the
# action's own source, a hash of that source, so a cached binary is reused
# exactly as long as it is what would be built. Any other arguments are
# passed to `cargo install`.
set -euo pipefail

version="${AGUI_LINT_VERSION:-}"
# `uses: <this action>@v1.2.3` without a `version`: that release's binary,
# rather than a build of the same source.
if [ -z "$version" ] && [[ "${AGUI_LINT_ACTION_REF:-}" =~ ^v[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  version=$AGUI_LINT_ACTION_REF
fi
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

# The release workflow's name for this runner's binary (static musl
# binaries on Linux, so any distribution runs them), or nothing.
target() {
  local arch
  arch=$(uname -m)
  case "$arch" in
    x86_64 | amd64) arch=x86_64 ;;
    aarch64 | arm64) arch=aarch64 ;;
    *) return 0 ;;
  esac
  case "$(uname -s)" in
    Linux) echo "$arch-unknown-linux-musl" ;;
    Darwin) echo "$arch-apple-darwin" ;;
    MINGW* | MSYS* | CYGWIN*) [ "$arch" = x86_64 ] && echo "x86_64-pc-windows-msvc" ;;
  esac
}

# Downloads and verifies the prebuilt binary into $root/bin; returns 1 when
# the release has none for this runner, 2 when there is no such release,
# and exits when a binary does not verify.
download() {
  local target=$1 base=$2 work name expected actual
  work=$(mktemp -d) || exit 1
  case "$target" in
    *windows*) name="agui-lint-$version-$target.zip" ;;
    *) name="agui-lint-$version-$target.tar.gz" ;;
  esac
  if ! curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$base/$version/SHA256SUMS"; then
    echo "agui-lint action: release $version has no SHA256SUMS at $base/$version" >&2
    rm -rf "$work"
    return 2
  fi
  expected=$(awk -v name="$name" '$2 == name || $2 == "*" name { print $1 }' "$work/SHA256SUMS")
  if [ -z "$expected" ]; then
    echo "agui-lint action: release $version has no $name" >&2
    rm -rf "$work"
    return 1
  fi
  if ! curl -fsSL --retry 3 -o "$work/$name" "$base/$version/$name"; then
    echo "agui-lint action: cannot download $base/$version/$name" >&2
    rm -rf "$work"
    return 1
  fi
  actual=$(sha256 <"$work/$name" | awk '{ print $1 }')
  if [ "$actual" != "$expected" ]; then
    echo "agui-lint action: $name does not match its checksum in SHA256SUMS" \
      "(expected $expected, got $actual); refusing to install it" >&2
    rm -rf "$work"
    exit 1
  fi
  mkdir -p "$work/unpacked" "$root/bin"
  # Called as a condition, so `set -e` is off here: each step checks itself.
  case "$name" in
    *.zip) powershell -NoProfile -Command "Expand-Archive -Path '$work/$name' -DestinationPath '$work/unpacked'" || exit 1 ;;
    *) tar -xzf "$work/$name" -C "$work/unpacked" || exit 1 ;;
  esac
  local binary=agui-lint
  case "$target" in *windows*) binary=agui-lint.exe ;; esac
  cp "$work/unpacked/agui-lint-$version-$target/$binary" "$root/bin/$binary" || exit 1
  chmod +x "$root/bin/$binary" || exit 1
  rm -rf "$work"
  echo "agui-lint action: installed the prebuilt $name (SHA-256 $actual)"
}

root="${AGUI_LINT_ROOT:?AGUI_LINT_ROOT names the install root}"
if [ -n "$version" ]; then
  repository="${AGUI_LINT_REPOSITORY:-}"
  if [ -z "$repository" ]; then
    repository=$(sed -n 's/^repository = "\(.*\)"$/\1/p' "$source_dir/Cargo.toml")
  fi
  releases="${AGUI_LINT_RELEASES:-$repository/releases/download}"
  target=$(target)
  found=0
  if [ -n "$target" ]; then
    download "$target" "$releases" || found=$?
  else
    found=1
  fi
  case "$found" in
    0) ;;
    2)
      echo "agui-lint action: release $version does not exist (not published yet?);" \
        "building the action's own source instead" >&2
      cargo install --locked --root "$root" --path "$source_dir" "$@"
      ;;
    *)
      echo "agui-lint action: no prebuilt binary of $version for $(uname -s) $(uname -m); building it from source" >&2
      cargo install agui-lint --locked --root "$root" --git "$repository" --tag "$version" "$@"
      ;;
  esac
else
  cargo install --locked --root "$root" --path "$source_dir" "$@"
fi
"$root/bin/agui-lint" --version
