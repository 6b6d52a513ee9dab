"""Scripts of physical inputs, played on virtual time (docs/sim.md).

A script is parsed whole before it runs, so a malformed line fails at once
with the file, the line and the reason.

>>> parse_script("press ok\\nexpect over == false\\n", "demo")[1].words
('over', '==', 'false')
>>> parse_script("Press ROLL", "demo")[0].words  # commands, buttons and readers in any case
('roll',)
"""

from __future__ import annotations

import json
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from box.links.control import ControlServer
from box.sim.world import SimulatedBox
from box.storage.config import MqttConfig
from box.words import BUTTONS, digits_value

# verb -> (smallest, largest) number of words after it; None: no upper bound
ARITY: dict[str, tuple[int, int | None]] = {
    "start": (1, None),
    "press": (1, 1),
    "hold": (2, 2),
    "tap": (2, None),
    "put": (2, None),
    "lift": (1, 1),
    "wait": (1, 1),
    "dice": (2, 2),
    "unplug": (1, 1),
    "replug": (1, 1),
    "garbage": (2, None),
    "restart": (0, 0),
    "expect": (3, None),
}

MOST_SECONDS = 86_400.0  # a `wait` or a `hold` lasts a day at most (virtual time)
CASELESS_FIRST = ("start", "press", "hold", "tap", "put", "lift", "unplug", "replug", "garbage")

COMPARISONS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
    "has": lambda actual, value: value in actual,
    "len": lambda actual, value: len(actual) == value,
}


class ScriptError(Exception):
    """A script line that is malformed, cannot be carried out, or whose expect failed."""

    def __init__(self, path: str, line: int, reason: str):
        self.path, self.line, self.reason = path, line, reason
        super().__init__(f"{path}:{line}: {reason}")


@dataclass(frozen=True)
class Command:
    line: int
    verb: str
    words: tuple[str, ...]


def parse_script(text: str, path: str) -> list[Command]:
    """Check every line's verb and shape; raise ScriptError for the first bad one."""
    commands = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = "" if raw.lstrip().startswith("#") else raw.split(" #", 1)[0].strip()
        if not line:
            continue
        verb, *words = line.split(None, 3 if line.casefold().startswith("expect") else -1)
        verb = verb.lower()
        if verb in CASELESS_FIRST and words:
            words[0] = words[0].lower()  # `press ROLL`, `tap Left ...`: button and reader names in any case
        if verb not in ARITY:
            raise ScriptError(path, number, f"unknown command {verb!r}; commands are {', '.join(ARITY)}")
        low, high = ARITY[verb]
        if len(words) < low or (high is not None and len(words) > high):
            raise ScriptError(path, number, f"{verb} takes {usage(verb)}")
        command = Command(number, verb, tuple(words))
        check_words(command, path)
        commands.append(command)
    return commands


def usage(verb: str) -> str:
    return {
        "start": "GAME [players=N] [names=A,B] [key=value ...]",
        "press": "BUTTON",
        "hold": "BUTTON SECONDS",
        "tap": "READER CARD (an id, a name, or uid:HEX)",
        "put": "READER CARD",
        "lift": "READER",
        "wait": "SECONDS",
        "dice": "A B (1 to 6 each)",
        "unplug": "READER",
        "replug": "READER",
        "garbage": "READER HEX",
        "restart": "no arguments",
        "expect": "PATH OP VALUE (OP: " + " ".join(COMPARISONS) + ")",
    }[verb]


def check_words(command: Command, path: str) -> None:
    verb, words = command.verb, command.words

    def fail(reason: str) -> ScriptError:
        return ScriptError(path, command.line, reason)

    if verb in ("press", "hold") and words[0] not in BUTTONS:
        raise fail(f"unknown button {words[0]!r}; buttons are {', '.join(BUTTONS)}")
    if verb in ("hold", "wait"):
        try:
            seconds = float(words[-1]) if words[-1].isascii() else math.nan
        except ValueError:
            seconds = math.nan
        if not 0 <= seconds <= MOST_SECONDS:  # not nan, not inf
            raise fail(f"{verb}: {words[-1]!r} is not a number of seconds from 0 to {MOST_SECONDS:g}")
    if verb == "dice" and not all(1 <= (digits_value(w) or 0) <= 6 for w in words):
        raise fail(f"dice takes two numbers from 1 to 6, not {' '.join(words)}")
    if verb == "garbage":
        try:
            bytes.fromhex("".join(words[1:]))
        except ValueError:
            raise fail(f"garbage: {' '.join(words[1:])!r} is not hex") from None
    if verb in ("tap", "put") and words[1].startswith("uid:"):
        try:
            bytes.fromhex(words[1][4:])
        except ValueError:
            raise fail(f"{words[1]!r} is not a hex UID") from None
    if verb == "expect" and words[1] not in COMPARISONS:
        raise fail(f"unknown comparison {words[1]!r}; use one of {' '.join(COMPARISONS)}")
    if verb == "start":
        for word in words[1:]:
            if "=" not in word:
                raise fail(f"start: {word!r} is not key=value")


