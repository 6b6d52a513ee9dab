"""The state dump as one JSON line for the control socket's followers, made cheaply for a stream of dumps.

The line's keys are sorted, the events (each one's JSON made once, as it came) joined last;
`StateLines` keeps each key's JSON and writes again only what changed (docs/performance.md).
"""

from __future__ import annotations

import json
import operator
from collections.abc import Iterable
from json.encoder import encode_basestring_ascii
from typing import Any

from box.events import EncodedEvent


class EncodedEvents(list[EncodedEvent]):
    """The dump's events as they are, their JSON joined from each one's (`publish` uses it as it is)."""

    __slots__ = ("text",)

    def __init__(self, events: Iterable[EncodedEvent]) -> None:
        super().__init__(events)
        self.text = "[" + ",".join(event.text for event in self) + "]"


def state_line(state: dict[str, Any]) -> bytes:
    """The state dump as the subscribers get it: one JSON line, its keys sorted, the events (when
    already encoded) last.

    >>> events = EncodedEvents([EncodedEvent({"event": "undone", "seq": 1})])
    >>> state_line({"screen": "menu", "events": events, "game": None})
    b'{"state":{"game":null,"screen":"menu","events":[{"event":"undone","seq":1}]}}\\n'
    >>> json.loads(state_line({"events": events}))["state"]["events"][0]["seq"]
    1
    """
    return StateLines().line(state)


_ENCODE = json.JSONEncoder(separators=(",", ":"), sort_keys=True).encode
_SCALARS = {type(None): lambda value: "null", bool: lambda value: "true" if value else "false", int: int.__repr__}


def _json(value: Any) -> str:
    """`value` as `json.dumps(value, separators=(",", ":"), sort_keys=True)` writes it; a string, a
    whole number, None or a truth value without building an encoder.

    >>> [_json(v) for v in ("Ann é", 3, None, True, 2.5, {"b": 1, "a": [False]})]
    ['"Ann \\\\u00e9"', '3', 'null', 'true', '2.5', '{"a":[false],"b":1}']
    """
    if type(value) is str:
        return encode_basestring_ascii(value)
    scalar = _SCALARS.get(type(value))
    return scalar(value) if scalar is not None else _ENCODE(value)
_NAMES: dict[str, str] = {}  # each key as the line writes it: '"key":'


def _field(key: str, value: Any) -> str:
    """One key of the dump and its value, as the line writes them."""
    name = _NAMES.get(key)
    if name is None:
        name = _NAMES[key] = _ENCODE(key) + ":"
    return name + _json(value)


Fields = dict[str, tuple[Any, str]]  # key -> (the value last written, '"key":' and the value's JSON)


class StateLines:
    """`state_line` for a stream of dumps: each top-level key's JSON is kept, and used again while the
    key's value stays equal (of the same type), so a change re-encodes only the keys it changed
    (a press: the action count, the undo label, the subscribers' figures), not the whole dump.
    A `block` (the game's own keys, a dict whose values the dump holds as they are) is compared whole,
    in C: when it equals the last one (a cursor moved; the game's figures did not), its keys are not
    looked at one by one. (Equal values write the same JSON: a game's dump keeps each key's types.)

    >>> lines = StateLines()
    >>> lines.line({"a": {"x": [1, 2]}, "b": 1}) == lines.line({"b": 1, "a": {"x": [1, 2]}}) == state_line({"a": {"x": [1, 2]}, "b": 1})
    True
    >>> lines.line({"a": {"x": [1, 3]}, "b": True})
    b'{"state":{"a":{"x":[1,3]},"b":true}}\\n'
    >>> game = {"b": True, "c": [2]}
    >>> lines.line({"a": 0, **game}, block=game), lines.line({"a": 0, "b": True, "c": [2]}, block={"b": True, "c": [2]})
    (b'{"state":{"a":0,"b":true,"c":[2]}}\\n', b'{"state":{"a":0,"b":true,"c":[2]}}\\n')
    >>> lines.line({"a": 0, "b": 1, "c": [2]}, block=game)  # a block the state does not hold as it is: key by key
    b'{"state":{"a":0,"b":1,"c":[2]}}\\n'
    """

    def __init__(self) -> None:
        self.kept: Fields = {}
        self.block: tuple[dict[str, Any], Fields] | None = None  # the last block and its fields
        self.layout: tuple[object, ...] = ()  # the dump's keys, the block's, whether the events are joined
        self.rest: list[str] = []  # for that layout: the keys looked at one by one
        self.order: list[str] = []  # and every key written, sorted

    def line(self, state: dict[str, Any], block: dict[str, Any] | None = None) -> bytes:
        """The dump's line, exactly as `json.dumps(..., sort_keys=True)` with the events last would make it."""
        events = state.get("events")
        joined = isinstance(events, EncodedEvents)
        if block is not None and not (
            block.keys() <= state.keys() and all(map(operator.is_, map(state.__getitem__, block), block.values()))
        ):
            block = None  # the dump does not hold the block's own values (a key of the box's over one)
        layout = (tuple(state), None if block is None else tuple(block), joined)
        if layout != self.layout:
            apart = {*(block or ()), *(("events",) if joined else ())}
            self.layout, self.rest = layout, [key for key in state if key not in apart]
            self.order = sorted([*(block or ()), *self.rest])
        fields = self._fields([(key, state[key]) for key in self.rest])
        if block is not None:
            last = self.block
            same = last is not None and (last[0] is block or last[0] == block)
            block_fields = last[1] if same and last is not None else self._fields(list(block.items()))
            self.block = (block, block_fields)
            fields = {**block_fields, **fields}
        self.kept = fields
        body = ",".join([fields[key][1] for key in self.order])
        if joined:
            body += ("," if body else "") + '"events":' + events.text  # type: ignore[union-attr]
        return ('{"state":{' + body + "}}\n").encode()

    def _fields(self, items: list[tuple[str, Any]]) -> Fields:
        """The fields of these keys: the kept one where the value is unchanged, else written anew."""
        kept, fresh = self.kept, {}
        for key, value in items:
            old = kept.get(key)
            if old is not None and (old[0] is value or (type(old[0]) is type(value) and old[0] == value)):
                fresh[key] = old
            else:
                fresh[key] = (value, _field(key, value))
        return fresh
