"""The four games, loaded lazily by their canonical names; their titles without loading them.

>>> sorted(GAMES)
['dead-fellas', 'dead-set', 'deadlines', 'deck-of-death']
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from box.cards import Deck, deck_folder
from box.games.base import Rules

GAMES: dict[str, str] = {
    "deadlines": "box.games.deadlines",
    "dead-set": "box.games.dead_set",
    "dead-fellas": "box.games.dead_fellas",
    "deck-of-death": "box.games.deck_of_death",
}


TITLES: dict[str, str] = {  # as the menu shows them; each game's RULES takes its title from here
    "deadlines": "Deadlines",
    "dead-set": "Dead Set",
    "dead-fellas": "Dead Fellas",
    "deck-of-death": "Deck of Death",
}


def rules_for(name: str) -> Rules[Any]:
    """The `RULES` of a game by its canonical name; KeyError for an unknown name."""
    return importlib.import_module(GAMES[name]).RULES


def load_deck(game: str, decks_dir: Path | None = None) -> Deck:
    """The game's deck from `decks_dir` where it has the game's files (box.cards.deck_folder), else built in."""
    return rules_for(game).load_deck(deck_folder(game, decks_dir))


def load_decks(decks_dir: Path | None = None) -> dict[str, Deck]:
    """Every game's deck, each as `load_deck` finds it."""
    return {game: load_deck(game, decks_dir) for game in GAMES}
