"""The installed box under a real systemd: a Debian Trixie userland (systemd 257, Python 3.13), then
a Bookworm one (systemd 252, Python 3.11), each booted with `systemd-nspawn -b` (tests/booted.py);
the project installed as docs/install.md says (a user `pi` runs `sudo ./install.sh` in a copy of
the checkout, then reboots), and what an owner relies on checked on the running units, in order:
the destructive checks (a failed install, a second one, uninstall) come last.

The container is not a Pi. What it lacks is stood in for by named stand-ins in one cached root
(tests/pi_os.py's `pi_os_root`: the board's boot files, python3-lgpio, `modprobe` and `udevadm`,
a wheelhouse for PyPI, the account `pi`), never in install.sh; the board by `install.sh --model
pi5` (the documented override of the device-tree detection).

Runs once per `./run-tests` (the second Python's pass sets GRAVEBOX_SECOND_PASS: the container
runs its own Python either way). Skips with one line where this machine cannot boot a container.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from collections.abc import Iterator

import pytest

from tests.booted import CannotBoot, Container, machine_reason
from tests.pi_os import STAND_INS_LOG, copy_checkout, pi_os_root

RELEASES = ("trixie", "bookworm")  # Raspberry Pi OS's two: each root cached, each booted in turn
SEATS = ["Ann", "Bob", "Cy"]
UNITS = ("gravebox.service", "gravebox-web.service", "gravebox-mqtt.service")
# udisks2 (the tag map to a USB stick) needs udevd, which a container does not run: its failure is
# the container's, and the only one allowed (the system then says "degraded").
CONTAINER_FAILURES = {"udisks2.service"}
MAX_EXPOSURE = 1.5  # as tests/test_systemd.py

pytestmark = pytest.mark.slow
if os.environ.get("GRAVEBOX_SECOND_PASS"):
    pytest.skip("the booted-container test ran in the first pass of ./run-tests", allow_module_level=True)
if machine_reason():
    pytest.skip(f"no booted container on this machine: {machine_reason()}", allow_module_level=True)


class Box:
    """The booted container with the box installed: what the checks below ask of it."""

    def __init__(self, container: Container):
        self.container = container
        self.before: dict[str, str] = {}  # the system before the install (`snapshot`)
        self.first_install = ""  # what the first `sudo ./install.sh` said

    def run(self, script: str, user: str = "root", check: bool = True) -> subprocess.CompletedProcess[str]:
        return self.container.run(script, user=user, check=check)

    def out(self, script: str, user: str = "root") -> str:
        return self.run(script, user=user).stdout.strip()

    def show(self, unit: str, *keys: str) -> dict[str, str]:
        """`systemctl show` of these properties."""
        text = self.out(f"systemctl show {unit} " + " ".join(f"-p {key}" for key in keys))
        return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)

    def journal(self, unit: str = "gravebox") -> str:
        """This boot's log of the unit (its messages only)."""
        return self.out(f"journalctl -b -u {unit} -o cat --no-pager")

    def install(self, works: bool = True) -> str:
        """`sudo ./install.sh` by pi in its copy of the checkout (docs/install.md); its output.
        `works`: it must end with exit status 0 (else: not 0)."""
        result = self.run("cd ~/gravebox && sudo ./install.sh --model pi5 2>&1", user="pi", check=False)
        assert (result.returncode == 0) == works, result.stdout + result.stderr
        return result.stdout

    def wait_ready(self, unit: str = "gravebox", seconds: int = 90) -> None:
        """Until the unit is active (a notify unit: after READY=1), or fail."""
        result = self.run(f"for i in $(seq {seconds * 2}); do systemctl is-active --quiet {unit} && exit 0;"
                          f" systemctl is-failed --quiet {unit} && exit 1; sleep 0.5; done; exit 1", check=False)
        assert result.returncode == 0, f"{unit} not active:\n{self.out(f'systemctl status {unit} --no-pager || true')}"

    def control(self, command: str, **args: object) -> dict[str, object]:
        """One command to the box's control socket, sent by pi (a user in the gravebox group)."""
        code = ("import json; from box.links.client import ControlClient; from box.links.control import socket_path;"
                f" print(json.dumps(ControlClient(socket_path(), timeout=10).request({command!r}, **{args!r})))")
        return json.loads(self.out(f"/opt/gravebox/venv/bin/python -c {shlex.quote(code)}", user="pi"))

    def game(self) -> tuple[object, object]:
        """The game in play and its seats, from the first state dump the box sends a subscriber
        (pi, over the control socket)."""
        code = ("import json; from box.links.client import ControlClient; from box.links.control import socket_path;"
                " print(json.dumps(next(ControlClient(socket_path(), timeout=10).subscribe())))")
        dump = json.loads(self.out(f"timeout 60 /opt/gravebox/venv/bin/python -c {shlex.quote(code)}", user="pi"))
        return dump["game"], dump["players"]

    def set_setting(self, table_line: str, setting: str) -> None:
        """Put `setting` under `table_line` ("[box]") in /etc/gravebox/config.toml."""
        path = self.container.files / "etc/gravebox/config.toml"
        text = path.read_text()
        assert table_line in text, text
        path.write_text(text.replace(table_line, f"{table_line}\n{setting}", 1))

    def drop_setting(self, setting: str) -> None:
        path = self.container.files / "etc/gravebox/config.toml"
        path.write_text(path.read_text().replace(f"\n{setting}", "", 1))


