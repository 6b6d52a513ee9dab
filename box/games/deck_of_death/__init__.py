"""Deck of Death: dice, a dual-ring board, cards on spaces, duels and reactions.

The package has the shape of every game (see docs/games/writing-a-game.md): `cards`
(the deck and its board), `state`, `rules` (the phase tables and `RULES`), `screens` and
`invariants`. See docs/games/deck-of-death.md.
"""

from box.games.deck_of_death.rules import RULES

__all__ = ["RULES"]
