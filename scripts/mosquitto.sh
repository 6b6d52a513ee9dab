#!/usr/bin/env bash
# Install Debian's mosquitto (an MQTT broker) for the MQTT tests (tests/test_mqtt.py) where it is missing.
# Needs root or password-less sudo; otherwise it says so and the MQTT tests skip.
set -euo pipefail

if [[ -x /usr/sbin/mosquitto && -x /usr/bin/mosquitto_passwd ]]; then exit 0; fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "No apt-get: install mosquitto yourself, or the MQTT tests skip" >&2
    exit 0
fi
as_root=()
uid=$(id -u)
if [[ ${uid} -ne 0 ]]; then
    if ! sudo -n true 2>/dev/null; then
        echo "Not root and no password-less sudo: mosquitto not installed, the MQTT tests skip" >&2
        exit 0
    fi
    as_root=(sudo -n)
fi
echo "Installing mosquitto for the MQTT tests..." >&2
export DEBIAN_FRONTEND=noninteractive
if ! "${as_root[@]}" apt-get install -y -qq --no-install-recommends mosquitto >/dev/null 2>&1; then
    if ! { "${as_root[@]}" apt-get update -qq && "${as_root[@]}" apt-get install -y -qq --no-install-recommends mosquitto >/dev/null; }; then
        echo "mosquitto could not be installed: the MQTT tests skip" >&2
    fi
fi
