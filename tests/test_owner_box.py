"""The owner's box: decks where the service can read them, one state for every command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from box.decks.codec import check_decks_folder
from box.errors import DeckError
from box.messages import ReaderStatus


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder: the refusal is for other users")
def test_a_decks_folder_the_box_cannot_read_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "decks"
    folder.mkdir()
    folder.chmod(0)
    try:
        with pytest.raises(DeckError, match="cannot read this folder of decks"):
            check_decks_folder(folder)
    finally:
        folder.chmod(0o755)


def test_missing_decks_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no such folder of decks"):
        check_decks_folder(tmp_path / "nowhere")
    assert check_decks_folder(tmp_path) == tmp_path


def test_every_command_on_an_installed_box_uses_the_services_state(tmp_path: Path, monkeypatch) -> None:
    from box.storage.journal import state_directory

    for variable in ("GRAVEBOX_STATE", "STATE_DIRECTORY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    own = tmp_path / "home/.local/state/gravebox"
    system = tmp_path / "var/lib/gravebox"
    assert state_directory(system=system) == own, "not installed: the owner's folder"
    system.mkdir(parents=True)
    assert state_directory(system=system) == system, "installed: the service's folder, from any shell"
    assert state_directory(simulated=True, system=system) == own, "the simulator never touches the box's state"
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "unit"))
    assert state_directory(system=system) == tmp_path / "unit", "the service itself: what systemd gives"
    monkeypatch.setenv("GRAVEBOX_STATE", str(tmp_path / "chosen"))
    assert state_directory(simulated=True, system=system) == tmp_path / "chosen"


def test_contrast_is_a_setting_checked_like_the_others(tmp_path: Path) -> None:
    from box.errors import ConfigError
    from box.storage.config import load_config
    from box.words import DEFAULT_CONTRAST

    path = tmp_path / "config.toml"
    path.write_text("[box]\ncontrast = 90\n")
    assert load_config(path).contrast == 90
    path.write_text("[box]\nnames = []\n")
    assert load_config(path).contrast == DEFAULT_CONTRAST
    for bad in ("256", "-1", '"bright"', "true", "12.5"):
        path.write_text(f"[box]\n\ncontrast = {bad}\n")
        with pytest.raises(ConfigError) as problem:
            load_config(path)
        assert str(problem.value) == f"{path}:3: box.contrast: must be a whole number 0..255 (the OLED's brightness)"


# --- the Box: OLED care and sound, on explicit (fake) times ---------------------------------------


def make_box(journal=None, **settings):
    from box.base.settings import Settings
    from box.core.service import Box
    from box.screens.tools import DiceCup
    from box.storage.journal import Journal
    from box.storage.tags import TagMap

    return Box(journal or Journal(":memory:"), TagMap(), DiceCup(die=lambda: 2), Settings(**settings))


def press(box, button: str, now: float) -> None:
    """A short press as the loop delivers it: the edges, then the press detector's short."""
    box.edge(button, True, now)
    box.edge(button, False, now + 0.1)
    box.button(button, "short", now + 0.1)


def test_the_screen_dims_and_blanks_and_a_press_acts_on_a_dimmed_one() -> None:
    box = make_box(contrast=200)
    box.advance(1000.0)  # the loop's clock may start anywhere
    assert box.dump(1000.0)["display"] == {"contrast": 200, "dimmed": False, "blank": False}
    assert box.next_deadline(1000.0) == 1120.0
    press(box, "down", 1050.0)  # an action: the menu's cursor moves
    cursor = box.screen(1050.2).cursor
    assert cursor == 1
    box.advance(1170.1)
    assert box.dump(1170.1)["display"] == {"contrast": 200, "dimmed": True, "blank": False}
    assert box.care.panel() == (25, True)
    press(box, "down", 1200.0)  # dimmed, not dark: the screen is read, so the press wakes it and acts
    assert box.root.menu.cursor == cursor + 1 and box.dump(1200.2)["display"]["dimmed"] is False
    press(box, "down", 1201.0)
    assert box.root.menu.cursor == cursor + 2
    box.advance(1201.1 + 600.0)
    assert box.dump(1801.1)["display"] == {"contrast": 200, "dimmed": True, "blank": True}
    assert box.care.panel() == (25, False) and box.next_deadline(1801.1) is None
    press(box, "down", 1900.0)  # dark: this press only wakes it
    assert box.root.menu.cursor == cursor + 2 and box.dump(1900.2)["display"]["blank"] is False


