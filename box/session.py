"""A running game: its rules, deck and state, kept as a fold over the journal.

>>> from box.games.base import Press, Tap, Roll
>>> decode(encode(Tap("left", "dl001")))
Tap(reader='left', card='dl001')
>>> decode(encode(Roll((3, 4))))
Roll(dice=(3, 4))
"""

from __future__ import annotations

import logging
from typing import Any

from box.cards import Deck
from box.games.base import Action, Press, Rejected, Roll, Rules, Setup, Step, Tap
from box.journal import GameRecord, Journal

log = logging.getLogger(__name__)


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


def describe(action: Action, deck: Deck) -> str:
    """A short label for the undo confirmation: 'tap left Ada Lovelace'."""
    if isinstance(action, Press):
        return f"{'hold' if action.long else 'press'} {action.button.upper()}"
    if isinstance(action, Tap):
        return f"{deck.name_of(action.card) if action.card in deck else action.card}"
    return f"roll {action.dice[0]}+{action.dice[1]}"


class GameSession:
    """The game in play. Accepted actions are journaled before the state changes."""

    def __init__(self, rules: Rules, deck: Deck, record: GameRecord, journal: Journal):
        self.rules = rules
        self.deck = deck
        self.record = record
        self.journal = journal
        self.state: Any = None
        self.history: list[tuple[int, Action]] = []
        self.replay()

    @property
    def players(self) -> tuple[str, ...]:
        return tuple(self.record.players)

    def replay(self) -> None:
        """Rebuild the state from the journal: resume after a restart, or after an undo."""
        self.state = self.rules.new(Setup(self.players, dict(self.record.options)), self.deck)
        self.history = []
        for seq, data in self.journal.actions(self.record.id):
            action = decode(data)
            result = self.rules.apply(self.state, action)
            if isinstance(result, Rejected):
                log.warning("journal action %s no longer applies (%s); skipped", data, result.reason)
                continue
            self.state = result.state
            self.history.append((seq, action))

    def apply(self, action: Action) -> Step | Rejected:
        """Apply an action: journaled (durably, or with the open batch) before the state changes.

        A `StorageError` from the journal leaves the game as it was.
        """
        result = self.rules.apply(self.state, action)
        if isinstance(result, Step):
            seq = self.journal.append(self.record.id, encode(action))  # StorageError: nothing changes
            before, self.state = self.state, result.state
            self.history.append((seq, action))

            def revert() -> None:  # the batch holding the action failed: it never happened
                self.state = before
                self.history.pop()

            self.journal.on_commit(lambda: log.debug("journaled action %d of game %d", seq, self.record.id), revert)
        return result

    def last_action(self) -> str | None:
        return describe(self.history[-1][1], self.deck) if self.history else None

    def undo(self) -> bool:
        """Take back the last action; False when there is none."""
        if not self.history:
            return False
        self.journal.undo(self.history[-1][0])
        self.replay()
        return True

    def dump(self) -> dict[str, Any]:
        return self.rules.dump(self.state)
