"""Deadlines: place famous people by date of birth, life span and date of death.

The package holds the card dates (`dates`), the card data (`cards`), the
state (`state`), the rules (`rules`) and the screens (`screens`); `RULES` ties
them to the box's game contract (box.games.base.Rules). See docs/games/deadlines.md.

>>> from box.games.base import Setup, Tap
>>> deck = RULES.load_deck()
>>> game = RULES.new(Setup(("Ann", "Bob")), deck)
>>> RULES.apply(game, Tap("left", "dl001")).state.columns[0]
('dl001',)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from box.cards import Deck
from box.games.base import Action, Option, Rejected, Setup, Step, View
from box.games.deadlines import cards, rules, screens
from box.games.deadlines.state import COLUMNS, Finished, Game, Guessing, Options, Revealing, Starting


class DeadlinesRules:
    """Deadlines for the box (rulebook: shared/rules/deadlines.txt, RULINGS section Deadlines)."""

    name = cards.GAME
    title = "Deadlines"
    min_players = 1
    max_players = 10
    options = (
        Option("variant", "Variant", "classic", ("classic", "short-life", "dead-end", "death-match", "til-death")),
        Option("streak", "After a right card", "off", ("off", "must", "may")),
        Option("ties", "Equal dates", "either", ("either", "strict")),
        Option("starter_counts", "Starter counts", "yes", ("yes", "no")),
        Option("reward", "Special reward", "one", ("one", "both")),
    )

    def load_deck(self, directory: Path | str | None = None) -> Deck:
        return cards.load_deck(directory)

    def new(self, setup: Setup, deck: Deck) -> Game:
        return Game(
            deck=deck,
            players=tuple(setup.players),
            options=Options.from_mapping(setup.options),
            phase=Starting(),
            penalties=(0,) * len(setup.players),
        )

    def apply(self, state: Game, action: Action) -> Step | Rejected:
        return rules.apply(state, action)

    def wants_roll(self, state: Game) -> bool:
        return False

    def view(self, state: Game) -> View:
        return screens.view(state)

    def dump(self, state: Game) -> dict[str, Any]:
        """The keys the simulator's `expect` lines check (see docs/games/deadlines.md)."""
        phase = state.phase
        guesses = (
            {state.players[p]: g for p, g in zip(phase.tied, phase.guesses)}
            if isinstance(phase, Guessing | Revealing)
            else {}
        )
        data: dict[str, Any] = {
            "current_player": state.current_player,
            "over": isinstance(phase, Finished),
            "winners": list(state.winners),
            "phase": type(phase).__name__.lower(),
            "columns": {name: list(column) for name, column in zip(COLUMNS, state.columns)},
            "closed": [name for column, name in enumerate(COLUMNS) if state.closed(column)],
            "penalties": dict(zip(state.players, state.penalties)),
            "eliminated": [state.players[p] for p in state.eliminated],
            "guesses": guesses,
        }
        if state.options.cooperative:
            data["team_penalties"] = state.team_penalties
        return data


RULES = DeadlinesRules()
