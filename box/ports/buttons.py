"""The arcade buttons: raw edges from GPIO, and the presses the service acts on.

`GpioButtons` only turns pin changes into timestamped `Edge`s and hands them to
a callback (which enqueues them). `PressDetector` is the pure logic that the
service loop feeds with those edges and with the time: debounce, short and long
presses, auto-repeat for UP/DOWN, and the BACK+OK power-off combo.

>>> detector = PressDetector()
>>> detector.edge(Edge("ok", True, at=10.0))
[]
>>> detector.edge(Edge("ok", False, at=10.2))
[ButtonEvent(button='ok', kind='short')]
>>> detector.edge(Edge("back", True, at=20.0)), detector.next_deadline()
([], 21.0)
>>> detector.advance(21.0)
[ButtonEvent(button='back', kind='long')]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from box.errors import PinUnavailable
from box.messages import Edge

EventKind = Literal["short", "long", "repeat", "combo"]
COMBO_BUTTON = "back+ok"
SLACK = 1e-6  # a deadline this close to `now` is due: float sums like 1.6 + 7 * 0.2 land a hair late


class ButtonEvent(NamedTuple):
    """What a button did: a "short" or "long" press, an auto-"repeat", or the "combo" (button "back+ok")."""

    button: str
    kind: EventKind


@dataclass
class _Button:
    """One button's state inside the detector."""

    raw: bool = False  # the last level seen, chatter included
    down: bool = False  # the accepted (debounced) level
    settle_until: float | None = None  # chatter is ignored until then, then `down` catches up with `raw`
    pressed_at: float | None = None
    long_fired: bool = False
    next_repeat: float | None = None
    repeats: int = 0  # repeats of this hold so far: they come faster and faster
    in_combo: bool = False  # part of a BACK+OK chord: no short or long of its own for this press


class PressDetector:
    """Debounced short/long/repeat/combo presses from raw edges, on explicit times.

    Debouncing adds no latency: the first edge counts at once, the edges in the
    next `debounce` seconds are ignored, and then the button catches up with the
    last level seen (a press that bounces and ends released does not stick).

    A "long" fires at the moment a button has been held `long_after` seconds and
    its release then emits nothing. UP/DOWN (`repeating`) held on after a long
    emit a "repeat" `repeat_delay` later, then faster and faster: every `repeat_every` at first,
    each gap a quarter shorter than the one before, down to `repeat_fastest` (a year ten away, or a
    letter thirteen down, in one hold of about 2.4 s).
    BACK and OK (`combo`) held together for `combo_after` seconds emit one
    "combo"; once both are down neither emits a short or long for that press.

    The service calls `edge` for each raw edge, and `advance(now)` when `now`
    reaches `next_deadline()`.
    """

    def __init__(
        self,
        long_after: float = 1.0,
        debounce: float = 0.03,
        repeat_delay: float = 0.6,
        repeat_every: float = 0.2,
        repeat_fastest: float = 0.05,
        combo_after: float = 2.0,
        repeating: Iterable[str] = ("up", "down"),
        combo: tuple[str, str] = ("back", "ok"),
    ):
        self.long_after = long_after
        self.debounce = debounce
        self.repeat_delay = repeat_delay
        self.repeat_every = repeat_every
        self.repeat_fastest = repeat_fastest
        self.combo_after = combo_after
        self.repeating = frozenset(repeating)
        self.combo = combo
        self._buttons: dict[str, _Button] = {}
        self._combo_since: float | None = None
        self._combo_fired = False

    def _button(self, name: str) -> _Button:
        return self._buttons.setdefault(name, _Button())

    def edge(self, edge: Edge) -> list[ButtonEvent]:
        """Take one raw edge; answer the events it (and any deadline passed before it) causes."""
        events = self.advance(edge.at)
        button = self._button(edge.button)
        button.raw = edge.pressed
        chattering = button.settle_until is not None and edge.at < button.settle_until
        if not chattering and edge.pressed != button.down:
            events += self._accept(edge.button, edge.pressed, edge.at)
        return events

    def advance(self, now: float) -> list[ButtonEvent]:
        """The events due by `now`: debounce catch-ups, longs, repeats and the combo, in time order."""
        events: list[ButtonEvent] = []
        while (due := self._earliest()) is not None and due[0] <= now + SLACK:
            at, action, name = due
            button = self._button(name)
            if action == "settle":
                button.settle_until = None
                events += self._accept(name, button.raw, at)
            elif action == "long":
                button.long_fired = True
                events.append(ButtonEvent(name, "long"))
                if name in self.repeating:
                    button.next_repeat = at + self.repeat_delay
            elif action == "repeat":
                events.append(ButtonEvent(name, "repeat"))
                gap = max(self.repeat_fastest, self.repeat_every * 0.75**button.repeats)
                button.repeats += 1
                button.next_repeat = at + gap
                while button.next_repeat <= now + SLACK:  # a stalled loop skips repeats rather than bursting them
                    button.next_repeat += gap
            else:
                self._combo_fired = True
                events.append(ButtonEvent(COMBO_BUTTON, "combo"))
        return events

    def next_deadline(self) -> float | None:
        """When `advance` next has something to do, or None while nothing is pending."""
        due = self._earliest()
        return None if due is None else due[0]

    def _earliest(self) -> tuple[float, str, str] | None:
        """The first pending (time, action, button), or None."""
        pending = []
        for name, button in self._buttons.items():
            if button.settle_until is not None and button.raw != button.down:
                pending.append((button.settle_until, "settle", name))
            if button.down and button.pressed_at is not None and not (button.long_fired or button.in_combo):
                pending.append((button.pressed_at + self.long_after, "long", name))
            if button.down and button.next_repeat is not None:
                pending.append((button.next_repeat, "repeat", name))
        if self._combo_since is not None and not self._combo_fired:
            pending.append((self._combo_since + self.combo_after, "combo", COMBO_BUTTON))
        return min(pending, default=None)

    def _accept(self, name: str, pressed: bool, at: float) -> list[ButtonEvent]:
        """A debounced level change of `name` at time `at`."""
        button = self._button(name)
        button.down = pressed
        button.settle_until = at + self.debounce
        if pressed:
            button.pressed_at, button.long_fired, button.next_repeat, button.in_combo = at, False, None, False
            button.repeats = 0
            if name in self.combo and all(self._button(other).down for other in self.combo):
                self._combo_since, self._combo_fired = at, False
                for other in self.combo:
                    self._button(other).in_combo = True
            return []
        short = not (button.long_fired or button.in_combo)
        button.pressed_at, button.next_repeat = None, None
        if name in self.combo:
            self._combo_since = None
        return [ButtonEvent(name, "short")] if short else []


