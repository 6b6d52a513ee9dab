"""Card decks: CSV files, one per game, validated with file, line and field in every error.

Each game module describes its columns and turns a row into its own card type;
this module does the reading, the header check, duplicate ids and names, and the
error reporting. See docs/decks.md.

>>> import io
>>> deck = read_deck("dead-set", io.StringIO("id,name,age\\nds1,Ada Lovelace,36\\n"),
...                  ("id", "name", "age"), lambda row: dict(row), path="x.csv")
>>> deck.name_of("ds1")
'Ada Lovelace'
"""

from __future__ import annotations

import csv
import os
import stat
import unicodedata
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from box.errors import DeckError
from box.files.text import read_text

BUILTIN_DIR = Path(__file__).parent


class RowError(ValueError):
    """Raised by a row parser: what is wrong with which field of the row."""

    def __init__(self, field: str, message: str):
        self.field = field
        super().__init__(message)


@dataclass(frozen=True)
class Deck:
    """A game's cards by id, in file order, with their display names."""

    game: str
    cards: Mapping[str, Any]
    names: Mapping[str, str]
    path: str

    def __contains__(self, card_id: object) -> bool:
        return card_id in self.cards

    def __getitem__(self, card_id: str) -> Any:
        return self.cards[card_id]

    def __len__(self) -> int:
        return len(self.cards)

    def name_of(self, card_id: str) -> str:
        return self.names[card_id]

    def find(self, text: str) -> str | None:
        """The id of the one card `text` names (see `matches`), or None when none or several do.

        >>> deck = Deck("x", {"a1": 1, "a2": 2}, {"a1": "Marie Curie", "a2": "Pierre Curie"}, "x.csv")
        >>> deck.find("marie"), deck.find("A2"), deck.find("curie")
        ('a1', 'a2', None)
        """
        found = self.matches(text)
        return found[0] if len(found) == 1 else None

    def matches(self, text: str) -> tuple[str, ...]:
        """The ids of the cards `text` names, best first.

        An id or a whole name (case and accents ignored) is the one answer; otherwise every card
        whose name has a word starting with `text` ("mozart", "marie cu", "curie").

        >>> deck = Deck("x", {"a1": 1, "a2": 2}, {"a1": "Marie Curie", "a2": "Pierre Curie"}, "x.csv")
        >>> deck.matches("curie"), deck.matches("Marie Curie"), deck.matches("zola")
        (('a1', 'a2'), ('a1',), ())
        """
        exact = self.exact(text)
        if exact is not None:
            return (exact,)
        wanted = folded(text)
        if not wanted:
            return ()
        return tuple(card_id for card_id, name in self.names.items() if _starts_a_word(folded(name), wanted))

    def exact(self, text: str) -> str | None:
        """The id of the card whose id or whole name is `text` (case and accents ignored), or None."""
        if text in self.cards:
            return text
        wanted = folded(text)
        for card_id, name in self.names.items():
            if folded(card_id) == wanted or folded(name) == wanted:
                return card_id
        return None

    def lookup(self, text: str) -> str:
        """The id of the one card `text` names; ValueError says which cards match when none or several do.

        >>> deck = Deck("x", {"a1": 1, "a2": 2}, {"a1": "Marie Curie", "a2": "Pierre Curie"}, "x.csv")
        >>> deck.lookup("curie")
        Traceback (most recent call last):
        ValueError: 2 x cards match 'curie': Marie Curie, Pierre Curie; say more of the name
        """
        found = self.matches(text)
        if len(found) == 1:
            return found[0]
        raise ValueError(self.no_single_match(text, found))

    def no_single_match(self, text: str, found: tuple[str, ...]) -> str:
        """The answer when `text` names no card or several (`found`)."""
        if not found:
            return f"no card {text!r} in the {self.game} deck"
        shown = ", ".join(self.names[card_id] for card_id in found[:SHOWN_MATCHES])
        more = f" and {len(found) - SHOWN_MATCHES} more" if len(found) > SHOWN_MATCHES else ""
        return f"{len(found)} {self.game} cards match {text!r}: {shown}{more}; say more of the name"


SHOWN_MATCHES = 5  # names listed when a text matches several cards


