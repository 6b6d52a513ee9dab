"""Buttons: the press logic on explicit times, and the GPIO adapter on gpiozero's mock pins."""

from __future__ import annotations

from itertools import pairwise

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin
from hypothesis import given
from hypothesis import strategies as st

from box.errors import PinUnavailable
from box.ports.buttons import ButtonEvent, Edge, GpioButtons, PressDetector


def press(button, at):
    return Edge(button, True, at)


def release(button, at):
    return Edge(button, False, at)


def feed(detector, *edges):
    events = []
    for edge in edges:
        events += detector.edge(edge)
    return events


SHORT_OK = ButtonEvent("ok", "short")


def test_a_short_press_is_reported_on_release():
    detector = PressDetector()
    assert detector.edge(press("ok", 1.0)) == []
    assert detector.edge(release("ok", 1.4)) == [SHORT_OK]
    assert detector.next_deadline() is None


def test_a_long_press_fires_while_held_and_its_release_is_silent():
    detector = PressDetector(long_after=1.0)
    detector.edge(press("back", 5.0))
    assert detector.next_deadline() == 6.0
    assert detector.advance(5.99) == []
    assert detector.advance(6.0) == [ButtonEvent("back", "long")]
    assert detector.advance(9.0) == []
    assert detector.next_deadline() is None
    assert detector.edge(release("back", 9.5)) == []


def test_a_release_just_before_the_threshold_is_short():
    detector = PressDetector(long_after=1.0)
    assert feed(detector, press("roll", 0.0), release("roll", 0.999)) == [ButtonEvent("roll", "short")]


def test_an_edge_after_a_missed_deadline_reports_the_deadline_first():
    """The loop may see the release before it got round to advancing: the long still comes first."""
    detector = PressDetector(long_after=1.0)
    assert feed(detector, press("ok", 0.0), release("ok", 1.5)) == [ButtonEvent("ok", "long")]


def test_chatter_on_press_and_release_gives_one_short_press():
    detector = PressDetector(debounce=0.03)
    events = feed(
        detector,
        press("ok", 0.000),
        release("ok", 0.004),
        press("ok", 0.009),
        release("ok", 0.400),
        press("ok", 0.405),
        release("ok", 0.411),
    )
    assert events == [SHORT_OK]
    assert detector.next_deadline() is None


def test_the_first_edge_counts_at_once():
    """Zero added latency: a long is timed from the first edge, not from the end of the chatter."""
    detector = PressDetector(long_after=1.0, debounce=0.03)
    feed(detector, press("ok", 0.0), release("ok", 0.01), press("ok", 0.02))
    assert detector.next_deadline() == 1.0


def test_a_press_that_bounced_and_ended_released_does_not_stick():
    detector = PressDetector(long_after=1.0, debounce=0.03)
    assert feed(detector, press("ok", 0.0), release("ok", 0.01)) == []
    assert detector.next_deadline() == pytest.approx(0.03)
    assert detector.advance(0.03) == [SHORT_OK]
    assert detector.advance(5.0) == []
    assert detector.next_deadline() is None


def test_a_release_that_ends_pressed_again_is_a_new_press():
    detector = PressDetector(long_after=1.0, debounce=0.03)
    assert feed(detector, press("ok", 0.0), release("ok", 0.5), press("ok", 0.51)) == [SHORT_OK]
    assert detector.advance(0.53) == []
    assert detector.next_deadline() == pytest.approx(0.53 + 1.0)
    assert detector.edge(release("ok", 0.9)) == [SHORT_OK]


def test_up_and_down_repeat_after_a_long_press():
    detector = PressDetector(long_after=1.0, repeat_delay=0.6, repeat_every=0.2)
    detector.edge(press("down", 0.0))
    times = []
    events = []
    while (deadline := detector.next_deadline()) is not None and deadline < 2.1:
        times.append(deadline)
        events += detector.advance(deadline)
    assert times == pytest.approx([1.0, 1.6, 1.8, 1.95, 2.0625])  # each gap a quarter shorter than the last
    assert [event.kind for event in events] == ["long", "repeat", "repeat", "repeat", "repeat"]
    assert detector.edge(release("down", 2.1)) == []
    assert detector.next_deadline() is None


@pytest.mark.parametrize("button", ["ok", "back", "roll"])
def test_other_buttons_do_not_repeat(button):
    detector = PressDetector()
    detector.edge(press(button, 0.0))
    assert detector.advance(10.0) == [ButtonEvent(button, "long")]
    assert detector.next_deadline() is None


def test_a_stalled_loop_gets_one_repeat_not_a_burst():
    detector = PressDetector(long_after=1.0, repeat_delay=0.6, repeat_every=0.2)
    detector.edge(press("up", 0.0))
    assert detector.advance(3.0) == [ButtonEvent("up", "long"), ButtonEvent("up", "repeat")]
    assert detector.next_deadline() == pytest.approx(3.2)


