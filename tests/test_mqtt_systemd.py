"""The MQTT process's unit: hardened like the page's, networked while the box's service stays without a network."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.test_systemd import exposure, unit_settings

REPO = Path(__file__).resolve().parent.parent
MQTT_UNIT = REPO / "systemd/gravebox-mqtt.service"
BOX_UNIT = REPO / "systemd/gravebox.service"
MAX_EXPOSURE = 1.5

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed (apt-get install systemd)"
)


@needs_analyze
def test_mqtt_unit_exposure_is_at_most_1_5() -> None:
    score, result = exposure(MQTT_UNIT, most=MAX_EXPOSURE)
    assert score <= MAX_EXPOSURE and result.returncode == 0, result.stdout


@needs_analyze
def test_mqtt_unit_has_no_unknown_or_misspelt_settings(tmp_path: Path) -> None:
    copy = tmp_path / MQTT_UNIT.name
    copy.write_text(re.sub(r"(?m)^ExecStart=.*$", "ExecStart=/bin/true", MQTT_UNIT.read_text()))
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and not re.search(r"Unknown|ignoring|Failed|Invalid", output), output


def test_the_box_keeps_no_network_and_the_mqtt_process_reaches_only_the_house() -> None:
    mqtt, box = unit_settings(MQTT_UNIT), unit_settings(BOX_UNIT)
    assert box["PrivateNetwork"] == ["yes"] and box["RestrictAddressFamilies"] == ["AF_UNIX"]
    assert all("PrivateNetwork" not in path.read_text() for path in (REPO / "systemd").glob("*.conf"))  # no drop-in
    assert "PrivateNetwork" not in mqtt
    assert set(mqtt["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert mqtt["IPAddressDeny"] == ["any"] and "0.0.0.0/0" not in mqtt["IPAddressAllow"][0]
    assert mqtt["RuntimeDirectory"] == ["gravebox"] and mqtt["RuntimeDirectoryPreserve"] == ["yes"]
    assert mqtt["User"] == ["gravebox"] and mqtt["ExecStart"] == ["/opt/gravebox/venv/bin/gravebox mqtt"]
    assert mqtt["CapabilityBoundingSet"] == [""] and mqtt["PrivateDevices"] == ["yes"]
    assert mqtt["ProtectSystem"] == ["strict"] and "StateDirectory" not in mqtt  # it writes nothing
