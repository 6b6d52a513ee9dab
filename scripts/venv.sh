#!/usr/bin/env bash
# Make .venv ready with the project installed, then run a command in it.
# Idempotent: installs only when the venv is new or pyproject.toml changed.
#   scripts/venv.sh EXTRAS COMMAND [ARGS...]   (EXTRAS: "" or "test")
# GRAVEBOX_PYTHON (default python3) and GRAVEBOX_VENV (default .venv) choose another Python and
# its own venv: ./run-tests runs the suite on each supported Python the machine has.
# On a Raspberry Pi the venv also sees the system's python3-lgpio (installed with apt when
# missing) and gets the `pi` extra; lgpio is never built from source (PyPI has no wheel for
# Trixie's Python 3.13).
set -euo pipefail
shopt -s inherit_errexit

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
venv="${GRAVEBOX_VENV:-${root}/.venv}"
python=${GRAVEBOX_PYTHON:-python3}
extras=$1
shift
find_lgpio='import importlib.util, sys; sys.exit(importlib.util.find_spec("lgpio") is None)'

as_root() {
    if [[ ${EUID} -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

apt_install() {
    echo "Installing $* with apt..." >&2
    as_root apt-get update -qq
    as_root apt-get install -y -qq "$@" >/dev/null
}

if ! command -v python3 >/dev/null 2>&1; then apt_install python3 python3-venv; fi
if ! "${python}" -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
    echo "gravebox needs Python 3.11 or newer; this is $("${python}" --version || true)" >&2
    exit 1
fi
if ! "${python}" -c 'import venv, ensurepip' >/dev/null 2>&1; then apt_install python3-venv; fi

on_pi=no
if grep -qs "Raspberry Pi" /proc/device-tree/model; then on_pi=yes; fi
if [[ ${on_pi} == yes ]] && ! "${python}" -c "${find_lgpio}"; then apt_install python3-lgpio; fi

# A venv made before it had to see the system's packages is made again.
if [[ ${on_pi} == yes && -f ${venv}/pyvenv.cfg ]] && ! grep -qs '^include-system-site-packages = true' "${venv}/pyvenv.cfg"; then
    echo "Recreating ${venv} so that it sees the system's python3-lgpio..." >&2
    rm -rf -- "${venv}"
fi
if [[ ! -x ${venv}/bin/python ]]; then
    if [[ ${on_pi} == yes ]]; then
        "${python}" -m venv --system-site-packages "${venv}"
    else
        "${python}" -m venv "${venv}"
    fi
fi

wanted=${extras}
if [[ ${on_pi} == yes ]]; then wanted="${wanted:+${wanted},}pi"; fi
stamp="${venv}/.installed${wanted:+-${wanted}}"
fingerprint=$(sha256sum "${root}/pyproject.toml")
fingerprint=${fingerprint:0:16}
installed=$(cat "${stamp}" 2>/dev/null) || installed=""
if [[ ${installed} != "${fingerprint}" ]]; then
    echo "Setting up ${venv}${wanted:+ (${wanted})}..." >&2
    # A failed pip self-update is harmless: the venv's own pip does the job.
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip >/dev/null 2>&1 || true
    "${venv}/bin/python" -m pip install --quiet --disable-pip-version-check --only-binary=lgpio -e "${root}${wanted:+[${wanted}]}"
    echo "${fingerprint}" >"${stamp}"
fi

export PATH="${venv}/bin:${PATH}"
exec "$@"
