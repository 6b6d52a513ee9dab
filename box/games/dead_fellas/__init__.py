"""Dead Fellas: Mooks, items, whacks and Fuhgeddaboutit chains, first to 10 hits in the score pile.

The package has the shape of every game (see docs/games/writing-a-game.md): `cards`
(the deck), `state` (the table, the cancellable plays, the phases), `rules` (the phase
table and `RULES`), `screens` and `invariants`. See docs/games/dead-fellas.md.
"""

from box.games.dead_fellas.rules import RULES

__all__ = ["RULES"]
