"""The display port on luma's dummy device: only changed frames, a rate cap, I2C errors ridden out."""

from __future__ import annotations

import logging
import threading

import pytest
from luma.core.device import dummy
from luma.core.error import DeviceNotFoundError
from luma.core.interface.serial import noop
from PIL import Image, ImageDraw

from box.base.care import ScreenCare
from box.ports.display import (
    DisplayUnavailable,
    FramePusher,
    PusherThread,
    open_dummy,
    open_oled,
    release,
)


def frame(text: str) -> Image.Image:
    image = Image.new("1", (128, 64), 0)
    ImageDraw.Draw(image).text((2, 2), text, fill=1)
    return image


class Clock:
    def __init__(self, now: float = 0.0):
        self.now = now

    def __call__(self) -> float:
        return self.now


class FlakyPanel(dummy):
    """luma's dummy device whose bus fails for the first `failures` pushes; it counts the attempts."""

    def __init__(self, failures: int = 0, error: Exception | None = None):
        super().__init__(width=128, height=64, mode="1")
        self.failures = failures
        self.error = error or DeviceNotFoundError("I2C device not found on address: 0x3C")
        self.attempts = 0
        self.shown = threading.Event()

    def display(self, image: Image.Image) -> None:
        self.attempts += 1
        if self.attempts <= self.failures:
            raise self.error
        super().display(image)
        self.shown.set()


def shows(device, image) -> bool:
    return device.image is not None and device.image.tobytes() == image.tobytes()


def test_open_dummy_is_a_one_bit_128_by_64_device():
    device = open_dummy()
    assert (device.width, device.height, device.mode) == (128, 64, "1")


@pytest.mark.parametrize("controller", ["ssd1306", "sh1106"])
def test_open_oled_builds_the_controllers_driver(controller):
    device = open_oled(controller, 1, 0x3C, serial=noop())
    assert controller in [cls.__name__ for cls in type(device).__mro__], "luma's own driver, paged"
    assert device.size == (128, 64)
    assert device.persist is False, "the box switches the panel off itself when it stops"


def test_open_oled_names_what_to_check_when_the_bus_is_missing():
    with pytest.raises(DisplayUnavailable) as caught:
        open_oled("sh1106", 99, 0x3D)  # there is no /dev/i2c-99
    message = str(caught.value)
    for expected in ("sh1106", "I2C bus 99", "0x3D", "i2c_arm=on", "0x3C or 0x3D", "GPIO2", "GPIO3"):
        assert expected in message


def test_open_oled_refuses_an_unknown_controller():
    with pytest.raises(ValueError, match="ssd1306, sh1106"):
        open_oled("ssd1309", 1, 0x3C, serial=noop())


def test_a_submitted_frame_is_pushed_once():
    device, clock = FlakyPanel(), Clock(10.0)
    pusher = FramePusher(device, clock=clock)
    assert pusher.next_deadline() is None
    assert pusher.push_due(10.0) is False
    pusher.submit(frame("A"))
    assert pusher.next_deadline() <= 10.0
    assert pusher.push_due(10.0) is True
    assert shows(device, frame("A"))
    assert pusher.push_due(11.0) is False
    assert (pusher.submitted, pusher.pushed, device.attempts) == (1, 1, 1)


def test_an_unchanged_frame_is_never_pushed():
    device = FlakyPanel()
    pusher = FramePusher(device, min_interval=0.05)
    pusher.submit(frame("A"))
    pusher.push_due(0.0)
    pusher.submit(frame("A"))  # a new image with the same pixels
    assert pusher.push_due(1.0) is False
    assert pusher.next_deadline() is None
    assert (pusher.submitted, pusher.pushed, pusher.skipped_unchanged, device.attempts) == (2, 1, 1, 1)


def test_the_rate_cap_holds_a_frame_back_and_only_the_latest_goes_out():
    device = FlakyPanel()
    pusher = FramePusher(device, min_interval=0.05, clock=lambda: 0.0)  # a push that takes no time
    pusher.submit(frame("A"))
    assert pusher.push_due(1.0) is True
    pusher.submit(frame("B"))
    pusher.submit(frame("C"))
    assert pusher.push_due(1.02) is False
    assert pusher.next_deadline() == pytest.approx(1.05)
    assert pusher.push_due(1.05) is True
    assert shows(device, frame("C"))
    assert (pusher.submitted, pusher.pushed, device.attempts) == (3, 2, 2)