def snapshot(box: Box) -> dict[str, str]:
    """Every path of the system outside what changes by itself (logs, caches, homes), with its
    type, mode and owner; and the user and group databases' lines."""
    skip = ["/proc", "/sys", "/dev", "/run", "/tmp", "/var/tmp", "/var/log", "/var/cache", "/var/lib/systemd",
            "/var/lib/dbus", "/var/lib/sudo", "/var/lib/polkit-1", "/var/lib/udisks2", "/home", "/root",
            "/var/lib/private", "/var/spool"]
    # /etc/*- are shadow-utils' backups of the last version of each database.
    prune = " -o ".join(f"-path {path}" for path in skip)
    listing = box.out(f"find / -xdev \\( {prune} -o -path '/etc/*-' \\) -prune -o -printf '%p %y %m %u:%g\\n'")
    entries = {line.rsplit(" ", 3)[0]: line for line in listing.splitlines()}
    for database in ("passwd", "group", "shadow", "gshadow"):
        for line in box.out(f"cat /etc/{database}").splitlines():
            entries[f"{database}: {line}"] = line
    return entries


@pytest.fixture(scope="module", params=RELEASES)
def box(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Box]:
    """The release booted, pi's copy of the checkout installed and the box rebooted, as docs/install.md says."""
    release = request.param
    try:
        image = pi_os_root(release)
        container = Container(image, tmp_path_factory.mktemp("booted") / release).__enter__()
    except CannotBoot as reason:
        pytest.skip(f"no booted container on this machine: {reason}")
    try:
        booted = Box(container)
        booted.before = snapshot(booted)
        checkout = container.files / "home/pi/gravebox"
        copy_checkout(checkout)
        booted.run("chown -R pi:pi /home/pi/gravebox")
        booted.first_install = booted.install()
        container.reboot()
        yield booted
    finally:
        container.close()


def test_first_install_sets_up_everything_and_asks_for_the_reboot(box: Box) -> None:
    said = box.first_install
    assert "Gravebox installed for pi5." in said and "reboot to turn on I2C" in said, said
    assert "unchanged  apt packages" in said  # Raspberry Pi OS's own: already there
    assert "installed  the program (/opt/gravebox/venv)" in said
    assert "pi joins the gravebox group at the next login" in said
    stand_ins_called = (box.container.files / STAND_INS_LOG.lstrip("/")).read_text()
    assert "modprobe i2c-dev" in stand_ins_called and "udevadm control --reload" in stand_ins_called
    assert "# >>> gravebox" in (box.container.files / "boot/firmware/config.txt").read_text()
    assert "console=serial0" not in (box.container.files / "boot/firmware/cmdline.txt").read_text()


