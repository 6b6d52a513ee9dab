"""Deadlines: place famous people by date of birth, life span and date of death.

The package has the shape of every game (see docs/games/writing-a-game.md): `cards`
(the deck and its dates), `state`, `rules` (the phase table and `RULES`), `screens` and
`invariants`. See docs/games/deadlines.md.

>>> from box.games.base import Setup, Tap
>>> deck = RULES.load_deck()
>>> game = RULES.new(Setup(("Ann", "Bob")), deck)
>>> RULES.apply(game, Tap("left", "dl001")).state.columns[0]
('dl001',)
"""

from box.games.deadlines.rules import RULES

__all__ = ["RULES"]