def test_the_rate_cap_counts_from_the_end_of_the_push():
    clock = [0.0]

    class SlowBus(FlakyPanel):
        def display(self, image):
            super().display(image)
            clock[0] += 0.023  # the frame's time on a 400 kHz I2C bus

    pusher = FramePusher(SlowBus(), min_interval=0.01, clock=lambda: clock[0])
    pusher.submit(frame("A"))
    assert pusher.push_due(0.0) is True
    pusher.submit(frame("B"))
    assert pusher.next_deadline() == pytest.approx(0.033)
    assert pusher.push_due(0.03) is False
    assert pusher.push_due(0.033) is True


@pytest.mark.parametrize(
    "error", [DeviceNotFoundError("I2C device not found on address: 0x3C"), OSError(121, "EREMOTEIO")]
)
def test_a_bus_error_is_logged_once_and_the_frame_shows_after_retries(caplog, error):
    device = FlakyPanel(failures=2, error=error)
    pusher = FramePusher(device, retry_after=1.0)
    pusher.submit(frame("A"))
    with caplog.at_level(logging.INFO, logger="box.ports.display"):
        assert pusher.push_due(0.0) is False
        assert pusher.next_deadline() == 1.0
        assert pusher.push_due(0.5) is False
        assert device.attempts == 1  # no retry before the backoff is over
        assert pusher.push_due(1.0) is False
        assert pusher.push_due(2.0) is True
    assert shows(device, frame("A"))
    assert device.attempts == 3
    assert [record.levelname for record in caplog.records] == ["WARNING", "INFO"]
    assert "OLED push failed" in caplog.records[0].message


def test_a_frame_submitted_during_an_outage_replaces_the_failed_one():
    device = FlakyPanel(failures=1)
    pusher = FramePusher(device, retry_after=1.0)
    pusher.submit(frame("A"))
    pusher.push_due(0.0)
    pusher.submit(frame("B"))
    assert pusher.push_due(1.0) is True
    assert shows(device, frame("B"))


def test_a_retry_reopens_the_device_when_it_can():
    broken = FlakyPanel(failures=99)
    fresh = FlakyPanel()
    pusher = FramePusher(broken, retry_after=1.0, reopen=lambda: fresh)
    pusher.submit(frame("A"))
    assert pusher.push_due(0.0) is False
    assert pusher.push_due(1.0) is True
    assert pusher.device is fresh
    assert shows(fresh, frame("A"))


def test_flush_ignores_the_rate_cap():
    device = FlakyPanel()
    clock = Clock(5.0)
    pusher = FramePusher(device, min_interval=60.0, clock=clock)
    pusher.submit(frame("A"))
    pusher.push_due(5.0)
    pusher.submit(frame("Bye"))
    assert pusher.push_due(5.1) is False
    assert pusher.flush() is True
    assert shows(device, frame("Bye"))


def test_a_driver_fault_that_is_not_the_bus_is_retried_and_the_pusher_lives_on(caplog):
    device = FlakyPanel(failures=2, error=ValueError("a driver's own bug"))
    clock = Clock(0.0)
    pusher = FramePusher(device, clock=clock, retry_after=1.0)
    pusher.submit(frame("A"))
    assert pusher.push_due(0.0) is False and pusher.push_due(0.5) is False  # failed, then waiting
    assert "a driver's own bug" in caplog.text and "Traceback" in caplog.text  # logged once, with where
    assert pusher.push_due(1.0) is False and pusher.push_due(2.0) is True
    assert shows(device, frame("A")) and device.attempts == 3


def test_the_thread_pushes_a_submitted_frame():
    device = FlakyPanel()
    pusher = FramePusher(device)
    thread = PusherThread(pusher)
    thread.start()
    try:
        pusher.submit(frame("A"))
        assert device.shown.wait(timeout=5.0)
        assert shows(device, frame("A"))
    finally:
        thread.stop()


