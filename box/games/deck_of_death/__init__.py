"""Deck of Death: dice, a dual-ring board, cards on spaces, duels and reactions."""

from box.games.deck_of_death.rules import RULES

__all__ = ["RULES"]