def test_off_a_pi_the_box_says_so_once_and_is_not_restarted(box: Box) -> None:
    """Row 6 without the setting: after the reboot the box is up, says why it cannot run, and stays."""
    box.wait_ready()
    shown = box.show("gravebox", "ActiveState", "SubState", "NRestarts", "StatusText")
    assert shown["ActiveState"] == "active" and shown["NRestarts"] == "0", shown
    assert shown["StatusText"].startswith("cannot start: not a Raspberry Pi"), shown
    assert box.journal().count("not a Raspberry Pi") == 1, box.journal()
    failed = set(box.out("systemctl list-units --failed --plain --no-legend | cut -d' ' -f1").split())
    assert failed <= CONTAINER_FAILURES, box.out("systemctl --failed --no-pager")


def test_the_simulated_setting_runs_the_box_ready_with_its_status_and_watchdog(box: Box) -> None:
    """Row 6 with `[box] hardware = "simulated"`: the box runs, READY, its status line, watchdog pings."""
    box.set_setting("[box]", 'hardware = "simulated"')
    box.run("systemctl restart gravebox gravebox-web")
    box.wait_ready()
    assert 'hardware = "simulated" in the settings: running on simulated parts' in box.journal()
    shown = box.show("gravebox", "ActiveState", "StatusText", "WatchdogUSec", "NRestarts")
    assert shown["ActiveState"] == "active" and shown["StatusText"] == "Running: the menu", shown
    assert shown["WatchdogUSec"] == "20s", shown
    # A ping every WatchdogSec/2: the last ping's time moves on within 12 s.
    first = box.show("gravebox", "WatchdogTimestampMonotonic")["WatchdogTimestampMonotonic"]
    moved = box.run(f"for i in $(seq 24); do sleep 0.5; [ \"$(systemctl show gravebox -p WatchdogTimestampMonotonic"
                    f" --value)\" != {first} ] && exit 0; done; exit 1", check=False)
    assert moved.returncode == 0, "no watchdog ping in 12 s"
    status = box.out("systemctl status gravebox --no-pager || true")
    assert 'Status: "Running: the menu"' in status, status


def test_the_phone_page_answers_on_8080(box: Box) -> None:
    box.wait_ready("gravebox-web")
    code = ("import urllib.request; answer = urllib.request.urlopen('http://127.0.0.1:8080/', timeout=10);"
            " print(answer.status, answer.read().decode()[:2000])")
    page = box.run(f"for i in $(seq 60); do python3 -c {shlex.quote(code)} 2>/dev/null && exit 0; sleep 0.5; done;"
                   " exit 1", check=False)
    assert page.returncode == 0 and page.stdout.startswith("200 "), box.journal("gravebox-web")
    assert "Gravebox" in page.stdout


def test_the_sandbox_scores_on_the_real_systemd_which_enforces_it(box: Box) -> None:
    for unit in UNITS:
        text = box.out(f"systemd-analyze security {unit} --no-pager")
        found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", text)
        assert found and float(found[1]) <= MAX_EXPOSURE, text
    # (After the page test: the page is up on 8080.) The container's systemd enforces IPAddressDeny= and DevicePolicy= (BPF): a unit with them
    # is refused what the same command without them is given.
    connect = "python3 -c \"import socket; socket.create_connection(('127.0.0.1', 8080), 3)\""
    box.run(f"systemd-run --quiet --wait --pipe {connect}")
    denied = box.run(f"systemd-run --quiet --wait --pipe -p IPAddressDeny=any {connect}", check=False)
    said = denied.stdout + denied.stderr  # the packets are dropped: no answer, not a refusal
    assert denied.returncode != 0 and ("timed out" in said or "not permitted" in said), said
    box.run("systemd-run --quiet --wait --pipe head -c1 /dev/zero")
    denied = box.run("systemd-run --quiet --wait --pipe -p DevicePolicy=strict head -c1 /dev/zero", check=False)
    assert denied.returncode != 0 and "Operation not permitted" in denied.stdout + denied.stderr, denied.stderr


