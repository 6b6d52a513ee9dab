"""A running game: its rules, deck and state, kept as a fold over the journal, with checkpoints.

Every `CHECKPOINT_EVERY` accepted actions the state is saved in the journal (with the action
that made it, in the same commit) and kept in memory as the session's base. The actions since
the base are kept with the state each one made (states are immutable and share what they did
not change, so each costs little), and an undo takes the one before from memory, replaying
nothing; an undo past the base, and a resume, read the newest checkpoint and replay the actions
after it: at most `CHECKPOINT_EVERY` - 1, whatever the game's length. The session holds only the
base and the actions and states after it.

A checkpoint is the state pickled with references, not copies, for the objects it shares with
the game's first state (the board, the deck's cards): those are rebuilt by the rules on load.
Its version names the checkpoint format, the box's version and a digest of that first state
(players, options, deck, the state's classes), so a checkpoint from other code or another deck
is never used: the game is replayed in full instead, and checkpointed anew.

>>> from box.games.base import Press, Tap, Roll
>>> decode(encode(Tap("left", "dl001")))
Tap(reader='left', card='dl001')
>>> decode(encode(Roll((3, 4))))
Roll(dice=(3, 4))
"""

from __future__ import annotations

import copyreg
import dataclasses
import enum
import io
import logging
import pickle
import zlib
from collections.abc import Iterable
from contextlib import nullcontext
from types import MappingProxyType
from typing import Any

import box
from box.decks.codec import Deck
from box.events import MOVED
from box.games.base import Action, Press, Rejected, Roll, Rules, Setup, Step, Tap, View
from box.storage.journal import GameRecord, Journal, StorageError

log = logging.getLogger(__name__)

CHECKPOINT_EVERY = 32
"""Actions between checkpoints (see docs/performance.md): an undo past one, or a resume, replays fewer than this many."""
CHECKPOINT_FORMAT = 1

copyreg.pickle(MappingProxyType, lambda proxy: (MappingProxyType, (dict(proxy),)))  # a state's frozen mappings


def encode(action: Action) -> dict[str, Any]:
    """An action as a small JSON object for the journal."""
    if isinstance(action, Press):
        return {"t": "press", "b": action.button, "l": action.long}
    if isinstance(action, Tap):
        return {"t": "tap", "r": action.reader, "c": action.card}
    return {"t": "roll", "d": list(action.dice)}


def decode(data: dict[str, Any]) -> Action:
    """The action a journal entry holds."""
    kind = data["t"]
    if kind == "press":
        return Press(data["b"], bool(data.get("l", False)))
    if kind == "tap":
        return Tap(data["r"], data["c"])
    if kind == "roll":
        return Roll((int(data["d"][0]), int(data["d"][1])))
    raise ValueError(f"unknown action kind {kind!r}")


def describe(action: Action, deck: Deck, secret: bool = False, views: tuple[View, View] | None = None) -> str:
    """A short label for the undo menu when the rules have none: 'Ada Lovelace' (a secret card is not named).

    With the screens before and after a press, a press that moved or chose a highlighted line says which.

    >>> before, after = View("Menu", ("Whack", "Item"), cursor=0), View("Menu", ("Whack", "Item"), cursor=1)
    >>> deck = Deck("x", {}, {}, "x.csv")
    >>> describe(Press("down"), deck, views=(before, after)), describe(Press("ok"), deck, views=(after, before))
    ('move to Item', 'OK on Item')
    """
    if isinstance(action, Press):
        before, after = views or (View(""), View(""))
        if action.button in ("up", "down") and after.cursor is not None and after.cursor < len(after.lines):
            return f"{MOVED}{after.lines[after.cursor].strip()}"
        if action.button == "ok" and before.cursor is not None and before.cursor < len(before.lines):
            return f"OK on {before.lines[before.cursor].strip()}"
        return f"{'hold' if action.long else 'press'} {action.button.upper()}"
    if isinstance(action, Tap):
        if secret:
            return "a hidden card"
        return f"{deck.name_of(action.card) if action.card in deck else action.card}"
    return f"roll {action.dice[0]}+{action.dice[1]}"


