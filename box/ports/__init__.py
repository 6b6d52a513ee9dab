"""The hardware ports: small interfaces, each with a real adapter and the library's own fake.

The loop needs only these two shapes of its outputs (the readers and buttons only put
events in its inbox):

- `BuzzerPort` (box/ports/buzzer.py `BuzzerPlayer`): plays a named sound, on the loop's clock;
- `FramePort` (box/ports/display.py `FramePusher`): takes the latest frame, pushed by its own thread.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from PIL import Image

    from box.words import Sound


class BuzzerPort(Protocol):
    def play(self, sound: Sound, now: float) -> None: ...

    def advance(self, now: float) -> None: ...

    def next_deadline(self) -> float | None: ...

    def close(self) -> None: ...


class FramePort(Protocol):
    def submit(self, image: Image.Image) -> None: ...

    def push_due(self, now: float) -> bool: ...

    def next_deadline(self) -> float | None: ...
