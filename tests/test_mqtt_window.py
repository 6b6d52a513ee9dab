"""The MQTT process takes the box's events from its state dumps: each once, in order, the ones it
could not see counted (box/links/mqtt/bridge.py `Window`, over the phone link's numbered window, box/parts/phonelink.py)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from box.events import DiceRolled, Standing, StorageBack
from box.links.client import ControlClient
from box.links.control import ControlServer
from box.links.mqtt import STATUS_LINE, Window, event_from_entry
from box.parts.phonelink import PhoneLink


def standing(turn: int) -> Standing:
    return Standing("dead-set", "Ann" if turn % 2 else "Bob", {"Ann": {"celebrities": turn}})


@given(st.lists(st.tuples(st.integers(0, 30), st.booleans()), max_size=25))
def test_each_event_is_taken_once_in_order_and_the_unseen_ones_are_counted(reads: list[tuple[int, bool]]) -> None:
    """Between two reads the box publishes some events (and perhaps a standing); a slow reader
    skips dumps: what it saw is taken once, what left the window unseen is counted as missed
    (but what the box told before the process's first dump is none of its business)."""
    link = PhoneLink()
    window = Window()
    taken: list[int] = []
    seen_in_windows: set[int] = set()
    standings = made = before = 0
    for count, with_standing in reads:
        for _ in range(count):
            link(DiceRolled((1, 2), game=None))
        if with_standing:  # a new standing each time (the same one again is no news)
            made += 1
            link(standing(made))
        dump = list(link.events())
        numbers = {entry["seq"] for entry in dump if "seq" in entry}
        if numbers and not seen_in_windows:
            before = min(numbers) - 1
        seen_in_windows |= numbers
        for entry in window.new(dump):
            if entry["event"] == "standing":
                standings += 1
                continue
            assert entry["run"] == link.run
            taken.append(entry["seq"])
            assert event_from_entry(entry) == DiceRolled((1, 2), game=None)
    assert taken == sorted(set(taken)) == sorted(seen_in_windows)  # once each, in order, all it saw
    assert before + len(taken) + window.missed == link.numbered  # the rest: counted
    assert standings == sum(1 for _, with_standing in reads if with_standing)  # each new standing once


def test_a_new_run_of_the_box_is_news_and_a_fresh_process_skips_what_is_old() -> None:
    now = [1000.0]
    window = Window(clock=lambda: now[0], catch_up=60.0)
    old = {"event": "storage-back", "run": "a", "seq": 7, "at": 900.0}
    recent = {"event": "storage-back", "run": "a", "seq": 8, "at": 990.0}
    assert window.new([old, recent]) == [recent] and window.missed == 0  # at its start: the last minute only
    restarted = [{"event": "storage-back", "run": "b", "seq": seq, "at": 1001.0} for seq in (2, 3)]
    assert window.new(restarted) == restarted and window.missed == 1  # seq 1 of run b left unseen


def test_an_event_of_another_shape_is_refused_in_one_line() -> None:
    for entry, said in (
        ({"event": "storage-back", "extra": 1}, "storage-back: unknown fields extra"),
        ({"event": "no-such"}, "not an event of the box"),
        ([1, 2], "not an event of the box"),
    ):
        try:
            event_from_entry(entry)
        except ValueError as problem:
            assert said in str(problem) and "\n" not in str(problem)
        else:
            raise AssertionError(entry)
    assert event_from_entry({"event": "storage-back", "seq": 1, "run": "a", "at": 2.0}) == StorageBack()


def test_the_mqtt_process_tells_the_box_its_line_bounded(tmp_path: Path) -> None:
    woken: list[object] = []
    control = ControlServer(tmp_path / "run" / "control.sock", woken.append)
    control.start()
    try:
        client = ControlClient(control.path)
        line = ("MQTT: connected " + "x" * 500)[:STATUS_LINE]  # the bridge clips it so
        assert client.request("mqtt-status", line=line) == {"ok": True}
        assert control.mqtt_line == line
        assert woken == [None]  # the loop makes a pass: the dump carries the new line
        for bad, said in ((3, "line must be text"), (line + "x", "1 to 200 characters"), ("a\nb", "printable")):
            refused = client.request("mqtt-status", line=bad)
            assert not refused["ok"] and said in refused["error"] and control.mqtt_line == line
    finally:
        control.stop()
