"""Deck of Death cards: one CSV row `id,title,color,tier,effect,text` becomes a `Card`.

Blue, orange, green and red cards carry a tier (1 to 3); white cards carry no tier and an
effect, `immunity` or `rule-creator`. An orange, green or red card may carry an effect the box
follows when the card is done (`TURN_EFFECTS`: play reverses, a turn is taken or skipped, seats
are swapped, spaces cleared, a discarded card comes back, a duel, the next failure costs double). A card's text may end with
what failing it costs ("Fail: 2 forfeits."), a blue rule's with what breaking it costs
("Broken: 1 forfeit."); a card that says nothing costs its tier, a white card 3 (RULINGS 8a).

>>> card = parse_card({"id": "dd1", "title": "No Pointing", "color": "Blue",
...                    "tier": "1", "effect": "", "text": "Nobody may point. Broken: 2 forfeits."})
>>> card.color, card.tier, card.forfeit, card.persistent
('blue', 1, 2, True)

The board goes with the deck: an outer ring with Start and arrow spaces, and the inner circle.

Spaces are numbered clockwise from 0. A board file (TOML) gives the outer ring's
size, the Start space and each arrow space with the inner space it leads to; the
inner circle always has 10 spaces. See docs/boards.md.

>>> board = parse_board('outer = 12\\nstart = 0\\n[arrows]\\n2 = 0\\n4 = 2\\n6 = 4\\n8 = 6\\n10 = 8\\n', "b.toml")
>>> board.move_outer(10, 5)   # from 10, five spaces clockwise: passes Start once
(3, 1)
>>> board.move_inner(8, 4)
2
>>> board.key(3), board.key(12 + 3)
('3', 'i3')
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from box.decks.codec import Deck, RowError, one_of, open_deck, whole_number
from box.errors import ConfigError
from box.files.text import parse_toml, read_text

NAME = "deck-of-death"
BUILTIN_BOARD = Path(__file__).resolve().parents[2] / "decks" / f"{NAME}.toml"
COLUMNS = ("id", "title", "color", "tier", "effect", "text")
COLORS = ("blue", "orange", "green", "red", "white")
WHITE_EFFECTS = ("immunity", "rule-creator")
# what an orange, green or red card does when it is done, that the box follows (docs/games/deck-of-death.md)
TURN_EFFECTS = ("reverse", "hijack", "skip", "swap-seats", "clear", "clear-two", "recall", "duel", "double", "loaded")
EFFECTS = WHITE_EFFECTS + TURN_EFFECTS
WHITE_COST = 3  # a white card says no cost: it costs 3 (RULINGS 8a)
# the cost a card's text states, as its last sentence: "Fail: 2 forfeits." or "Broken: 1 forfeit."
COST = re.compile(r"\b(?:Fail|Broken): ([1-9]) forfeits?\.?$")
# A card's text that speaks of a token, the inner circle or moving by spaces: failing it may move a token
MOVES_TOKENS = re.compile(r"\btokens?\b|\binner circle\b|\bmoves?\b.*\bspaces?\b", re.IGNORECASE)


@dataclass(frozen=True)
class Card:
    """A card as printed: `tier` is None only for white cards, which always have an `effect`."""

    id: str
    title: str
    color: str
    tier: int | None
    effect: str | None
    text: str

    @property
    def stated_cost(self) -> int | None:
        """The forfeits its text says failing (or breaking) it costs, or None when it says none.

        >>> Card("dd89", "Wall Sit", "green", 1, None, "Hold a wall sit for 20 seconds. Fail: 2 forfeits.").stated_cost
        2
        """
        found = COST.search(self.text)
        return int(found.group(1)) if found else None

    @property
    def tier_cost(self) -> int:
        """Its tier in forfeits; a white card's 3."""
        return self.tier or WHITE_COST

    @property
    def forfeit(self) -> int:
        """Forfeits for failing this card's challenge or breaking its rule: what it says, else its tier."""
        stated = self.stated_cost
        return self.tier_cost if stated is None else stated

    @property
    def persistent(self) -> bool:
        """True for cards that stay active as a rule while on the board (blue, Rule Creator)."""
        return self.color == "blue" or self.effect == "rule-creator"

    @property
    def moves_tokens(self) -> bool:
        """Its text speaks of a token, the inner circle or moving spaces: failing it may move a token.

        >>> Card("dd151", "Trapdoor", "red", 2, None, "Into the inner circle, unless you pay two forfeits.").moves_tokens
        True
        >>> Card("dd108", "Mirror Moves", "green", 2, None, "Copy every move of a chosen player.").moves_tokens
        False
        """
        return MOVES_TOKENS.search(self.text) is not None

    @property
    def turn_effect(self) -> str | None:
        """What the box follows when this orange, green or red card is done (`TURN_EFFECTS`), or None."""
        return self.effect if self.effect in TURN_EFFECTS else None

    @property
    def label(self) -> str:
        """Colour and tier for the screen, e.g. 'red T3' or 'white'."""
        return self.color if self.tier is None else f"{self.color} T{self.tier}"


