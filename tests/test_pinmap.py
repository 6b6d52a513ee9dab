"""The pin map loader: the shipped file loads, and each kind of mistake names file, line and field."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.errors import ConfigError
from box.storage.pinmap import DEFAULT_PINMAP, PinMap, load_pinmap

GOOD = """\
[buttons]
up = 17
down = 27
ok = 22
back = 23
roll = 24

[buzzer]
pin = 18
kind = "passive"

[display]
controller = "ssd1306"
i2c_port = 1
i2c_address = 0x3C

[readers]
left = "/dev/gravebox-left"
middle = "/dev/gravebox-middle"
right = "/dev/gravebox-right"
baudrate = 115200
"""


def load_text(tmp_path: Path, text: str) -> PinMap:
    path = tmp_path / "pinmap.toml"
    path.write_text(text, encoding="utf-8")
    return load_pinmap(path)


def error_for(tmp_path: Path, text: str) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_text(tmp_path, text)
    return caught.value


def line_number(text: str, fragment: str) -> int:
    """The 1-based line of the first line of `text` that contains `fragment`."""
    return next(number for number, line in enumerate(text.splitlines(), start=1) if fragment in line)


def test_the_shipped_pin_map_loads():
    pinmap = load_pinmap(DEFAULT_PINMAP)
    assert dict(pinmap.buttons) == {"up": 17, "down": 27, "ok": 22, "back": 23, "roll": 24}
    assert (pinmap.buzzer.pin, pinmap.buzzer.kind) == (18, "passive")
    assert (pinmap.display.controller, pinmap.display.i2c_port, pinmap.display.i2c_address) == ("ssd1306", 1, 0x3C)
    assert list(pinmap.readers.items()) == [
        ("left", "/dev/gravebox-left"),
        ("middle", "/dev/gravebox-middle"),
        ("right", "/dev/gravebox-right"),
    ]
    assert pinmap.baudrate == 460800


def test_readers_keep_file_order(tmp_path):
    text = GOOD.replace(
        'left = "/dev/gravebox-left"\nmiddle = "/dev/gravebox-middle"\nright = "/dev/gravebox-right"',
        'right = "/dev/ttyUSB2"\nleft = "/dev/ttyUSB0"',
    )
    assert list(load_text(tmp_path, text).readers) == ["right", "left"]


def test_the_result_cannot_be_changed(tmp_path):
    pinmap = load_text(tmp_path, GOOD)
    with pytest.raises(TypeError):
        pinmap.buttons["up"] = 5  # type: ignore[index]


def test_a_toml_syntax_error_carries_its_line(tmp_path):
    text = GOOD.replace("roll = 24", "roll = = 24")
    error = error_for(tmp_path, text)
    assert error.line == line_number(text, "roll = = 24")
    assert str(error).startswith(f"{tmp_path / 'pinmap.toml'}:{error.line}: not valid TOML")


def test_a_missing_file_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="no such pin map"):
        load_pinmap(tmp_path / "nowhere.toml")


@pytest.mark.parametrize(
    ("old", "new", "field", "message"),
    [
        ("roll = 24", "roll = 28", "buttons.roll", "between 0 and 27"),
        ("roll = 24", "roll = -1", "buttons.roll", "between 0 and 27"),
        ("roll = 24", 'roll = "24"', "buttons.roll", "whole number"),
        ("roll = 24", "roll = true", "buttons.roll", "whole number"),
        ("roll = 24", "roll = 17", "buttons.roll", "GPIO17 is already used by buttons.up"),
        ("pin = 18", "pin = 22", "buzzer.pin", "GPIO22 is already used by buttons.ok"),
        ("up = 17", "up = 3", "buttons.up", "I2C1"),
        ("pin = 18", "pin = 2", "buzzer.pin", "I2C1"),
        ("up = 17", "up = 14", "buttons.up", "readers.left (UART on GPIO14)"),
        ("down = 27", "down = 5", "buttons.down", "readers.middle (UART on GPIO5)"),
        ("pin = 18", "pin = 9", "buzzer.pin", "readers.right (UART on GPIO9)"),
        ('kind = "passive"', 'kind = "loud"', "buzzer.kind", "passive, active"),
        ('controller = "ssd1306"', 'controller = "ssd1309"', "display.controller", "ssd1306, sh1106"),
        ("i2c_address = 0x3C", "i2c_address = 0x80", "display.i2c_address", "between 8 and 119"),
        ("baudrate = 115200", "baudrate = 115201", "readers.baudrate", "115200"),
        ('left = "/dev/gravebox-left"', "left = 3", "readers.left", "device path"),
        ('left = "/dev/gravebox-left"', 'centre = "/dev/ttyUSB0"', "readers.centre", "unknown key 'centre'"),
        ("roll = 24", "roll = 24\nshoot = 25", "buttons.shoot", "unknown key 'shoot'"),
        ("up = 17", "UP = 17", "buttons.UP", "unknown key 'UP'"),
    ],
)
def test_a_bad_value_names_its_line_and_field(tmp_path, old, new, field, message):
    text = GOOD.replace(old, new)
    assert text != GOOD
    error = error_for(tmp_path, text)
    assert error.field == field
    assert message in error.message
    key = field.split(".")[1]
    assert error.line == line_number(text, f"{key} =")
    assert str(error).startswith(f"{tmp_path / 'pinmap.toml'}:{error.line}: {field}: ")


def test_a_reader_on_usb_takes_no_uart_pins(tmp_path):
    """With the left reader on USB, middle and right take GPIO14/15 and 4/5; GPIO8/9 stay free."""
    text = GOOD.replace('"/dev/gravebox-left"', '"/dev/ttyUSB0"')
    assert load_text(tmp_path, text.replace("up = 17", "up = 8")).buttons["up"] == 8
    assert "readers.middle (UART on GPIO14)" in error_for(tmp_path, text.replace("up = 17", "up = 14")).message


def test_readers_all_on_usb_free_every_uart_pin(tmp_path):
    text = GOOD.replace('"/dev/gravebox-', '"/dev/serial/by-id/usb-1a86_CH340-').replace("up = 17", "up = 14")
    assert load_text(tmp_path, text).buttons["up"] == 14


def test_the_uart_pins_follow_the_readers_in_file_order(tmp_path):
    """Two readers on on-board UARTs take GPIO14/15 and 4/5; GPIO8/9 stay free."""
    text = GOOD.replace('right = "/dev/gravebox-right"\n', "").replace("up = 17", "up = 8")
    assert load_text(tmp_path, text).buttons["up"] == 8


def test_more_than_three_readers(tmp_path):
    text = GOOD.replace("baudrate = 115200", 'extra = "/dev/ttyUSB3"\nbaudrate = 115200')
    error = error_for(tmp_path, text)
    assert error.field == "readers.extra"
    assert "at most 3 readers, found 4" in error.message
    assert error.line == line_number(text, "extra =")


def test_an_unknown_section(tmp_path):
    text = GOOD + "\n[leds]\npower = 25\n"
    error = error_for(tmp_path, text)
    assert (error.field, error.line) == ("leds", line_number(text, "[leds]"))
    assert "unknown section [leds]" in error.message


def test_a_missing_button(tmp_path):
    text = GOOD.replace("back = 23\n", "")
    error = error_for(tmp_path, text)
    assert error.field == "buttons.back"
    assert error.line == line_number(text, "[buttons]")


def test_a_missing_section(tmp_path):
    error = error_for(tmp_path, GOOD.split("[display]")[0])
    assert error.field == "display"
    assert "missing section [display]" in error.message
