"""The ports as seams: the loop, the pusher thread and the reader threads work with any part of
the port's shape, not only the adapters `open_parts` makes.

The fakes here are type-checked against the ports (box/ports/__init__.py) by mypy in ./run-tests
(pyproject.toml lists this file), so a port that changes and a fake that falls behind it fail
there, not only at run time.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

from PIL import Image

from box.base.settings import Settings
from box.core.hardware import Parts
from box.core.loop import BoxLoop
from box.core.service import Box
from box.messages import ReaderEvent, ReaderStatus, WriteCard
from box.ports import ButtonsPort, BuzzerPort, FramePort, ReaderPort
from box.ports.buttons import Edge
from box.ports.display import PusherThread
from box.ports.nfc.reader import start_readers
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.pinmap import load_pinmap
from box.storage.tags import TagMap
from box.words import Sound


class Buttons:
    def __init__(self) -> None:
        self.closed = False

    def close(self) -> None:
        self.closed = True


class Buzzer:
    """Hears every sound and setting; each sound lasts a tenth of a second."""

    def __init__(self) -> None:
        self.heard: list[tuple[float, str]] = []
        self.settings: list[tuple[str, object]] = []
        self.ends: float | None = None

    def play(self, sound: Sound, now: float) -> None:
        self.heard.append((now, sound))
        self.ends = now + 0.1

    def advance(self, now: float) -> None:
        if self.ends is not None and now >= self.ends:
            self.ends = None

    def next_deadline(self) -> float | None:
        return self.ends

    def set_volume(self, level: str) -> None:
        self.settings.append(("volume", level))

    def set_muted(self, muted: bool) -> None:
        self.settings.append(("muted", muted))

    def close(self) -> None:
        self.settings.append(("closed", True))


class Frames:
    """Keeps the frames submitted; a push takes the pending one into `shown`."""

    def __init__(self, clock: Callable[[], float] = lambda: 0.0) -> None:
        self.wake = threading.Event()
        self.clock = clock
        self.pending: Image.Image | None = None
        self.submitted = 0
        self.shown: list[Image.Image] = []
        self.panel: tuple[int, bool] | None = None
        self.flushed = threading.Event()

    def submit(self, image: Image.Image) -> None:
        self.pending = image
        self.submitted += 1
        self.wake.set()

    def set_panel(self, contrast: int, on: bool) -> None:
        self.panel = (contrast, on)

    def push_due(self, now: float) -> bool:
        if self.pending is None:
            return False
        self.shown.append(self.pending)
        self.pending = None
        return True

    def flush(self) -> bool:
        pushed = self.push_due(self.clock())
        self.flushed.set()
        return pushed

    def next_deadline(self) -> float | None:
        return None if self.pending is None else self.clock()


class Reader:
    """Says it is online at its first watch step, then rests until interrupted."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.online = False
        self.requests: list[WriteCard] = []
        self.closed = threading.Event()
        self.interrupted = threading.Event()

    def poll(self, now: float) -> list[ReaderEvent]:
        if self.online:
            return []
        self.online = True
        return [ReaderStatus(self.name, True, f"reader {self.name}: ready")]

    def watch(self, now: float, interval: float = 0.05, keepalive: float = 1.0) -> tuple[list[ReaderEvent], float]:
        events = self.poll(now)
        if not events:
            self.interrupted.wait(keepalive)
        return events, 0.0

    def interrupt(self) -> None:
        self.interrupted.set()

    def request_write(self, request: WriteCard) -> None:
        self.requests.append(request)

    def close(self) -> None:
        self.closed.set()


# The type checker holds each fake to its port here.
BUTTONS: type[ButtonsPort] = Buttons
BUZZER: type[BuzzerPort] = Buzzer
FRAMES: type[FramePort] = Frames
READER: type[ReaderPort] = Reader


def fake_parts(readers: dict[str, ReaderPort] | None = None, closers: list[Callable[[], None]] | None = None) -> Parts:
    made = readers if readers is not None else {"left": Reader("left")}
    return Parts(
        load_pinmap(), Buttons(), Buzzer(), None, Frames(), make_readers=lambda: made, closers=closers or []
    )


def test_the_loop_plays_and_shows_on_any_parts_of_the_ports_shape() -> None:
    parts = fake_parts()
    buzzer, frames = parts.buzzer, parts.pusher
    assert isinstance(buzzer, Buzzer) and isinstance(frames, Frames)
    box = Box(Journal(":memory:"), TagMap(), DiceCup(die=lambda: 3), Settings())
    loop = BoxLoop(box, parts, clock=lambda: 0.0)
    loop.process(0.0)
    assert buzzer.settings == [("volume", box.sound.volume), ("muted", box.sound.muted)]  # the owner's settings, once
    assert frames.panel == box.care.panel() and frames.submitted == 1  # the menu's first frame
    loop.enqueue(Edge("roll", True, 1.0))
    loop.enqueue(Edge("roll", False, 1.1))
    loop.process(1.1)
    assert buzzer.heard == [(1.1, Sound.DICE)]
    assert loop.next_deadline(1.1) is not None and frames.submitted == 2  # the dice start rolling on screen


def test_the_pusher_thread_pushes_any_frame_port_and_flushes_it_when_stopped() -> None:
    frames = Frames()
    thread = PusherThread(frames)
    thread.start()
    frames.submit(Image.new("1", (128, 64), 1))
    thread.stop()
    assert frames.flushed.is_set() and len(frames.shown) == 1 and frames.pending is None


def test_the_reader_threads_watch_any_reader_port_and_close_it_when_stopped() -> None:
    reader = Reader("middle")
    events: queue.SimpleQueue[ReaderEvent] = queue.SimpleQueue()
    running = start_readers([reader], events.put)
    assert events.get(timeout=5) == ReaderStatus("middle", True, "reader middle: ready")
    running.stop()
    assert reader.interrupted.is_set() and reader.closed.is_set()


def test_parts_make_the_readers_once_and_close_every_part_even_when_one_fails() -> None:
    closed: list[str] = []

    def failing() -> None:
        closed.append("failing")
        raise OSError("the bus is gone")

    made: list[int] = []
    reader = Reader("left")

    def make_readers() -> dict[str, ReaderPort]:
        made.append(1)
        return {"left": reader}

    parts = fake_parts(closers=[lambda: closed.append("first"), failing])
    parts.make_readers = make_readers
    assert parts.readers is parts.readers and made == [1]
    parts.close()
    assert reader.closed.is_set() and closed == ["failing", "first"]  # the last opened closes first