def parse_card(values: dict[str, str]) -> Card:
    """Turn a CSV row (stripped strings) into a Card, or raise RowError naming the field."""
    color = one_of(values, "color", COLORS)
    if color == "white":
        if values["tier"]:
            raise RowError("tier", f"a white card has no tier, found {values['tier']!r}")
        if not values["effect"]:
            raise RowError("effect", f"a white card needs an effect: {' or '.join(WHITE_EFFECTS)}")
        effect: str | None = one_of(values, "effect", WHITE_EFFECTS)
        tier = None
    else:
        if not values["tier"]:
            raise RowError("tier", f"a {color} card needs a tier 1 to 3")
        tier = whole_number(values, "tier", 1, 3)
        effect = one_of(values, "effect", EFFECTS, allow_empty=True) or None
        if effect in WHITE_EFFECTS:
            raise RowError("effect", f"only white cards have the effect {effect!r}")
        if effect is not None and color == "blue":
            raise RowError("effect", f"a blue card is a rule: it has no effect, found {effect!r}")
    if not values["text"]:
        raise RowError("text", "empty text")
    return Card(values["id"], values["title"], color, tier, effect, values["text"])


@dataclass(frozen=True)
class BoardDeck(Deck):
    """Deck of Death's cards and the board they are played on."""

    board: Board | None = None


def load_deck(directory: Path | str | None = None) -> BoardDeck:
    """The deck `<directory>/deck-of-death.csv` with its `board`.

    The board is `<directory>/deck-of-death.toml` when that file exists, else the built-in one;
    a board without a deck file beside it goes with the built-in cards.
    """
    folder = Path(directory) if directory is not None else None
    cards = folder if folder is not None and (folder / f"{NAME}.csv").exists() else None
    deck = open_deck(NAME, COLUMNS, parse_card, cards, name_column="title")
    board_file = folder / f"{NAME}.toml" if folder is not None else BUILTIN_BOARD
    board = load_board(board_file if board_file.exists() else BUILTIN_BOARD)
    return BoardDeck(deck.game, deck.cards, deck.names, deck.path, board=board)


# --- the board -------------------------------------------------------------------


INNER_SIZE = 10
MIN_ARROWS, MAX_ARROWS = 5, 8
MIN_OUTER, MAX_OUTER = 10, 99
KEYS = ("outer", "start", "inner", "arrows")
MAX_BOARD_BYTES = 64 * 1024  # a board is a dozen lines


@dataclass(frozen=True)
class Board:
    """The layout: `arrows` maps an outer arrow space to the inner space it leads to."""

    outer: int
    start: int
    arrows: tuple[tuple[int, int], ...]
    inner: int = INNER_SIZE

    @property
    def size(self) -> int:
        """Spaces that can hold a card slot: the outer ring, then the inner circle."""
        return self.outer + self.inner

    def arrow_target(self, space: int) -> int | None:
        """The inner space an outer arrow space leads to, or None if `space` is no arrow."""
        for arrow, target in self.arrows:
            if arrow == space:
                return target
        return None

    def move_outer(self, space: int, steps: int) -> tuple[int, int]:
        """Move clockwise on the outer ring: (new space, laps completed on the way)."""
        laps = sum(1 for step in range(1, steps + 1) if (space + step) % self.outer == self.start)
        return (space + steps) % self.outer, laps

    def move_inner(self, space: int, steps: int) -> int:
        """Move clockwise on the inner circle, wrapping its spaces."""
        return (space + steps) % self.inner

    def slot(self, ring: str, space: int) -> int:
        """The index of a space in one flat row: outer spaces first, then the inner ones."""
        return space if ring == "outer" else self.outer + space

    def key(self, slot: int) -> str:
        """A slot as the state dump names it: '7' on the outer ring, 'i7' in the inner circle."""
        return str(slot) if slot < self.outer else f"i{slot - self.outer}"

    def card_slots(self) -> tuple[int, ...]:
        """Every slot that can hold a card: the outer ring but Start, then the inner circle."""
        return tuple(slot for slot in range(self.size) if slot != self.start)

    def outer_card_slots(self) -> tuple[int, ...]:
        """The outer slots that can hold a card (all but Start): the lockout needs them all filled."""
        return tuple(slot for slot in range(self.outer) if slot != self.start)