class GpioButtons:
    """The buttons on GPIO (each between its pin and GND, internal pull-up), reporting raw edges.

    The gpiozero callbacks run on the GPIO library's thread and only call
    `on_edge(Edge(name, pressed, clock()))`; `on_edge` should just enqueue.

    >>> from gpiozero.pins.mock import MockFactory, MockPWMPin
    >>> factory = MockFactory(pin_class=MockPWMPin)
    >>> edges = []
    >>> buttons = GpioButtons({"ok": 22}, factory, edges.append, clock=lambda: 5.0)
    >>> factory.pin(22).drive_low()
    >>> edges
    [Edge(button='ok', pressed=True, at=5.0)]
    >>> buttons.close()
    """

    def __init__(
        self,
        pins: Mapping[str, int],
        pin_factory: Any,
        on_edge: Callable[[Edge], None],
        clock: Callable[[], float],
    ):
        from gpiozero import DigitalInputDevice

        self._devices: list[Any] = []
        for name, pin in pins.items():
            try:
                device = DigitalInputDevice(pin, pull_up=True, bounce_time=None, pin_factory=pin_factory)
            except Exception as error:  # each pin backend raises its own types (lgpio.error, OSError, ...)
                self.close()
                raise PinUnavailable(f"button {name!r} on GPIO{pin} cannot be used: {error}") from error
            device.when_activated = self._reporter(name, True, on_edge, clock)
            device.when_deactivated = self._reporter(name, False, on_edge, clock)
            self._devices.append(device)

    @staticmethod
    def _reporter(
        name: str, pressed: bool, on_edge: Callable[[Edge], None], clock: Callable[[], float]
    ) -> Callable[[], None]:
        return lambda: on_edge(Edge(name, pressed, clock()))

    def close(self) -> None:
        """Release every pin."""
        for device in self._devices:
            device.close()
        self._devices.clear()

    def __enter__(self) -> GpioButtons:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