def folded(text: str) -> str:
    """`text` for comparing names: no case, no accents, single spaces.

    >>> folded("  Paul  ERDŐS ")
    'paul erdos'
    """
    plain = "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))
    return " ".join(plain.casefold().split())


def _starts_a_word(name: str, wanted: str) -> bool:
    """Whether `wanted` starts at the start of a word of `name` (both folded)."""
    return any(name.startswith(wanted, at) for at in range(len(name)) if at == 0 or not name[at - 1].isalnum())


def find_card(decks: Iterable[Deck], text: str) -> tuple[Deck, str]:
    """The deck and id of the card `text` names, searching `decks` in order.

    An exact id or name in any deck wins over a partial one; a partial match must be the only
    one in the first deck that has any. ValueError says what matched when that fails.
    """
    decks = list(decks)
    for deck in decks:
        card_id = deck.exact(text)
        if card_id is not None:
            return deck, card_id
    for deck in decks:
        if deck.matches(text):
            return deck, deck.lookup(text)
    raise ValueError(f"no card {text!r} in any deck")


def read_deck(
    game: str,
    source: IO[str] | Iterable[str],
    columns: tuple[str, ...],
    parse_row: Callable[[dict[str, str]], Any],
    path: str,
    name_column: str = "name",
) -> Deck:
    """Read a deck: the header must hold `columns` (in any order; extra columns are an error).

    `parse_row` gets a dict of stripped strings and returns the card; it raises
    RowError(field, message) for a bad value. Lines starting with '#' are comments.
    """
    reader = csv.reader(line for line in source)
    header: list[str] | None = None
    cards: dict[str, Any] = {}
    names: dict[str, str] = {}
    seen_names: dict[str, int] = {}
    line_of: dict[str, int] = {}
    for row in _rows(reader, path):
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [cell.strip() for cell in row]
            missing = [c for c in columns if c not in header]
            extra = [c for c in header if c not in columns]
            if missing:
                raise DeckError(
                    path, f"header lacks column(s) {', '.join(missing)}; expected {','.join(columns)}", line=line
                )
            if extra:
                raise DeckError(path, f"unknown column(s) {', '.join(extra)}; expected {','.join(columns)}", line=line)
            continue
        if len(row) != len(header):
            raise DeckError(
                path,
                f"expected {len(header)} fields, found {len(row)} (a comma inside a value needs quotes)",
                line=line,
            )
        values = {key: cell.strip() for key, cell in zip(header, row)}
        card_id = values["id"]
        if not card_id:
            raise DeckError(path, "empty id", line=line, field="id")
        if not card_id.isprintable():  # a tag map keeps ids one to a line: no line break in one
            raise DeckError(path, f"an id is one line of letters and signs, not {card_id[:40]!r}", line=line, field="id")
        if card_id in cards:
            raise DeckError(path, f"duplicate id {card_id!r} (first on line {line_of[card_id]})", line=line, field="id")
        name = values.get(name_column, "")
        if not name:
            raise DeckError(path, "empty name", line=line, field=name_column)
        if not name.isprintable():  # the OLED, the tag map and the logs show a name on one line
            raise DeckError(path, f"a name is one line of text, not {name[:40]!r}", line=line, field=name_column)
        if name.casefold() in seen_names:
            raise DeckError(
                path,
                f"duplicate name {name!r} (first on line {seen_names[name.casefold()]})",
                line=line,
                field=name_column,
            )
        try:
            card = parse_row(values)
        except RowError as problem:
            raise DeckError(path, str(problem), line=line, field=problem.field) from None
        cards[card_id] = card
        names[card_id] = name
        seen_names[name.casefold()] = line
        line_of[card_id] = line
    if header is None:
        raise DeckError(path, "the file is empty: it needs a header line " + ",".join(columns))
    if not cards:
        raise DeckError(path, "the deck has no cards")
    return Deck(game=game, cards=cards, names=names, path=path)


def _rows(reader: Any, path: str) -> Iterable[list[str]]:
    """The reader's rows; a CSV error (a field over the limit, say) as a DeckError on its line."""
    while True:
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as problem:
            raise DeckError(path, f"not CSV: {problem}", line=reader.line_num) from None
        yield row


