"""Dead Set: stick or twist, reveal youngest to oldest, and the race to 13 celebrities.

The package has the shape of every game (see docs/ports.md, "Writing a game"): `cards`
(the deck), `state`, `rules` (the phase table and `RULES`), `screens` and `invariants`.
"""

from box.games.dead_set.rules import RULES

__all__ = ["RULES"]
