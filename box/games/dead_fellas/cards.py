"""Dead Fellas cards: Mooks, items and action cards, read from `dead-fellas.csv`.

Columns `id,name,kind,slot,hits,text`. Mooks and items carry 1 to 3 hits, items
a slot; an action card's effect comes from its name without a trailing copy
number, so a deck may hold "Fuhgeddaboutit", "Fuhgeddaboutit 2", ...

>>> card = parse_card({"id": "dfx02", "name": "Fuhgeddaboutit 2", "kind": "action",
...                    "slot": "", "hits": "", "text": "Cancel the last play."})
>>> card.effect
'fuhgeddaboutit'
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from box.decks.codec import Deck, RowError, one_of, open_deck, whole_number
from box.errors import DeckError

NAME = "dead-fellas"
COLUMNS = ("id", "name", "kind", "slot", "hits", "text")
KINDS = ("mook", "item", "action")
SLOTS = ("weapon", "disguise", "vehicle")
MIN_MOOKS = 6  # two players are dealt three Mooks each

# Action names the box resolves itself (compared without case or copy number).
FUHGEDDABOUTIT = "fuhgeddaboutit"
FUGAZI = "fugazi"
BOOST = "boost"
I_KNOW_A_GUY = "i know a guy"
EFFECTS = (FUHGEDDABOUTIT, FUGAZI, BOOST, I_KNOW_A_GUY)


@dataclass(frozen=True)
class Card:
    """One card: `effect` is set for the action cards the box resolves, else None."""

    id: str
    name: str
    kind: str
    slot: str | None
    hits: int
    text: str
    effect: str | None = None


def base_name(name: str) -> str:
    """The card's name without a trailing copy number.

    >>> base_name("I Know A Guy 3"), base_name("Boost")
    ('I Know A Guy', 'Boost')
    """
    return re.sub(r"\s+\d+$", "", name.strip())


def parse_card(values: Mapping[str, str]) -> Card:
    """One CSV row as a `Card`, or RowError naming the bad field."""
    card_id = values["id"]
    kind = one_of(values, "kind", KINDS)
    slot = one_of(values, "slot", SLOTS, allow_empty=True) or None
    if kind == "item" and slot is None:
        raise RowError("slot", f"an item needs a slot: {', '.join(SLOTS)}")
    if kind != "item" and slot is not None:
        raise RowError("slot", f"a {kind} card has no slot (leave it empty)")
    if kind == "action":
        if values["hits"] not in ("", "0"):
            raise RowError("hits", "an action card has no hits (leave it empty or 0)")
        hits = 0
    else:
        hits = whole_number(values, "hits", 1, 3)
    effect = base_name(values["name"]).casefold() if kind == "action" else None
    return Card(
        id=card_id,
        name=values["name"],
        kind=kind,
        slot=slot,
        hits=hits,
        text=values["text"],
        effect=effect if effect in EFFECTS else None,
    )


def load_deck(directory: Path | str | None = None) -> Deck:
    """The deck from `<directory>/dead-fellas.csv`, or the built-in one; DeckError if unusable."""
    deck = open_deck(NAME, COLUMNS, parse_card, Path(directory) if directory is not None else None)
    mooks = sum(1 for card in deck.cards.values() if card.kind == "mook")
    if mooks < MIN_MOOKS:
        raise DeckError(deck.path, f"the deck has {mooks} Mooks; a game needs at least {MIN_MOOKS}")
    return deck