def test_back_and_ok_held_together_request_power_off():
    detector = PressDetector(long_after=1.0, combo_after=2.0)
    feed(detector, press("back", 0.0), press("ok", 0.1))
    assert detector.next_deadline() == pytest.approx(2.1)
    assert detector.advance(2.0) == []
    assert detector.advance(2.1) == [ButtonEvent("back+ok", "combo")]
    assert detector.advance(10.0) == []
    assert feed(detector, release("ok", 10.1), release("back", 10.2)) == []


def test_a_combo_let_go_early_is_silent():
    detector = PressDetector(long_after=1.0, combo_after=2.0)
    assert feed(detector, press("ok", 0.0), press("back", 0.05), release("back", 0.5)) == []
    assert detector.advance(3.0) == []
    assert detector.edge(release("ok", 3.1)) == []
    assert feed(detector, press("ok", 4.0), release("ok", 4.2)) == [SHORT_OK]


def test_a_held_button_does_not_block_others():
    detector = PressDetector(long_after=1.0)
    detector.edge(press("up", 0.0))
    assert feed(detector, press("roll", 0.2), release("roll", 0.4)) == [ButtonEvent("roll", "short")]
    assert detector.advance(1.0) == [ButtonEvent("up", "long")]


@given(
    st.lists(
        st.tuples(st.sampled_from(["ok", "roll"]), st.floats(0.05, 0.95), st.floats(1.0, 3.0), st.floats(0.05, 1.0)),
        max_size=12,
    )
)
def test_every_clean_press_gives_exactly_one_short_or_long(presses):
    """Presses (button, held for, ...) without chatter: held < 1 s is short, else one long."""
    detector = PressDetector(long_after=1.0, debounce=0.03)
    now, expected, events = 0.0, [], []
    for button, short_hold, long_hold, gap in presses:
        held = short_hold if len(expected) % 2 else long_hold
        events += detector.edge(press(button, now))
        events += detector.advance(now + held / 2)
        events += detector.edge(release(button, now + held))
        expected.append(ButtonEvent(button, "short" if held < 1.0 else "long"))
        now += held + gap
    assert events == expected


# The GPIO adapter on gpiozero's own mock pins


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


class FakeClock:
    def __init__(self, now=100.0):
        self.now = now

    def __call__(self):
        return self.now


def test_pin_changes_become_timestamped_edges(factory):
    clock, edges = FakeClock(), []
    with GpioButtons({"ok": 22, "back": 23}, factory, edges.append, clock):
        factory.pin(22).drive_low()
        clock.now = 100.25
        factory.pin(23).drive_low()
        factory.pin(22).drive_high()
    assert edges == [Edge("ok", True, 100.0), Edge("back", True, 100.25), Edge("ok", False, 100.25)]


def test_the_adapter_feeds_the_detector(factory):
    clock, detector, events = FakeClock(0.0), PressDetector(), []
    with GpioButtons({"roll": 24}, factory, lambda edge: events.extend(detector.edge(edge)), clock):
        factory.pin(24).drive_low()
        clock.now = 0.3
        factory.pin(24).drive_high()
    assert events == [ButtonEvent("roll", "short")]


def test_close_releases_the_pins(factory):
    GpioButtons({"up": 17}, factory, lambda edge: None, FakeClock()).close()
    GpioButtons({"up": 17}, factory, lambda edge: None, FakeClock()).close()


def test_a_bad_pin_names_the_button_and_the_pin(factory):
    with pytest.raises(PinUnavailable, match=r"button 'roll' on GPIO99"):
        GpioButtons({"up": 17, "roll": 99}, factory, lambda edge: None, FakeClock())
    GpioButtons({"up": 17}, factory, lambda edge: None, FakeClock()).close()  # the failed attempt let go of GPIO17


def test_a_pin_in_use_names_the_button_and_the_pin(factory):
    with (
        GpioButtons({"up": 17}, factory, lambda edge: None, FakeClock()),
        pytest.raises(PinUnavailable, match=r"button 'down' on GPIO17.*in use"),
    ):
        GpioButtons({"down": 17}, factory, lambda edge: None, FakeClock())


def test_a_held_up_repeats_faster_and_faster_so_a_year_ten_away_is_one_hold() -> None:
    detector = PressDetector()
    detector.edge(press("up", 0.0))
    times = []
    while (deadline := detector.next_deadline()) is not None and deadline <= 3.0:
        times.append(deadline)
        detector.advance(deadline)
    assert len([t for t in times if t <= 2.4]) >= 10, "ten steps (the long and its repeats) in one hold of 2.4 s"
    gaps = [later - earlier for earlier, later in pairwise(times[1:])]  # between the repeats
    assert all(b <= a + 1e-9 for a, b in pairwise(gaps)) and min(gaps) >= detector.repeat_fastest - 1e-9
    detector.edge(release("up", 3.05))
    detector.edge(press("up", 4.0))  # a new hold starts slow again
    assert detector.advance(5.6) == [ButtonEvent("up", "long"), ButtonEvent("up", "repeat")]
