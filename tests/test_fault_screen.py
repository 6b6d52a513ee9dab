"""Where the service cannot start at all: the reason on the OLED, READY, watchdog pings, no exit."""

from __future__ import annotations

import threading

from box.core.fault import open_fault_display, stay_up_showing
from box.links import sdnotify
from box.parts.notices import fault_view
from box.screens.render import render


def test_the_reason_is_wrapped_onto_the_panel_and_its_end_kept() -> None:
    reason = "/etc/gravebox/decks-of-the-owner/deck-of-death.toml:3: outer: 136 is out of range 10..99"
    view = fault_view(reason)
    assert view.title == "Cannot start" and all(len(line) <= 21 for line in view.lines)
    assert view.lines[-1].endswith("10..99")
    render(view)  # draws on the 128x64 panel


def test_the_fault_screen_is_shown_ready_is_sent_and_a_storage_fault_is_tried_again(monkeypatch) -> None:
    sent: list[str] = []
    monkeypatch.setattr(sdnotify, "notify", lambda message: sent.append(message) or True)
    display = open_fault_display(None, simulated=True)
    shown = []
    display.display = lambda image: shown.append(image)
    tries: list[int] = []

    def storage_back() -> bool:  # the storage answers at the third try
        tries.append(1)
        return len(tries) == 3

    went_away = stay_up_showing("Storage failing: disk I/O error", threading.Event(), display, storage_back, every=0)
    assert went_away and len(tries) == 3
    assert shown and shown[0].size == (128, 64)
    assert sent[:2] == ["STATUS=cannot start: Storage failing: disk I/O error", "READY=1"]
    assert sent.count("WATCHDOG=1") >= 2


def test_a_stop_ends_the_fault_screen(monkeypatch) -> None:
    monkeypatch.setattr(sdnotify, "notify", lambda message: True)
    stop = threading.Event()
    stop.set()
    assert stay_up_showing("config.toml:2: box.names: names must differ", stop, None) is False


def test_the_status_and_the_log_say_the_file_by_its_whole_path(monkeypatch, caplog) -> None:
    sent: list[str] = []
    monkeypatch.setattr(sdnotify, "notify", lambda message: sent.append(message) or True)
    stop = threading.Event()
    full = "/etc/gravebox/config.toml:10: box.decks: no such folder of decks: /etc/gravebox/decks"
    monkeypatch.setattr(stop, "wait", lambda _: stop.set())  # one round
    stay_up_showing("config.toml:10: box.decks: no such folder of decks", stop, None, said=full)
    assert f"STATUS=cannot start: {full}" in sent
    assert full in caplog.text
