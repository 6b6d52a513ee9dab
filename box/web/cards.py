"""The Cards page's checks: an uploaded deck or tag map is validated whole before it is used.

Errors are the command line's one line, naming the uploaded file:
`dead-set.csv:7: age: not a whole number: 'old'`. Nothing is written unless
the whole file is good, and then it replaces the old one atomically.

>>> from box.games import rules_for
>>> check_tags_upload(b"uid,game,card\\nzz,dead-set,ds001\\n", "backup.csv", lambda g: rules_for(g).load_deck())
Traceback (most recent call last):
...
box.errors.ConfigError: backup.csv:2: uid: not a hex UID: 'zz'
"""

from __future__ import annotations

import csv
import io
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from box.cards import Deck
from box.errors import ConfigError, DeckError
from box.games import GAMES, rules_for
from box.roster import MAX_NAME_LENGTH, PLAYER, UPLOADED_DECKS, write_atomically
from box.tags import TagMap


def text_of(data: bytes, filename: str, error: type[ConfigError] | type[DeckError] = ConfigError) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as problem:
        raise error(filename, f"not UTF-8 text ({problem.reason} at byte {problem.start})") from None


def check_tags_upload(data: bytes, filename: str, deck_of: Callable[[str], Any]) -> TagMap:
    """The tag map in an uploaded CSV (`uid,game,card`), every row checked; ConfigError for the first bad one."""
    rows = csv.reader(io.StringIO(text_of(data, filename)))
    tags = TagMap()
    first: dict[bytes, int] = {}
    header_seen = False
    for row in rows:
        line = rows.line_num
        if not row or all(not cell.strip() for cell in row):
            continue
        cells = [cell.strip() for cell in row]
        if not header_seen:
            if cells != ["uid", "game", "card"]:
                raise ConfigError(filename, "the first line must be uid,game,card", line=line)
            header_seen = True
            continue
        if len(cells) != 3:
            raise ConfigError(filename, f"expected uid,game,card, found {len(cells)} fields", line=line)
        text, game, card = cells
        try:
            uid = bytes.fromhex(text)
        except ValueError:
            raise ConfigError(filename, f"not a hex UID: {text!r}", line=line, field="uid") from None
        if not 4 <= len(uid) <= 10:
            raise ConfigError(filename, f"a UID has 4, 7 or 10 bytes, not {len(uid)}", line=line, field="uid")
        if uid in first:
            raise ConfigError(
                filename, f"tag {text} is there twice (first on line {first[uid]})", line=line, field="uid"
            )
        if game == PLAYER:
            if not card or len(card) > MAX_NAME_LENGTH:
                raise ConfigError(filename, "a player's name, 1 to 16 characters", line=line, field="card")
        elif game not in GAMES:
            raise ConfigError(filename, f"unknown game {game!r}; games are {', '.join(GAMES)}", line=line, field="game")
        elif card not in deck_of(game):
            raise ConfigError(filename, f"no card {card!r} in the {game} deck", line=line, field="card")
        if tags.uid_of(game, card) is not None:
            raise ConfigError(filename, f"{game} {card} has two tags", line=line, field="card")
        first[uid] = line
        tags.cards[uid] = (game, card)
    if not header_seen:
        raise ConfigError(filename, "the file is empty: it needs the line uid,game,card")
    return tags


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
