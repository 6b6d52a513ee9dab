"""The phone page's unit: hardened (exposure <= 2.0), networked unlike the box, sharing its runtime folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.test_systemd import exposure, unit_settings

REPO = Path(__file__).resolve().parent.parent
WEB_UNIT = REPO / "systemd/gravebox-web.service"
BOX_UNIT = REPO / "systemd/gravebox.service"
MAX_EXPOSURE = 2.0

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed (apt-get install systemd)"
)


@needs_analyze
def test_web_unit_exposure_is_at_most_2() -> None:
    score, result = exposure(WEB_UNIT, most=MAX_EXPOSURE)
    assert score <= MAX_EXPOSURE and result.returncode == 0, result.stdout


def test_only_the_web_unit_has_a_network_and_both_share_the_socket_folder() -> None:
    web, box = unit_settings(WEB_UNIT), unit_settings(BOX_UNIT)
    assert box["PrivateNetwork"] == ["yes"] and box["RestrictAddressFamilies"] == ["AF_UNIX"]
    assert "PrivateNetwork" not in web
    assert set(web["RestrictAddressFamilies"][0].split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert web["IPAddressDeny"] == ["any"] and "localhost" in web["IPAddressAllow"][0]
    for unit in (web, box):
        assert unit["RuntimeDirectory"] == ["gravebox"] and unit["RuntimeDirectoryPreserve"] == ["yes"]
        assert unit["StateDirectory"] == ["gravebox"] and unit["User"] == ["gravebox"]
    assert web["ExecStart"] == ["/opt/gravebox/venv/bin/gravebox web"]
    assert web["CapabilityBoundingSet"] == [""] and web["PrivateDevices"] == ["yes"]
    assert web["RestartPreventExitStatus"] == ["2"], "a bad settings file is said once, not in a restart loop"