def test_a_held_press_that_woke_the_screen_does_nothing_until_let_go() -> None:
    box = make_box()
    box.advance(0.0)
    box.advance(700.0)  # dark
    box.edge("back", True, 700.0)
    box.button("back", "long", 701.0)  # the long BACK would open the box menu
    box.edge("back", False, 701.5)
    assert box.dump(701.5)["screen"] != "box-menu"
    box.button("ok", "short", 702.0)  # a press without edges (a script) while awake: acts as usual
    box.edge("back", True, 703.0)
    box.button("back", "long", 704.0)
    assert box.dump(704.0)["screen"] == "box-menu"


def test_a_card_on_a_dark_screen_wakes_it_and_acts() -> None:
    box = make_box()
    box.advance(0.0)
    box.advance(700.0)  # dark
    box.card_placed("left", bytes.fromhex("04a1b2c3"), 700.0)
    dump = box.dump(700.0)
    assert dump["display"]["blank"] is False and dump["notice"].startswith("Unknown card"), "laid on purpose: read"


def test_volume_and_mute_from_the_box_menu_survive_a_restart() -> None:
    from box.storage.journal import Journal

    journal = Journal(":memory:")
    box = make_box(journal)
    assert box.dump(0.0)["sound"] == {"volume": "high", "muted": False}
    box.button("back", "long", 1.0)
    menu = box.top
    assert menu.name == "box-menu" and menu.entries[-3] == "Sound: high"
    menu.cursor = len(menu.entries) - 3
    box.button("ok", "short", 2.0)
    assert box.top.name == "sound" and box.screen(2.0).cursor == 2  # on the current level
    box.button("up", "short", 3.0)
    box.button("up", "short", 3.1)
    box.button("ok", "short", 3.2)  # Low
    assert box.dump(3.2)["sound"] == {"volume": "low", "muted": False}
    assert "click" in [str(s) for s in box.take_sounds()], "heard at the new level"
    box.sound.open(4.0)
    box.top.cursor = 3
    box.button("ok", "short", 4.1)  # Mute
    assert box.dump(4.1)["sound"] == {"volume": "low", "muted": True}
    again = make_box(journal)
    assert again.dump(0.0)["sound"] == {"volume": "low", "muted": True}


