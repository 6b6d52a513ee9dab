#!/usr/bin/env bash
# Install Home Assistant core for tests/test_home_assistant.py into a cached venv outside the
# repository (~/.cache/gravebox/homeassistant-<version>, linked as ~/.cache/gravebox/homeassistant;
# ${GRAVEBOX_HOME_ASSISTANT} names another link), where it is missing. The release is the newest
# that this machine's Python 3.13 takes (later ones need 3.13.2+), pinned with HA's own
# homeassistant/package_constraints.txt (without it pip backtracks for long), with what the
# integrations it loads require (paho-mqtt for MQTT, the frontend...). Where it cannot be
# installed (no Python 3.13, no PyPI) it says so in one line and that test skips.
set -euo pipefail

version=2025.4.4
cache=${HOME}/.cache/gravebox
link=${GRAVEBOX_HOME_ASSISTANT:-${cache}/homeassistant}
venv=${cache}/homeassistant-${version}
# The integrations the test's configuration.yaml names (HA sets up its defaults besides).
integrations=(homeassistant http api config websocket_api device_automation automation logger
    onboarding mqtt)

if [[ -f ${venv}/.installed && -x ${venv}/bin/hass ]]; then
    if [[ $(readlink "${link}" || true) != "${venv}" ]]; then ln -sfn "${venv}" "${link}"; fi
    exit 0
fi

python=""
for found in python3.13 "$(pyenv root 2>/dev/null || echo "${HOME}/.pyenv")"/versions/3.13.*/bin/python3.13; do
    if command -v "${found}" >/dev/null 2>&1 && "${found}" -c 'import venv, ensurepip' >/dev/null 2>&1; then
        python=${found}
        break
    fi
done
if [[ -z ${python} ]]; then
    echo "No Python 3.13: Home Assistant not installed, the Home Assistant test skips" >&2
    exit 0
fi

echo "Installing Home Assistant ${version} into ${venv} for the Home Assistant test..." >&2
work=$(mktemp -d)
trap 'rm -rf -- "${work}"' EXIT
fail() {
    echo "Home Assistant ${version} could not be installed ($1): the Home Assistant test skips" >&2
    rm -rf -- "${venv}"
    exit 0
}
rm -rf -- "${venv}"
mkdir -p "${cache}"
"${python}" -m venv "${venv}" || fail "no venv"
pip=("${venv}/bin/python" -m pip --disable-pip-version-check --quiet)
"${pip[@]}" install --upgrade pip >"${work}/log" 2>&1 || true
"${pip[@]}" download --no-deps --dest "${work}" "homeassistant==${version}" >>"${work}/log" 2>&1 || fail "download"
"${venv}/bin/python" -c 'import pathlib, sys, zipfile
wheel = zipfile.ZipFile(next(pathlib.Path(sys.argv[1]).glob("homeassistant-*.whl")))
sys.stdout.buffer.write(wheel.read("homeassistant/package_constraints.txt"))' "${work}" >"${work}/constraints.txt" ||
    fail "its wheel"
install() {
    if ! "${pip[@]}" install --constraint "${work}/constraints.txt" "$@" >>"${work}/log" 2>&1; then
        tail -n 5 "${work}/log" >&2
        fail "pip"
    fi
}
install "${work}"/homeassistant-*.whl
# What the integrations it loads require, read from their manifests: the test starts HA with
# --skip-pip, so that nothing is installed while it runs.
"${venv}/bin/python" - "${integrations[@]}" >"${work}/requirements.txt" <<'EOF' || fail "its manifests"
import json, pathlib, sys

from homeassistant import bootstrap, components

folder = pathlib.Path(components.__file__).parent
wanted, seen = [*bootstrap.DEFAULT_INTEGRATIONS, *sys.argv[1:]], set()
while wanted:
    name = wanted.pop()
    if name not in seen:
        seen.add(name)
        manifest = json.loads((folder / name / "manifest.json").read_text())
        print("\n".join(manifest.get("requirements", [])))
        wanted += manifest.get("dependencies", [])
EOF
install --requirement "${work}/requirements.txt"
touch "${venv}/.installed"
ln -sfn "${venv}" "${link}"