def parse_board(text: str, path: str) -> Board:
    """Read a board from TOML text; every problem raises ConfigError with line and field."""
    data = parse_toml(text, path, ConfigError)

    def fail(message: str, key: str, section: str | None = None) -> ConfigError:
        return ConfigError(path, message, line=_line_of(text, key, section), field=key)

    for key in data:
        if key not in KEYS:
            raise fail(f"unknown key; expected {', '.join(KEYS)}", key)
    for key in ("outer", "arrows"):
        if key not in data:
            raise ConfigError(path, f"missing key {key!r}", field=key)
    outer = _whole(data["outer"], MIN_OUTER, MAX_OUTER, lambda m: fail(m, "outer"))
    start = _whole(data.get("start", 0), 0, outer - 1, lambda m: fail(m, "start"))
    _whole(
        data.get("inner", INNER_SIZE),
        INNER_SIZE,
        INNER_SIZE,
        lambda m: fail(m + ": the inner circle has 10 spaces", "inner"),
    )
    table = data["arrows"]
    if not isinstance(table, dict):
        raise fail("must be a table of arrow space = inner space", "arrows")
    if not MIN_ARROWS <= len(table) <= MAX_ARROWS:
        raise fail(f"{len(table)} arrows; a board has {MIN_ARROWS} to {MAX_ARROWS}", "arrows")
    arrows = []
    written: dict[int, str] = {}  # space -> the key it was written as ("5" and "05" are one space)
    for key, value in table.items():
        field = f"arrows.{key}"
        if not re.fullmatch(r"\d+", key):
            raise ConfigError(path, f"{key!r} is not a space number", line=_line_of(text, key, "arrows"), field=field)
        space = int(key)

        def arrow_fail(message: str, key: str = key, field: str = field) -> ConfigError:
            return ConfigError(path, message, line=_line_of(text, key, "arrows"), field=field)

        if space >= outer:
            raise arrow_fail(f"space {space} is off the outer ring (0 to {outer - 1})")
        if space == start:
            raise arrow_fail(f"space {space} is the Start space, which cannot be an arrow")
        if space in written:
            raise arrow_fail(f"space {space} is given twice (also as {written[space]!r})")
        written[space] = key
        target = _whole(value, 0, INNER_SIZE - 1, arrow_fail)
        arrows.append((space, target))
    return Board(outer=outer, start=start, arrows=tuple(sorted(arrows)))


def load_board(path: Path) -> Board:
    """Read a board file, or raise ConfigError."""
    return parse_board(read_text(path, ConfigError, "board file", limit=MAX_BOARD_BYTES), str(path))


def _whole(value: object, low: int, high: int, fail: Callable[[str], Exception]) -> int:
    """`value` as a whole number in [low, high], or raise what `fail(message)` builds."""
    if type(value) is not int:
        raise fail(f"not a whole number: {value!r}")
    if not low <= value <= high:
        raise fail(f"{value} is out of range {low}..{high}")
    return value


def _line_of(text: str, key: str, section: str | None = None) -> int | None:
    """The line (1-based) where `key = ...` is written, inside `[section]` when given."""
    current: str | None = None
    pattern = re.compile(rf"""\s*["']?{re.escape(key)}["']?\s*=""")
    for number, line in enumerate(text.splitlines(), start=1):
        header = re.match(r"\s*\[\s*([^\]]+?)\s*\]", line)
        if header:
            current = header.group(1)
            if section is None and current == key:
                return number
            continue
        if current == section and pattern.match(line):
            return number
    return None
