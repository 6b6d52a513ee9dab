"""Dead Fellas: Mooks, items, whacks and Fuhgeddaboutit chains, first to 10 hits in the score pile.

The rules module for the box (see docs/games/dead-fellas.md). Seats follow
`Setup.players`; the dealer is the last player, so the first player sits left
of the dealer and is dealt first.

>>> from box.games.base import Setup, Tap
>>> deck = RULES.load_deck()
>>> game = RULES.new(Setup(("Ann", "Bob")), deck)
>>> RULES.view(game).title
'Deal: Ann'
>>> RULES.apply(game, Tap("left", "dfw01")).reason
'deal: tap Mooks only'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from box.cards import Deck
from box.games.base import Action, Option, Rejected, Setup, Step, View
from box.games.dead_fellas import deck as cards
from box.games.dead_fellas import screens, turn
from box.games.dead_fellas.board import Board
from box.games.dead_fellas.deck import SLOTS
from box.games.dead_fellas.state import Chain, Deal, Game, Over


class DeadFellas:
    """The `Rules` of Dead Fellas."""

    name = "dead-fellas"
    title = "Dead Fellas"
    min_players = 2
    max_players = 6
    options = (Option("items_on_opponents", "Items on opponents", "no", ("no", "yes")),)

    def load_deck(self, directory: Path | str | None = None) -> Deck:
        return cards.load_deck(directory)

    def new(self, setup: Setup, deck: Deck) -> Game:
        board = Board.empty(deck.cards, len(setup.players))
        on_opponents = setup.options.get("items_on_opponents", "no") == "yes"
        return Game(players=tuple(setup.players), board=board, phase=Deal(), items_on_opponents=on_opponents)

    def apply(self, state: Game, action: Action) -> Step | Rejected:
        return turn.apply(state, action)

    def wants_roll(self, state: Game) -> bool:
        return False

    def is_over(self, state: Game) -> bool:
        return isinstance(state.phase, Over)

    def view(self, state: Game) -> View:
        return screens.view(state)

    def dump(self, state: Game) -> dict[str, Any]:
        """The state as JSON-ready data; player names are the keys."""
        board = state.board
        over = isinstance(state.phase, Over)
        return {
            "current_player": None if over else state.player,
            "over": over,
            "winners": [state.players[state.phase.winner]] if isinstance(state.phase, Over) else [],
            "phase": type(state.phase).__name__.lower(),
            "score": {name: board.score(seat) for seat, name in enumerate(state.players)},
            "score_piles": {name: list(board.piles[seat]) for seat, name in enumerate(state.players)},
            "mooks": {
                name: [
                    {
                        "card": mook.card,
                        "face_up": mook.face_up,
                        "items": {slot: mook.item(slot) for slot in SLOTS},
                        "total": board.total(mook),
                    }
                    for mook in board.mooks[seat]
                ]
                for seat, name in enumerate(state.players)
            },
            "discard_pile": list(board.discard),
            "mook_deck": board.mooks_left(),
            "out": [name for seat, name in enumerate(state.players) if board.is_out(seat)],
            "chain": list(state.phase.cards) if isinstance(state.phase, Chain) else [],
        }


RULES = DeadFellas()