def parse_value(text: str) -> Any:
    """JSON where it parses, else the bare word as a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text


def lookup(data: Any, path: str) -> Any:
    """Follow a dotted path through dicts and lists; KeyError names the missing part."""
    current = data
    for part in path.split("."):
        if isinstance(current, list) and (number := digits_value(part.removeprefix("-"))) is not None:
            index = -number if part.startswith("-") else number
            if not -len(current) <= index < len(current):
                raise KeyError(f"{path}: index {index} out of range (length {len(current)})")
            current = current[index]
        elif isinstance(current, dict) and part in current:
            current = current[part]
        else:
            keys = ", ".join(map(str, current)) if isinstance(current, dict) else type(current).__name__
            raise KeyError(f"{path}: no {part!r} (there: {keys})")
    return current


class ScriptRunner:
    """Plays a parsed script against a simulated box."""

    def __init__(self, world: SimulatedBox, path: str):
        self.world = world
        self.path = path
        self.expects = 0

    def run(self, commands: list[Command]) -> None:
        for command in commands:
            try:
                self.step(command)
            except ScriptError:
                raise
            except ValueError as problem:
                raise ScriptError(self.path, command.line, str(problem)) from None
            except KeyError as problem:
                raise ScriptError(self.path, command.line, str(problem.args[0])) from None

    def step(self, command: Command) -> None:
        world, words = self.world, command.words
        verb = command.verb
        if verb == "start":
            self.start(words)
        elif verb == "press":
            world.press(words[0])
        elif verb == "hold":
            world.press(words[0], float(words[1]))
        elif verb in ("tap", "put"):
            reader, card = words[0], " ".join(words[1:])
            uid = bytes.fromhex(card[4:]) if card.startswith("uid:") else world.uid_for(card)
            world.put(reader, uid)
            if verb == "tap":
                world.lift(reader)
        elif verb == "lift":
            world.lift(words[0])
        elif verb == "wait":
            world.advance(float(words[0]))
        elif verb == "dice":
            world.box.dice.queue(int(words[0]), int(words[1]))
        elif verb == "unplug":
            world.chip(words[0]).unplug()
            world.advance(0.5)
        elif verb == "replug":
            world.chip(words[0]).replug()
            world.advance(2.0)
        elif verb == "garbage":
            world.chip(words[0]).garbage(bytes.fromhex("".join(words[1:])))
            world.advance(0.3)
        elif verb == "restart":
            world.restart()
        elif verb == "expect":
            self.expect(command)

    def start(self, words: tuple[str, ...]) -> None:
        from box.core.service import GameStartError

        options = dict(word.split("=", 1) for word in words[1:])
        players = options.pop("players", None)
        names = options.pop("names", None)
        try:
            self.world.box.lobby.start_game(
                words[0],
                self.world.now,
                players=int(players) if players is not None else None,
                names=names.split(",") if names else None,
                options=options,
            )
        except GameStartError as problem:
            raise ValueError(f"start: {problem}") from None
        self.world.advance(0.0)

    def expect(self, command: Command) -> None:
        path, op, text = command.words
        self.expects += 1
        wanted = parse_value(text)
        dump = self.world.dump()
        try:
            actual = lookup(dump, path)
        except KeyError as problem:
            raise ScriptError(self.path, command.line, f"expect {path} {op} {text}: {problem.args[0]}") from None
        try:
            ok = COMPARISONS[op](actual, wanted)
        except TypeError:
            ok = False
        if not ok:
            raise ScriptError(
                self.path,
                command.line,
                f"expected {path} {op} {json.dumps(wanted)}, actual {json.dumps(actual)}",
            )


def run_script(
    path: Path,
    state_dir: Path,
    decks_dir: Path | None = None,
    seed: int | None = None,
    frames_dir: Path | None = None,
    control: ControlServer | None = None,
    mqtt: MqttConfig | None = None,
) -> tuple[SimulatedBox, ScriptRunner]:
    """Parse and play a script file; raise ScriptError on a bad line or a failed expect.

    Without `decks_dir`, a `decks/` folder beside the script holds its decks (as in tests/scenarios/).
    """
    if decks_dir is None and (path.parent / "decks").is_dir():
        decks_dir = path.parent / "decks"
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as problem:
        raise ScriptError(str(path), 0, f"cannot read the script: {problem.strerror}") from None
    commands = parse_script(text, str(path))
    world = SimulatedBox(
        state_dir=state_dir, decks_dir=decks_dir, seed=seed, frames_dir=frames_dir, control=control, mqtt=mqtt
    )
    runner = ScriptRunner(world, str(path))
    try:
        runner.run(commands)
    except BaseException:
        world.end()  # a failed script's box is closed before its caller removes its folder
        raise
    return world, runner