def test_the_whole_box_dims_its_panel_swallows_the_press_that_wakes_it_dark_and_plays_at_the_volume(
    tmp_path: Path,
) -> None:
    from box.sim.world import SimulatedBox

    world = SimulatedBox(tmp_path / "state")
    try:
        world.advance(1.0)
        assert world.parts.pusher.panel == (world.box.care.contrast, True)
        world.press("down")
        cursor = world.box.root.menu.cursor
        world.advance(125.0)  # two idle minutes: the panel itself is dimmed
        assert world.dump()["display"]["dimmed"] is True
        assert world.parts.pusher.panel == (world.box.care.contrast // 8, True)
        world.press("down")  # through the mock pin, the inbox, the press detector: dimmed, so it acts
        assert world.box.root.menu.cursor == cursor + 1
        assert world.parts.pusher.panel == (world.box.care.contrast, True)
        world.advance(700.0)
        assert world.parts.pusher.panel[1] is False, "dark after ten idle minutes"
        world.press("down")  # dark: only wakes
        assert world.box.root.menu.cursor == cursor + 1 and world.parts.pusher.panel[1] is True

        world.box.sound.set("low", False, world.now)  # what the sound picker does
        world.advance(0.01)
        assert world.parts.buzzer.state() == {"volume": "low", "muted": False}
        assert world.parts.mock_factory.pin(world.pinmap.buzzer.pin).state == pytest.approx(0.04)
        world.box.sound.set("low", True, world.now)
        world.advance(0.01)
        assert world.parts.buzzer.muted and world.parts.mock_factory.pin(world.pinmap.buzzer.pin).state == 0
    finally:
        world.close()


def test_a_reader_going_off_or_coming_back_wakes_the_screen_to_say_so() -> None:
    box = make_box()
    box.advance(0.0)
    box.advance(700.0)
    box.take(ReaderStatus("left", False, "reader left: unplugged (pn532sim://left): check its cable"), 700.0)
    assert box.dump(700.0)["display"]["blank"] is False
    box.card_placed("left", bytes.fromhex("04a1b2c3"), 701.0)
    assert box.dump(701.0)["notice"].startswith("Unknown card"), "awake already: the card is read"


def test_a_command_refuses_a_missing_decks_folder_in_one_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    config = tmp_path / "config.toml"
    config.write_text(f'[box]\ndecks = "{tmp_path / "decks"}"\n')
    command = [sys.executable, "-m", "box", "sim", "--config", str(config), "--script", "/dev/null"]
    result = subprocess.run(command, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and result.stderr.strip().endswith(f"no such folder of decks: {tmp_path / 'decks'}")


def test_the_service_with_a_missing_decks_folder_shows_it_and_stays_up(tmp_path: Path) -> None:
    import select
    import signal
    import socket
    import subprocess
    import sys
    import time

    repo = Path(__file__).resolve().parent.parent
    config = tmp_path / "config.toml"
    config.write_text(f'[box]\ndecks = "{tmp_path / "decks"}"\n')
    notify = tmp_path / "notify.sock"
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env.update(PYTHONPATH=str(repo), NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="2000000")
    command = [
        sys.executable,
        "-m",
        "box",
        "run",
        "--fake",
        "--state-dir",
        str(tmp_path / "s"),
        "--config",
        str(config),
    ]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(notify))
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        got: list[str] = []
        try:
            until = time.monotonic() + 60
            while "READY=1" not in got and process.poll() is None and time.monotonic() < until:
                if select.select([listener], [], [], 0.5)[0]:
                    got += listener.recv(4096).decode().splitlines()
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=60)
    # The fault screen: the reason on the OLED and in the log, READY with it as the status, no crash loop.
    assert "READY=1" in got, stderr
    assert any(line.startswith("STATUS=") and "decks" in line for line in got), got
    assert process.returncode == 0 and "no such folder of decks" in stderr


def test_a_command_in_the_shared_state_keeps_its_files_group_writable(tmp_path: Path) -> None:
    from box.storage.journal import enter_state_directory

    system = tmp_path / "var/lib/gravebox"
    system.mkdir(parents=True)
    before = os.umask(0o022)
    try:
        assert enter_state_directory(tmp_path, system=system) == tmp_path
        assert os.umask(0o022) == 0o022, "elsewhere the owner's own umask stays"
        enter_state_directory(system, system=system)
        assert os.umask(0o022) == 0o007
    finally:
        os.umask(before)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may enter any folder: the refusal is for the owner's account")
def test_an_account_outside_the_group_is_told_what_to_do(tmp_path: Path) -> None:
    from box.errors import FileProblem
    from box.storage.journal import enter_state_directory

    system = tmp_path / "gravebox"
    system.mkdir(mode=0o700)
    system.chmod(0)
    try:
        with pytest.raises(FileProblem, match="not in the gravebox group yet"):
            enter_state_directory(system, system=system)
    finally:
        system.chmod(0o700)


def test_a_new_journal_and_its_companions_are_group_writable_under_the_units_umask(tmp_path: Path) -> None:
    import stat

    from box.storage.journal import Journal

    old = os.umask(0o007)  # the unit's UMask=
    try:
        journal = Journal(tmp_path / "journal.db")
        journal.put("x", 1)
        modes = {p.name: stat.S_IMODE(p.stat().st_mode) for p in tmp_path.iterdir()}
        journal.close()
    finally:
        os.umask(old)
    assert modes == {"journal.db": 0o660, "journal.db-wal": 0o660, "journal.db-shm": 0o660}, {k: oct(v) for k, v in modes.items()}


