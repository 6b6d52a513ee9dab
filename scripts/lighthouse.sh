#!/usr/bin/env bash
# Install npm's lighthouse (12) for tests/test_web_lighthouse.py into a cache folder outside the
# repository (${GRAVEBOX_LIGHTHOUSE:-~/.cache/gravebox/lighthouse}), where it is missing.
# Without npm it says so and that test skips; Chromium comes from scripts/chromium.sh.
set -euo pipefail

folder=${GRAVEBOX_LIGHTHOUSE:-${HOME}/.cache/gravebox/lighthouse}
if [[ -x ${folder}/node_modules/.bin/lighthouse ]]; then exit 0; fi
if ! command -v npm >/dev/null 2>&1; then
    echo "No npm: lighthouse not installed, the Lighthouse test skips" >&2
    exit 0
fi
echo "Installing lighthouse into ${folder} for the Lighthouse test..." >&2
mkdir -p "${folder}"
if ! npm install --silent --no-audit --no-fund --prefix "${folder}" lighthouse@12 >/dev/null; then
    echo "lighthouse could not be installed: the Lighthouse test skips" >&2
fi
