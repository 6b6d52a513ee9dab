"""What happened on the box, for whoever wants to follow it: the phone, the history, the home.

The Box and the games publish typed events on one `EventBus`, owned by the loop: a game
started, an action accepted, a turn passed, an undo, the dice, a column completed, a lap, a
bust, a whack, the shot timer, where a game stands, a game over, a reader gone or back, the storage failing and
working again. A subscriber is a function of one event and one line of registration:

>>> bus = EventBus()
>>> seen = []
>>> follow = bus.subscribe("test", seen.append)
>>> bus.publish(DiceRolled((6, 6), game=None))
>>> bus.flush(), seen
(True, [DiceRolled(faces=(6, 6), game=None)])
>>> as_json(seen[0])
{'event': 'dice-rolled', 'faces': [6, 6], 'game': None}

A subscriber can never block or crash the loop: `publish` only appends to each subscriber's
bounded queue (a full queue drops the event and counts it) and each subscriber runs on a
thread of its own; what it raises is logged and counted. `stats` gives the counts for the
phone's Box page.

Games publish their own moments (`ColumnCompleted`, `LapCompleted`, `Bust`, `Whack`) through
their rules' `events` (box/games/base.py): this module imports nothing of the box, so the
games, the Box and the web may all use it.
"""

from __future__ import annotations

import json
import logging
import threading
from _json import make_encoder  # the json module's own C encoder (`json.encoder.c_make_encoder`)
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from json.encoder import encode_basestring_ascii
from typing import Any, NamedTuple

log = logging.getLogger(__name__)

QUEUE_LIMIT = 256  # events a subscriber may fall behind by before the oldest new ones are dropped


class GameStarted(NamedTuple):
    """A game began: which (`game`), its title, options and players in seating order; `number` is
    the journal's number of this game (the history's key)."""

    game: str
    title: str
    options: Mapping[str, str]
    seats: tuple[str, ...]
    number: int


MOVED = "move to "
"""How `ActionAccepted.words` begin for a press that only moved a picker's cursor (box/base/session.py
words it; the MQTT process keeps such moves from the house, box/links/mqtt/topics.py)."""


class ActionAccepted(NamedTuple):
    """A player's action was journaled; `words` say what it did in the players' words (the game's
    label, a card's name, "move to …" for a press that moved a picker's cursor), "" for a bare press
    or roll (`GameSession.said_last`)."""

    game: str
    words: str
    player: str | None  # whose turn it was, where the game has turns


class TurnPassed(NamedTuple):
    """The turn went to `player`."""

    game: str
    player: str


class Undone(NamedTuple):
    """The last action was taken back; `words` say which, in the players' words ("" for a bare press)."""

    game: str
    words: str


class DiceRolled(NamedTuple):
    """The box threw two dice: for the game in play (`game`), or the free dice (None)."""

    faces: tuple[int, int]
    game: str | None


class ColumnCompleted(NamedTuple):
    """Deadlines-like games: a column of placed cards was completed."""

    game: str
    player: str | None
    column: str


class LapCompleted(NamedTuple):
    """Board games with laps: a player passed Start; `lap` counts their laps so far."""

    game: str
    player: str
    lap: int


class Bust(NamedTuple):
    """A player went over the game's limit (their cards' total, `total`)."""

    game: str
    player: str
    total: int


class Whack(NamedTuple):
    """A player's piece took another's out: `victim` is the piece taken, `by` its owner's rival."""

    game: str
    player: str
    victim: str
    owner: str


class TimerDone(NamedTuple):
    """The shot timer's countdown reached zero."""

    seconds: float


class ChugTimed(NamedTuple):
    """The chug stopwatch stopped at `seconds`; `best` when it beat the box's record."""

    seconds: float
    best: bool


