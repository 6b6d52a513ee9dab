"""The service unit (hardening score, the settings the box relies on), polkit rule, sysusers file."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd/gravebox.service"
POLKIT_RULE = REPO / "systemd/50-gravebox.rules"
SYSUSERS = REPO / "systemd/gravebox.sysusers"
MAX_EXPOSURE = 1.5

needs_analyze = pytest.mark.skipif(
    shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed (apt-get install systemd)"
)


def unit_settings(path: Path = UNIT) -> dict[str, list[str]]:
    """Key -> every value it is given, in order (systemd keys may repeat)."""
    settings: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.lstrip().startswith(("#", ";", "[")):
            key, _, value = line.partition("=")
            settings.setdefault(key.strip(), []).append(value.strip())
    return settings


def exposure(unit: Path, most: float = MAX_EXPOSURE) -> tuple[float, subprocess.CompletedProcess[str]]:
    """The unit's exposure score, with `systemd-analyze security` failing above `most`."""
    # --threshold takes tenths in systemd 252: 15 means an exposure of 1.5.
    result = subprocess.run(
        ["systemd-analyze", "security", "--offline=yes", f"--threshold={int(most * 10)}", str(unit)],
        capture_output=True,
        text=True,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", result.stdout)
    assert found, result.stdout + result.stderr
    return float(found[1]), result


@needs_analyze
def test_unit_exposure_is_at_most_1_5() -> None:
    score, result = exposure(UNIT)
    assert score <= MAX_EXPOSURE, result.stdout
    assert result.returncode == 0, result.stdout + result.stderr


@needs_analyze
def test_the_score_check_can_fail(tmp_path: Path) -> None:
    bare = tmp_path / "gravebox.service"
    bare.write_text("[Service]\nType=notify\nExecStart=/opt/gravebox/venv/bin/gravebox\n")
    score, result = exposure(bare)
    assert score > MAX_EXPOSURE and result.returncode != 0


@needs_analyze
@pytest.mark.parametrize("unit", [UNIT, UNIT.with_name("gravebox-web.service")], ids=lambda unit: unit.name)
def test_units_have_no_unknown_or_misspelt_settings(tmp_path: Path, unit: Path) -> None:
    # verify wants the binary to exist: check a copy that runs /bin/true.
    copy = tmp_path / unit.name
    copy.write_text(re.sub(r"(?m)^ExecStart=.*$", "ExecStart=/bin/true", unit.read_text()))
    result = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    output = result.stdout + result.stderr
    assert result.returncode == 0 and not re.search(r"Unknown|ignoring|Failed|Invalid", output), output


def test_unit_is_what_the_box_relies_on() -> None:
    s = unit_settings()
    assert s["Type"] == ["notify"] and s["NotifyAccess"] == ["main"]
    assert s["ExecStart"] == ["/opt/gravebox/venv/bin/gravebox"]
    assert int(s["WatchdogSec"][0]) >= 10
    assert s["Restart"] == ["on-failure"]
    assert s["RestartPreventExitStatus"] == ["2"]  # a bad file: a restart cannot mend it
    assert s["User"] == ["gravebox"]
    assert set(s["SupplementaryGroups"][0].split()) == {"gpio", "i2c", "dialout"}
    assert s["StateDirectory"] == ["gravebox"]
    # Shared with the gravebox group (the owner's shell): setgid folder, group keeps its rights.
    assert s["StateDirectoryMode"] == ["2770"] and s["UMask"] == ["0007"]
    # lgpio's notification FIFO goes into the working directory or $LG_WD: the state directory.
    assert s["WorkingDirectory"] == ["/var/lib/gravebox"]
    assert "LG_WD=/var/lib/gravebox" in s["Environment"]
    assert s["WantedBy"] == ["multi-user.target"]


def test_hardening_still_reaches_the_hardware() -> None:
    s = unit_settings()
    assert s["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0]: value.split()[1] for value in s["DeviceAllow"]}
    for device in ("char-gpiochip", "char-i2c", "char-ttyAMA", "char-ttyUSB", "char-ttyACM"):
        assert allowed.get(device) == "rw", device
    # The traps: these would hide /proc/cpuinfo and the device tree, the devices, or the groups.
    assert "ProcSubset" not in s
    assert s.get("PrivateDevices", ["no"]) == ["no"]
    assert s.get("PrivateUsers", ["no"]) == ["no"]
    for key, value in {
        "PrivateNetwork": "yes",
        "RestrictAddressFamilies": "AF_UNIX",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "CapabilityBoundingSet": "",
    }.items():
        assert s[key] == [value], key
    assert s["SystemCallFilter"][0] == "@system-service"


def test_sysusers_puts_the_service_user_in_its_groups(tmp_path: Path) -> None:
    if shutil.which("systemd-sysusers") is None:
        pytest.skip("systemd-sysusers is not installed")
    (tmp_path / "etc").mkdir()
    subprocess.run(["systemd-sysusers", f"--root={tmp_path}", str(SYSUSERS)], check=True, capture_output=True)
    passwd = (tmp_path / "etc/passwd").read_text()
    assert re.search(r"^gravebox:x:\d+:\d+:[^:]*:/var/lib/gravebox:/usr/sbin/nologin$", passwd, re.M), passwd
    groups = {
        line.split(":")[0]: line.split(":")[3].split(",") for line in (tmp_path / "etc/group").read_text().split()
    }
    for group in ("gpio", "i2c", "dialout"):
        assert "gravebox" in groups[group], group
    assert "gravebox" in groups, "the group install.sh adds the owner's account to"


POLKIT_HARNESS = """
const fs = require("fs");
const rules = [];
const polkit = {
    Result: {NO: "no", YES: "yes", AUTH_ADMIN: "auth_admin", NOT_HANDLED: null},
    addRule: (rule) => rules.push(rule),
};
eval(fs.readFileSync(process.argv[2], "utf8"));
const answers = JSON.parse(process.argv[3]).map(([user, id]) => {
    for (const rule of rules) {
        const result = rule({id: id}, {user: user, local: false, active: false});
        if (result !== null && result !== undefined) return result;
    }
    return null;
});
console.log(JSON.stringify(answers));
"""


def polkit_answers(tmp_path: Path, asks: list[list[str]]) -> list[str | None]:
    """What the polkit rule answers each [user, action] (node evaluates the JavaScript)."""
    node = shutil.which("node") or shutil.which("nodejs")
    if node is None:
        pytest.skip("node is not installed: the polkit rule (JavaScript) is evaluated with it")
    harness = tmp_path / "harness.js"
    harness.write_text(POLKIT_HARNESS)
    result = subprocess.run(
        [node, str(harness), str(POLKIT_RULE), json.dumps(asks)], capture_output=True, text=True, check=True
    )
    return json.loads(result.stdout)


def test_polkit_rule_allows_power_off_for_gravebox_only(tmp_path: Path) -> None:
    login1 = "org.freedesktop.login1."
    asks = [
        ["gravebox", login1 + "power-off"],
        ["gravebox", login1 + "power-off-multiple-sessions"],
        ["gravebox", login1 + "reboot"],
        ["gravebox", login1 + "reboot-multiple-sessions"],
        ["gravebox", login1 + "set-wall-message"],
        ["gravebox", "org.freedesktop.systemd1.manage-units"],
        ["pi", login1 + "power-off"],
    ]
    assert polkit_answers(tmp_path, asks) == ["yes"] * 4 + [None] * 3


def test_polkit_rule_lets_gravebox_mount_usb_sticks_but_not_system_disks(tmp_path: Path) -> None:
    udisks = "org.freedesktop.udisks2."
    asks = [
        ["gravebox", udisks + "filesystem-mount"],
        ["gravebox", udisks + "filesystem-mount-other-seat"],
        ["gravebox", udisks + "filesystem-unmount-others"],
        ["gravebox", udisks + "filesystem-mount-system"],
        ["gravebox", udisks + "modify-device"],
        ["pi", udisks + "filesystem-mount-other-seat"],
    ]
    assert polkit_answers(tmp_path, asks) == ["yes"] * 3 + [None] * 3