def test_the_owner_account_uses_the_box_from_its_shell(box: Box) -> None:
    """pi (in the gravebox group since its next login) starts a game over the control socket, and
    the CLI works on the service's state: a backup while the box runs."""
    assert "gravebox" in box.out("id -nG", user="pi").split()
    answer = box.control("start", game="dead-set", names=SEATS, options={})
    assert answer.get("ok") is True, answer
    assert box.game() == ("dead-set", SEATS)
    box.run("/opt/gravebox/venv/bin/gravebox backup -o ~/box.tar && tar tf ~/box.tar | grep -q journal", user="pi")


def test_every_state_file_is_group_writable(box: Box) -> None:
    """Row 5: the journal (and its -wal/-shm) made by the service under UMask=0007."""
    listing = box.out("stat -c '%n %A %G' /var/lib/gravebox/journal.db*")
    assert listing, "no journal"
    for line in listing.splitlines():
        _name, mode, group = line.split()
        assert mode[4:6] == "rw" and mode[7:] == "---" and group == "gravebox", line


def test_a_frozen_box_is_killed_by_the_watchdog_and_its_game_resumes(box: Box) -> None:
    before = int(box.show("gravebox", "NRestarts")["NRestarts"])
    box.run("kill -STOP $(systemctl show gravebox -p MainPID --value)")
    restarted = box.run(f"for i in $(seq 120); do sleep 0.5; [ $(systemctl show gravebox -p NRestarts --value)"
                        f" -gt {before} ] && exit 0; done; exit 1", check=False)
    assert restarted.returncode == 0, box.journal()
    box.wait_ready()
    assert "Watchdog timeout" in box.out("journalctl -b -u gravebox --no-pager")
    assert box.game() == ("dead-set", SEATS)


def test_kill_9_and_the_game_resumes(box: Box) -> None:
    before = int(box.show("gravebox", "NRestarts")["NRestarts"])
    box.run("kill -KILL $(systemctl show gravebox -p MainPID --value)")
    restarted = box.run(f"for i in $(seq 60); do sleep 0.5; [ $(systemctl show gravebox -p NRestarts --value)"
                        f" -gt {before} ] && exit 0; done; exit 1", check=False)
    assert restarted.returncode == 0, box.journal()
    box.wait_ready()
    assert box.game() == ("dead-set", SEATS)


def test_the_box_may_power_off_and_reboot_through_logind_and_polkit(box: Box) -> None:
    """The polkit rule answers yes to the service's user, and to it alone, with no password."""
    for verb in ("CanPowerOff", "CanReboot"):
        ask = f"busctl call org.freedesktop.login1 /org/freedesktop/login1 org.freedesktop.login1.Manager {verb}"
        assert box.out(f"runuser -u gravebox -- {ask}") == 's "yes"'
        assert box.out(ask, user="pi") != 's "yes"'


def test_a_reboot_from_the_box_and_the_game_resumes(box: Box) -> None:
    """The box's menu reboots as its service does (box/cli/service.py): as gravebox, through logind."""
    box.container.reboot("runuser -u gravebox -- systemctl --no-ask-password reboot")
    box.wait_ready()
    assert box.game() == ("dead-set", SEATS)
    assert box.show("gravebox", "NRestarts")["NRestarts"] == "0"


