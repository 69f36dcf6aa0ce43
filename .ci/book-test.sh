#!/usr/bin/env bash
# The book under docs/ builds with the command the README gives: mdBook
# (installed here from crates.io when the machine has none; the search
# feature alone, which is all `mdbook build` needs), every page of
# SUMMARY.md rendered, and nothing warned. Its links are checked offline by
# tests/docs.rs, in the README's test command.
set -euo pipefail
cd "$(dirname "$0")/.."

version=0.5.4
mdbook=""
if command -v mdbook >/dev/null 2>&1 && mdbook --version | grep -q "v$version"; then
  mdbook="$(command -v mdbook)"
else
  root="$PWD/target/ci-mdbook"
  if [ ! -x "$root/bin/mdbook" ]; then
    cargo install mdbook --locked --version "$version" --no-default-features --features search --root "$root" --quiet
  fi
  mdbook="$root/bin/mdbook"
fi

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$mdbook" build docs -d "$out/book" >"$out/log" 2>&1 || {
  cat "$out/log" >&2
  echo "book-test.sh: mdbook build docs failed" >&2
  exit 1
}
if grep -E 'WARN|ERROR' "$out/log" >&2; then
  echo "book-test.sh: mdbook warned" >&2
  exit 1
fi
# Every page the table of contents lists is rendered.
pages=0
while IFS= read -r page; do
  html="$out/book/${page%.md}.html"
  [ -f "$html" ] || { echo "book-test.sh: $page was not rendered" >&2; exit 1; }
  pages=$((pages + 1))
done < <(grep -oE '\]\([^)]+\.md\)' docs/src/SUMMARY.md | sed -E 's/^\]\(//; s/\)$//')
[ "$pages" -gt 100 ] || { echo "book-test.sh: only $pages pages listed" >&2; exit 1; }
echo "book-test.sh: $pages pages rendered"
