"""The Cards page's checks: an uploaded deck or tag map is validated whole before it is used.

Errors are the command line's one line, naming the uploaded file:
`dead-set.csv:7: age: not a whole number: 'old'`. Nothing is written unless
the whole file is good, and then it replaces the old one atomically. A tag map
is judged by its one codec (box/storage/tags.py), the same as the stick's file and
`gravebox enroll --import`.

>>> from box.games import rules_for
>>> check_tags_upload(b"uid,game,card\\nzz,dead-set,ds001\\n", "backup.csv", lambda g: rules_for(g).load_deck())
Traceback (most recent call last):
...
box.errors.ConfigError: backup.csv:2: uid: not a hex UID: 'zz'
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from box.decks.codec import Deck
from box.errors import ConfigError, DeckError
from box.files.bounded import write_atomically
from box.games import GAMES, rules_for
from box.storage.roster import UPLOADED_DECKS
from box.storage.tags import TagMap, format_tags, parse_tag_bytes


def text_of(data: bytes, filename: str, error: type[ConfigError] | type[DeckError] = ConfigError) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise error(filename, f"not UTF-8 text ({problem.reason} at byte {problem.start})") from None


def check_tags_upload(data: bytes, filename: str, deck_of: Callable[[str], Any]) -> TagMap:
    """The tag map in an uploaded CSV, every row checked by the tag map's codec (the stick's
    `gravebox-tags.csv` and `gravebox enroll --export` files too); ConfigError for the first bad one."""

    def checked_deck(game: str) -> Any:
        if game not in GAMES:
            raise ValueError(f"unknown game {game[:40]!r}; games are {', '.join(GAMES)}")
        return deck_of(game)

    rows = parse_tag_bytes(data, filename, checked_deck)
    return TagMap({row.uid: (row.game, row.card) for row in rows})


def tags_backup(path: Path, name_of: Callable[[str, str], str] | None = None) -> bytes:
    """The Cards page's backup download: the box's tag map as its codec writes it (`name_of`: with a
    name column), so a restore always takes it back; ConfigError when the saved map is unreadable."""
    tags = TagMap.load(path)
    return format_tags(sorted(tags.cards.items(), key=lambda item: item[1]), name_of).encode("utf-8")


def check_deck_upload(game: str, data: bytes, filename: str, state_dir: Path) -> Deck:
    """Check an uploaded deck with the game's own reader, then put it in the state directory's decks folder."""
    text = text_of(data, filename, DeckError)
    with tempfile.TemporaryDirectory(prefix="gravebox-deck-") as scratch:
        (Path(scratch) / f"{game}.csv").write_text(text, encoding="utf-8")
        try:
            deck = rules_for(game).load_deck(Path(scratch))
        except (DeckError, ConfigError) as problem:
            raise DeckError(filename, problem.message, line=problem.line, field=problem.field) from None
    folder = state_dir / UPLOADED_DECKS
    folder.mkdir(exist_ok=True)
    write_atomically(folder / f"{game}.csv", text)
    return deck


def deck_rows(deck: Any, tags: TagMap) -> dict[str, Any]:
    """`deck`: a Deck or the page's CardList (ids, names, path)."""
    cards = [(card_id, deck.name_of(card_id), tags.uid_of(deck.game, card_id)) for card_id in deck.cards]
    return {
        "cards": [(card_id, name, uid.hex() if uid else "") for card_id, name, uid in cards],
        "enrolled": sum(1 for *_, uid in cards if uid),
        "total": len(cards),
        "path": deck.path,
    }
