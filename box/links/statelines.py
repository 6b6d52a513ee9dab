"""The state dump as one JSON line for the control socket's followers, made cheaply for a stream of dumps.

The loop hands the dump in parts with no key in common (the box's own keys, the game's, the
loop's), each part's keys sorted in the line, then the events (each one's JSON made once) last.
`StateLines` keeps each key's JSON and writes again only the keys whose values changed, found in C,
not key by key in Python; a part that is the very dict of the last line (the game's, until the game
moves) is not looked at (docs/performance.md, section 9).
"""

from __future__ import annotations

import operator
from itertools import compress
from json.encoder import encode_basestring_ascii
from typing import Any

from box.events import EncodedEvents, value_json


def state_line(state: dict[str, Any]) -> bytes:
    """The state dump as the subscribers get it: one JSON line, its keys sorted, the events (when
    already encoded) last.

    >>> from box.events import EncodedEvent
    >>> events = EncodedEvents([EncodedEvent({"event": "undone", "seq": 1})])
    >>> state_line({"screen": "menu", "events": events, "game": None})
    b'{"state":{"game":null,"screen":"menu","events":[{"event":"undone","seq":1}]}}\\n'
    >>> state_line({"events": EncodedEvents()})
    b'{"state":{"events":[]}}\\n'
    """
    events = state.get("events")
    if isinstance(events, EncodedEvents):
        return StateLines().line({key: value for key, value in state.items() if key != "events"}, events=events)
    return StateLines().line(state)


class Part:
    """One part of the dump as last written: its dict, its keys, their values and types, each key's
    JSON in sorted order, and all of them joined."""

    __slots__ = ("dump", "fields", "heads", "keys", "slots", "text", "types", "values")

    def __init__(self, dump: dict[str, Any]) -> None:
        self.dump, self.keys = dump, tuple(dump)
        self.values, self.types = list(dump.values()), list(map(type, dump.values()))
        self.heads = [encode_basestring_ascii(key) + ":" for key in self.keys]  # '"key":', made once
        place = {key: slot for slot, key in enumerate(sorted(self.keys))}
        self.slots = [place[key] for key in self.keys]  # each key's place among the sorted fields
        self.fields = [""] * len(self.keys)
        for index in range(len(self.keys)):
            self.write(index)
        self.text = ",".join(self.fields)

    def write(self, index: int) -> None:
        self.fields[self.slots[index]] = self.heads[index] + value_json(self.values[index])

    def update(self, dump: dict[str, Any]) -> None:
        """Take `dump` (the same keys in the same order) for this part, writing the keys that changed
        (none, most often, for the box's own keys: then they are not looked at one by one)."""
        types = list(map(type, dump.values()))
        if types == self.types and dump == self.dump:
            self.dump = dump
            return
        values = list(dump.values())
        changed = set(compress(range(len(values)), map(operator.ne, values, self.values)))
        if types != self.types:  # a value of another type may compare equal (1 and True): JSON tells them apart
            changed.update(compress(range(len(values)), map(operator.is_not, types, self.types)))
        self.dump, self.values, self.types = dump, values, types
        for index in changed:
            self.write(index)
        if changed:
            self.text = ",".join(self.fields)


class StateLines:
    """`state_line` for a stream of dumps, each given in parts (no key in two of them): each key's JSON
    is kept and written again only when its value changed. A part that is the very dict of the
    last line is taken as it was; the others' values are compared with the last line's all at once,
    in C (`map` of `!=`, and of their types: `True == 1`, but JSON tells them apart); within a
    value, equal values write the same JSON (a dump keeps each key's types). A press writes three
    keys anew (the action count, the undo label, the subscribers' figures) and joins the rest as they were.

    >>> lines = StateLines()
    >>> lines.line({"b": 1}, {"a": {"x": [1, 2]}}) == lines.line({"b": 1}, {"a": {"x": [1, 2]}})
    True
    >>> lines.line({"b": True}, {"a": {"x": [1, 3]}})
    b'{"state":{"b":true,"a":{"x":[1,3]}}}\\n'
    >>> lines.line({"b": 1.0}, {"a": {"x": [1, 3]}})
    b'{"state":{"b":1.0,"a":{"x":[1,3]}}}\\n'
    """

    def __init__(self) -> None:
        self.parts: list[Part] = []

    def line(self, *parts: dict[str, Any], events: EncodedEvents | None = None) -> bytes:
        """The dump's line: each part's keys sorted, then the events' JSON as they are."""
        if len(parts) != len(self.parts):
            self.parts = [Part(dump) for dump in parts]
        else:
            for index, dump in enumerate(parts):
                kept = self.parts[index]
                if dump is kept.dump:
                    continue
                if tuple(dump) != kept.keys:
                    self.parts[index] = Part(dump)
                else:
                    kept.update(dump)
        texts = [part.text for part in self.parts if part.text]
        if events is not None:
            texts.append('"events":' + events.text)
        return ('{"state":{' + ",".join(texts) + "}}\n").encode()
