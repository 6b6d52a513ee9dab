"""The box's brain: a stack of screens, and what cuts across them.

`Box` owns all state and is driven by one loop thread (box/loop.py, on real time on a
box and on virtual time in the simulator). It is told about inputs by plain method calls
with the time they happened, gives each to the screen on top of its stack (box/screen.py:
the menu, the game, pickers, the shot timer, the self-test, enrolment), and answers with
the screen (`screen`, or a ready-made `frame`) and the sounds to play (`take_sounds`).
It keeps for itself only the notices, the unknown-card flash, the dice, the power
combination and undo. It never touches hardware.

>>> from box.journal import Journal
>>> from box.tools import DiceCup
>>> box = Box(Journal(":memory:"), TagMap(), DiceCup(), Settings())
>>> box.screen(0.0).title
'GRAVEBOX'
>>> box.dice.queue(6, 6); box.button("roll", "short", now=1.0); box.dump(1.0)["dice"]["last"]
[6, 6]
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from textwrap import wrap
from typing import TYPE_CHECKING, Any

from box.cards import Deck
from box.care import DEFAULT_CONTRAST, ScreenCare
from box.errors import FileProblem
from box.fault import fault_view, panel_reason
from box.game_screen import GameScreen
from box.games import GAMES, TITLES, load_deck, rules_for
from box.games.base import Chug, Countdown, Setup, Step, View
from box.games.kit import read_options
from box.journal import Journal, JournalDamaged, StorageError
from box.menu import Choice, Confirm, Menu, MenuScreen, Picker, Tool
from box.ports.nfc.writes import CardWritten, WriteCard
from box.roster import PLAYER, ROSTER_FILE, STARTED, UPLOADED_DECKS, Roster, save_roster
from box.screen import Card, Screen
from box.seating import LetterPicker, placeholder, remembered
from box.session import GameSession
from box.tags import TAGS_FILE, TagMap, TagsSetAside
from box.tagtransfer import BUSY, LOAD, SAVE, TagsMoved, replaced_by
from box.tools import DiceCup, ShotTimer, TimerScreen
from box.words import READERS, VOLUME_LEVELS, PressKind, Sound

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

NOTICE_SECONDS = 3.0
STORAGE_RETRY = 5.0  # seconds between tries of a journal that refused a write
FAULT_SECONDS = 30.0  # how long a bad file's reason stays up (a press puts it away)
NOTHING_TO_UNDO = "Nothing to undo"
DICE_ANIMATION = (0.08, 0.16, 0.26, 0.38, 0.52)  # frame times after a throw
DICE_HOLD = 1.0  # a game's roll keeps its real faces on the screen this long after the tumble (or until an input)


@dataclass
class Settings:
    """What the owner configures: player names and deck files."""

    names: tuple[str, ...] = ()
    decks_dir: Path | None = None
    readers: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(READERS, ""))  # name -> port
    state_dir: Path | None = None  # where enrolment saves the tag map
    roster: Roster = field(default_factory=Roster)  # the phone page's names and defaults (roster.json)
    contrast: int = DEFAULT_CONTRAST  # the OLED's contrast when awake (0..255)

    def player_names(self, count: int) -> list[str]:
        """`count` names: the roster's (else the config file's) in order, then P3, P4... for the seats left.

        >>> Settings(names=("Ann", "Bob")).player_names(3)
        ['Ann', 'Bob', 'P3']
        """
        names = list(self.roster.names_or(self.names)[:count])
        return names + [f"P{n}" for n in range(len(names) + 1, count + 1) if f"P{n}" not in names]

    @property
    def known_names(self) -> tuple[str, ...]:
        """The names the setup offers for a seat: the roster's, else the config file's."""
        return self.roster.names_or(self.names)


class GameStartError(ValueError):
    """A game cannot start with the given players or options (the message says why)."""


@dataclass
class DiceShow:
    """Two dice tumbling, then the result; a game's roll closes itself after the animation."""

    dice: tuple[int, int]
    thrown: float
    closes: bool

    def holding(self, now: float) -> bool:
        """A game's roll past its tumble, its real faces still shown."""
        return self.closes and now >= self.thrown + DICE_ANIMATION[-1]

    def closes_at(self) -> float:
        """When a game's roll gives the screen back: its real faces stay a moment after the tumble."""
        return self.thrown + DICE_ANIMATION[-1] + DICE_HOLD

    def face(self, now: float) -> tuple[int, int]:
        frames = [t for t in DICE_ANIMATION if self.thrown + t > now]
        if not frames:
            return self.dice
        k = len(frames)
        return ((self.dice[0] + k) % 6 + 1, (self.dice[1] + 2 * k) % 6 + 1)