def full_replay(rules: Rules, deck: Deck, record: GameRecord, journal: Journal) -> Any:
    """The game's state folded from its first action, without checkpoints: what a session must equal."""
    return fold(rules, deck, record, journal.actions(record.id))


def fold(rules: Rules, deck: Deck, record: GameRecord, actions: Iterable[tuple[int, dict[str, Any]]]) -> Any:
    """The game's state folded over journaled `(seq, action)` pairs from its first state (a reader's replay)."""
    state = rules.new(Setup(tuple(record.players), dict(record.options)), deck)
    for _, data in actions:
        result = rules.apply(state, decode(data))
        if isinstance(result, Step):
            state = result.state
    return state


@dataclasses.dataclass(frozen=True)
class Base:
    """A state the session replays from: after action `seq` (0: none), the `count`-th action in force."""

    seq: int
    count: int
    state: Any


_ATOMS = (str, bytes, int, float, bool, type(None), enum.Enum)


def _shared_objects(state: Any) -> list[Any]:
    """The containers and records of a state, in a fixed order (sets are not entered: their order varies)."""
    found: list[Any] = []
    seen: set[int] = set()

    def walk(value: Any) -> None:
        if isinstance(value, _ATOMS) or id(value) in seen:
            return
        seen.add(id(value))
        found.append(value)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for item in dataclasses.fields(value):
                walk(getattr(value, item.name))
        elif isinstance(value, tuple | list):
            for item in value:
                walk(item)
        elif isinstance(value, dict | MappingProxyType):
            for key, item in value.items():
                walk(key)
                walk(item)

    walk(state)
    return found