def service(config: Path, tmp_path: Path, wanted: str) -> tuple[list[str], int, str]:
    """`gravebox run` as the unit starts it (NOTIFY_SOCKET, INVOCATION_ID), on this machine (no Pi),
    until `wanted` arrives on the notify socket; then SIGTERM. (datagrams, exit status, stderr)"""
    import select
    import signal
    import socket
    import subprocess
    import sys
    import time

    repo = Path(__file__).resolve().parent.parent
    notify = tmp_path / "notify.sock"
    env = {k: v for k, v in os.environ.items() if k not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    env.update(PYTHONPATH=str(repo), NOTIFY_SOCKET=str(notify), WATCHDOG_USEC="2000000", INVOCATION_ID="test",
               STATE_DIRECTORY=str(tmp_path / "state"))
    command = [sys.executable, "-m", "box", "--config", str(config)]
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as listener:
        listener.bind(str(notify))
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env, text=True)
        got: list[str] = []
        try:
            until = time.monotonic() + 60
            while not any(line.startswith(wanted) for line in got) and process.poll() is None and time.monotonic() < until:
                if select.select([listener], [], [], 0.5)[0]:
                    got += listener.recv(4096).decode().splitlines()
            process.send_signal(signal.SIGTERM)
            _, stderr = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=60)
    return got, process.returncode, stderr


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="a machine with a device tree may be a Pi")
def test_the_service_off_a_pi_says_so_once_and_stays_up(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[box]\n")
    got, status, stderr = service(config, tmp_path, "WATCHDOG=1")
    assert "READY=1" in got and "WATCHDOG=1" in got, (got, stderr)
    assert [m for m in got if m.startswith("STATUS=")] == [
        'STATUS=cannot start: not a Raspberry Pi: to run this box on simulated parts, set hardware = "simulated"'
        " under [box] in /etc/gravebox/config.toml, then restart it"
    ]
    assert status == 0, "no restart loop: stopped, it exits cleanly"
    assert stderr.count("not a Raspberry Pi") == 1 and "Traceback" not in stderr, stderr


@pytest.mark.skipif(Path("/proc/device-tree/model").exists(), reason="a machine with a device tree may be a Pi")
def test_the_service_told_to_run_on_fakes_runs_and_says_so(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[box]\nhardware = "simulated"\n')
    got, status, stderr = service(config, tmp_path, "STATUS=Running")
    assert "READY=1" in got and "STATUS=Running: the menu" in got, (got, stderr)
    assert status == 0 and 'hardware = "simulated" in the settings: running on simulated parts' in stderr
    assert (tmp_path / "state" / "journal.db").exists(), "the service's own state folder"


def test_the_hardware_setting_is_checked(tmp_path: Path) -> None:
    from box.errors import ConfigError
    from box.storage.config import load_config

    path = tmp_path / "config.toml"
    path.write_text('[box]\nhardware = "fake"\n')
    with pytest.raises(ConfigError, match=r'box\.hardware: must be "pi"'):
        load_config(path)
    path.write_text("[box]\n")
    assert load_config(path).hardware == "pi"


def test_a_decks_folder_closed_while_the_box_runs_refuses_the_game_in_one_line(tmp_path: Path, monkeypatch) -> None:
    """Path.exists() raises PermissionError behind a closed folder (Python 3.11, 3.13): a DeckError."""
    from box.decks.codec import deck_folder

    def closed(self: Path, *args: object, **kwargs: object) -> os.stat_result:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "stat", closed)
    with pytest.raises(DeckError, match="cannot reach this folder of decks: Permission denied"):
        deck_folder("dead-set", tmp_path)
    with pytest.raises(DeckError, match="cannot reach this folder of decks"):
        check_decks_folder(tmp_path)
