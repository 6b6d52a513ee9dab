"""A number from outside (an address, a form, a script, the environment, the command line) is read
from ASCII digits only: `str.isdigit` also takes "²", which `int` refuses (a traceback, a 500), and
"٣", which `int` reads as 3 (box/words.py, `digits_value`)."""

from __future__ import annotations

import pytest

from box.links.sdnotify import watchdog_interval
from box.sim.script import ScriptError, lookup, parse_script
from box.web.server import parse_listen

NOT_ASCII = ("²", "٣", "1²", "¹⁰")


@pytest.mark.parametrize("digits", NOT_ASCII)
def test_a_listen_address_with_other_digits_is_one_line(digits: str) -> None:
    with pytest.raises(ValueError, match="expected HOST:PORT"):
        parse_listen(f"0.0.0.0:{digits}")


@pytest.mark.parametrize("digits", NOT_ASCII)
def test_a_script_with_other_digits_is_refused_with_its_line(digits: str) -> None:
    with pytest.raises(ScriptError, match="dice takes two numbers"):
        parse_script(f"dice {digits} 3\n", "night.script")
    with pytest.raises(KeyError):
        lookup({"seats": ["Ann", "Bob"]}, f"seats.{digits}")


@pytest.mark.parametrize("seconds", ["nan", "inf", "-1", "1e308", "٣", "86401"])
def test_a_script_waits_a_finite_time(seconds: str) -> None:
    with pytest.raises(ScriptError, match="is not a number of seconds from 0 to 86400"):
        parse_script(f"wait {seconds}\n", "night.script")
    assert parse_script("wait 0.5\nhold ok 2\n", "night.script")


def test_a_script_reads_a_list_from_its_end() -> None:
    assert lookup({"seats": ["Ann", "Bob"]}, "seats.-1") == "Bob" and lookup({"seats": ["Ann", "Bob"]}, "seats.0") == "Ann"


@pytest.mark.parametrize("digits", NOT_ASCII)
def test_a_watchdog_with_other_digits_is_no_watchdog(digits: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", digits)
    monkeypatch.delenv("WATCHDOG_PID", raising=False)
    assert watchdog_interval() is None
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    assert watchdog_interval() == 10.0
