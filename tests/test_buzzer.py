"""The buzzer: melodies on gpiozero's mock PWM pin, stepped through on fake times."""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from gpiozero.pins.mock import MockFactory, MockPWMPin

from box.errors import PinUnavailable
from box.games.base import Sound
from box.ports.buzzer import DEFAULT_VOLUME, MELODIES, VOLUMES, BeepOutput, BuzzerPlayer, TonalOutput

PIN = 18
SOUND_NAMES = [value for name, value in vars(Sound).items() if name.isupper()]


@pytest.fixture
def factory():
    factory = MockFactory(pin_class=MockPWMPin)
    yield factory
    factory.reset()


@pytest.fixture
def tonal(factory):
    player = BuzzerPlayer(TonalOutput(PIN, factory))
    yield player
    player.close()


def heard(factory):
    """What the passive buzzer plays right now: its PWM frequency, or None when silent."""
    pin = factory.pin(PIN)
    return pin.frequency if pin.state else None


def run_to_end(player, factory, start):
    """Step the player from deadline to deadline: [(time, frequency heard from then on)]."""
    timeline = [(start, heard(factory))]
    while (deadline := player.next_deadline()) is not None:
        player.advance(deadline)
        timeline.append((deadline, heard(factory)))
    return timeline


def test_every_sound_has_a_melody():
    assert set(MELODIES) == set(SOUND_NAMES)
    for notes in MELODIES.values():
        assert notes[0].frequency is not None
        assert all(note.seconds > 0 for note in notes)
        assert sum(note.seconds for note in notes) <= 1.5


def test_the_passive_buzzer_can_play_every_note(factory):
    """TonalBuzzer refuses tones outside the range it was built with."""
    output = TonalOutput(PIN, factory)
    tones = sorted({note.frequency for notes in MELODIES.values() for note in notes} - {None})
    for tone in tones:
        output.sound(tone)
        assert heard(factory) == tone
    with pytest.raises(ValueError, match="out of the device's range"):
        output.sound(tones[-1] * 2)
    output.close()


def test_a_melody_plays_its_notes_at_the_right_times(tonal, factory):
    tonal.play(Sound.RIGHT, now=10.0)
    assert heard(factory) == 1318.5
    assert tonal.next_deadline() == pytest.approx(10.08)
    tonal.advance(10.079)
    assert heard(factory) == 1318.5
    tonal.advance(10.08)
    assert heard(factory) is None
    tonal.advance(10.10)
    assert heard(factory) == 1568.0
    tonal.advance(10.22)
    assert heard(factory) is None
    assert tonal.next_deadline() is None


@pytest.mark.parametrize("sound", SOUND_NAMES)
def test_each_melody_follows_its_notes_and_ends_silent(tonal, factory, sound):
    timeline = run_to_end(tonal, factory, start=0.0)
    assert timeline == [(0.0, None)]
    tonal.play(sound, now=0.0)
    timeline = run_to_end(tonal, factory, start=0.0)
    notes = MELODIES[sound]
    assert [frequency for _, frequency in timeline] == [note.frequency for note in notes] + [None]
    durations = [later - earlier for (earlier, _), (later, _) in pairwise(timeline)]
    assert durations == pytest.approx([note.seconds for note in notes])


def test_a_new_sound_replaces_the_one_playing(tonal, factory):
    tonal.play(Sound.FANFARE, now=0.0)
    tonal.advance(0.13)
    tonal.play(Sound.WRONG, now=0.2)
    assert heard(factory) == 440.0
    timeline = run_to_end(tonal, factory, start=0.2)
    assert timeline == [
        (0.2, 440.0),
        (pytest.approx(0.35), None),
        (pytest.approx(0.38), 349.23),
        (pytest.approx(0.68), None),
    ]


def test_a_late_advance_jumps_to_the_note_due(tonal, factory):
    tonal.play(Sound.COLUMN, now=0.0)  # C6 .07, rest .02, E6 .07, rest .02, G6 .18
    tonal.advance(0.2)
    assert heard(factory) == 1568.0
    assert tonal.next_deadline() == pytest.approx(0.36)


