"""Dead Set: stick or twist, reveal youngest to oldest, and the race to 13 celebrities.

The package has the shape of every game (see docs/games/writing-a-game.md): `cards`
(the deck), `state`, `rules` (the phase table and `RULES`), `screens` and `invariants`.
"""

from box.games.dead_set.rules import RULES

__all__ = ["RULES"]