def _canonical(value: Any) -> str:
    """A text of a state that is the same in every process (set order and string hashes vary)."""
    if isinstance(value, enum.Enum):
        return f"{type(value).__qualname__}.{value.name}"
    if isinstance(value, _ATOMS):
        return repr(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        inner = ",".join(f"{f.name}={_canonical(getattr(value, f.name))}" for f in dataclasses.fields(value))
        return f"{type(value).__module__}.{type(value).__qualname__}({inner})"
    if isinstance(value, tuple | list):
        return f"{type(value).__name__}[{','.join(_canonical(item) for item in value)}]"
    if isinstance(value, dict | MappingProxyType):
        return "{" + ",".join(f"{_canonical(k)}:{_canonical(v)}" for k, v in value.items()) + "}"
    if isinstance(value, set | frozenset):
        return f"{type(value).__name__}{{{','.join(sorted(_canonical(item) for item in value))}}}"
    return f"{type(value).__module__}.{type(value).__qualname__}:{value!r}"


class StateCodec:
    """Pickles a game's states for checkpoints, sharing what they have in common with the first state.

    >>> from box.games import rules_for
    >>> rules = rules_for("dead-set")
    >>> first = rules.new(Setup(("Ann", "Bob"), {}), rules.load_deck(None))
    >>> codec = StateCodec(first)
    >>> codec.load(codec.dump(first)) == first
    True
    """

    def __init__(self, first: Any):
        self._shared = _shared_objects(first)
        self._index = {id(value): number for number, value in enumerate(self._shared)}
        digest = f"{zlib.crc32(_canonical(first).encode()):08x}"  # a guard against change, not against attack
        self.version = f"{CHECKPOINT_FORMAT}/{box.__version__}/{digest}"
        """Checkpoints of another version are not used (other code, another deck or setup)."""

    def dump(self, state: Any) -> bytes:
        buffer = io.BytesIO()
        _SharingPickler(buffer, self._index).dump(state)
        return buffer.getvalue()

    def load(self, data: bytes) -> Any:
        return _SharingUnpickler(io.BytesIO(data), self._shared).load()


class _SharingPickler(pickle.Pickler):
    """Writes the objects of the first state as their numbers (pickle's persistent IDs).

    The hooks are methods of subclasses, as the pickle docs show them: Python 3.13's C pickler
    no longer takes them as attributes of an instance.
    """

    def __init__(self, file: io.BytesIO, index: dict[int, int]):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.index = index

    def persistent_id(self, obj: Any) -> int | None:
        return self.index.get(id(obj))


class _SharingUnpickler(pickle.Unpickler):
    """Reads those numbers back as the first state's own objects."""

    def __init__(self, file: io.BytesIO, shared: list[Any]):
        super().__init__(file)
        self.shared = shared

    def persistent_load(self, pid: Any) -> Any:
        return self.shared[pid]


class GameSession:
    """The game in play. Accepted actions are journaled before the state changes.

    `count` is how many actions are in force; `state` is the fold of the rules over them.
    """

    def __init__(
        self,
        rules: Rules,
        deck: Deck,
        record: GameRecord,
        journal: Journal,
        checkpoint_every: int = CHECKPOINT_EVERY,
    ):
        self.rules = rules
        self.deck = deck
        self.record = record
        self.journal = journal
        self.checkpoint_every = checkpoint_every
        self.first = rules.new(Setup(self.players, dict(record.options)), deck)
        self.codec = StateCodec(self.first)
        self.dumped: tuple[Any, dict[str, Any], dict[str, Any] | None] | None = None  # see `dump`
        self.views: list[tuple[Any, View]] = []  # the last two states' views (see `view`)
        self.state: Any = self.first
        self.count = 0
        self.base = Base(0, 0, self.first)
        self.tail: list[tuple[int, Action, Any]] = []  # (seq, action, state it made) after the base, < checkpoint_every
        self.before: Any = None  # the state before the newest action in force, when known (for its undo label)
        self.said: tuple[Any, Action, str | None] | None = None  # the state `told` last worded, its action, the words
        self.replay()

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.record.players)

    @property
    def last_seq(self) -> int | None:
        """The journal sequence number of the newest action in force."""
        if self.tail:
            return self.tail[-1][0]
        return self.base.seq or None

    def replay(self) -> None:
        """Rebuild the state from the newest usable checkpoint and the journal's actions after it."""
        self.base = self._newest_checkpoint()
        self.tail, self.state, self.count, self.before = [], self.base.state, self.base.count, None
        made = []  # a journal without checkpoints (or with other code's) gets them now
        for seq, data in self.journal.actions(self.record.id, after=self.base.seq):
            action = decode(data)
            result = self.rules.apply(self.state, action)
            if isinstance(result, Rejected):
                log.warning("journal action %s no longer applies (%s); skipped", data, result.reason)
                continue
            if self._advance(seq, action, result.state):
                made.append(self.base)
        if made:
            try:
                with self.journal.batch():
                    for base in made:
                        self._save(base)
            except StorageError as problem:  # a shortcut only: the game goes on without it
                log.warning("checkpoints of game %d not saved: %s", self.record.id, problem)

    def apply(self, action: Action) -> Step | Rejected:
        """Apply an action: journaled (durably, or with the open batch) before the state changes.

        Every `checkpoint_every` actions the new state is saved with it, in the same commit.
        A `StorageError` from the journal leaves the game as it was.
        """
        result = self.rules.apply(self.state, action)
        if isinstance(result, Step):
            checkpoint = len(self.tail) + 1 >= self.checkpoint_every
            with self.journal.batch() if checkpoint else nullcontext():  # StorageError: nothing changes
                seq = self.journal.append(self.record.id, encode(action))
                if checkpoint:
                    self._save(Base(seq, self.count + 1, result.state))
            state, count, base, tail, before = self.state, self.count, self.base, self.tail, self.before
            self._advance(seq, action, result.state)

            def revert() -> None:  # the batch holding the action failed: it never happened
                tail.pop()
                self.state, self.count, self.base, self.tail, self.before = state, count, base, tail, before

            self.journal.on_commit(lambda: log.debug("journaled action %d of game %d", seq, self.record.id), revert)
        return result

    def _advance(self, seq: int, action: Action, state: Any) -> bool:
        """Action `seq` is in force; every `checkpoint_every` actions its state becomes the base (True then)."""
        self.before, self.state, self.count = self.state, state, self.count + 1
        self.tail.append((seq, action, state))
        if len(self.tail) < self.checkpoint_every:
            return False
        self.base, self.tail = Base(seq, self.count, state), []
        return True

    def _save(self, base: Base) -> None:
        self.journal.save_checkpoint(self.record.id, base.seq, base.count, self.codec.version, self.codec.dump(base.state))

    def last_action(self) -> str | None:
        """What undo would take back, in the game's words ("Ann sticks"); None when nothing would.

        The rules' `describe` says it from the states around the action; else the action itself.
        """
        action = self.newest()
        if action is None:
            return None
        label = self.told(action)
        if label:
            return label
        secret = isinstance(action, Tap) and self.rules.secret(self.state, action.card)
        views = None if self.before is None else (self.view(self.before), self.view(self.state))
        return describe(action, self.deck, secret, views)

    def said_last(self) -> str:
        """What the last action did in the players' words, for the events and the phone page: the
        rules' label, else the card played by its name, else the line a cursor moved to; "" for a
        bare press or roll (no button names, no dice: a roll has its own event)."""
        action = self.newest()
        if action is None:
            return ""
        label = self.told(action)
        if label or not isinstance(action, Tap):
            return label or ""
        return describe(action, self.deck, self.rules.secret(self.state, action.card))

    def newest(self) -> Action | None:
        """The newest action in force, None when there is none."""
        if self.tail:
            return self.tail[-1][1]
        if self.base.seq:
            return decode(self.journal.action(self.base.seq))
        return None

    def told(self, action: Action) -> str | None:
        """The words for the newest action, worded once a state (the action's event and the undo label
        both ask): the rules', else for a press that moved a picker's cursor the line it moved to
        ("move to Draw a card": MQTT does not tell the house of it, box/links/mqtt/topics.py); none
        for a roll (the box's dice) or another bare press."""
        said = self.said
        if said is not None and said[0] is self.state and said[1] is action:
            return said[2]
        words = None if isinstance(action, Roll) else self.rules.describe(self.before, action, self.state)
        if words is None and isinstance(action, Press) and action.button in ("up", "down") and self.before is not None:
            moved = describe(action, self.deck, views=(self.view(self.before), self.view(self.state)))
            words = moved if moved.startswith(MOVED) else None
        self.said = (self.state, action, words)
        return words

    def undo(self) -> bool:
        """Take back the last action; False when there is none."""
        seq = self.last_seq
        if seq is None:
            return False
        self.journal.undo(seq)  # also drops the checkpoints that held it
        if not self.tail:
            self.replay()  # the base held that action: from the checkpoint before it
            return True
        self.tail.pop()  # the states before it are kept: nothing is replayed
        states = [self.base.state, *(state for _, _, state in self.tail[-2:])]
        self.state, self.count = states[-1], self.count - 1
        self.before = states[-2] if self.tail else None
        return True

    def dump(self) -> dict[str, Any]:
        """The game's dump of the state in play (shared: never change it), made once a state: a
        state is immutable, and an action's events, the socket's followers and the next action's
        `before` all ask for the same one."""
        return self._dumps()[1]

    def view(self, state: Any) -> View:
        """The rules' view of `state`, made once for each of the last two states asked (the screen
        asks for the state in play, the undo label for it and the one before)."""
        for seen, view in self.views:
            if seen is state:
                return view
        view = self.rules.view(state)
        self.views = [*self.views[-1:], (state, view)]
        return view

    def public(self) -> dict[str, Any]:
        """`dump` as the table may see it (`Rules.public`: the game's secrets out), once a state."""
        state, dump, public = self._dumps()
        if public is None:
            public = self.rules.secrets.hide(dump)
            self.dumped = (state, dump, public)
        return public

    def _dumps(self) -> tuple[Any, dict[str, Any], dict[str, Any] | None]:
        if self.dumped is None or self.dumped[0] is not self.state:
            self.dumped = (self.state, self.rules.dump(self.state), None)
        return self.dumped

    def _newest_checkpoint(self) -> Base:
        """The newest checkpoint of this game that this code can use, else the first state."""
        found = self.journal.checkpoint(self.record.id)
        if found is None:
            return Base(0, 0, self.first)
        seq, count, version, data = found
        if version == self.codec.version:
            try:
                return Base(seq, count, self.codec.load(data))
            except Exception as problem:  # a damaged row: the journal's actions are the truth
                log.warning(
                    "checkpoint at action %d of game %d unreadable (%s); replaying", seq, self.record.id, problem
                )
        else:
            log.info("checkpoints of game %d are from other code (%s); replaying the game", self.record.id, version)
        self.journal.drop_checkpoints(self.record.id)
        return Base(0, 0, self.first)
