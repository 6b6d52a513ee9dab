"""The hardware ports: small interfaces, each with a real adapter and the library's own fake.

A port is a `Protocol`: what the rest of the box may ask of a part, and nothing more. The real
adapter serves a box and, on the library's fake (gpiozero's mock pins, luma's dummy device, the
simulated PN532 behind pyserial), the simulator and the tests; a test may hand the box any
other object of the same shape. The type checker (mypy, in ./run-tests) holds each adapter to
its port where `box.core.hardware.open_parts` puts it in the `Parts`; nothing is checked at run time,
and this module imports nothing at run time but `typing`:

- `ButtonsPort` (box/ports/buttons.py `GpioButtons`): the buttons only put an `Edge` in the
  loop's inbox, through the `on_edge` they were opened with; the box only closes them;
- `BuzzerPort` (box/ports/buzzer.py `BuzzerPlayer`): plays a named sound, on the loop's clock,
  at the owner's volume level or not at all (muted);
- `FramePort` (box/ports/display.py `FramePusher`): takes the latest frame, and the panel's
  contrast and on/off (the Box's screen care), pushed by its own thread (`PusherThread`) or on
  the simulator's virtual time;
- `ReaderPort` (box/ports/nfc/reader.py `Pn532Reader`): one card reader, polled on virtual time
  or watched by its own thread (`start_readers`), answering with `ReaderEvent`s; it takes the
  loop's requests to write a card's record on a tag;
- the USB sticks' port is `Sticks` in box/ports/usb.py (`UdisksSticks`, `FakeSticks`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable

    from PIL import Image

    from box.messages import ReaderEvent, WriteCard
    from box.words import Sound


class ButtonsPort(Protocol):
    """The buttons: each edge goes to the `on_edge` they were opened with (it only enqueues)."""

    def close(self) -> None:
        """Release every pin."""
        ...


class BuzzerPort(Protocol):
    """The buzzer: one sound at a time, stepped by the loop from deadline to deadline."""

    def play(self, sound: Sound, now: float) -> None:
        """Start `sound` at `now`, cutting off the one playing (muted: nothing)."""
        ...

    def advance(self, now: float) -> None:
        """Move on to the note due at `now`."""
        ...

    def next_deadline(self) -> float | None:
        """When the current note ends; None when silent."""
        ...

    def set_volume(self, level: str) -> None:
        """Play at `level` (one of `box.words.VOLUME_LEVELS`) from now on."""
        ...

    def set_muted(self, muted: bool) -> None:
        """Mute (cutting off the sound playing) or unmute."""
        ...

    def close(self) -> None:
        """Silence the buzzer and release its pin."""
        ...


class FramePort(Protocol):
    """The display: the loop submits frames and panel settings; `push_due` or `flush` sends them.

    `wake` is set by every `submit` and `set_panel` (the pushing thread waits on it) and `clock`
    is the time the pushing thread reads.
    """

    @property
    def wake(self) -> threading.Event: ...

    @property
    def clock(self) -> Callable[[], float]: ...

    def submit(self, image: Image.Image) -> None:
        """Offer a frame, replacing any not yet pushed; never blocks on the bus."""
        ...

    def set_panel(self, contrast: int, on: bool) -> None:
        """Ask for the panel's contrast (0..255) and on/off state, sent with the next push."""
        ...

    def push_due(self, now: float) -> bool:
        """Push what is pending if the rate cap allows; True when a frame went out."""
        ...

    def flush(self) -> bool:
        """Push what is pending now, whatever the rate cap (at shutdown)."""
        ...

    def next_deadline(self) -> float | None:
        """When `push_due` next has work; None with nothing pending."""
        ...


class ReaderPort(Protocol):
    """One card reader: polled (`poll`, virtual time) or watched on its own thread (`watch`), not both."""

    @property
    def name(self) -> str: ...

    @property
    def online(self) -> bool: ...

    def poll(self, now: float) -> list[ReaderEvent]:
        """One poll cycle at `now`: what changed."""
        ...

    def watch(self, now: float, interval: float = ..., keepalive: float = ...) -> tuple[list[ReaderEvent], float]:
        """One step of watching in real time: what changed, and how long to rest before the next."""
        ...

    def interrupt(self) -> None:
        """From another thread: end a `watch` step that waits for a card."""
        ...

    def request_write(self, request: WriteCard) -> None:
        """Queue a write of a card's record (from any thread); a later step answers `CardWritten`."""
        ...

    def close(self) -> None:
        """Close the port; the next step opens it again."""
        ...
