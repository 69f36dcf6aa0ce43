#!/usr/bin/env bash
# `agui-lint report`'s pages in a real browser: installs Debian's chromium
# when the machine has none, then runs tests/report_browser.rs (ignored by a
# plain `cargo test`, which has no browser): the fixture corpus, a session
# and a hostile capture opened headless, what a person sees asserted from the
# DOM, and nothing logged to the console.
set -euo pipefail
cd "$(dirname "$0")/.."

browser="${AGUI_LINT_CHROMIUM:-}"
if [ -z "$browser" ]; then
  if ! command -v chromium >/dev/null 2>&1; then
    sudo_cmd=""
    if [ "$(id -u)" -ne 0 ]; then sudo_cmd="sudo"; fi
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends chromium >/dev/null
  fi
  browser="$(command -v chromium)"
fi
AGUI_LINT_CHROMIUM="$browser" cargo test --all-features --locked --test report_browser -- --ignored