def test_a_decks_folder_under_home_is_a_fault_said_once_not_a_restart_loop(box: Box) -> None:
    """Row 1: the sandbox hides /home; the box shows its fault and stays up, the page stops once."""
    box.run("mkdir -p ~/decks", user="pi")
    box.set_setting("[box]", 'decks = "/home/pi/decks"')
    try:
        box.run("systemctl restart gravebox; systemctl restart gravebox-web || true")
        box.wait_ready()
        shown = box.show("gravebox", "ActiveState", "NRestarts", "StatusText")
        assert shown["ActiveState"] == "active" and shown["NRestarts"] == "0", shown
        assert shown["StatusText"].startswith("cannot start: /etc/gravebox/config.toml:"), shown  # its whole path
        assert "cannot reach this folder of decks" in shown["StatusText"], shown
        assert box.journal().count("cannot reach this folder of decks") == 1, box.journal()
        assert "Traceback" not in box.journal()
        box.run("for i in $(seq 60); do systemctl is-active --quiet gravebox-web || exit 0; sleep 0.5; done; exit 1")
        web = box.show("gravebox-web", "ExecMainStatus", "NRestarts")
        assert web == {"ExecMainStatus": "2", "NRestarts": "0"}, web
        assert box.journal("gravebox-web").count("cannot reach this folder of decks") == 1, box.journal("gravebox-web")
    finally:
        box.drop_setting('decks = "/home/pi/decks"')
        box.run("systemctl restart gravebox gravebox-web")
    box.wait_ready()
    assert box.game() == ("dead-set", SEATS)


def test_a_failed_install_says_the_command_and_leaves_its_steps_to_the_next(box: Box) -> None:
    """Rows 2-3: a run stopped at `udevadm control --reload` names it; the next run does the reload."""
    rules = box.container.files / "etc/udev/rules.d/99-gravebox.rules"
    rules.write_text(rules.read_text() + "# an older rule\n")  # still managed: the install replaces it
    failing = box.container.files / "etc/gravebox-stand-ins/fail-udevadm"
    failing.parent.mkdir(exist_ok=True)
    failing.write_text("")
    said = box.install(works=False)
    assert "gravebox install: failed (exit status 1): udevadm control --reload" in said, said
    assert "Gravebox installed" not in said
    assert "UDEV_CHANGED=yes" in (box.container.files / "opt/gravebox/pending.env").read_text()
    failing.unlink()
    failing.parent.rmdir()
    log = box.container.files / STAND_INS_LOG.lstrip("/")
    log.write_text("")
    said = box.install()
    assert "note: an earlier run left steps to do (reboot needed: no, udev reload: yes, systemd reload: no)" in said
    assert "unchanged  /etc/udev/rules.d/99-gravebox.rules" in said and "udevadm control --reload" in log.read_text()
    assert not (box.container.files / "opt/gravebox/pending.env").exists()


def test_a_second_install_changes_nothing_and_needs_no_network(box: Box) -> None:
    """Rows 2-4: every file unchanged, pip not run (the container has no network: loopback only),
    no reload, no restart needed."""
    assert box.out("ls /sys/class/net") == "lo"
    log = box.container.files / STAND_INS_LOG.lstrip("/")
    log.write_text("")
    main_pid = box.show("gravebox", "MainPID")["MainPID"]
    said = box.install()
    changed = [line for line in said.splitlines() if re.match(r"(installed|updated|backed up|removed) ", line)]
    assert changed == [], said
    assert "unchanged  the program (/opt/gravebox/venv: the same checkout and extras as installed; pip not run)" in said
    assert "reboot" not in said and "an earlier run left steps" not in said, said
    assert "udevadm" not in log.read_text() and "daemon-reload" not in said
    box.wait_ready()
    assert box.game() == ("dead-set", SEATS)
    assert box.show("gravebox", "MainPID")["MainPID"] != main_pid  # restarted: the new code (the same) picked up


def test_uninstall_leaves_nothing_behind(box: Box) -> None:
    """Row 7, last: `sudo ./uninstall.sh --purge` takes away everything the install added."""
    said = box.run("cd ~/gravebox && sudo ./uninstall.sh --purge 2>&1", user="pi").stdout
    assert "Gravebox uninstalled." in said, said
    after = snapshot(box)
    before = box.before
    assert len(before) > 5000 and "passwd: pi:x:1000:1000::/home/pi:/bin/bash" in before  # a whole system
    assert sorted(set(after) - set(before)) == [] and sorted(set(before) - set(after)) == [], said
    assert box.out("systemctl list-units --all 'gravebox*' --no-legend") == ""
