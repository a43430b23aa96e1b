#!/usr/bin/env bash
# Install Debian's Chromium for the inspector's browser tests, unless it is already there. The tests
# drive it with playwright-core (executablePath /usr/bin/chromium); Playwright's own browser download
# does not work on this kind of machine. Needs root and apt; prints what it did on stderr.
set -euo pipefail
if [[ -x /usr/bin/chromium ]]; then
  echo "chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)" >&2
  exit 0
fi
if [[ "$(id -u)" != 0 ]] || ! command -v apt-get > /dev/null 2>&1; then
  echo "no /usr/bin/chromium; install Debian's chromium (apt-get install chromium) and run this again" >&2
  exit 1
fi
echo "installing Debian's chromium package (apt-get update && apt-get install chromium)" >&2
apt_log="$(mktemp)"
if ! { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium; } > "$apt_log" 2>&1; then
  cat "$apt_log" >&2
  exit 1
fi
rm -f "$apt_log"
echo "chromium: $(/usr/bin/chromium --version)" >&2
