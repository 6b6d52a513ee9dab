"""Care for the OLED and the owner's sound settings: pure logic on explicit times.

The Box owns one `ScreenCare` and the sound settings; the loop passes `panel()` to the display
port (`FramePusher.set_panel`) and the volume to the buzzer port. Nothing here touches hardware.
"""

from __future__ import annotations

from typing import Any

from box.words import DEFAULT_CONTRAST

DIM_AFTER = 120.0  # seconds without input before the screen dims
BLANK_AFTER = 600.0  # seconds without input before it goes dark


class ScreenCare:
    """When the OLED dims and blanks, on explicit times (no clock inside, no thread).

    OLED pixels wear with the hours they are lit, so a frame that stands still for hours burns
    in. After `dim_after` seconds without input the panel dims to an eighth of its contrast;
    after `blank_after` it goes dark. Any input wakes it. A dimmed screen is still read, so an
    input acts as usual; `input` answers True only for one that woke a dark screen: the box then
    takes a press as "wake up", not as an action (a card laid on a reader acts all the same).

    >>> care = ScreenCare(contrast=160, dim_after=120, blank_after=600, now=0.0)
    >>> care.next_deadline(), care.state()
    (120.0, {'contrast': 160, 'dimmed': False, 'blank': False})
    >>> care.advance(120.0); care.panel(), care.next_deadline()
    ((20, True), 600.0)
    >>> care.advance(600.0); care.state(), care.next_deadline()
    ({'contrast': 160, 'dimmed': True, 'blank': True}, None)
    >>> care.input(700.0), care.input(701.0), care.panel()
    (True, False, (160, True))
    >>> care.advance(821.0); care.state()["dimmed"], care.input(822.0)  # dimmed, not dark: the input acts
    (True, False)
    """

    def __init__(
        self,
        contrast: int = DEFAULT_CONTRAST,
        dim_after: float = DIM_AFTER,
        blank_after: float = BLANK_AFTER,
        now: float | None = None,
    ):
        if not 0 < dim_after < blank_after:
            raise ValueError(f"need 0 < dim_after < blank_after, not {dim_after} and {blank_after}")
        self.dim_after = dim_after
        self.blank_after = blank_after
        self.contrast = DEFAULT_CONTRAST
        self.set_contrast(contrast)
        self.dimmed = self.blank = False
        self._last_input = now  # None: from the first `advance`

    def set_contrast(self, contrast: int) -> None:
        """The contrast when awake, 0..255 (a setting); anything else changes nothing."""
        if isinstance(contrast, bool) or not isinstance(contrast, int) or not 0 <= contrast <= 255:
            raise ValueError(f"contrast must be a whole number 0..255, not {contrast!r}")
        self.contrast = contrast

    def input(self, now: float) -> bool:
        """A press or a card at `now`: wake the screen; True when it was dark (a press then only wakes it)."""
        woke = self.blank
        self._last_input = now
        self.dimmed = self.blank = False
        return woke

    def advance(self, now: float) -> None:
        """Dim or blank the screen if it has had no input for long enough by `now`."""
        if self._last_input is None:
            self._last_input = now
        idle = now - self._last_input
        self.dimmed = idle >= self.dim_after
        self.blank = idle >= self.blank_after

    def next_deadline(self) -> float | None:
        """When the screen next dims or blanks; None once it is dark (or before the first `advance`)."""
        if self.blank or self._last_input is None:
            return None
        return self._last_input + (self.blank_after if self.dimmed else self.dim_after)

    def panel(self) -> tuple[int, bool]:
        """What to send to the panel (`FramePusher.set_panel`): (contrast, on)."""
        return (self.contrast // 8 if self.dimmed else self.contrast, not self.blank)

    def state(self) -> dict[str, Any]:
        """For the state dump: `{"contrast", "dimmed", "blank"}`."""
        return {"contrast": self.contrast, "dimmed": self.dimmed, "blank": self.blank}
