"""The topics and their payloads: the retained state (`Reading`, folded from the events), each event's
payload, the device's id, and the one codec of the events read from the box's state dump.

>>> reading = Reading()
>>> from box.events import GameStarted, Standing, DiceRolled
>>> reading.take(GameStarted("dead-set", "Dead Set", {}, ("Ann", "Bob"), 4))
True
>>> _ = reading.take(Standing("dead-set", "Bob", {"Ann": {"celebrities": 2}, "Bob": {"celebrities": 1}}))
>>> _ = reading.take(DiceRolled((3, 5), game=None))
>>> {key: reading.document()[key] for key in ("game", "current_player", "leader", "dice")}
{'game': 'dead-set', 'current_player': 'Bob', 'leader': ['Ann'], 'dice': [3, 5]}
"""

from __future__ import annotations

import json
import re
from collections import deque
from collections.abc import Mapping
from typing import Any, get_args

from box.events import (
    MOVED,
    ActionAccepted,
    ChugTimed,
    DiceRolled,
    Event,
    GameLeft,
    GameOver,
    GameStarted,
    ReaderChanged,
    Standing,
    StorageBack,
    StorageFailed,
    TimerDone,
    TurnPassed,
    Undone,
    as_json,
)

ONLINE, OFFLINE = "online", "offline"
TRIGGERS = {  # the events Home Assistant offers as event entities and device triggers: name -> label
    "lap-completed": "Lap",
    "column-completed": "Column complete",
    "game-over": "Game over",
    "timer-done": "Shot timer done",
}


class Reading:
    """The retained state, folded from the events: a read model, no network."""

    def __init__(self) -> None:
        self.state: dict[str, Any] = {"dice": None, "timer": None, "readers_offline": [], "storage": "ok"}
        self.standing_of: str | None = None  # the game of the newest standing taken
        self.idle()

    def idle(self) -> None:
        self.state.update(game=None, title=None, number=None, players=[], current_player=None, actions=0,
                          figures={}, leader=[], over=False, winners=[])

    def document(self) -> dict[str, Any]:
        return dict(self.state)

    def take(self, event: Event) -> bool:
        """Fold `event` into the state; True when the state changed."""
        before = json.dumps(self.state, sort_keys=True)
        state = self.state
        if isinstance(event, GameStarted):
            self.idle()
            state.update(game=event.game, title=event.title, number=event.number, players=list(event.seats))
        elif isinstance(event, TurnPassed):
            state["current_player"] = event.player
        elif isinstance(event, Standing):
            self.standing_of = event.game
            figures = {player: dict(row) for player, row in event.figures.items()}
            state.update(current_player=event.current_player, figures=figures, leader=leaders(event.game, figures))
        elif isinstance(event, GameOver):
            figures = {player: dict(row) for player, row in event.figures.items()}
            state.update(figures=figures, winners=list(event.winners), leader=list(event.winners), over=True,
                         current_player=None, actions=event.actions)
        elif isinstance(event, Undone):
            state.update(actions=max(0, state["actions"] - 1), over=False, winners=[])
        elif isinstance(event, GameLeft):
            self.idle()
        elif isinstance(event, DiceRolled):
            state["dice"] = list(event.faces)
        elif isinstance(event, TimerDone):
            state["timer"] = {"done": True, "seconds": event.seconds}
        elif isinstance(event, ChugTimed):
            state["timer"] = {"chug": event.seconds, "best": event.best}
        elif isinstance(event, ReaderChanged):
            offline = set(state["readers_offline"]) - {event.reader}
            state["readers_offline"] = sorted(offline if event.online else offline | {event.reader})
        elif isinstance(event, StorageFailed):
            state["storage"] = event.reason
        elif isinstance(event, StorageBack):
            state["storage"] = "ok"
        elif isinstance(event, ActionAccepted):
            state["actions"] += 1
        return json.dumps(state, sort_keys=True) != before

    def settle(self, dump: Any) -> bool:
        """Take what the box's state dump says of the game in play (docs/state.md): a process started
        in the middle of a game, or after a restart, publishes the game as it stands, not as its
        last few events tell. True when the state changed.

        >>> reading = Reading()
        >>> reading.settle({"game": "dead-set", "players": ["Ann", "Bob"], "current_player": "Bob",
        ...                 "over": False, "winners": [], "actions": 12, "dice": {"last": [2, 4]}})
        True
        >>> {key: reading.state[key] for key in ("title", "players", "current_player", "actions", "dice")}
        {'title': 'Dead Set', 'players': ['Ann', 'Bob'], 'current_player': 'Bob', 'actions': 12, 'dice': [2, 4]}
        """
        from box.games import TITLES

        if not isinstance(dump, dict) or "game" not in dump:
            return False
        before = json.dumps(self.state, sort_keys=True)
        state, game = self.state, dump.get("game")
        if not isinstance(game, str) or game not in TITLES:
            if state["game"] is not None:
                self.idle()
        else:
            if game != state["game"]:  # a game this process did not see start: its standing may have come
                kept = {key: state[key] for key in ("figures", "leader", "current_player")}
                self.idle()
                state.update(game=game, title=TITLES[game], **(kept if self.standing_of == game else {}))
            players = [p for p in dump.get("players") or () if isinstance(p, str)]
            over = dump.get("over") is True
            winners = [p for p in dump.get("winners") or () if isinstance(p, str)] if over else []
            current = dump.get("current_player")
            state.update(players=players, over=over, winners=winners,
                         current_player=current if isinstance(current, str) and not over else None)
            if over:
                state["leader"] = winners
            if type(dump.get("actions")) is int:
                state["actions"] = dump["actions"]
        dice = dump.get("dice")
        if isinstance(dice, dict) and isinstance(dice.get("last"), list):
            state["dice"] = list(dice["last"])
        offline = dump.get("readers_offline")
        if isinstance(offline, list):
            state["readers_offline"] = sorted(str(reader) for reader in offline)
        return json.dumps(state, sort_keys=True) != before


