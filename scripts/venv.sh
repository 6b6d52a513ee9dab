#!/usr/bin/env bash
# Make .venv ready with the project installed, then run a command in it.
# Idempotent: installs only when the venv is new or pyproject.toml changed.
#   scripts/venv.sh EXTRAS COMMAND [ARGS...]   (EXTRAS: "" or "test")
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="$root/.venv"
extras=$1
shift

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if ! command -v python3 >/dev/null 2>&1; then
    echo "Installing Python 3 (python3, python3-venv)..." >&2
    as_root apt-get update -qq
    as_root apt-get install -y -qq python3 python3-venv >/dev/null
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "gravebox needs Python 3.11 or newer; this is $(python3 --version)" >&2
    exit 1
fi
if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    echo "Installing python3-venv..." >&2
    as_root apt-get update -qq
    as_root apt-get install -y -qq python3-venv >/dev/null
fi

on_pi=no
if grep -qs "Raspberry Pi" /proc/device-tree/model; then on_pi=yes; fi
if [ ! -x "$venv/bin/python" ]; then
    # On a Pi the system's python3-lgpio must be visible to gpiozero.
    if [ "$on_pi" = yes ]; then
        python3 -m venv --system-site-packages "$venv"
    else
        python3 -m venv "$venv"
    fi
fi

wanted=$extras
if [ "$on_pi" = yes ]; then wanted="${wanted:+$wanted,}pi"; fi
stamp="$venv/.installed${wanted:+-$wanted}"
fingerprint=$(sha256sum "$root/pyproject.toml" | cut -c1-16)
if [ "$(cat "$stamp" 2>/dev/null)" != "$fingerprint" ]; then
    echo "Setting up $venv${wanted:+ ($wanted)}..." >&2
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -e "$root${wanted:+[$wanted]}"
    echo "$fingerprint" >"$stamp"
fi

export PATH="$venv/bin:$PATH"
exec "$@"