class Box:
    """The screens, the game in play and the tools; see the module's docstring.

    `root` is the screen at the bottom of the stack: the main menu (the default) or a
    tool a command runs on its own (`gravebox selftest`, `gravebox enroll`).
    """

    def __init__(
        self,
        journal: Journal,
        tags: TagMap,
        dice: DiceCup,
        settings: Settings,
        damaged: JournalDamaged | None = None,
        decks: dict[str, Deck] | None = None,
        root: Screen | None = None,
        tags_aside: TagsSetAside | None = None,
    ):
        self.journal, self.tags, self.dice, self.settings = journal, tags, dice, settings
        self.decks: dict[str, Deck] = dict(decks or {})
        self.screens: list[Screen] = []
        self.game: GameScreen | None = None
        self.notice, self.notice_until = "", 0.0
        self.offline: dict[str, str] = {}
        self.sounds: list[Sound] = []
        self.timer = ShotTimer(best_chug=journal.get("best_chug", kind=(int, float)))
        self.dice_show: DiceShow | None = None
        self.last_dice: list[int] | None = journal.get("dice", kind=list)
        self.retry_storage_at = 0.0  # while the journal refuses writes: when to try again
        self.flash: View | None = None  # a screen shown for a moment (an unknown card), over everything
        self.flash_until = 0.0
        self.power_off_requested = False
        self.joined: list[str] = []  # names whose player token was laid on a reader at the setup
        self.writer: Callable[[WriteCard], None] | None = None
        """Hands a card-record write to the reader side (set by the composition root); None: no readers."""
        self.transfer: Callable[[str, TagMap, Mapping[str, Deck]], None] | None = None
        """Starts a USB stick job off the loop (set by the composition root); its answer comes as `TagsMoved`."""
        self.usb_busy = ""  # while a USB stick job runs: what the screen says
        self.care = ScreenCare(contrast=settings.contrast)  # dims and blanks the OLED when idle
        self.waking: set[str] = set()  # buttons whose press only woke the screen
        sound = journal.get("sound") or {}
        self.volume: str = sound.get("volume") if sound.get("volume") in VOLUME_LEVELS else VOLUME_LEVELS[-1]
        self.muted: bool = sound.get("muted") is True
        self.push(root if root is not None else MenuScreen(Menu.main(tuple(GAMES), TITLES), self.choose))
        if damaged is not None:
            self.say("Journal damaged: copy kept. New game.", now=0.0, seconds=30.0)
        if tags_aside is not None:
            kept = "Journal, tag map damaged" if damaged is not None else "Tag map damaged"
            self.say(f"{kept}: copy kept, {tags_aside.readable} tags", now=0.0, seconds=30.0)
        if root is None:
            self.resume()

    # ----- the screen stack ------------------------------------------------------------

    @property
    def top(self) -> Screen:
        return self.screens[-1]

    @property
    def root(self) -> Screen:
        return self.screens[0]

    @property
    def finished(self) -> bool:
        """True once the root screen closed (a tool command is done; the menu never closes)."""
        return self.root.closed

    @property
    def overlay(self) -> Screen | None:
        """The screen over the game or the menu (a picker, a question, a tool), if any."""
        top = self.top
        return None if top is self.root or top is self.game else top

    @property
    def session(self) -> GameSession | None:
        return self.game.session if self.game is not None else None

    @property
    def menu(self) -> Menu:
        root = self.root
        assert isinstance(root, MenuScreen), "the box runs a tool, not the menu"
        return root.menu

    def push(self, screen: Screen) -> None:
        """Show `screen` over the others until it closes."""
        screen.host = self
        self.screens.append(screen)

    def settle(self) -> None:
        """Drop the screens that closed (never the root)."""
        self.screens[1:] = [screen for screen in self.screens[1:] if not screen.closed]
        if self.game is not None and self.game not in self.screens:
            self.game = None

    # ----- decks and games -------------------------------------------------------------

    def deck(self, game: str, decks_dir: str | None = None) -> Deck:
        """The game's deck (loaded once): from the decks directory where it has the file."""
        if game not in self.decks:
            self.decks[game] = load_deck(game, Path(decks_dir) if decks_dir else self.deck_folder(game))
        return self.decks[game]

    def deck_folder(self, game: str) -> Path | None:
        """Where a new game's deck comes from: one uploaded from the phone, else the configured folder."""
        uploaded = self.settings.state_dir / UPLOADED_DECKS if self.settings.state_dir is not None else None
        if uploaded is not None and (uploaded / f"{game}.csv").exists():
            return uploaded
        return self.settings.decks_dir

    def resume(self) -> None:
        """Show the unfinished game of the journal, if any, as it was."""
        record = self.journal.unfinished_game()
        if record is None:
            return
        try:
            rules = rules_for(record.name)
            session = GameSession(rules, self.deck(record.name, record.decks), record, self.journal)
            log.info("resumed %s (game %d, %d actions)", record.name, record.id, session.count)
        except Exception as problem:  # a deck that changed or broke since: say so, keep the box usable
            log.error("cannot resume %s: %s", record.name, problem)
            try:
                self.journal.finish_game(record.id)
            except StorageError as error:  # left unfinished: the next start tries it again
                log.error("%s", error)
            self.say(f"Cannot resume: {problem}", now=0.0, seconds=30.0)
            return
        self.show_game(session)

    def show_game(self, session: GameSession) -> None:
        del self.screens[1:]  # a game starts from the menu; anything over it goes
        self.game = GameScreen(session, self)
        self.push(self.game)

    def start_game(
        self,
        game: str,
        now: float,
        players: int | None = None,
        names: list[str] | None = None,
        options: dict[str, str] | None = None,
    ) -> None:
        """Start a game, finishing any other; raises GameStartError with a readable reason."""
        if game not in GAMES:
            raise GameStartError(f"unknown game {game!r}; games are {', '.join(GAMES)}")

        rules = rules_for(game)
        if names:
            if players is not None and players != len(names):
                raise GameStartError(f"players={players} but {len(names)} names given")
            players = len(names)
        count = players if players is not None else max(rules.min_players, 2)
        if not rules.min_players <= count <= rules.max_players:
            raise GameStartError(f"{game} takes {rules.min_players} to {rules.max_players} players, not {count}")
        names = list(names) if names else self.settings.player_names(count)
        if len(set(names)) != len(names):
            raise GameStartError("player names must differ")
        try:
            values = read_options(rules.options, options or {})
        except ValueError as problem:
            raise GameStartError(str(problem).replace("; options are", f" for {game}; options are")) from None
        deck = self.deck(game)
        folder = self.deck_folder(game)
        decks_dir = str(folder) if folder else None
        # Let the rules refuse bad setups before anything is journaled.
        rules.new(Setup(tuple(names), values), deck)
        with self.journal.batch():  # the game and the date it started (for the phone page's history): one write
            record_id = self.journal.start_game(game, names, values, decks_dir)  # finishes the old one too
            self.journal.put(f"{STARTED}{record_id}", time.strftime("%Y-%m-%d %H:%M"))
        record = self.journal.unfinished_game()
        assert record is not None and record.id == record_id
        self.show_game(GameSession(rules, deck, record, self.journal))
        self.say(f"{rules.title}: {len(names)} players", now)

    def leave_game(self, now: float) -> None:
        if self.session is not None:
            self.journal.finish_game(self.session.record.id)
        del self.screens[1:]
        self.game = None
        root = self.root
        if isinstance(root, MenuScreen):
            root.menu = Menu.main(tuple(GAMES), TITLES)
        self.say("Game closed", now)

    # ----- inputs ---------------------------------------------------------------------

    def button(self, button: str, kind: str, now: float) -> None:
        """A button event from the press detector: short, long, repeat (as short) or combo."""
        if set(button.split("+")) & self.waking or self.care.input(now):
            return  # the screen was dimmed or dark: this press only woke it
        kind = PressKind(kind)
        if kind == PressKind.REPEAT:
            kind = PressKind.SHORT
        if kind == PressKind.COMBO:
            self.push(Confirm("Power off the box?", self.request_power_off))
            return
        with self.guarded(now):
            self.handle_press(button, kind, now)

    def handle_press(self, button: str, kind: PressKind, now: float) -> None:
        self.end_dice_hold(now)
        if self.flash is not None:
            self.flash = None
            if now < self.flash_until:
                return
        if self.dice_show is not None and not self.dice_show.closes:
            self.dice_show = None
            if button != "roll":
                return
        top = self.top
        if not top.global_keys:
            top.press(button, kind, now)
        elif button == "back" and kind == PressKind.LONG:
            self.open_box_menu()
        elif button == "roll" and kind == PressKind.LONG:
            self.open_timer()
        elif button == "roll":
            self.roll(now)
        else:
            top.press(button, kind, now)

    @contextmanager
    def guarded(self, now: float) -> Iterator[None]:
        """Run an input's effects; a file or the storage that fails refuses that input, never stops the box."""
        try:
            yield
        except StorageError as error:
            self.storage_refused(error, now)
        except FileProblem as problem:
            self.file_refused(problem, now)
        finally:
            self.settle()

    def storage_refused(self, error: StorageError, now: float) -> None:
        """The journal refused a write: nothing changed; say why, and try again from time to time."""
        log.error("%s: new actions are refused until it works again", error)
        self.retry_storage_at = now + STORAGE_RETRY
        self.reject(error.reason, now)

    def file_refused(self, problem: FileProblem, now: float) -> None:
        """A deck or board met now (a game chosen, a card named) cannot be read: that game is refused."""
        log.error("%s", problem)
        self.reject("Bad file: game refused", now)
        self.flash = fault_view(panel_reason(problem), title="Bad file", notice="Fix it: see the log")
        self.flash_until = now + FAULT_SECONDS

    def edge(self, button: str, pressed: bool, now: float) -> None:
        """A raw button edge (before the press detector): it wakes a dimmed or dark screen
        (that press then does nothing else); screens that show buttons held see it too."""
        if pressed:
            self.waking.discard(button)
            if self.care.input(now):
                self.waking.add(button)
        self.top.edge(button, pressed, now)

    def card_placed(
        self, reader: str, uid: bytes, now: float, lying: bool = False, record: Card | None = None
    ) -> None:
        """A card laid on a reader (the driver reports each placement once); `lying`: it was
        already there when the reader (re)connected; `record`: the card its tag's record names.

        The record wins over the tag map (a card written on any box is known here); the map
        is the fallback for tags without one. A record naming a card this box's decks do not
        have is an unknown card, saying which.
        """
        self.end_dice_hold(now)
        with self.guarded(now):
            self.handle_card(reader, uid, now, lying, record)

    def handle_card(self, reader: str, uid: bytes, now: float, lying: bool, record: Card | None = None) -> None:
        top = self.top
        if self.care.input(now) and not top.raw_tags:  # the screen was dimmed or dark: not an action
            self.say("Awake: lift the card, tap again", now)
            return
        card = self.tags.lookup(uid) if record is None else record
        missing = self.not_in_decks(record) if record is not None else ""
        if not top.raw_tags:
            if lying:  # there before the reader (re)connected: tapped before a power cut or an unplug, not now
                self.reject(f"Card left on reader {reader}: lift it, tap again", now)
                return
            if missing:
                self.unknown_card(uid, now, missing)
                return
            if card is None:
                self.unknown_card(uid, now)
                return
            if card[0] == PLAYER:
                self.player_joins(card[1], now)
                return
        top.tag(reader, uid, card, now)

    def player_joins(self, name: str, now: float) -> None:
        """A player's token laid on a reader at a game's setup: that name takes the next seat."""
        root = self.root
        if self.top is not root or not isinstance(root, MenuScreen) or root.menu.page == "main":
            self.reject("Player tokens join at a game's setup", now)
            return
        if name in self.joined:
            self.reject(f"{name} is in already", now)
            return
        high = root.menu.player_range[1]
        if len(self.joined) >= high:
            self.reject(f"At most {high} players", now)
            return
        self.joined.append(name)
        menu = replace(root.menu, players=min(high, max(root.menu.players, len(self.joined))))
        root.menu = replace(menu, names=tuple(self.seat(high)))  # the tokens' players first, in the order they came
        self.say(f"{name} joins: {len(self.joined)} seated", now)
        self.sounds.append(Sound.RIGHT)

    def seat(self, count: int) -> list[str]:
        """The setup's first seating: those whose token joined, then the roster's names, then P3, P4..."""
        names = list(self.joined[:count])
        for name in self.settings.player_names(count + len(names)):
            if len(names) == count:
                break
            if name not in names:
                names.append(name if not placeholder(name) else f"P{len(names) + 1}")
        return names

    def not_in_decks(self, card: Card) -> str:
        """Why a card a tag's record names is not one of this box's (empty when it is)."""
        game, card_id = card
        if game == PLAYER:
            return ""  # a player's token: any name joins
        if game not in GAMES:
            return f"its game {game!r} is not on this box"
        try:
            deck = self.deck(game)
        except Exception as problem:  # a deck file that will not load: say so, keep the box usable
            log.error("deck %s: %s", game, problem)
            return f"the {game} deck will not load"
        return "" if card_id in deck else f"{game} {card_id} is not in this box's deck"

    def card_written(self, result: CardWritten, now: float) -> None:
        """The reader side's answer to a write request: for the screen that asked (enrolment)."""
        answer = getattr(self.top, "card_written", None)
        if answer is None:
            log.info("a card write answered after its screen closed: %s", result)
            return
        answer(result, now)
        self.settle()

    def request_write(self, request: WriteCard) -> bool:
        """Hand a card-record write to the reader side; False when the box has no reader to do it."""
        if self.writer is None or request.reader not in self.settings.readers:
            return False
        self.writer(request)
        return True

    def unknown_card(self, uid: bytes, now: float, why: str = "") -> None:
        """A tag the box cannot name: `why` when its record names a card that is not here."""
        self.reject(f"Unknown card {uid.hex()}" + (f": {why}" if why else ""), now)
        lines = (uid.hex(), "Its record:", *wrap(why, 21)) if why else (
            uid.hex(), "This tag is in no", "deck of this box.", "Enrol it: gravebox", "enroll GAME"
        )
        self.flash = View("Unknown card", tuple(lines[:5]))
        self.flash_until = self.notice_until

    def refuse_card(self, card: Card | None, now: float) -> None:
        """A known card the screen on top cannot take: say why."""
        game = card[0] if card is not None else ""
        title = TITLES.get(game, game)
        if self.game is None:
            self.reject(f"No game running ({title} card)", now)
        elif game != self.game.game:
            self.reject(f"That card is from {title}", now)
        else:
            self.reject("Finish this screen first", now)

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None:
        self.care.input(now)  # news on the screen: shown awake (not an input to swallow, nothing is)
        self.top.reader_status(reader, online, message, now)
        if online:
            if self.offline.pop(reader, None) is not None:
                self.say(f"Reader {reader} back", now)
        else:
            self.offline[reader] = message
            self.say(message, now, seconds=NOTICE_SECONDS * 2)
            self.sounds.append(Sound.ERROR)

    # ----- what screens ask of the box ---------------------------------------------------

    def accepted(self, step: Step, now: float) -> None:
        """A game step was journaled: show and play what it asks for."""
        self.notice, self.flash = "", None
        self.sounds.extend(step.sounds)
        if isinstance(step.timer, Chug):
            self.open_timer().start_chug(now)
        elif isinstance(step.timer, Countdown):
            self.open_timer().start_countdown(step.timer.seconds, now)

    def end_dice_hold(self, now: float) -> None:
        """An input gives the screen back to the game at once after a roll's tumble."""
        if self.dice_show is not None and self.dice_show.holding(now):
            self.dice_show = None

    def dice_open(self) -> bool:
        """The free dice are on the screen (a press puts them away)."""
        return self.dice_show is not None and not self.dice_show.closes

    def roll(self, now: float) -> None:
        """ROLL: the game's dice when it wants them, else the free dice tool."""
        dice = self.dice.throw()
        game_roll = self.top.wants_roll()
        with self.journal.batch():  # the roll and the last dice: one durable write (StorageError: neither)
            if game_roll:
                self.top.roll(dice, now)  # what the step shows and plays waits for the commit
            self.journal.put("dice", list(dice))
        self.last_dice = list(dice)
        self.sounds.append(Sound.DICE)
        self.dice_show = DiceShow(dice, now, closes=game_roll)

    def reject(self, reason: str, now: float) -> None:
        self.say(reason, now)
        self.sounds.append(Sound.ERROR)

    def say(self, text: str, now: float, seconds: float = NOTICE_SECONDS) -> None:
        """Show `text` on the bottom line for a while; it replaces any flashed screen."""
        self.notice, self.notice_until = text, now + seconds
        self.flash = None

    def request_power_off(self, now: float) -> None:
        self.power_off_requested = True
        self.say("Powering off...", now, seconds=60)

    def undo(self, now: float) -> None:
        if self.session is not None and self.session.undo():
            self.say("Undone", now)
            self.sounds.append(Sound.CLICK)
        else:
            self.reject(NOTHING_TO_UNDO, now)

    # ----- the box's own screens ---------------------------------------------------------

    def choose(self, choice: Choice, now: float) -> None:
        """What the main menu asked for: a game's setup, a game's start, or a tool."""
        if choice.kind == "game":
            rules = rules_for(choice.game)
            root = self.root
            assert isinstance(root, MenuScreen)
            self.joined = []
            seats = self.seat(rules.max_players)
            menu = root.menu.configure(choice.game, rules.options, (rules.min_players, rules.max_players), seats)
            defaults = self.settings.roster.defaults_for(choice.game)  # the roster's default options
            root.menu = replace(menu, values=tuple(defaults.get(o.key, v) for o, v in zip(menu.options, menu.values)))
        elif choice.kind == "names":
            self.open_seats(now)
        elif choice.kind == "start":
            self.joined = []
            names = list(choice.names) or None
            try:
                self.start_game(choice.game, now, players=choice.players, names=names, options=dict(choice.options))
            except (GameStartError, ValueError) as problem:
                self.reject(str(problem), now)
            else:
                self.remember_names(choice.names, now)
        elif choice.tool is not None:
            self.open_tool(choice.tool, now)

    # ----- who sits where (box/seating.py) --------------------------------------------------

    def open_seats(self, now: float, cursor: int = 0) -> None:
        """The setup's seats: OK on one chooses its name; "Done" goes back to the setup."""
        seated = self.menu.seated
        entries = (*(f"{seat + 1} {name}" for seat, name in enumerate(seated)), "Done")
        actions = (*(partial(self.open_names, seat) for seat in range(len(seated))), None)
        picker = Picker("seats", "Who sits where?", entries, actions)
        picker.cursor = min(cursor, len(seated))
        self.push(picker)

    def open_names(self, seat: int, now: float) -> None:
        """A seat's name: one of the roster's (a seated one swaps seats), the seat's number, or a new one."""
        current = self.menu.seated[seat]
        names = list(dict.fromkeys((*self.settings.known_names, f"P{seat + 1}")))  # each once, in order
        actions = tuple(partial(self.take_seat, seat, name) for name in names)
        picker = Picker("names", f"Seat {seat + 1}: who?", (*names, "New name"), (*actions, partial(self.spell, seat)))
        picker.cursor = names.index(current) if current in names else 0
        self.push(picker)

    def spell(self, seat: int, now: float) -> None:
        self.push(LetterPicker(partial(self.new_name, seat)))

    def new_name(self, seat: int, name: str, now: float) -> None:
        """A name spelt on the box: the roster's own spelling when it has it already, else a new one."""
        known = {existing.casefold(): existing for existing in self.settings.known_names}
        self.take_seat(seat, known.get(name.casefold(), name), now)

    def take_seat(self, seat: int, name: str, now: float) -> None:
        root = self.root
        assert isinstance(root, MenuScreen)
        root.menu = root.menu.seat(seat, name)
        self.open_seats(now, cursor=seat + 1)

    def remember_names(self, seated: Sequence[str], now: float) -> None:
        """The roster learns the table's new names and keeps the last table first (the next game's seats)."""
        settings = self.settings
        names = remembered(settings.known_names, seated)
        if names == settings.known_names:  # nothing new (a config file's names stay the config file's)
            return
        settings.roster = replace(settings.roster, names=names)
        if settings.state_dir is None:
            return
        try:
            save_roster(settings.roster, settings.state_dir / ROSTER_FILE)
        except (OSError, ValueError) as problem:  # the game goes on; the names are kept until the box restarts
            log.error("roster not saved: %s", problem)  # ValueError: a name its loader would refuse
            self.say(f"Names not saved: {getattr(problem, 'strerror', None) or problem}", now)

    def open_tool(self, tool: Tool, now: float) -> None:
        if tool is Tool.SHOT_TIMER:
            self.open_timer()
        elif tool is Tool.POWER_OFF:
            self.push(Confirm("Power off the box?", self.request_power_off))
        elif tool is Tool.SELF_TEST:
            from box.selftest import SelfTest

            self.push(SelfTest(self.settings.readers, now, offline=self.offline, assume_online=True))
        elif tool is Tool.ENROL:
            actions = tuple(partial(self.open_enrolment, game) for game in GAMES)
            names = tuple(TITLES.values())
            self.push(Picker("picker", "Enrol which game?", (*names, "Back"), (*actions, None)))
        elif tool is Tool.USB:
            self.open_usb(now)

    def open_timer(self) -> TimerScreen:
        screen = TimerScreen(self.timer, on_chug=self.chugged)
        self.push(screen)
        return screen

    def chugged(self, seconds: float, now: float) -> None:
        self.journal.put("best_chug", self.timer.best_chug)
        self.say(f"Chug: {seconds:.2f} s", now)
        self.sounds.append(Sound.END)

    def open_enrolment(self, game: str, now: float) -> None:
        """Walk `game`'s deck; each tag laid on a reader becomes the card shown (saved at once)."""
        from box.enrolment import Enrolment

        path = self.settings.state_dir / TAGS_FILE if self.settings.state_dir is not None else None
        deck = self.deck(game)
        walked = all(self.tags.uid_of(game, card_id) is not None for card_id in deck.cards)
        self.push(
            Enrolment(
                game,
                deck,
                self.tags,
                path=path,
                names=lambda other, card_id: self.deck(other).name_of(card_id),
                title=f"Enrol {rules_for(game).title}",
                every_card=walked,  # every card has a tag already: walk the deck again from the top
            )
        )

    # ----- the tag map on a USB stick (box/tagtransfer.py) ------------------------------------

    def open_usb(self, now: float) -> None:
        """Save the whole tag map to a stick, or load one from it (a second box's cards)."""
        if self.usb_busy:
            self.say(f"Busy: {self.usb_busy}", now)
            return
        actions = (partial(self.start_transfer, SAVE), partial(self.start_transfer, LOAD), None)
        self.push(Picker("usb", "USB stick", ("Save tags to USB", "Load tags from USB", "Back"), actions))

    def start_transfer(self, job: str, now: float) -> None:
        """Hand a save or a load to the worker; the screen says so until its answer comes."""
        if self.usb_busy:
            self.say(f"Busy: {self.usb_busy}", now)
            return
        if self.transfer is None:
            self.reject("No USB service on this box", now)
            return
        decks = {}
        for game in GAMES:  # the import is checked against them, the export names the cards
            try:
                decks[game] = self.deck(game)
            except Exception as problem:  # a deck that will not load: its tags are not checked/named
                log.error("deck %s not loaded for the USB stick: %s", game, problem)
        try:
            self.transfer(job, self.tags, decks)
        except RuntimeError as problem:  # no thread to be had
            log.error("USB %s not started: %s", job, problem)
            self.reject(f"USB failed: {problem}", now)
            return
        self.usb_busy = BUSY[job]
        self.say(self.usb_busy, now)

    def tags_moved(self, result: TagsMoved, now: float) -> None:
        """A USB job's answer: said; a load's tags replace the map's after a question, if any would change."""
        self.usb_busy = ""
        self.care.input(now)  # news on the screen: shown awake
        if result.imported is None:
            if not result.ok:
                self.reject(result.answer, now)
            else:
                self.say(result.answer, now)
                self.sounds.append(Sound.RIGHT)
            return
        unchanged = result.merged is not None and result.base == self.tags.cards  # as the worker merged them
        replaced = result.replaced if unchanged else replaced_by(self.tags.cards, self.merged(result).cards)
        apply = partial(self.take_tags, result)
        if replaced:
            self.push(Confirm(f"Replace {replaced} tag{'s' if replaced != 1 else ''}?", apply))
            self.say(result.answer, now)
        else:
            apply(now)

    def merged(self, result: TagsMoved) -> TagMap:
        """The map a load's answer brings: merged off the loop, unless the tags changed meanwhile."""
        if result.merged is not None and result.base == self.tags.cards:
            return result.merged
        merged = TagMap(self.tags.cards)
        merged.merge(result.imported or TagMap())
        return merged

    def take_tags(self, result: TagsMoved, now: float) -> None:
        """Swap in the stick's tags merged over the map, saved first as enrolment does (tags.csv)."""
        merged, answer = self.merged(result), result.answer
        if self.settings.state_dir is not None:
            try:
                merged.save(self.settings.state_dir / TAGS_FILE)
            except OSError as problem:
                log.error("imported tag map not saved: %s", problem)
                self.reject(f"Not saved: {problem.strerror or problem}", now)
                return
        self.tags.cards.clear()  # the same map object: the screens that hold it see the new tags
        self.tags.cards.update(merged.cards)
        self.say(answer, now)
        self.sounds.append(Sound.RIGHT)

    def open_box_menu(self) -> None:
        label = self.session.last_action() if self.session is not None else None
        entries: tuple[str, ...] = (f"Undo: {label}" if label else NOTHING_TO_UNDO,)
        actions: tuple[Callable[[float], None] | None, ...] = (self.undo,)
        if self.session is not None:
            entries += ("Abandon game",)
            actions += (lambda now: self.push(Confirm("Abandon this game?", self.leave_game)),)
        entries += (f"Sound: {'muted' if self.muted else self.volume}",)
        actions += (self.open_sound,)
        self.push(Picker("box-menu", "Box", (*entries, "Back"), (*actions, None)))

    def open_sound(self, now: float) -> None:
        """The sound picker: a volume level, or mute (which keeps the level for later)."""
        levels = tuple(level.capitalize() for level in VOLUME_LEVELS)
        actions = tuple(partial(self.set_sound, level, False) for level in VOLUME_LEVELS)
        toggle = "Unmute" if self.muted else "Mute"
        picker = Picker(
            "sound", "Sound", (*levels, toggle, "Back"), (*actions, partial(self.set_sound, self.volume, not self.muted), None)
        )
        picker.cursor = len(levels) if self.muted else VOLUME_LEVELS.index(self.volume)
        self.push(picker)

    def set_sound(self, volume: str, muted: bool, now: float) -> None:
        """Set the volume level and mute (kept in the journal across restarts); a click at the new level."""
        self.volume, self.muted = volume, muted
        self.journal.put("sound", {"volume": volume, "muted": muted})
        self.say(f"Sound: {'muted' if muted else volume}", now)
        if not muted:
            self.sounds.append(Sound.CLICK)

    # ----- time -----------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Let time pass: the shot timer's ticks, a game roll's animation, notices, the screens."""
        self.care.advance(now)
        self.sounds.extend(self.timer.advance(now))
        for screen in self.screens:
            screen.advance(now)
            self.sounds.extend(screen.take_sounds())
        self.settle()
        if self.dice_show is not None and self.dice_show.closes and now >= self.dice_show.closes_at():
            self.dice_show = None
        if self.notice and now >= self.notice_until:
            self.notice = ""
        if self.flash is not None and now >= self.flash_until:
            self.flash = None
        if self.journal.fault is not None and now >= self.retry_storage_at:
            if self.journal.healthy():
                self.say("Storage works again", now)
            else:
                self.retry_storage_at = now + STORAGE_RETRY

    def next_deadline(self, now: float) -> float | None:
        """When the screen or the sounds next change by themselves (None: not until an input)."""
        deadlines = [
            self.timer.next_deadline(),
            self.care.next_deadline(),
            *(screen.next_deadline(now) for screen in self.screens),
        ]
        if self.dice_show is not None:
            deadlines += [self.dice_show.thrown + t for t in DICE_ANIMATION if self.dice_show.thrown + t > now]
            if self.dice_show.closes:
                deadlines.append(self.dice_show.closes_at())
        if self.notice:
            deadlines.append(self.notice_until)
        if self.journal.fault is not None:
            deadlines.append(max(self.retry_storage_at, now))
        return min((d for d in deadlines if d is not None), default=None)

    def take_sounds(self) -> list[Sound]:
        sounds, self.sounds = self.sounds, []
        for screen in self.screens:  # sounds a screen queued on an input
            sounds.extend(screen.take_sounds())
        return sounds

    # ----- output ---------------------------------------------------------------------

    def frame(self, now: float) -> Image.Image | None:
        """A ready-made image to show instead of rendering the screen (test patterns, progress bar)."""
        return self.top.image(now) if self.dice_show is None else None

    def screen(self, now: float) -> View:
        """What the OLED shows now."""
        view = self.base_view(now)
        notice = self.notice if self.notice and now < self.notice_until else ""
        if not notice and self.usb_busy:
            notice = self.usb_busy
        if not notice and self.journal.fault is not None:  # until writes work again
            notice = self.journal.fault.reason
        if not notice and self.offline:
            notice = "! reader " + ", ".join(sorted(self.offline)) + " off"

        return replace(view, notice=notice or view.notice)

    def base_view(self, now: float) -> View:
        if self.flash is not None and now < self.flash_until:
            return self.flash
        if self.dice_show is not None:
            return View("Dice", dice=self.dice_show.face(now))
        return self.top.view(now)

    def screen_name(self) -> str:
        return "dice" if self.dice_show is not None else self.top.name

    def dump(self, now: float) -> dict[str, Any]:
        """The state dump (docs/state.md): the box's keys, the game's and the screens' own."""
        data: dict[str, Any] = {"game": None, "players": [], "current_player": None, "over": False, "winners": []}
        for screen in self.screens:
            data.update(screen.dump())
        data["dice"] = {"last": self.last_dice}
        data["timer"] = self.timer.dump(now)
        data["screen"] = self.screen_name()
        data["notice"] = self.notice if now < self.notice_until else ""
        data["readers_offline"] = sorted(self.offline)
        data["display"] = self.care.state()
        data["sound"] = {"volume": self.volume, "muted": self.muted}
        return data
