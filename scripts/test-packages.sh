#!/usr/bin/env bash
# Install the Debian packages some tests use, where they are missing: mosquitto (a real MQTT broker,
# tests/test_mqtt.py), poppler-utils (pdftoppm and pdffonts: the printed pages as pictures and their
# fonts, tests/test_print.py, tests/test_print_shop.py) and xfonts-base (the X11 6x9 font the OLED's
# glyphs come from, checked by tests/test_startup.py), systemd-container and debootstrap (a Debian
# userland booted under its own systemd with systemd-nspawn, tests/test_booted_box.py).
# Needs root or password-less sudo; otherwise it says so and those tests skip.
set -euo pipefail

wanted=()
if [[ ! -x /usr/sbin/mosquitto || ! -x /usr/bin/mosquitto_passwd ]]; then wanted+=(mosquitto); fi
if ! command -v pdftoppm >/dev/null 2>&1 || ! command -v pdffonts >/dev/null 2>&1; then wanted+=(poppler-utils); fi
if [[ ! -e /usr/share/fonts/X11/misc/6x9.pcf.gz ]]; then wanted+=(xfonts-base); fi
if ! command -v systemd-nspawn >/dev/null 2>&1; then wanted+=(systemd-container); fi
if ! command -v debootstrap >/dev/null 2>&1 && [[ ! -x /usr/sbin/debootstrap ]]; then wanted+=(debootstrap); fi
if [[ ${#wanted[@]} -eq 0 ]]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "No apt-get: install ${wanted[*]} yourself, or the tests that need them skip" >&2
    exit 0
fi
as_root=()
uid=$(id -u)
if [[ ${uid} -ne 0 ]]; then
    if ! sudo -n true 2>/dev/null; then
        echo "Not root and no password-less sudo: ${wanted[*]} not installed, the tests that need them skip" >&2
        exit 0
    fi
    as_root=(sudo -n)
fi
echo "Installing ${wanted[*]} for the tests..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null 2>&1; then
    if ! { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null; }; then
        echo "${wanted[*]} could not be installed: the tests that need them skip" >&2
    fi
fi
