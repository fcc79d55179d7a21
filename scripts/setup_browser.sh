#!/usr/bin/env bash
# CI only (called by .ci/run, not by scripts/setup.sh): install Debian's Chromium and its
# driver, which tests/test_html_browser.py drives through Selenium to open the HTML report
# (`gracrc report --html`) in a real browser. Needs root and apt-get; it never fails CI:
# where it cannot install them it says why and the browser test skips, printing its reason.
set -uo pipefail
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then
  echo "setup_browser: $(/usr/bin/chromium --version 2>/dev/null) and its driver are installed"
  exit 0
fi
if [ "$(id -u)" != 0 ]; then
  echo "setup_browser: not root, so Chromium is not installed: the browser test will skip"
  exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "setup_browser: no apt-get, so Chromium is not installed: the browser test will skip"
  exit 0
fi
log=$(mktemp)
export DEBIAN_FRONTEND=noninteractive
if timeout 900 apt-get update -qq >"$log" 2>&1 &&
   timeout 900 apt-get install -y -qq chromium chromium-driver \
     >>"$log" 2>&1; then
  echo "setup_browser: installed $(/usr/bin/chromium --version 2>/dev/null)"
else
  echo "setup_browser: apt-get could not install chromium and chromium-driver (the browser" \
       "test will skip); its last lines:"
  tail -n 5 "$log"
fi
rm -f "$log"
exit 0