def deck_folder(game: str, decks_dir: Path | None) -> Path | None:
    """`decks_dir` when it holds the game's deck `<game>.csv` or a board `<game>.toml` for it, else
    None (the built-in deck). A lone board goes with the built-in cards; see docs/decks.md.

    >>> deck_folder("dead-set", BUILTIN_DIR) == BUILTIN_DIR, deck_folder("dead-set", None)
    (True, None)
    """
    if decks_dir is None:
        return None
    try:
        if any((decks_dir / f"{game}{ending}").exists() for ending in (".csv", ".toml")):
            return decks_dir
    except OSError as problem:  # closed since the start: said, never the built-in deck in silence
        raise DeckError(decks_dir, f"cannot reach this folder of decks: {problem.strerror or problem}") from None
    return None


def check_decks_folder(folder: Path, field: str | None = None) -> Path:
    """The owner's folder of decks must exist: a typo there must not silently give the built-in decks.

    A folder behind one this user may not enter (under /home, which the service's
    ProtectHome=yes closes) is a DeckError too, never a PermissionError out of `Path.exists()`.
    """
    try:
        found = folder.stat()
    except FileNotFoundError:
        raise DeckError(folder, "no such folder of decks", field=field) from None
    except PermissionError:
        raise DeckError(
            folder,
            "cannot reach this folder of decks (a folder on its path is closed to this user;"
            " the service cannot see /home: keep decks under /etc/gravebox)",
            field=field,
        ) from None
    except OSError as problem:
        raise DeckError(folder, f"cannot reach this folder of decks: {problem.strerror or problem}", field=field) from None
    if not stat.S_ISDIR(found.st_mode):
        raise DeckError(folder, "not a folder (the decks setting names a folder of <game>.csv files)", field=field)
    if not os.access(folder, os.R_OK | os.X_OK):
        raise DeckError(folder, "cannot read this folder of decks (its permissions)", field=field)
    return folder


def card_names(path: Path, name_column: str = "name") -> dict[str, str]:
    """A deck file's ids and names only, without its game's rules (the phone page names cards with
    it): read like a deck (bounded, no link, UTF-8), DeckError for a file without id and name.

    >>> names = card_names(BUILTIN_DIR / "dead-set.csv")
    >>> len(names) > 10, all(card_id and name for card_id, name in names.items())
    (True, True)
    """
    text = read_text(path, DeckError, "deck file")
    lines = (line for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#"))
    names: dict[str, str] = {}
    reader = csv.reader(lines)
    header: list[str] | None = None
    for row in _rows(reader, str(path)):
        if header is None:
            header = [cell.strip() for cell in row]
            if "id" not in header or name_column not in header:
                raise DeckError(path, f"header lacks id or {name_column}")
            continue
        values = dict(zip(header, (cell.strip() for cell in row)))
        if values.get("id"):
            names[values["id"]] = values.get(name_column, "")
    return names


def open_deck(
    game: str,
    columns: tuple[str, ...],
    parse_row: Callable[[dict[str, str]], Any],
    directory: Path | None = None,
    name_column: str = "name",
) -> Deck:
    """Load `<directory>/<game>.csv`, or the built-in deck when no directory is given."""
    path = (directory or BUILTIN_DIR) / f"{game}.csv"
    text = read_text(path, DeckError, "deck file")
    return read_deck(game, text.splitlines(keepends=True), columns, parse_row, str(path), name_column)


def whole_number(values: Mapping[str, str], field: str, low: int | None = None, high: int | None = None) -> int:
    """Parse a whole number field, with an optional range, or raise RowError."""
    text = values[field]
    try:
        number = int(text)
    except ValueError:
        raise RowError(field, f"not a whole number: {text!r}") from None
    if (low is not None and number < low) or (high is not None and number > high):
        raise RowError(field, f"{number} is out of range {low}..{high}")
    return number


def one_of(values: Mapping[str, str], field: str, choices: Iterable[str], allow_empty: bool = False) -> str:
    """Parse a field that must be one of `choices` (case-insensitive), or raise RowError."""
    text = values[field].lower()
    allowed = tuple(choices)
    if (allow_empty and text == "") or text in allowed:
        return text
    raise RowError(field, f"{values[field]!r} is not one of {', '.join(allowed)}")
