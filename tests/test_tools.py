"""The dice and the shot timer, on explicit times."""

from collections import Counter

import pytest

from box.base.timer import ShotTimer
from box.screens.tools import DiceCup, fair_die


def test_fair_die_covers_one_to_six_evenly():
    counts = Counter(fair_die() for _ in range(60_000))
    assert set(counts) == {1, 2, 3, 4, 5, 6}
    # chi-square with 5 degrees of freedom; 20.5 is the 0.1 % critical value
    expected = 10_000
    chi_square = sum((counts[face] - expected) ** 2 / expected for face in range(1, 7))
    assert chi_square < 20.5


def test_queued_dice_come_first_then_the_source():
    cup = DiceCup(die=lambda: 3)
    cup.queue(6, 1)
    assert cup.throw() == (6, 1)
    assert cup.throw() == (3, 3)


def test_a_seeded_cup_repeats_itself():
    assert [DiceCup.seeded(7).throw() for _ in range(3)] == [DiceCup.seeded(7).throw() for _ in range(3)]
    first, second = DiceCup.seeded(7), DiceCup.seeded(7)
    assert [first.throw() for _ in range(20)] == [second.throw() for _ in range(20)]


@pytest.mark.parametrize("bad", [(0, 3), (7, 1), (3, -1)])
def test_impossible_dice_are_refused(bad):
    with pytest.raises(ValueError):
        DiceCup().queue(*bad)


def test_countdown_ticks_in_the_last_five_seconds_then_ends():
    timer = ShotTimer()
    timer.start_countdown(30, now=0.0)
    assert timer.advance(24.9) == []
    assert timer.next_deadline() == 25.0
    sounds = []
    for tenth in range(250, 301):
        sounds += timer.advance(tenth / 10)
    assert sounds == ["tick"] * 5 + ["end"]
    assert timer.state == "done"
    assert timer.next_deadline() is None


def test_a_short_countdown_ticks_every_second():
    timer = ShotTimer()
    timer.start_countdown(3, now=10.0)
    assert timer.advance(13.0) == ["tick", "tick", "tick", "end"]


def test_stopwatch_keeps_the_best_chug():
    timer = ShotTimer()
    timer.start_stopwatch(now=1.0)
    assert timer.running_time(4.5) == 3.5
    assert timer.stop(now=5.0) == 4.0
    timer.start_stopwatch(now=10.0)
    assert timer.stop(now=16.0) == 6.0
    assert timer.best_chug == 4.0
    timer.start_stopwatch(now=20.0)
    timer.stop(now=22.5)
    assert timer.best_chug == 2.5
    assert timer.dump(30.0)["best_chug"] == 2.5


def test_stopping_a_countdown_silences_it():
    timer = ShotTimer()
    timer.start_countdown(10, now=0.0)
    timer.stop(now=2.0)
    assert timer.advance(20.0) == []
    assert timer.dump(20.0)["state"] == "idle"


def test_walking_away_from_the_stopwatch_is_not_a_chug():
    from box.screens.tools import TimerScreen

    chugs = []
    screen = TimerScreen(ShotTimer(best_chug=9.0), on_chug=lambda seconds, now: chugs.append(seconds))
    screen.press("down", "short", 0.0)
    screen.press("ok", "short", 0.0)  # the stopwatch runs
    screen.press("back", "short", 1.0)
    assert chugs == []
    assert screen.closed
    assert screen.timer.best_chug == 9.0


def test_the_countdown_is_set_in_five_second_steps_within_range():
    from box.screens.tools import TimerScreen

    screen = TimerScreen(ShotTimer())
    screen.press("ok", "short", 0.0)  # set
    for _ in range(10):
        screen.press("down", "short", 0.0)
    assert screen.seconds == 5
    screen.press("ok", "short", 0.0)
    assert screen.timer.state == "countdown"
    assert screen.timer.advance(5.0)[-1] == "end"
