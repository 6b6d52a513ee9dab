#!/usr/bin/env bash
# Install Debian's chromium for the browser tests (tests/test_web_browser.py) where it is missing.
# Needs root or password-less sudo; otherwise it says so and the browser tests skip.
set -euo pipefail

if [[ -x /usr/bin/chromium ]]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "No apt-get: install chromium yourself, or the browser tests skip" >&2
    exit 0
fi
as_root=()
uid=$(id -u)
if [[ ${uid} -ne 0 ]]; then
    if ! sudo -n true 2>/dev/null; then
        echo "Not root and no password-less sudo: chromium not installed, the browser tests skip" >&2
        exit 0
    fi
    as_root=(sudo -n)
fi
echo "Installing chromium for the browser tests..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -qq chromium >/dev/null 2>&1; then
    if ! { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" apt-get install -y -qq chromium >/dev/null; }; then
        echo "chromium could not be installed: the browser tests skip" >&2
    fi
fi