def leaders(game: str, figures: Mapping[str, Mapping[str, int | float]]) -> list[str]:
    """Who leads on the game's first declared figure (the most, or the fewest where the game
    declares so: `Figure.fewest_lead`); nobody while everyone is level.

    >>> leaders("dead-set", {"Ann": {"celebrities": 3}, "Bob": {"celebrities": 5}})
    ['Bob']
    >>> leaders("deadlines", {"Ann": {"penalties": 0}, "Bob": {"penalties": 2}}), leaders("dead-set", {})
    (['Ann'], [])
    """
    from box.games import rules_for

    declared = rules_for(game).figures
    if not declared or not figures:
        return []
    first = declared[0]
    values = {player: row.get(first.key, 0) for player, row in figures.items()}
    best = (min if first.fewest_lead else max)(values.values())
    ahead = [player for player, value in values.items() if value == best]
    return [] if len(ahead) == len(values) and len(values) > 1 else ahead


def event_payload(event: Event, at: float, mark: tuple[str, int] | None = None) -> dict[str, Any]:
    """An event as its topic carries it: Home Assistant's `event_type`, its fields, when (UNIX time),
    and where the box numbered it (`run`, `seq`: the same event never comes with other numbers).

    >>> event_payload(DiceRolled((6, 6), None), 1.5)
    {'event_type': 'dice-rolled', 'faces': [6, 6], 'game': None, 'at': 1.5}
    >>> event_payload(DiceRolled((6, 6), None), 1.5, ("ab12", 7))["seq"]
    7
    """
    fields = as_json(event)
    payload = {"event_type": fields.pop("event"), **fields, "at": at}
    if mark is not None:
        payload.update(run=mark[0], seq=mark[1])
    return payload


def is_cursor_move(event: Event) -> bool:
    """An accepted press that only moved a menu's cursor, or its undo (box/base/session.py `describe`
    words it "move to ..."): journaled, counted, not told to the house.

    >>> is_cursor_move(ActionAccepted("dead-fellas", "move to Draw a card", "Ann")), is_cursor_move(Undone("dead-set", "move to Ann"))
    (True, True)
    """
    return isinstance(event, ActionAccepted | Undone) and event.words.startswith(MOVED)