class GameOver(NamedTuple):
    """A game ended: its winners and each player's figures (as the game declares them); `number`
    is the journal's number of this game, `actions` how many actions it took, `last` the newest."""

    game: str
    title: str
    players: tuple[str, ...]
    winners: tuple[str, ...]
    figures: Mapping[str, Mapping[str, int | float]]
    number: int
    actions: int
    last: int = 0  # the journal's number of its newest action in force as it ended (0: not said)


class Standing(NamedTuple):
    """Where a game stands as it starts or resumes, after an action that changed it, or an undo:
    whose turn, and each player's figures (as the game declares them). It comes before a
    `GameOver` or an `Undone`, and after a `GameStarted`."""

    game: str
    current_player: str | None
    figures: Mapping[str, Mapping[str, int | float]]


class GameLeft(NamedTuple):
    """The game in play was closed: finished, or `abandoned` before its end."""

    game: str
    abandoned: bool


class ReaderChanged(NamedTuple):
    """A card reader went offline or came back; `message` says which and what to check."""

    reader: str
    online: bool
    message: str


class StorageFailed(NamedTuple):
    """The journal refused a write: inputs are refused until it works again (`reason` says why)."""

    reason: str


class StorageBack(NamedTuple):
    """The journal takes writes again."""


class Redated(NamedTuple):
    """A paired phone gave the box its time while its own clock was not synchronised: the games it
    dated by its own clock since it started (`numbers`: their start, their end or both) are dated
    again, `offset` seconds later (the history's lines follow: box/storage/history.py)."""

    numbers: tuple[int, ...]
    offset: float


Event = (
    GameStarted | ActionAccepted | TurnPassed | Undone | DiceRolled | ColumnCompleted | LapCompleted | Bust
    | Whack | TimerDone | ChugTimed | Standing | GameOver | GameLeft | ReaderChanged | StorageFailed | StorageBack
    | Redated
)


