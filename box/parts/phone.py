"""What the phone page asks of the box, carried out by the one loop.

The control socket's threads (box/links/control.py) only put a `ControlCommand` in the
loop's inbox; the Box takes it through its one door, like any input, and hands it to
`Phone.carry_out`. A command is journaled (`phone` in the journal's box values: the
last few, without the pairing code) before its effect; a storage fault or a command
that no longer fits is refused with its reason, on the panel and to the page. A phone also merges
two players of the roster into one (`merge`: the box saves the roster and says so). Four
screens serve the phone: where the page is (the box menu's *Phone page*: its address and a QR
code), a pairing asked for on the box (the box menu's *Pair a phone*: only then does the page
give a code to a phone that is not paired), the pairing code, and "tap the tag for ..." when the
phone enrols one card or a player token.

>>> screen = PairingCode("482913", until=120.0)
>>> screen.view(0.0).lines[1]
'   482 913'
>>> screen.advance(120.0); screen.closed
True
"""

from __future__ import annotations

import logging
import socket
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from box.errors import FileProblem
from box.games.base import Rejected, Step, View
from box.messages import ControlCommand, Refused
from box.screens.game import GameHost
from box.screens.protocol import BaseScreen, Card
from box.storage.player_ids import SEATS, player_name
from box.storage.roster import PLAYER, ROSTER_FILE, Roster, save_roster
from box.storage.roster import load_roster as read_roster
from box.storage.tags import TAGS_FILE, TagMap, simulated_uid
from box.words import VOLUME_LEVELS, PressKind, Sound

if TYPE_CHECKING:
    from PIL import Image

    from box.base.settings import Settings
    from box.parts.lobby import Lobby
    from box.parts.sound import SoundSettings
    from box.storage.backup import Restored
    from box.storage.journal import Journal

log = logging.getLogger(__name__)

JOURNAL_KEY = "phone"
KEPT = 20  # commands kept in the journal
PAGE_LISTEN = "0.0.0.0:8080"  # where `gravebox web` listens unless the settings' [web] say otherwise
QR_SIDE = 64  # the QR code's square on the panel's left, in pixels
ADDRESS_CHARS = 10  # characters a row beside it (6 px each)


def page_address(listen: str | None = None, hosts: Sequence[str] = ()) -> str:
    """The phone page's address as a phone types it: the host it listens on, or (listening on every
    address) the first of the settings' `hosts`, else this machine's name on the local network.

    >>> page_address("0.0.0.0:8080", ("gravebox.home",))
    'http://gravebox.home:8080/'
    >>> page_address("192.168.1.20:80"), page_address("[fe80::1]:8080")
    ('http://192.168.1.20/', 'http://[fe80::1]:8080/')
    """
    host, _, port = (listen or PAGE_LISTEN).rpartition(":")
    host = host.removeprefix("[").removesuffix("]")
    if host in ("", "0.0.0.0", "::"):
        host = hosts[0] if hosts else f"{socket.gethostname().split('.')[0].lower()}.local"
    elif ":" in host:  # an IPv6 address
        host = f"[{host}]"
    return f"http://{host}{'' if port == '80' else ':' + port}/"


def address_rows(address: str, width: int) -> list[str]:
    """The address without its scheme, cut into rows of `width` characters after a dot, a colon or a
    slash where one is near the end of the row.

    >>> address_rows("http://gravebox.local:8080/", 10)
    ['gravebox.', 'local:8080']
    """
    rest, rows = address.removeprefix("http://").removesuffix("/"), []
    while len(rest) > width:
        cut = max(rest.rfind(mark, 0, width) for mark in ".:/") + 1
        cut = cut if cut > width // 2 else width
        rows.append(rest[:cut])
        rest = rest[cut:]
    return [*rows, rest] if rest else rows