def marker_from(data: Any) -> tuple[str, int] | None:
    """The retained marker `<base>/published` as (run, seq); None for anything else.

    >>> marker_from({"run": "ab12", "seq": 40}), marker_from({"run": 3})
    (('ab12', 40), None)
    """
    if isinstance(data, dict) and isinstance(data.get("run"), str) and type(data.get("seq")) is int:
        return data["run"], data["seq"]
    return None


class Moves:
    """The events each of the last moves published, so that an undo withdraws them: a move begins
    with its `action-accepted`; `undo` takes the last move's events back (newest first). A move the
    house is not told of (a cursor moved: `payload` None) is a move all the same: its undo withdraws
    nothing, not the move before it.

    >>> moves = Moves()
    >>> moves.take(ActionAccepted("dead-set", "Ada", "Ann"), {"event_type": "action-accepted"})
    >>> moves.take(DiceRolled((1, 2), "dead-set"), {"event_type": "dice-rolled", "seq": 2})
    >>> moves.take(ActionAccepted("dead-set", "move to Ann", "Ann"), None)
    >>> moves.undo(), moves.undo(), moves.undo()
    ([], [('dice-rolled', {'event_type': 'dice-rolled', 'seq': 2}), ('action-accepted', {'event_type': 'action-accepted'})], [])
    """

    KEPT = 20  # moves remembered (an undo further back withdraws nothing)

    def __init__(self) -> None:
        self.moves: deque[list[tuple[str, dict[str, Any]]]] = deque(maxlen=self.KEPT)

    def take(self, event: Event, payload: dict[str, Any] | None) -> None:
        """`event` published as `payload` (None: not told)."""
        if isinstance(event, GameStarted | GameLeft):
            self.moves.clear()
            return
        if isinstance(event, ActionAccepted):
            self.moves.append([])
        if self.moves and payload is not None and not isinstance(event, Undone):
            self.moves[-1].append((payload["event_type"], payload))

    def undo(self) -> list[tuple[str, dict[str, Any]]]:
        return list(reversed(self.moves.pop())) if self.moves else []

    def forget(self, payload: dict[str, Any]) -> None:
        """`payload` was withdrawn otherwise (a game over the game itself took back): an undo of its
        move does not withdraw it again."""
        for move in self.moves:
            move[:] = [(name, kept) for name, kept in move if kept is not payload]


def node_id(base_topic: str) -> str:
    """The device's id for Home Assistant, from the base topic.

    >>> node_id("gravebox/living-room")
    'gravebox_living_room'
    """
    return re.sub(r"[^A-Za-z0-9_]", "_", base_topic).strip("_") or "gravebox"



EVENT_TYPES: dict[str, type] = {
    "".join(f"-{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(kind.__name__)): kind
    for kind in get_args(Event)
}
META = ("event", "seq", "run", "at")  # what box/parts/phone.py adds to an event's fields


def event_from_entry(entry: Any) -> Event:
    """An event of the box's state dump (`as_json`'s form, numbered) as the event it was; ValueError
    (one line) for anything else: the one codec of the events this process reads.

    >>> event_from_entry({"event": "dice-rolled", "faces": [2, 3], "game": None, "seq": 4, "run": "ab"})
    DiceRolled(faces=(2, 3), game=None)
    >>> event_from_entry({"event": "dice-rolled", "faces": [2, 3]})
    Traceback (most recent call last):
    ...
    ValueError: dice-rolled: fields game missing
    """
    if not isinstance(entry, dict) or entry.get("event") not in EVENT_TYPES:
        raise ValueError(f"not an event of the box: {str(entry)[:60]}")
    kind: Any = EVENT_TYPES[entry["event"]]
    fields = {key: value for key, value in entry.items() if key not in META}
    missing, extra = set(kind._fields) - set(fields), set(fields) - set(kind._fields)
    if missing or extra:
        said = [f"fields {', '.join(sorted(missing))} missing"] if missing else []
        said += [f"unknown fields {', '.join(sorted(extra))}"] if extra else []
        raise ValueError(f"{entry['event']}: {'; '.join(said)}"[:120])
    event: Event = kind(**{key: tuple(value) if isinstance(value, list) else value for key, value in fields.items()})
    return event