def test_an_unknown_sound_raises_and_leaves_the_buzzer_alone(tonal, factory):
    tonal.play(Sound.END, now=0.0)
    with pytest.raises(ValueError, match="unknown sound 'boing'"):
        tonal.play("boing", now=0.1)
    assert heard(factory) == 1046.5
    assert tonal.next_deadline() == pytest.approx(0.6)


def test_the_active_buzzer_beeps_on_and_off(factory):
    player = BuzzerPlayer(BeepOutput(PIN, factory))
    pin = factory.pin(PIN)
    player.play(Sound.ERROR, now=0.0)  # F4 .1, rest .04, F4 .1
    pattern = [(0.0, pin.state)]
    while (deadline := player.next_deadline()) is not None:
        player.advance(deadline)
        pattern.append((deadline, pin.state))
    assert pattern == [(0.0, 1), (pytest.approx(0.1), 0), (pytest.approx(0.14), 1), (pytest.approx(0.24), 0)]
    player.close()


def test_close_silences_and_releases_the_pin(factory):
    player = BuzzerPlayer(TonalOutput(PIN, factory))
    player.play(Sound.END, now=0.0)
    player.close()
    assert player.next_deadline() is None
    assert factory.pin(PIN).state == 0
    BuzzerPlayer(BeepOutput(PIN, factory)).close()


def test_a_bad_pin_is_named(factory):
    with pytest.raises(PinUnavailable, match="buzzer on GPIO99"):
        TonalOutput(99, factory)
    with pytest.raises(PinUnavailable, match="buzzer on GPIO99"):
        BeepOutput(99, factory)


def duty(factory):
    """The duty cycle the piezo is driven with right now (0 when silent)."""
    return factory.pin(PIN).state


@pytest.mark.parametrize("level", list(VOLUMES))
def test_the_volume_is_the_piezos_duty_cycle(tonal, factory, level):
    tonal.set_volume(level)
    tonal.play(Sound.RIGHT, now=0.0)
    assert heard(factory) == 1318.5 and duty(factory) == VOLUMES[level]
    run_to_end(tonal, factory, 0.0)
    assert duty(factory) == 0
    assert tonal.state() == {"volume": level, "muted": False}


def test_volume_levels_get_quieter_step_by_step():
    # The fundamental of a square wave of duty d has amplitude sin(pi d): each step is quieter.
    loudness = [math.sin(math.pi * d) for d in VOLUMES.values()]
    assert loudness == sorted(loudness) and VOLUMES[DEFAULT_VOLUME] == 0.5
    assert 20 * math.log10(loudness[0]) < -15, "low is clearly quieter than high"


def test_an_unknown_volume_changes_nothing(tonal, factory):
    tonal.set_volume("medium")
    with pytest.raises(ValueError, match="unknown volume 'eleven'; levels: low, medium, high"):
        tonal.set_volume("eleven")
    assert tonal.volume == "medium"
    tonal.play(Sound.CLICK, now=0.0)
    assert duty(factory) == VOLUMES["medium"]


def test_mute_silences_every_sound_and_cuts_the_one_playing(tonal, factory):
    tonal.play(Sound.FANFARE, now=0.0)
    tonal.set_muted(True)
    assert heard(factory) is None and tonal.next_deadline() is None
    tonal.play(Sound.RIGHT, now=1.0)
    assert heard(factory) is None and tonal.next_deadline() is None
    assert tonal.state() == {"volume": DEFAULT_VOLUME, "muted": True}
    tonal.set_muted(False)
    tonal.play(Sound.RIGHT, now=2.0)
    assert heard(factory) == 1318.5


def test_an_active_buzzer_mutes_but_has_one_loudness(factory):
    player = BuzzerPlayer(BeepOutput(PIN, factory), volume="low")
    player.play(Sound.CLICK, now=0.0)
    assert factory.pin(PIN).state == 1, "on at full: an active buzzer cannot be made quieter"
    player.set_muted(True)
    assert factory.pin(PIN).state == 0
    player.close()
