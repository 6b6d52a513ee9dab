"""The four games: the one list of them, with what is known of each without loading it.

`LISTED` is the registry; `GAMES` (name -> module, loaded lazily by `rules_for`), `TITLES` and
`CARD_NAMES` are its views. Everything else a game declares is on its `RULES` (box.games.base.Rules).

>>> sorted(GAMES)
['dead-fellas', 'dead-set', 'deadlines', 'deck-of-death']
>>> TITLES["dead-set"], CARD_NAMES["dead-set"]
('Dead Set', 'name')
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, NamedTuple

from box.decks.codec import Deck, deck_folder
from box.games.base import Rules


class Listing(NamedTuple):
    """A game as the registry lists it: what the box and the page know of it without importing it."""

    name: str  # the canonical name: in journals, tag maps, deck file names, scripts
    title: str  # as the menu shows it; the game's RULES takes its title from here
    module: str
    card_names: str = "name"  # the deck's column holding a card's name (read without the rules)


LISTED: tuple[Listing, ...] = (
    Listing("deadlines", "Deadlines", "box.games.deadlines"),
    Listing("dead-set", "Dead Set", "box.games.dead_set"),
    Listing("dead-fellas", "Dead Fellas", "box.games.dead_fellas"),
    Listing("deck-of-death", "Deck of Death", "box.games.deck_of_death", card_names="title"),
)

GAMES: dict[str, str] = {game.name: game.module for game in LISTED}
TITLES: dict[str, str] = {game.name: game.title for game in LISTED}
CARD_NAMES: dict[str, str] = {game.name: game.card_names for game in LISTED}


def rules_for(name: str) -> Rules[Any]:
    """The `RULES` of a game by its canonical name; KeyError for an unknown name."""
    return importlib.import_module(GAMES[name]).RULES


def load_deck(game: str, decks_dir: Path | None = None) -> Deck:
    """The game's deck from `decks_dir` where it has the game's files (box.decks.codec.deck_folder), else built in."""
    return rules_for(game).load_deck(deck_folder(game, decks_dir))


def load_decks(decks_dir: Path | None = None) -> dict[str, Deck]:
    """Every game's deck, each as `load_deck` finds it."""
    return {game: load_deck(game, decks_dir) for game in GAMES}