def test_stopping_the_thread_shows_the_last_frame_the_rate_cap_held_back():
    device = FlakyPanel()
    pusher = FramePusher(device, min_interval=60.0)
    thread = PusherThread(pusher)
    thread.start()
    pusher.submit(frame("A"))
    assert device.shown.wait(timeout=5.0)
    pusher.submit(frame("Safe to unplug"))
    thread.stop()
    assert shows(device, frame("Safe to unplug"))
    assert pusher.pushed == 2


class Panel(dummy):
    """luma's dummy device that records the panel commands the box sends (contrast, on, off)."""

    def __init__(self):
        super().__init__(width=128, height=64, mode="1")
        self.commands: list[tuple] = []

    def contrast(self, level: int) -> None:
        super().contrast(level)
        self.commands.append(("contrast", level))

    def show(self) -> None:
        self.commands.append(("on",))

    def hide(self) -> None:
        self.commands.append(("off",))


def test_release_switches_the_panel_off_unless_told_not_to():
    panel = Panel()
    release(panel)
    assert panel.commands == [("off",)]
    release(panel, blank=False)
    assert panel.commands == [("off",)]


def test_panel_settings_go_out_with_the_push_and_again_after_a_reopen():
    clock = Clock()
    panels = [Panel(), Panel()]
    pusher = FramePusher(panels[0], clock=clock, reopen=lambda: panels.pop())
    pusher.set_panel(160, on=True)
    assert pusher.next_deadline() is not None, "a panel change alone is work to do"
    assert pusher.push_due(0.0) is False and panels[0].commands == [("contrast", 160), ("on",)]
    assert pusher.next_deadline() is None
    pusher.set_panel(20, on=False)
    pusher.submit(frame("dark"))
    assert pusher.push_due(1.0) is True
    assert panels[0].commands[-2:] == [("contrast", 20), ("off",)] and shows(panels[0], frame("dark"))
    # The bus fails; the reopened panel gets the same settings before its first frame.
    first = pusher.device

    def unplugged(image: Image.Image) -> None:
        raise DeviceNotFoundError("I2C device not found on address: 0x3C")

    first.display = unplugged  # type: ignore[method-assign]
    pusher.submit(frame("again"))
    assert pusher.push_due(2.0) is False
    assert pusher.push_due(3.5) is True
    assert pusher.device is not first and pusher.device.commands == [("contrast", 20), ("off",)]
    with pytest.raises(ValueError, match=r"contrast must be 0\.\.255"):
        pusher.set_panel(256, on=True)


def test_the_screen_dims_then_blanks_after_idle_minutes_and_any_input_wakes_it():
    care = ScreenCare(contrast=200, dim_after=120.0, blank_after=600.0, now=0.0)
    assert care.panel() == (200, True) and care.next_deadline() == 120.0
    care.advance(119.9)
    assert care.state() == {"contrast": 200, "dimmed": False, "blank": False}
    care.advance(120.0)
    assert care.state() == {"contrast": 200, "dimmed": True, "blank": False}
    assert care.panel() == (25, True) and care.next_deadline() == 600.0
    assert care.input(300.0) is False, "a press on a dimmed screen wakes it and acts (it is still read)"
    assert care.panel() == (200, True) and care.next_deadline() == 420.0
    care.advance(910.0)
    assert care.state() == {"contrast": 200, "dimmed": True, "blank": True}
    assert care.panel() == (25, False) and care.next_deadline() is None, "dark: nothing more to time"
    assert care.input(4000.0) is True and care.panel() == (200, True), "a press on a dark screen only wakes it"


def test_screen_care_settings_are_checked():
    with pytest.raises(ValueError, match="0 < dim_after < blank_after"):
        ScreenCare(dim_after=600.0, blank_after=120.0)
    care = ScreenCare(contrast=100)
    for bad in (-1, 256, 12.5, True):
        with pytest.raises(ValueError, match=r"contrast must be a whole number 0\.\.255"):
            care.set_contrast(bad)  # type: ignore[arg-type]
    assert care.contrast == 100
    care.set_contrast(0)
    assert care.panel() == (0, True)


def test_screen_care_counts_idle_time_from_its_first_advance():
    care = ScreenCare(dim_after=120.0, blank_after=600.0)  # the loop's clock may start anywhere
    assert care.next_deadline() is None
    care.advance(50_000.0)
    assert care.state()["dimmed"] is False and care.next_deadline() == 50_120.0
