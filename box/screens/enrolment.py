"""Card enrolment: teach the box which NFC tag is which card of a game.

`Enrolment` is a pure screen-state object (the same shape as the self-test):
it walks the game's deck in the printed order (box/decks/order.py: the deck file's order,
nine cards a sheet), shows the card to tap with its place in the print ("Sheet 3, card 5:")
and a progress bar, and enrols the tag laid on any reader. On a box with readers it writes the
card's record onto the tag (through the reader side: `WriteCard` out, `CardWritten`
back) and enrols the tag once the write is verified; a tag that cannot carry a
record (locked, MIFARE Classic, full) is kept in the tag map only, and the screen
says which; a tag lifted during the write is written again on its next tap. A tag
that already names another card is refused, naming that card, until OK confirms
overwriting it. The tag map is saved after every enrolment, so the owner can stop
at any time and resume later from the first card without a tag.

The Box shows it from its menu; `gravebox enroll GAME` (box/cli/enroll.py) runs it
as the root screen of the same loop. `export_tags` and `import_tags` move a game's tags
as CSV (`uid,game,card,name`).

>>> from box.decks.codec import Deck
>>> from box.storage.tags import TagMap
>>> deck = Deck("demo", {"a": 1, "b": 2}, {"a": "Ada", "b": "Bob"}, "demo.csv")
>>> walk = Enrolment("demo", deck, TagMap())
>>> walk.tag("left", bytes.fromhex("04a1b2c3"), None, now=0.0)
>>> walk.current, walk.take_sounds()
('b', ['right'])
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from box.decks.codec import Deck
from box.decks.order import place_label, printed_order
from box.errors import ConfigError
from box.files.bounded import write_atomically
from box.files.text import read_text
from box.games.base import View
from box.messages import CardWritten, WriteCard, WriteOutcome
from box.screens.protocol import BaseScreen, Card
from box.storage.tags import MAX_TAG_BYTES, TagMap, format_tags, parse_tags
from box.words import Sound

if TYPE_CHECKING:
    from PIL import Image

NOTICE_SECONDS = 3.0
BAR_WIDTH = 10


def replaces(uid: bytes) -> str:
    """The line under a card that has a tag already: a tap gives it a new one (the old tag's start).

    >>> replaces(bytes.fromhex("045d3c2a1b1c90")), replaces(bytes.fromhex("04a1"))
    ('Tap replaces 045d3c2…', 'Tap replaces 04a1')
    """
    text = uid.hex()
    return f"Tap replaces {text if len(text) <= 8 else text[:7] + '…'}"


class Enrolment(BaseScreen):
    """Walk a deck card by card; the tag laid on a reader becomes the card shown.

    UP goes back a card, DOWN skips one, OK jumps to the next card without a
    tag, BACK leaves (everything enrolled is already saved). After an
    enrolment the walk goes on to the next card without a tag (with
    `every_card`, simply the next card: re-enrolling a whole deck).
    `names` finds the name of another game's card for a refusal.
    """

    name = "enrol"
    raw_tags = True  # any tag may become the card shown

    def __init__(
        self,
        game: str,
        deck: Deck,
        tags: TagMap,
        done_ids: Iterable[str] | None = None,
        path: Path | None = None,
        names: Callable[[str, str], str] | None = None,
        title: str | None = None,
        every_card: bool = False,
    ):
        """`done_ids`: the cards that count as done (default: those with a tag); `path`: where
        the tag map is saved after each enrolment (None: not saved)."""
        super().__init__()
        self.game = game
        self.deck = deck
        self.tags = tags
        self.ids = list(printed_order(deck))  # a stack of printed cards, top to bottom
        self.path = path
        self.names = names
        self.title = title or f"Enrol {game}"
        self.every_card = every_card
        if done_ids is not None:
            done = set(done_ids)
        elif every_card:
            done = set()  # from the first card
        else:
            done = {card_id for card_id in self.ids if tags.enrolled_uid(game, card_id) is not None}
        self.cursor = next((i for i, card_id in enumerate(self.ids) if card_id not in done), len(self.ids))
        self.notice = ""
        self.notice_until = 0.0
        self.offline: dict[str, str] = {}
        self.enrolled = 0
        self.written: set[str] = set()
        """Cards whose record this walk wrote onto their tag (and read back)."""
        self.map_only: dict[str, str] = {}
        """Cards whose tag cannot carry a record (kept in the tag map only), and why."""
        self.overwrite: tuple[str, bytes] | None = None
        """(reader, uid) of a tag refused for naming another card: OK overwrites it."""
        self._messages: list[str] = []

    # ----- where we are -------------------------------------------------------------------

    @property
    def current(self) -> str | None:
        """The card id to tap now, or None past the last card."""
        return self.ids[self.cursor] if self.cursor < len(self.ids) else None

    def has_tag(self, card_id: str) -> bool:
        """The card has a tag the tag map file keeps (the page counts the same)."""
        return self.tags.enrolled_uid(self.game, card_id) is not None

    @property
    def done(self) -> int:
        """How many of the deck's cards have a tag (walking the deck again: how many this walk wrote)."""
        if self.every_card:
            return len((self.written | set(self.map_only)) & set(self.ids))
        return sum(1 for card_id in self.ids if self.has_tag(card_id))

    def place(self) -> str:
        """Where the card to tap is in the print: `Sheet 3, card 5` ("" past the last card)."""
        return place_label(self.cursor) if self.current is not None else ""

    def missing(self) -> list[str]:
        """The ids of the cards without a tag, in deck order."""
        return [card_id for card_id in self.ids if not self.has_tag(card_id)]

    def name_of(self, game: str, card_id: str) -> str:
        if game == self.game and card_id in self.deck:
            return self.deck.name_of(card_id)
        if self.names is not None:
            with contextlib.suppress(KeyError, ValueError):
                return self.names(game, card_id)
        return card_id

    # ----- inputs -------------------------------------------------------------------------

    def press(self, button: str, kind: str, now: float) -> None:
        """UP back, DOWN skip, OK next card without a tag, BACK leave (held UP/DOWN repeat)."""
        if button == "up":
            self.move(max(0, self.cursor - 1))
        elif button == "down":
            self.move(min(len(self.ids), self.cursor + 1))
        elif button == "ok" and self.overwrite is not None:
            reader, uid = self.overwrite
            self.overwrite = None
            self.write(reader, uid, now, overwrite=True)
        elif button == "ok":
            self.move(self.next_missing(0))
        elif button == "back":
            self.closed = True

    def move(self, cursor: int) -> None:
        if cursor != self.cursor:
            self.cursor = cursor
            self.notice, self.overwrite = "", None
            self._sounds.append(Sound.CLICK)

    def next_missing(self, start: int) -> int:
        """The index of the first card from `start` on without a tag (len(ids) when none)."""
        return next((i for i in range(start, len(self.ids)) if not self.has_tag(self.ids[i])), len(self.ids))

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        """A tag laid on a reader: write and enrol it as the current card, or say why not.

        `card` is what the Box knows the tag as: the card its record names, else the tag map's.
        """
        card_id = self.current
        owner = card if card is not None else self.tags.lookup(uid)
        if card_id is None:
            where = f" (it is {self.name_of(*owner)})" if owner else ""
            self.refuse(f"Every card walked{where}: UP goes back", now)
            return
        if owner is not None and owner != (self.game, card_id):
            self.refuse_other(reader, uid, owner, now)
            return
        self.write(reader, uid, now)

    def refuse_other(self, reader: str, uid: bytes, owner: Card, now: float) -> None:
        self.overwrite = (reader, uid)
        self.refuse(f"tag already {self.name_of(*owner)} ({owner[0]}): OK overwrites", now)

    def write(self, reader: str, uid: bytes, now: float, overwrite: bool = False) -> None:
        """Ask the reader side to write the current card on the tag; without readers, map it at once."""
        card_id = self.current
        if card_id is None:
            return
        request = WriteCard(reader, uid, (self.game, card_id), overwrite)
        name = self.deck.name_of(card_id)
        if self.host is not None and self.host.request_write(request):
            self.say(f"Writing {name}...", now)
        elif self.tags.lookup(uid) == (self.game, card_id):
            self.say(f"Already {name}", now)
            self._sounds.append(Sound.CLICK)
            self.advance_after(card_id)
        else:
            self.enrol(reader, uid, card_id, now, f"{name}: enrolled")

    def card_written(self, result: CardWritten, now: float) -> None:
        """The reader side's answer: enrol the tag, keep it in the map only, or ask again."""
        game, card_id = result.card
        if game != self.game or card_id not in self.deck:
            return
        name = self.deck.name_of(card_id)
        if result.outcome is WriteOutcome.WRITTEN:
            self.written.add(card_id)
            self.map_only.pop(card_id, None)
            self.enrol(result.reader, result.uid, card_id, now, f"{name}: written")
        elif result.outcome is WriteOutcome.NOT_WRITABLE:
            if self.enrol(result.reader, result.uid, card_id, now, f"{name}: tag map only ({result.message})"):
                self.map_only[card_id] = result.message
        elif result.outcome is WriteOutcome.OTHER_CARD and result.other is not None:
            self.refuse_other(result.reader, result.uid, result.other, now)
        elif result.outcome is WriteOutcome.TORN:
            self.refuse(f"{name}: lifted too soon, lay it again", now)
        else:
            self.refuse(f"{name}: lay the tag again", now)

    def enrol(self, reader: str, uid: bytes, card_id: str, now: float, said: str) -> bool:
        """Map the tag to the card (over whatever it was) and save the map; False when not saved."""
        before = dict(self.tags.cards)
        self.tags.cards.pop(uid, None)
        self.tags.enrol(uid, self.game, card_id)
        if self.path is not None:
            try:
                self.tags.save(self.path)
            except (OSError, ValueError) as problem:
                self.tags.cards.clear()
                self.tags.cards.update(before)
                self.refuse(f"Not saved: {getattr(problem, 'strerror', None) or problem}", now)
                return False
        self.enrolled += 1
        self.say(said, now)
        self._messages.append(f"{said} ({card_id}): tag {uid.hex()} from reader {reader}")
        self._sounds.append(Sound.RIGHT)
        if card_id == self.current:
            self.advance_after(card_id)
        return True

    def advance_after(self, card_id: str) -> None:
        index = self.ids.index(card_id)
        self.cursor = index + 1 if self.every_card else self.next_missing(index + 1)

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None:
        """Offline readers are named on screen until they come back."""
        if online:
            self.offline.pop(reader, None)
        else:
            self.offline[reader] = message
            self._sounds.append(Sound.ERROR)
        self._messages.append(message or f"reader {reader}: {'online' if online else 'offline'}")

    def refuse(self, reason: str, now: float) -> None:
        self.say(reason, now)
        self._sounds.append(Sound.ERROR)
        self._messages.append(reason)

    def say(self, text: str, now: float) -> None:
        self.notice, self.notice_until = text, now + NOTICE_SECONDS

    # ----- time and outputs ---------------------------------------------------------------

    def advance(self, now: float) -> None:
        if self.notice and now >= self.notice_until:
            self.notice = ""

    def next_deadline(self, now: float) -> float | None:
        return self.notice_until if self.notice else None

    def take_messages(self) -> list[str]:
        """Human-readable lines about what happened since last asked (for a terminal)."""
        messages, self._messages = self._messages, []
        return messages

    def lines(self, now: float) -> list[str]:
        """The text under the progress bar (up to five rows)."""
        notice = self.notice if self.notice and now < self.notice_until else ""
        card_id = self.current
        if card_id is None:
            missing = len(self.missing())
            lines = ["Every card walked", f"{missing} without a tag" if missing else "All cards have tags"]
            lines.append("OK: to the missing" if missing else "BACK: done")
        else:
            uid = self.tags.enrolled_uid(self.game, card_id)
            lines = [
                f"{self.place()}:",
                self.deck.name_of(card_id),
                "Tap its card" if uid is None else replaces(uid),
            ]
            if not (self.offline or notice):
                lines.append("UP back  DOWN skip")
        if self.offline:
            lines.append("! reader " + ", ".join(sorted(self.offline)) + " off")
        if notice:
            lines.append(notice)
        return lines[:5]

    def dump(self) -> dict[str, Any]:
        return {
            "enrolment": {
                "game": self.game,
                "current": self.current,
                "done": self.done,
                "total": len(self.ids),
                "again": self.every_card,  # walking a deck whose every card has a tag: `done` counts this walk's
                "notice": self.notice,
            }
        }

    def image(self, now: float) -> Image.Image:
        """The screen: title, a progress bar of cards with a tag, the card to tap."""
        from box.screens.render import render_progress

        return render_progress(self.title, self.done, len(self.ids), self.lines(now))

    def view(self, now: float) -> View:
        """The same as text, for a front end that only draws views."""
        total = len(self.ids)
        filled = round(BAR_WIDTH * self.done / total) if total else 0
        bar = f"[{'#' * filled}{'.' * (BAR_WIDTH - filled)}] {self.done}/{total}"
        lines = [bar, *self.lines(now)]
        notice = ""
        if len(lines) > 5:
            lines, notice = lines[:4], lines[-1]
        return View(self.title, tuple(lines), notice=notice)


# ----- export and import ------------------------------------------------------------------


def export_tags(tags: TagMap, game: str, deck: Deck, path: Path) -> int:
    """Write the game's tags with the tag map's codec (`uid,game,card,name`, in deck order); the count written."""
    uid_of = {card: uid for uid, card in tags.cards.items()}
    rows = [(uid_of[game, card_id], (game, card_id)) for card_id in deck.cards if (game, card_id) in uid_of]
    try:
        write_atomically(path, format_tags(rows, lambda _, card_id: deck.name_of(card_id)))
    except OSError as problem:
        raise ConfigError(path, f"cannot write it: {problem.strerror or problem}", field="--export") from None
    except ValueError as problem:
        raise ConfigError(path, f"a tag the box cannot write ({problem})", field="--export") from None
    return len(rows)


def read_import(
    path: Path, game: str, deck: Deck, tags: TagMap, names: Callable[[str, str], str] | None = None
) -> list[tuple[bytes, str]]:
    """Read and check an export file against `deck` and `tags` with the tag map's codec: the (uid, card id) pairs.

    Raises ConfigError naming the file, the line and the field for the first bad line.
    A card may be given by id or name; the `name` column is optional and only informative.
    """

    def deck_of(other: str) -> Deck:
        if other != game:
            raise ValueError(refused_game(other, game))
        return deck

    text = read_text(path, ConfigError, limit=MAX_TAG_BYTES)  # a folder, a link, not UTF-8: one line
    rows = parse_tags(text, path, deck_of, by_name=True)
    for row in rows:
        if row.game != game:  # a player's token: not a card of this game
            raise ConfigError(path, refused_game(row.game, game), line=row.line, field="game")
    pairs = [(row.uid, row.card) for row in rows]
    uid_line = {row.uid: row.line for row in rows}
    renamed = {card_id for _, card_id in pairs}
    for uid, card_id in pairs:  # a tag kept by a card of another game, or by a card the file leaves alone
        owner = tags.lookup(uid)
        if owner is not None and owner[0] == game and owner[1] in renamed:
            continue
        if owner is not None and owner != (game, card_id):
            name = deck.name_of(owner[1]) if owner[0] == game and owner[1] in deck else owner[1]
            if names is not None and owner[0] != game:
                with contextlib.suppress(KeyError, ValueError):
                    name = names(*owner)
            raise ConfigError(path, f"tag already {name} ({owner[0]})", line=uid_line[uid], field="uid")
    return pairs


def refused_game(other: str, game: str) -> str:
    """Why a row of an import for `game` is for another game."""
    return f"this row is for {other!r}, not {game} (import it with gravebox enroll {other} --import)"


def import_tags(path: Path, game: str, deck: Deck, tags: TagMap, names: Callable[[str, str], str] | None = None) -> int:
    """Check the whole file, then enrol every row (all or nothing); the count imported."""
    pairs = read_import(path, game, deck, tags, names)
    for _, card_id in pairs:
        uid = tags.uid_of(game, card_id)
        if uid is not None:
            del tags.cards[uid]
    for uid, card_id in pairs:
        tags.enrol(uid, game, card_id)
    return len(pairs)


def names_from(decks: Mapping[str, Deck]) -> Callable[[str, str], str]:
    """A card namer over loaded decks (the simulator's, or a test's)."""

    def name(game: str, card_id: str) -> str:
        return decks[game].name_of(card_id)

    return name
