"""Card enrolment: teach the box which NFC tag is which card of a game.

`Enrolment` is a pure screen-state object (the same shape as the self-test):
it walks the game's deck in file order, shows the card to tap and a progress
bar, and enrols the tag laid on any reader. A tag that already belongs to
another card is refused, naming that card. The tag map is saved after every
enrolment, so the owner can stop at any time and resume later from the first
card without a tag.

`gravebox enroll GAME` (`main`) runs it on the box's parts; `--export FILE`
and `--import FILE` move a game's tags as CSV (`uid,game,card,name`).

>>> from box.cards import Deck
>>> from box.tags import TagMap
>>> deck = Deck("demo", {"a": 1, "b": 2}, {"a": "Ada", "b": "Bob"}, "demo.csv")
>>> walk = Enrolment("demo", deck, TagMap())
>>> walk.card("left", bytes.fromhex("04a1b2c3"), now=0.0)
>>> walk.current, walk.take_sounds()
('b', ['right'])
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import logging
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from box.cards import Deck, deck_folder
from box.errors import ConfigError
from box.games.base import Sound, View
from box.tags import TAGS_FILE, TagMap

if TYPE_CHECKING:
    from PIL import Image

    from box.selftest import PartsDriver, VirtualTime

log = logging.getLogger(__name__)

NOTICE_SECONDS = 3.0
UID_LENGTHS = (4, 7, 10)  # bytes: the UIDs a PN532 reads from type A tags
EXPORT_COLUMNS = ("uid", "game", "card", "name")
REQUIRED_COLUMNS = ("uid", "game", "card")
BAR_WIDTH = 10


class Enrolment:
    """Walk a deck card by card; the tag laid on a reader becomes the card shown.

    UP goes back a card, DOWN skips one, OK jumps to the next card without a
    tag, BACK leaves (everything enrolled is already saved). After an
    enrolment the walk goes on to the next card without a tag (with
    `every_card`, simply the next card: re-enrolling a whole deck).
    `names` finds the name of another game's card for a refusal.
    """

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
        self.game = game
        self.deck = deck
        self.tags = tags
        self.ids = list(deck.cards)
        self.path = path
        self.names = names
        self.title = title or f"Enrol {game}"
        self.every_card = every_card
        if done_ids is not None:
            done = set(done_ids)
        elif every_card:
            done = set()  # from the first card
        else:
            done = {card_id for card_id in self.ids if tags.uid_of(game, card_id) is not None}
        self.cursor = next((i for i, card_id in enumerate(self.ids) if card_id not in done), len(self.ids))
        self.closed = False
        self.notice = ""
        self.notice_until = 0.0
        self.offline: dict[str, str] = {}
        self.enrolled = 0
        self._sounds: list[str] = []
        self._messages: list[str] = []

    # ----- where we are -------------------------------------------------------------------

    @property
    def current(self) -> str | None:
        """The card id to tap now, or None past the last card."""
        return self.ids[self.cursor] if self.cursor < len(self.ids) else None

    def has_tag(self, card_id: str) -> bool:
        return self.tags.uid_of(self.game, card_id) is not None

    @property
    def done(self) -> int:
        """How many of the deck's cards have a tag."""
        return sum(1 for card_id in self.ids if self.has_tag(card_id))

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
        elif button == "ok":
            self.move(self.next_missing(0))
        elif button == "back":
            self.closed = True

    def move(self, cursor: int) -> None:
        if cursor != self.cursor:
            self.cursor = cursor
            self.notice = ""
            self._sounds.append(Sound.CLICK)

    def next_missing(self, start: int) -> int:
        """The index of the first card from `start` on without a tag (len(ids) when none)."""
        return next((i for i in range(start, len(self.ids)) if not self.has_tag(self.ids[i])), len(self.ids))

    def card(self, reader: str, uid: bytes, now: float) -> None:
        """A tag laid on a reader: enrol it as the current card, or say why not."""
        card_id = self.current
        owner = self.tags.lookup(uid)
        if card_id is None:
            where = f" (it is {self.name_of(*owner)})" if owner else ""
            self.refuse(f"Every card walked{where}: UP goes back", now)
            return
        name = self.deck.name_of(card_id)
        if owner == (self.game, card_id):
            self.say(f"Already {name}", now)
            self._sounds.append(Sound.CLICK)
            self.advance_after(card_id)
            return
        if owner is not None:
            self.refuse(f"tag already {self.name_of(*owner)} ({owner[0]})", now)
            return
        before = dict(self.tags.cards)
        self.tags.enrol(uid, self.game, card_id)
        if self.path is not None:
            try:
                self.tags.save(self.path)
            except OSError as problem:
                self.tags.cards = before
                self.refuse(f"Not saved: {problem.strerror or problem}", now)
                return
        self.enrolled += 1
        self.say(f"{name}: enrolled", now)
        self._messages.append(f"{name} ({card_id}): tag {uid.hex()} from reader {reader}")
        self._sounds.append(Sound.RIGHT)
        self.advance_after(card_id)

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

    def take_sounds(self) -> list[str]:
        sounds, self._sounds = self._sounds, []
        return sounds

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
            uid = self.tags.uid_of(self.game, card_id)
            lines = [
                f"{self.cursor + 1}. {self.deck.name_of(card_id)}",
                f"has tag {uid.hex()}" if uid is not None else "Tap its card",
            ]
            lines.append("UP back  DOWN skip")
        if self.offline:
            lines.append("! reader " + ", ".join(sorted(self.offline)) + " off")
        if notice:
            lines.append(notice)
        return lines[:5]

    def image(self, now: float) -> Image.Image:
        """The screen: title, a progress bar of cards with a tag, the card to tap."""
        from box.screens import render_progress

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
    """Write the game's tags as CSV (`uid,game,card,name`, in deck order); the count written."""
    rows = [(uid, card_id) for card_id in deck.cards if (uid := tags.uid_of(game, card_id)) is not None]
    temporary = path.with_name(path.name + ".tmp")
    with open(temporary, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(EXPORT_COLUMNS)
        for uid, card_id in rows:
            writer.writerow([uid.hex(), game, card_id, deck.name_of(card_id)])
    temporary.replace(path)
    return len(rows)


def read_import(
    path: Path, game: str, deck: Deck, tags: TagMap, names: Callable[[str, str], str] | None = None
) -> list[tuple[bytes, str]]:
    """Read and check an export file against `deck` and `tags`: the (uid, card id) pairs.

    Raises ConfigError naming the file, the line and the field for the first bad line.
    A card may be given by id or name; the `name` column is optional and only informative.
    """
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(path, "no such file") from None
    except UnicodeDecodeError as problem:
        raise ConfigError(path, f"not UTF-8 text ({problem.reason} at byte {problem.start})") from None
    except OSError as problem:
        raise ConfigError(path, f"cannot read it: {problem.strerror or problem}") from None
    reader = csv.reader(text.splitlines())
    header: list[str] | None = None
    pairs: list[tuple[bytes, str]] = []
    uid_line: dict[bytes, int] = {}
    card_line: dict[str, int] = {}
    for row in reader:
        line = reader.line_num
        if not row or all(not cell.strip() for cell in row) or row[0].lstrip().startswith("#"):
            continue
        if header is None:
            header = [cell.strip().lower() for cell in row]
            missing = [c for c in REQUIRED_COLUMNS if c not in header]
            extra = [c for c in header if c not in EXPORT_COLUMNS]
            if missing or extra:
                raise ConfigError(path, f"the header must be {','.join(EXPORT_COLUMNS)} (name optional)", line=line)
            continue
        if len(row) != len(header):
            raise ConfigError(path, f"expected {len(header)} fields, found {len(row)}", line=line)
        values = {key: cell.strip() for key, cell in zip(header, row)}
        uid = parse_uid(values["uid"], path, line)
        if values["game"] != game:
            raise ConfigError(
                path,
                f"this row is for {values['game'] or 'no game'!r}, not {game} (import it with gravebox enroll"
                f" {values['game'] or 'GAME'} --import)",
                line=line,
                field="game",
            )
        card_id = deck.find(values["card"])
        if card_id is None:
            raise ConfigError(path, f"no card {values['card']!r} in the {game} deck", line=line, field="card")
        if uid in uid_line:
            raise ConfigError(path, f"tag {uid.hex()} is also on line {uid_line[uid]}", line=line, field="uid")
        if card_id in card_line:
            raise ConfigError(path, f"card {card_id} is also on line {card_line[card_id]}", line=line, field="card")
        uid_line[uid], card_line[card_id] = line, line
        pairs.append((uid, card_id))
    if header is None:
        raise ConfigError(path, f"the file is empty: it needs the header {','.join(EXPORT_COLUMNS)}")
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


def parse_uid(text: str, path: Path, line: int) -> bytes:
    """A tag UID in hex (colons and spaces allowed): 4, 7 or 10 bytes."""
    cleaned = text.replace(":", "").replace(" ", "")
    try:
        uid = bytes.fromhex(cleaned)
    except ValueError:
        raise ConfigError(path, f"not a hex UID: {text!r}", line=line, field="uid") from None
    if len(uid) not in UID_LENGTHS:
        raise ConfigError(path, f"a tag UID has 4, 7 or 10 bytes, not {len(uid)}", line=line, field="uid")
    return uid


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


# ----- gravebox enroll --------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `gravebox enroll` (the game is checked by `main`: no game module loads for --help)."""
    parser.add_argument("game", help="the game whose cards to enrol: deadlines, dead-set, dead-fellas, deck-of-death")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--export", type=Path, metavar="FILE", help="write the game's tags to FILE (CSV)")
    action.add_argument("--import", dest="import_file", type=Path, metavar="FILE", help="enrol the tags in FILE")
    parser.add_argument("--again", action="store_true", help="walk every card from the first (new stickers)")
    parser.add_argument(
        "--fake",
        action="store_true",
        help="simulated parts (the default off a Pi): read `tap READER uid:HEX`, `press BUTTON` lines from stdin",
    )
    parser.add_argument("--pinmap", type=Path, help="pin map file (default wiring/pinmap.toml)")


def deck_for(game: str, decks_dir: Path | None) -> Deck:
    """The game's deck: from `decks_dir` when it has the file, else the built-in one."""
    from box.games import rules_for

    return rules_for(game).load_deck(deck_folder(game, decks_dir))


def card_namer(decks_dir: Path | None) -> Callable[[str, str], str]:
    """Names of any game's cards, loading each deck once when first asked."""
    from box.games import GAMES

    loaded: dict[str, Deck] = {}

    def name(game: str, card_id: str) -> str:
        if game not in GAMES:
            return card_id
        if game not in loaded:
            loaded[game] = deck_for(game, decks_dir)
        return loaded[game].name_of(card_id) if card_id in loaded[game] else card_id

    return name


def main(args: argparse.Namespace) -> int:
    """`gravebox enroll GAME [--export FILE | --import FILE] [--again] [--fake]`."""
    from box.config import DEFAULT_CONFIG, load_config
    from box.games import GAMES
    from box.journal import state_directory

    if args.game not in GAMES:
        print(f"gravebox enroll: unknown game {args.game!r}; games are {', '.join(GAMES)}", file=sys.stderr)
        return 2
    config = load_config(getattr(args, "config", None) or DEFAULT_CONFIG)
    decks_dir = getattr(args, "decks", None) or config.decks
    state_dir = getattr(args, "state_dir", None) or state_directory()
    state_dir.mkdir(parents=True, exist_ok=True)
    tags_path = state_dir / TAGS_FILE
    tags = TagMap.load(tags_path)
    deck = deck_for(args.game, decks_dir)
    names = card_namer(decks_dir)
    if getattr(args, "export", None):
        count = export_tags(tags, args.game, deck, args.export)
        print(f"{args.export}: {count} of {len(deck)} {args.game} tags exported")
        return 0
    if getattr(args, "import_file", None):
        count = import_tags(args.import_file, args.game, deck, tags, names)
        tags.save(tags_path)
        print(f"{args.import_file}: {count} {args.game} tags imported into {tags_path}")
        return 0
    from box.games import rules_for

    title = f"Enrol {rules_for(args.game).title}"
    every_card = getattr(args, "again", False)
    walk = Enrolment(args.game, deck, tags, path=tags_path, names=names, title=title, every_card=every_card)
    return run_enrolment(walk, args)


def run_enrolment(walk: Enrolment, args: argparse.Namespace) -> int:
    """Run the walk on the parts: a real box's buttons and readers, or simulated ones fed from stdin."""
    import time

    from box.config import DEFAULT_CONFIG, load_config
    from box.hardware import HardwareError, is_raspberry_pi, open_parts
    from box.pinmap import default_pinmap_path, load_pinmap
    from box.selftest import PartsDriver, VirtualTime

    simulated = bool(getattr(args, "fake", False)) or not is_raspberry_pi()
    config = load_config(getattr(args, "config", None) or DEFAULT_CONFIG)
    pinmap = load_pinmap(getattr(args, "pinmap", None) or config.pinmap or default_pinmap_path())
    virtual = VirtualTime()
    clock = virtual.clock if simulated else time.monotonic
    if simulated:
        from box.ports.nfc.simchip import register_url_handler

        register_url_handler()
    driver = PartsDriver(walk, clock)
    try:
        parts = open_parts(pinmap, driver.enqueue, clock, simulated=simulated)
    except HardwareError as problem:
        print(f"gravebox enroll: {problem}", file=sys.stderr)
        return 1
    driver.attach(parts)
    print(f"Enrolling {walk.game}: {walk.done}/{len(walk.ids)} cards have a tag. {help_line(simulated)}")
    shown = report_progress(walk, None)
    try:
        if simulated:
            rig = SimulatedRig(driver, virtual)
            rig.run(0.5)
            for number, line in enumerate(sys.stdin, start=1):
                if walk.closed:
                    break
                try:
                    rig.command(line)
                except ValueError as problem:
                    print(f"stdin:{number}: {problem}", file=sys.stderr)
                shown = report_progress(walk, shown)
        else:
            driver.start_threads()
            while not walk.closed:
                now = clock()
                driver.process(now)
                shown = report_progress(walk, shown)
                time.sleep(max(0.0, driver.next_wake(now) - clock()))
    except KeyboardInterrupt:
        pass
    finally:
        driver.stop_threads()
        parts.close()
    missing = walk.missing()
    print(f"{walk.enrolled} enrolled; {len(walk.ids) - len(missing)}/{len(walk.ids)} {walk.game} cards have a tag")
    return 0


def help_line(simulated: bool) -> str:
    if simulated:
        return "Lines: tap READER uid:HEX | press BUTTON | hold BUTTON SECONDS (BACK ends)"
    return "Tap each card shown; UP back, DOWN skip, OK next missing, BACK ends (Ctrl-C too)"


def report_progress(walk: Enrolment, shown: str | None) -> str | None:
    """Print what happened and the card to tap when it changed; answer the card now shown."""
    for message in walk.take_messages():
        print(f"  {message}", flush=True)
    card_id = walk.current
    if card_id != shown and not walk.closed:
        if card_id is None:
            print(f"Every card walked: {len(walk.missing())} without a tag", flush=True)
        else:
            print(f"{walk.cursor + 1}/{len(walk.ids)} tap: {walk.deck.name_of(card_id)}", flush=True)
    return card_id


class SimulatedRig:
    """Simulated parts on virtual time, moved by text commands (the simulator's own words).

    `tap READER uid:HEX` lays a raw tag on a simulated PN532 (the real driver
    reads it) and lifts it; `press BUTTON` and `hold BUTTON SECONDS` drive the
    mock GPIO pins through the press detector.
    """

    PRESS = 0.1
    TAP = 0.3

    def __init__(self, driver: PartsDriver, virtual: VirtualTime):
        self.driver = driver
        self.virtual = virtual

    def run(self, seconds: float) -> None:
        """Let virtual time pass, polling the readers and processing on the way."""
        until = self.virtual.now + seconds
        while True:
            now = self.virtual.now
            self.driver.poll_readers(now)
            self.driver.process(now)
            if now >= until:
                return
            wake = self.driver.next_wake(now)
            self.virtual.now = min(until, wake if wake > now else now + self.PRESS / 10)

    def command(self, line: str) -> None:
        """Carry out one line; a bad one raises ValueError saying what is allowed."""
        from box.ports.nfc.simchip import sim_chip

        words = line.split("#", 1)[0].split()
        if not words:
            return
        parts = self.driver.parts
        assert parts is not None
        verb, rest = words[0], words[1:]
        if verb == "tap" and len(rest) == 2 and rest[1].startswith("uid:"):
            reader, uid_text = rest
            if reader not in parts.readers:
                raise ValueError(f"unknown reader {reader!r}; readers are {', '.join(parts.readers)}")
            try:
                uid = bytes.fromhex(uid_text[4:])
                sim_chip(reader).place(uid)
            except ValueError as problem:
                raise ValueError(f"bad tag {uid_text!r}: {problem}") from None
            self.run(self.TAP)
            sim_chip(reader).lift()
            self.run(self.TAP)
        elif verb in ("press", "hold") and len(rest) == (1 if verb == "press" else 2):
            button = rest[0]
            if button not in parts.pinmap.buttons:
                raise ValueError(f"unknown button {button!r}; buttons are {', '.join(parts.pinmap.buttons)}")
            try:
                seconds = self.PRESS if verb == "press" else float(rest[1])
            except ValueError:
                raise ValueError(f"hold takes seconds, not {rest[1]!r}") from None
            pin = parts.mock_factory.pin(parts.pinmap.buttons[button])
            pin.drive_low()
            self.run(seconds)
            pin.drive_high()
            self.run(self.PRESS)
        else:
            raise ValueError(f"expected tap READER uid:HEX, press BUTTON or hold BUTTON SECONDS, not {line.strip()!r}")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="gravebox enroll", description="Teach the box which tag is which card.")
    parser.add_argument("--config", type=Path, help="settings file (default /etc/gravebox/config.toml)")
    parser.add_argument("--state-dir", type=Path, help="where the tag map lives")
    parser.add_argument("--decks", type=Path, help="folder of <game>.csv files replacing the built-in decks")
    add_arguments(parser)
    return parser


def names_from(decks: Mapping[str, Deck]) -> Callable[[str, str], str]:
    """A card namer over loaded decks (the simulator's, or a test's)."""

    def name(game: str, card_id: str) -> str:
        return decks[game].name_of(card_id)

    return name


if __name__ == "__main__":
    from box.errors import FileProblem

    logging.basicConfig(level=logging.WARNING)
    try:
        sys.exit(main(build_parser().parse_args()))
    except FileProblem as problem:
        print(f"gravebox: {problem}", file=sys.stderr)
        sys.exit(2)
