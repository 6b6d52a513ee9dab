"""The hardware ports: small interfaces, each with a real adapter and the library's own fake.

The loop needs only these two shapes of its outputs (the readers and buttons only put
events in its inbox):

- `BuzzerPort` (box/ports/buzzer.py `BuzzerPlayer`): plays a named sound, on the loop's clock,
  at the owner's volume level or not at all (muted);
- `FramePort` (box/ports/display.py `FramePusher`): takes the latest frame, pushed by its own
  thread, and the panel's contrast and on/off (the Box's screen care).
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

    def set_volume(self, level: str) -> None: ...

    def set_muted(self, muted: bool) -> None: ...

    def close(self) -> None: ...


class FramePort(Protocol):
    def submit(self, image: Image.Image) -> None: ...

    def push_due(self, now: float) -> bool: ...

    def set_panel(self, contrast: int, on: bool) -> None: ...

    def next_deadline(self) -> float | None: ...
