"""The buzzer: short melodies for the game's sounds, played without a thread or a sleep.

`BuzzerPlayer` is the clockwork: `play` starts a melody, the service loop calls
`advance(now)` whenever `now` reaches `next_deadline()`, and the player sets the
output for the note due. The output is a passive piezo (`TonalOutput`, tones on
gpiozero's `TonalBuzzer`) or an active buzzer (`BeepOutput`, on/off on
gpiozero's `Buzzer`).

Volume and mute: `set_volume(level)` picks one of `VOLUMES` and `muted` silences every sound.
A passive piezo's loudness follows the PWM duty cycle: the tone's fundamental has an amplitude
proportional to sin(π · duty), loudest at 50 % (the most a GPIO pin can give), about −9 dB at
12 % and −18 dB at 4 %; lower duty also sounds thinner (more overtones). That gives a few coarse
steps, not a smooth volume knob, and nothing louder than "high". An active buzzer makes its own
tone at a fixed loudness: only mute works on it.

>>> class Recorder:
...     def __init__(self):
...         self.heard = []
...     def sound(self, frequency):
...         self.heard.append(frequency)
...     def set_duty(self, duty):
...         pass
...     def close(self):
...         pass
>>> player = BuzzerPlayer(Recorder())
>>> player.play("click", now=0.0)
>>> player.output.heard, player.next_deadline()
([1568.0], 0.03)
>>> player.advance(0.03)
>>> player.output.heard, player.next_deadline()
([1568.0, None], None)
>>> list(player.played)
[(0.0, 'click')]
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import accumulate
from types import MappingProxyType
from typing import Any, Protocol

from box.errors import PinUnavailable
from box.words import VOLUME_LEVELS, Sound

# The passive buzzer's range: TonalBuzzer(mid_tone=A5, octaves=2) plays A3..A7.
MID_TONE_HZ = 880.0
OCTAVES = 2
LOWEST_HZ = MID_TONE_HZ / 2**OCTAVES
HIGHEST_HZ = MID_TONE_HZ * 2**OCTAVES


@dataclass(frozen=True)
class Note:
    """A tone (Hz) or a rest (None) held for `seconds`."""

    frequency: float | None
    seconds: float


def _tune(*tones: tuple[float, float], gap: float = 0.02) -> tuple[Note, ...]:
    """Tones separated by short rests, so an active buzzer (which only beeps) plays them apart too.

    >>> _tune((440.0, 0.1), (880.0, 0.2))
    (Note(frequency=440.0, seconds=0.1), Note(frequency=None, seconds=0.02), Note(frequency=880.0, seconds=0.2))
    """
    notes: list[Note] = []
    for frequency, seconds in tones:
        if notes:
            notes.append(Note(None, gap))
        notes.append(Note(frequency, seconds))
    return tuple(notes)


F4, A4, C5, E5, G5, C6, E6, G6, C7 = 349.23, 440.0, 523.25, 659.25, 783.99, 1046.5, 1318.5, 1568.0, 2093.0

MELODIES: Mapping[str, tuple[Note, ...]] = MappingProxyType(
    {
        Sound.RIGHT: _tune((E6, 0.08), (G6, 0.12)),
        Sound.WRONG: _tune((A4, 0.15), (F4, 0.3), gap=0.03),
        Sound.COLUMN: _tune((C6, 0.07), (E6, 0.07), (G6, 0.18)),
        Sound.LAP: _tune(*[(C7, 0.12), (G5, 0.12)] * 4, gap=0.04),
        Sound.TICK: _tune((C7, 0.02)),
        Sound.END: _tune((C6, 0.6)),
        Sound.DICE: _tune(*[(G5 + 60 * step, 0.025) for step in range(6)], gap=0.03),
        Sound.FANFARE: _tune((C5, 0.12), (E5, 0.12), (G5, 0.12), (C6, 0.24), (G5, 0.12), (C6, 0.4), gap=0.03),
        Sound.CLICK: _tune((G6, 0.03)),
        Sound.ERROR: _tune((F4, 0.1), (F4, 0.1), gap=0.04),
    }
)
PLAYED_KEPT = 8  # the last sounds a player remembers (the simulator shows them as text)


# Volume levels: the PWM duty cycle a passive piezo is driven with (see the module's docstring).
VOLUMES: Mapping[str, float] = MappingProxyType(dict(zip(VOLUME_LEVELS, (0.04, 0.12, 0.5), strict=True)))
DEFAULT_VOLUME = "high"


class BuzzerOutput(Protocol):
    """What the player drives: a frequency in Hz, or None for silence; a PWM duty for loudness."""

    def sound(self, frequency: float | None) -> None: ...

    def set_duty(self, duty: float) -> None: ...

    def close(self) -> None: ...


class BuzzerPlayer:
    """Plays one melody at a time on an output; a new sound replaces the one playing."""

    def __init__(self, output: BuzzerOutput, volume: str = DEFAULT_VOLUME, muted: bool = False):
        self.output = output
        self._notes: tuple[Note, ...] = ()
        self._ends: tuple[float, ...] = ()  # when each note of the melody ends
        self._index = 0
        self.played: deque[tuple[float, str]] = deque(maxlen=PLAYED_KEPT)  # (when, sound): what was heard lately
        self.volume = DEFAULT_VOLUME
        self.muted = False
        self.set_volume(volume)
        self.set_muted(muted)

    def set_volume(self, level: str) -> None:
        """Play at `level` (a key of `VOLUMES`) from now on; an unknown level changes nothing.

        >>> player = BuzzerPlayer(_Silent())
        >>> player.set_volume("loud")
        Traceback (most recent call last):
        ValueError: unknown volume 'loud'; levels: low, medium, high
        """
        if level not in VOLUMES:
            raise ValueError(f"unknown volume {level!r}; levels: {', '.join(VOLUMES)}")
        self.volume = level
        self.output.set_duty(VOLUMES[level])

    def set_muted(self, muted: bool) -> None:
        """Mute (cutting off the sound playing) or unmute."""
        self.muted = muted
        if muted and self.playing:
            self._ends, self._index = (), 0
            self.output.sound(None)

    def state(self) -> dict[str, Any]:
        """For the state dump: `{"volume": level, "muted": bool}`."""
        return {"volume": self.volume, "muted": self.muted}

    def play(self, sound: str, now: float) -> None:
        """Start `sound` (a `Sound` name) at `now`, cutting off whatever was playing; muted: nothing."""
        if sound not in MELODIES:
            raise ValueError(f"unknown sound {sound!r}; known: {', '.join(MELODIES)}")
        if self.muted:
            return
        self._notes = MELODIES[sound]
        self.played.append((now, sound))
        self._ends = tuple(accumulate((note.seconds for note in self._notes), initial=now))[1:]
        self._index = 0
        self.output.sound(self._notes[0].frequency)

    def advance(self, now: float) -> None:
        """Move on to the note playing at `now`; fall silent after the last one."""
        if not self.playing:
            return
        index = self._index
        while index < len(self._ends) and self._ends[index] <= now:
            index += 1
        if index == self._index:
            return
        self._index = index
        self.output.sound(self._notes[index].frequency if self.playing else None)

    def next_deadline(self) -> float | None:
        """When the current note ends, or None when silent."""
        return self._ends[self._index] if self.playing else None

    @property
    def playing(self) -> bool:
        return self._index < len(self._ends)

    def close(self) -> None:
        """Silence the buzzer and release its pin."""
        self._ends, self._index = (), 0
        self.output.close()


class _Silent:
    """An output that plays nothing (for examples)."""

    def sound(self, frequency: float | None) -> None:
        pass

    def set_duty(self, duty: float) -> None:
        pass

    def close(self) -> None:
        pass


class TonalOutput:
    """A passive piezo on a GPIO (ideally GPIO18), played with gpiozero's `TonalBuzzer`.

    TonalBuzzer always drives 50 % duty; the duty for the volume is set on its PWM device
    right after each tone starts.
    """

    def __init__(self, pin: int, pin_factory: Any):
        from gpiozero import TonalBuzzer
        from gpiozero.tones import Tone

        self._tone = Tone
        self._duty = VOLUMES[DEFAULT_VOLUME]
        try:
            self._buzzer = TonalBuzzer(
                pin, mid_tone=Tone(frequency=MID_TONE_HZ), octaves=OCTAVES, pin_factory=pin_factory
            )
        except Exception as error:  # each pin backend raises its own types
            raise PinUnavailable(f"buzzer on GPIO{pin} cannot be used: {error}") from error

    def sound(self, frequency: float | None) -> None:
        if frequency is None:
            self._buzzer.stop()
        else:
            self._buzzer.play(self._tone(frequency=frequency))
            self._buzzer.pwm_device.value = self._duty

    def set_duty(self, duty: float) -> None:
        if not 0 < duty <= 0.5:
            raise ValueError(f"a piezo's duty cycle must be in (0, 0.5], not {duty}")
        self._duty = duty

    def close(self) -> None:
        self._buzzer.close()


class BeepOutput:
    """An active buzzer (it makes its own tone) on a GPIO, via gpiozero's `Buzzer`: on for a note, off for a rest."""

    def __init__(self, pin: int, pin_factory: Any):
        from gpiozero import Buzzer

        try:
            self._buzzer = Buzzer(pin, pin_factory=pin_factory)
        except Exception as error:  # each pin backend raises its own types
            raise PinUnavailable(f"buzzer on GPIO{pin} cannot be used: {error}") from error

    def sound(self, frequency: float | None) -> None:
        if frequency is None:
            self._buzzer.off()
        else:
            self._buzzer.on()

    def set_duty(self, duty: float) -> None:
        """An active buzzer has its own oscillator and one loudness: volume levels do nothing."""

    def close(self) -> None:
        self._buzzer.close()