def event_name(event: Event) -> str:
    """The event's name on the wire: its class in kebab case.

    >>> event_name(StorageBack()), event_name(GameOver("g", "G", (), (), {}, 1, 0))
    ('storage-back', 'game-over')
    """
    kind = type(event)
    name = _NAMES.get(kind)
    if name is None:
        name = _NAMES[kind] = "".join(f"-{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(kind.__name__))
    return name


_NAMES: dict[type, str] = {}  # each kind of event's name, made once


_COMPACT = make_encoder(None, json.JSONEncoder().default, encode_basestring_ascii, None, ":", ",", True, False, True)


SCALAR_JSON: dict[type, Callable[[Any], str]] = {  # a plain value's JSON as `compact_json` writes it, without the encoder
    str: encode_basestring_ascii,
    int: int.__repr__,
    float: float.__repr__,  # finite: the box's own figures and times
    bool: {True: "true", False: "false"}.__getitem__,
    type(None): {None: "null"}.__getitem__,
}


def value_json(value: Any) -> str:
    """`compact_json(value)`, a plain value's by its own repr (a C call, not the encoder's set-up).

    >>> [value_json(v) for v in ("Ann", 3, 2.5, True, None, (1, "a"))]
    ['"Ann"', '3', '2.5', 'true', 'null', '[1,"a"]']
    """
    scalar = SCALAR_JSON.get(type(value))
    return scalar(value) if scalar is not None else compact_json(value)


def event_text(event: Event, at: float, run: str, seq: int | None) -> str:
    """The event's JSON as the state dump carries it: `as_json(event)` with its time, the box's run
    and its number (None: a standing, unnumbered), written as `compact_json` writes that entry
    (keys sorted), without making the entry (a dump carries the text; few ask for the entry).

    >>> event_text(DiceRolled((6, 6), None), 1.5, "ab12", 7)
    '{"at":1.5,"event":"dice-rolled","faces":[6,6],"game":null,"run":"ab12","seq":7}'
    """
    kind = type(event)
    plan = _PLANS.get((kind, seq is None))
    if plan is None:
        plan = _PLANS[kind, seq is None] = _plan(kind, seq is None)
    row = (at, event_name(event), run, seq, *event)
    get = SCALAR_JSON.get
    return "{" + ",".join([head + (s(v) if (s := get(type(v := row[i]))) else compact_json(v)) for head, i in plan]) + "}"


def _plan(kind: type, unnumbered: bool) -> tuple[tuple[str, int], ...]:
    """Each key of `kind`'s entry in sorted order: its `"key":` and its place in `event_text`'s row."""
    keys = ("at", "event", "run", "seq", *kind._fields)  # type: ignore[attr-defined]
    return tuple(sorted((encode_basestring_ascii(key) + ":", place) for place, key in enumerate(keys) if key != "seq" or not unnumbered))


_PLANS: dict[tuple[type, bool], tuple[tuple[str, int], ...]] = {}


def compact_json(value: Any) -> str:
    """`json.dumps(value, separators=(",", ":"), sort_keys=True)`, by the json module's own C encoder
    made once (`json.dumps` makes it anew for every value: most of a small value's cost).

    >>> compact_json({"b": [1, 2.5, None, True], "a": "é"})
    '{"a":"\\\\u00e9","b":[1,2.5,null,true]}'
    """
    return "".join(_COMPACT(value, 0))


class EncodedEvent(dict[str, Any]):
    """An event as the state dump carries it, with its JSON made once (`text`): a dump carries the
    newest events, and each would otherwise be encoded again in every dump (box/links/statelines.py
    joins them)."""

    __slots__ = ("text",)

    def __init__(self, entry: dict[str, Any], text: str | None = None) -> None:
        super().__init__(entry)
        self.text = compact_json(entry) if text is None else text  # `text`: the entry's JSON, already made


class EncodedEvents:
    """The events a state dump carries, in order: their entries (iterated) and their JSON joined from
    each one's (`text`: the dump's line uses it as it is, box/links/statelines.py).

    >>> events = EncodedEvents([EncodedEvent({"event": "undone", "seq": 1})])
    >>> events.text, [entry["seq"] for entry in events], len(EncodedEvents())
    ('[{"event":"undone","seq":1}]', [1], 0)
    """

    __slots__ = ("entries", "text")

    def __init__(self, entries: Iterable[EncodedEvent] = ()) -> None:
        self.entries = tuple(entries)
        self.text = "[" + ",".join([entry.text for entry in self.entries]) + "]"

    def __iter__(self) -> Iterator[EncodedEvent]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)


def as_json(event: Event) -> dict[str, Any]:
    """The event as a JSON-ready object: `event` names it, the fields follow (tuples as lists)."""
    fields = {key: list(value) if isinstance(value, tuple) else value for key, value in event._asdict().items()}
    return {"event": event_name(event), **fields}


class Subscription:
    """One subscriber's bounded queue and the thread that hands it its events in order."""

    def __init__(self, name: str, handler: Callable[[Event], object], limit: int = QUEUE_LIMIT):
        self.name, self.handler, self.limit = name, handler, limit
        self.queue: deque[Event] = deque()
        self.delivered = self.dropped = self.failed = 0
        self.idle = True
        self.closed = False
        self.ready = threading.Condition()
        self.thread = threading.Thread(target=self._run, name=f"events-{name}", daemon=True)
        self.thread.start()

    def offer(self, event: Event) -> None:
        """Queue `event` (the loop's side: never waits); a full queue drops it and counts the drop."""
        with self.ready:
            if len(self.queue) >= self.limit:
                self.dropped += 1
                return
            self.queue.append(event)
            self.idle = False
            self.ready.notify_all()

    def _run(self) -> None:
        while True:
            with self.ready:
                while not self.queue and not self.closed:
                    self.idle = True
                    self.ready.notify_all()
                    self.ready.wait()
                if not self.queue:
                    return
                event = self.queue.popleft()
            hand_over(self, event)

    def flush(self, timeout: float) -> bool:
        """Wait until every queued event was handed over (tests, the simulator); False on time-out."""
        with self.ready:
            return self.ready.wait_for(lambda: self.idle and not self.queue, timeout)

    def close(self, wait: float | None = None) -> None:
        """Hand over what is queued, then end the thread; with `wait`, wait that long for its end."""
        with self.ready:
            self.closed = True
            self.ready.notify_all()
        if wait is not None and self.thread is not threading.current_thread():
            self.thread.join(wait)

    def stats(self) -> dict[str, int]:
        return {"delivered": self.delivered, "dropped": self.dropped, "failed": self.failed}