class PhonePage(BaseScreen):
    """Where the phone page is: a QR code of its address on the left, the address beside it; BACK leaves.

    The QR code is a normal one (a phone's camera reads no micro QR) of the smallest version that
    holds the address, 2 pixels a module while it fits the panel's height (version 3 and below).
    The QR library is loaded here, when the screen first opens, never at the box's start.
    """

    name = "phone-page"

    def __init__(self, address: str):
        super().__init__()
        self.address = address
        self.drawn: Image.Image | None = None

    def view(self, now: float) -> View:
        rows = tuple(address_rows(self.address, 21)[:2])
        lines = ("Scan, or type in", "a browser:", *rows, "BACK: close")
        return View("Phone page", lines, scrolling=tuple(range(2, 2 + len(rows))))

    def image(self, now: float) -> Image.Image:
        if self.drawn is None:
            self.drawn = self.draw()
        return self.drawn

    def draw(self) -> Image.Image:
        """The QR code lit on the left (its dark modules unlit, in a lit quiet zone), the address beside it."""
        import segno
        from PIL import Image

        from box.screens.render import render_beside

        code = segno.make_qr(self.qr_text(), error="l", boost_error=True)  # the smallest version, then the best level
        modules = len(code.matrix)  # a side, without the quiet zone
        scale = 2 if modules + 2 <= QR_SIDE // 2 else 1
        border = min(4, (QR_SIDE // scale - modules) // 2)  # as wide a quiet zone as fits, 4 at most
        picture = Image.new("1", (modules + 2 * border, modules + 2 * border), 1)
        for y, row in enumerate(code.matrix):
            for x, dark in enumerate(row):
                if dark:
                    picture.putpixel((border + x, border + y), 0)
        picture = picture.resize((picture.width * scale, picture.height * scale), Image.Resampling.NEAREST)
        rows = self.beside()[:5]
        return render_beside(picture, [*rows, *[""] * (6 - len(rows)), self.footer()])

    def qr_text(self) -> str:
        """What the QR code holds: the page's address."""
        return self.address

    def beside(self) -> list[str]:
        """The rows beside the code (at most five)."""
        return ["Phone page", "", *address_rows(self.address, ADDRESS_CHARS)]

    def footer(self) -> str:
        return "BACK:close"

    def dump(self) -> dict[str, Any]:
        return {"phone_page": self.address}


class Expiring(BaseScreen):
    """A screen that closes by itself at `until` (or on BACK)."""

    def __init__(self, until: float):
        super().__init__()
        self.until = until

    def advance(self, now: float) -> None:
        if now >= self.until:
            self.closed = True

    def next_deadline(self, now: float) -> float | None:
        return self.until


class PairingCode(Expiring):
    """The six digits a phone types to pair, shown until they expire or BACK."""

    name = "pair"

    def __init__(self, code: str, until: float):
        super().__init__(until)
        self.code = code

    def view(self, now: float) -> View:
        spaced = f"{self.code[:3]} {self.code[3:]}"
        return View("Pair a phone", ("Type on the phone:", f"   {spaced}", "", "BACK: hide"))

    def dump(self) -> dict[str, Any]:
        return {"pairing": True}  # never the code: the state dump is open to the network


class PairingAsked(Expiring):
    """Someone at the box asked to pair a phone: the page may show a code now (until BACK or it expires)."""

    name = "pair"
    SECONDS = 120.0

    def view(self, now: float) -> View:
        return View("Pair a phone", ("On the phone page:", "Pair, then", "Show the code", "", "BACK: cancel"))

    def dump(self) -> dict[str, Any]:
        return {"pairing": "asked"}  # the page then gives a code to whoever asks for one


class EnrolOne(BaseScreen):
    """The next tag laid on any reader becomes one card (or a player's token); BACK cancels."""

    name = "enrol"
    raw_tags = True

    def __init__(self, phone: Phone, game: str, card: str, label: str):
        super().__init__()
        self.phone, self.game, self.card, self.label = phone, game, card, label
        self.notice = ""

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        host = self.phone.host
        try:
            self.phone.tags.enrol(uid, self.game, self.card)
        except ValueError as problem:  # the tag is another card's: say whose
            self.notice = str(problem)
            host.reject(f"Tag is {card[1] if card else 'taken'}", now)
            return
        self.phone.save_tags(now)
        host.say(f"Enrolled: {self.label}"[:40], now)
        self.play(Sound.RIGHT)
        self.closed = True

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button == "back":
            self.closed = True

    def view(self, now: float) -> View:
        return View("Enrol from phone", ("Tap the tag for", self.label[:21], "on any reader.", "", "BACK: cancel"))

    def dump(self) -> dict[str, Any]:
        return {"enrolment": {"game": self.game, "current": self.card, "done": 0, "total": 1, "notice": self.notice}}


class Phone:
    """The phone page's commands, carried out on the loop: one part of the Box (box/core/service.py)."""

    def __init__(
        self,
        host: GameHost,
        lobby: Lobby,
        tags: TagMap,
        settings: Settings,
        journal: Journal,
        sound: SoundSettings,
        undo: Callable[[float], None],
    ):
        """`sound`: the box's sound settings; `undo`: the box menu's undo (said and published as there)."""
        self.host, self.lobby, self.tags, self.settings, self.journal = host, lobby, tags, settings, journal
        self.sound, self.undo = sound, undo
        self.screens: list[PairingAsked | PairingCode | EnrolOne] = []  # the screens the phone opened
        self.restored: Restored | None = None  # a backup was restored: the loop makes the Box anew on it
        self.own_wifi: Callable[[], PhonePage | None] = lambda: None  # the box's own Wi-Fi's screen while it is up

    def carry_out(self, command: ControlCommand, now: float) -> None:
        """Do what the page asked, journaled first; Refused (or StorageError) says why it was not done."""
        self.journal_command(command)
        name, args = command.name, command.args
        if name == "show-code":
            self.close(PairingAsked)
            self.close(PairingCode)
            self.open(PairingCode(str(args["code"]), until=now + max(10, min(600, int(args["seconds"])))))
        elif name == "hide-code":
            self.close(PairingCode)
        elif name in ("enrol", "enrol-player"):
            game, card = (PLAYER, args["name"]) if name == "enrol-player" else (args["game"], args["card"])
            label = f"player {card}" if game == PLAYER else self.card_name(game, card)
            self.close(EnrolOne)
            self.open(EnrolOne(self, game, card, label))
        elif name == "enrol-stop":
            self.close(EnrolOne)
        elif name == "roster-changed":
            self.load_roster(now)
        elif name == "merge":
            self.merge(args["player"], args["into"], now)
        elif name == "tags-changed":
            self.reload_tags(now)
        elif name == "decks-changed":
            self.lobby.forget_decks()
        elif name == "restore":
            self.restore(args["file"])
        elif name == "phone-time":
            try:
                taken = self.settings.clock.set_from_phone(args["ms"])
            except ValueError as problem:
                raise Refused(str(problem)) from None
            if taken:
                self.lobby.redate()
        else:
            self.play(name, args, now)

    def play(self, name: str, args: dict[str, Any], now: float) -> None:
        """A paired phone's hands on the box (start, undo, abandon, sound, end the session), carried out as if pressed there.

        Two phones acting at once are served one after the other by the loop; a phone that acts on
        what it saw is refused when that changed meanwhile (an undo names the action it undoes)."""
        session = self.lobby.session
        if name == "start":
            if session is not None:
                raise Refused("A game is in play: abandon it first")
            try:
                names = [player_name(seat, self.settings.known_names) for seat in args["names"]]
                self.lobby.start_game(args["game"], now, names=names, options=dict(args["options"]))
            except ValueError as problem:  # GameStartError, a name the rule refuses, the rules' own refusal
                raise Refused(str(problem)) from None
        elif name == "undo":
            label = session.last_action() if session is not None else None
            if label != args["label"]:
                raise Refused(f"Not undone: the last action is now {label}" if label else "Nothing to undo")
            self.undo(now)
        elif name == "abandon":
            if session is None:
                raise Refused("No game in play")
            self.lobby.leave_game(now)
        elif name == "sound":
            if args["volume"] not in VOLUME_LEVELS:
                raise Refused(f"volume must be one of {', '.join(VOLUME_LEVELS)}")
            self.sound.set(args["volume"], args["muted"], now)
        elif name == "end-session":
            self.end_session(args["game"], now)

    def restore(self, name: str) -> None:
        """A backup a paired phone uploaded and confirmed (box/storage/backup_upload.py): the journal
        closed, the state restored, the journal opened again; the loop then makes the Box anew on it,
        which resumes the restored game. Refused (one line) changes nothing: the game plays on."""
        from box.storage.backup import JournalInUse  # loaded when a phone restores, never at the box's start
        from box.storage.backup_upload import restore_upload

        state_dir = self.settings.state_dir
        if state_dir is None or self.journal.path == ":memory:":  # a tool runs (selftest, enrol): no games here
            raise Refused("Not restored: the box is not running its games")
        self.journal.close()
        try:
            self.restored = restore_upload(state_dir, name)
        except JournalInUse:
            raise Refused("Not restored: the journal is in use, try again") from None
        except FileProblem as problem:
            raise Refused(f"Not restored: {problem.message}") from None
        finally:
            self.journal.reopen()
        log.info("restored the backup of %s from a phone", self.restored.manifest.made)

    def end_session(self, game: str, now: float) -> None:
        """A paired phone's *End the session*: the presses the game declares for it (`Phone.ends_with`),
        tried on its rules first, then journaled together and shown as if pressed on the box."""
        session = self.lobby.session
        if session is None:
            raise Refused("No game in play")
        rules = session.rules
        if session.record.name != game:
            raise Refused(f"Not ended: {rules.title} is in play now")
        if not rules.phone.ends_with:
            raise Refused(f"{rules.title} ends by its own rules: abandon it instead")
        if rules.is_over(session.state):
            raise Refused("The session has ended already")
        state = session.state
        for press in rules.phone.ends_with:  # nothing is journaled unless every press is taken
            tried = rules.apply(state, press)
            if isinstance(tried, Rejected):
                raise Refused(f"Not ended: on the box, {tried.reason[:1].lower()}{tried.reason[1:]}")
            state = tried.state
        with self.journal.batch():  # StorageError: none of them happened
            for press in rules.phone.ends_with:
                before = session.dump()
                step = session.apply(press)
                assert isinstance(step, Step)  # the rules are pure: taken when tried, taken now
                self.journal.on_commit(self.host.accepted(step, now, before))  # told as each is taken

    def journal_command(self, command: ControlCommand) -> None:
        """Keep the command (never a pairing code) in the journal before carrying it out."""
        entry = {"cmd": command.name, **{k: v for k, v in command.args.items() if k != "code"}}
        kept = self.journal.get(JOURNAL_KEY, [], kind=list)
        self.journal.put(JOURNAL_KEY, [*kept[-(KEPT - 1) :], entry])

    def card_name(self, game: str, card: str) -> str:
        """The card's name in its deck; Refused when the deck or the card is not on this box."""
        try:
            return self.lobby.deck(game).name_of(card)
        except (KeyError, ValueError, FileProblem) as problem:
            log.warning("phone asked to enrol %s %s: %s", game, card, problem)
            raise Refused(f"No such card: {card}") from None

    def show_page(self, now: float) -> None:
        """The box menu's *Phone page*: where the page is, as a QR code and as text."""
        self.host.push(self.own_wifi() or PhonePage(self.settings.page or page_address()))

    def ask_pairing(self, now: float) -> None:
        """The box menu's *Pair a phone*: the page may give a code to a phone that is not paired yet."""
        self.close(PairingAsked)
        self.open(PairingAsked(until=now + PairingAsked.SECONDS))

    def open(self, screen: PairingAsked | PairingCode | EnrolOne) -> None:
        self.screens = [kept for kept in self.screens if not kept.closed]
        self.screens.append(screen)
        self.host.push(screen)

    def close(self, kind: type) -> None:
        for screen in self.screens:
            if isinstance(screen, kind):
                screen.closed = True

    def save_tags(self, now: float) -> None:
        if self.settings.state_dir is None:
            return
        try:
            self.tags.save(self.settings.state_dir / TAGS_FILE)
        except (OSError, ValueError) as problem:  # ValueError: a map its own reader would refuse
            self.host.reject(f"Not saved: {getattr(problem, 'strerror', None) or problem}", now)

    def reload_tags(self, now: float) -> None:
        """Read the tag map again (a restored backup); the simulator's made-up tags stay under it."""
        if self.settings.state_dir is None:
            return
        try:
            saved = TagMap.load(self.settings.state_dir / TAGS_FILE)
        except FileProblem as problem:
            log.error("restored tag map unreadable: %s", problem)
            raise Refused("Tag map unreadable: kept the old") from None
        fresh = TagMap({uid: card for uid, card in self.tags.cards.items() if uid == simulated_uid(*card)})
        fresh.merge(saved)
        self.tags.cards.clear()  # the same map object: the screens that hold it see the new tags
        self.tags.cards.update(fresh.cards)
        self.host.say(f"Tag map restored: {len(saved.cards)} tags", now)

    def load_roster(self, now: float) -> None:
        """Read roster.json again (the page changed it); a bad one is refused and the old roster kept."""
        roster = read_roster_file(self.settings)
        if roster is None:
            raise Refused("Roster unreadable: kept the old")
        self.settings.roster = roster
        self.host.say(f"Roster: {len(roster.names)} names", now)

    def merge(self, player: str, into: str, now: float) -> None:
        """Two players of the roster become one (`Roster.merged`): saved, then said on the panel;
        Refused says why not (an id the roster does not have, a player into themselves, the storage)."""
        roster = read_roster_file(self.settings) if self.settings.state_dir is not None else self.settings.roster
        if roster is None:
            raise Refused("Roster unreadable: not merged")
        source, kept = roster.person(player), roster.person(into)
        try:
            seats = [ids for ids in self.journal.values_under(SEATS).values() if isinstance(ids, list)]
            merged = roster.merged(player, into, seats)
            if self.settings.state_dir is not None:
                save_roster(merged, self.settings.state_dir / ROSTER_FILE)
        except ValueError as problem:
            raise Refused(f"Not merged: {problem}") from None
        except OSError as problem:
            log.error("roster not saved after a merge: %s", problem)
            raise Refused(f"Not merged: roster not saved ({problem.strerror or problem})") from None
        self.settings.roster = merged
        assert source is not None and kept is not None  # `merged` refused any other
        self.host.say(f"{source.name} merged into {kept.name}"[:40], now)


def read_roster_file(settings: Settings) -> Roster | None:
    """The roster saved in the state directory (an empty one without a state directory); None: unreadable (logged)."""
    if settings.state_dir is None:
        return Roster()
    try:
        return read_roster(settings.state_dir / ROSTER_FILE)
    except FileProblem as problem:
        log.error("roster not used: %s", problem)
        return None
