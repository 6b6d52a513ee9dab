"""Deck of Death cards: one CSV row `id,title,color,tier,effect,text` becomes a `Card`.

Blue, orange, green and red cards carry a tier (1 to 3) and no effect; white cards
carry no tier and an effect, `immunity` or `rule-creator`.

>>> card = parse_card({"id": "dd1", "title": "No Pointing", "color": "Blue",
...                    "tier": "1", "effect": "", "text": "Nobody may point."})
>>> card.color, card.tier, card.forfeit, card.persistent
('blue', 1, 1, True)
"""

from __future__ import annotations

from dataclasses import dataclass

from box.cards import RowError, one_of, whole_number

COLUMNS = ("id", "title", "color", "tier", "effect", "text")
COLORS = ("blue", "orange", "green", "red", "white")
EFFECTS = ("immunity", "rule-creator")
ID_PREFIX = "dd"


@dataclass(frozen=True)
class Card:
    """A card as printed: `tier` is None and `effect` set only for white cards."""

    id: str
    title: str
    color: str
    tier: int | None
    effect: str | None
    text: str

    @property
    def forfeit(self) -> int:
        """Drinks (or points) for failing this card's challenge: its tier, 1 for white cards."""
        return self.tier or 1

    @property
    def persistent(self) -> bool:
        """True for cards that stay active as a rule while on the board (blue, Rule Creator)."""
        return self.color == "blue" or self.effect == "rule-creator"

    @property
    def label(self) -> str:
        """Colour and tier for the screen, e.g. 'red T3' or 'white'."""
        return self.color if self.tier is None else f"{self.color} T{self.tier}"


def parse_card(values: dict[str, str]) -> Card:
    """Turn a CSV row (stripped strings) into a Card, or raise RowError naming the field."""
    if not values["id"].startswith(ID_PREFIX):
        raise RowError("id", f"{values['id']!r} must start with {ID_PREFIX!r}")
    color = one_of(values, "color", COLORS)
    if color == "white":
        if values["tier"]:
            raise RowError("tier", f"a white card has no tier, found {values['tier']!r}")
        if not values["effect"]:
            raise RowError("effect", f"a white card needs an effect: {' or '.join(EFFECTS)}")
        effect: str | None = one_of(values, "effect", EFFECTS)
        tier = None
    else:
        if not values["tier"]:
            raise RowError("tier", f"a {color} card needs a tier 1 to 3")
        tier = whole_number(values, "tier", 1, 3)
        if values["effect"]:
            raise RowError("effect", f"only white cards have an effect, found {values['effect']!r}")
        effect = None
    if not values["text"]:
        raise RowError("text", "empty text")
    return Card(values["id"], values["title"], color, tier, effect, values["text"])