class OnLoop:
    """A subscriber the loop itself owns (the phone link's window, box/parts/phonelink.py), handed each
    event at once on the loop's thread: no thread, no queue, nothing to wait for. Its handler
    only keeps the event (it must never wait); what it raises is logged and counted, as a threaded
    subscriber's."""

    def __init__(self, name: str, handler: Callable[[Event], object]):
        self.name, self.handler = name, handler
        self.delivered = self.failed = 0

    def offer(self, event: Event) -> None:
        hand_over(self, event)

    def flush(self, timeout: float) -> bool:
        return True  # each event was handed over as it came

    def close(self, wait: float | None = None) -> None:
        pass  # no thread to end

    def stats(self) -> dict[str, int]:
        return {"delivered": self.delivered, "dropped": 0, "failed": self.failed}


def hand_over(subscriber: Subscription | OnLoop, event: Event) -> None:
    """Give `event` to a subscriber's handler and count it; what the handler raises stays with it:
    logged (the first time), counted as failed, and the box goes on."""
    try:
        subscriber.handler(event)
    except Exception:
        if not subscriber.failed:
            log.exception("event subscriber %s failed on %s", subscriber.name, event_name(event))
        subscriber.failed += 1
    else:
        subscriber.delivered += 1


class EventBus:
    """The loop publishes; every subscriber gets every event, in order, on its own thread (`OnLoop`:
    on the loop's)."""

    def __init__(self) -> None:
        self.subscriptions: list[Subscription | OnLoop] = []

    def subscribe(self, name: str, handler: Callable[[Event], object], limit: int = QUEUE_LIMIT) -> Subscription:
        """Follow the box's events from now on: `handler(event)` runs on the subscription's thread."""
        subscription = Subscription(name, handler, limit)
        self.subscriptions.append(subscription)
        return subscription

    def keep_on_loop(self, name: str, handler: Callable[[Event], object]) -> OnLoop:
        """Follow the box's events on the loop's own thread: for the loop's own quick record of them
        (`OnLoop`), read by the loop in the same pass."""
        subscription = OnLoop(name, handler)
        self.subscriptions.append(subscription)
        return subscription

    def unsubscribe(self, subscription: Subscription | OnLoop) -> None:
        """Stop following: what is queued is still handed over, then its thread ends."""
        if subscription in self.subscriptions:
            self.subscriptions.remove(subscription)
        subscription.close()

    def publish(self, event: Event) -> None:
        """Give `event` to every subscriber (never blocks: a subscriber too far behind drops it)."""
        for subscription in self.subscriptions:
            subscription.offer(event)

    def flush(self, timeout: float = 5.0) -> bool:
        """Wait until every subscriber has been handed every event published so far."""
        return all(subscription.flush(timeout) for subscription in self.subscriptions)

    def close(self, wait: float | None = None) -> None:
        """End every subscriber's thread once it has what is queued; with `wait`, wait for each
        (at most that long): the simulator's files are then written before its folder goes."""
        for subscription in self.subscriptions:
            subscription.close(wait)
        self.subscriptions = []

    def stats(self) -> dict[str, dict[str, int]]:
        """Each subscriber's counts: delivered, dropped (its queue was full), failed (it raised)."""
        return {subscription.name: subscription.stats() for subscription in self.subscriptions}
