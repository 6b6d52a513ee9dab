"""The box's brain: a stack of screens, the one door every input comes through, and its events.

`Box` owns all state and is driven by one loop thread (box/core/loop.py, on real time on a
box and on virtual time in the simulator). Every input (a press, a tap, a card write's
answer, a reader gone or back, a stick's answer, a phone command) comes through one
door, `take`, which hands it on and answers what became of it: "" when it was taken, else
the reason it was refused, as the panel says it. A storage fault, a bad file or a refusal
is that reason, never an exception out of the loop.

The Box keeps the stack of screens and what truly cuts across them: the global keys, the
notices, undo, and the events (box/events.py) it publishes. Its parts, each a module of its
own written against the `Host` every screen uses: the games and their decks
(box/parts/lobby.py), the seats (box/parts/seating.py), card identification (box/parts/identify.py), the dice
(box/parts/dice.py), the shot timer (box/screens/tools.py), the sound settings (box/parts/sound.py), the USB
stick's jobs (box/parts/stick.py), the phone's commands (box/parts/phone.py). It never touches hardware.

>>> from box.storage.journal import Journal
>>> from box.screens.tools import DiceCup
>>> box = Box(Journal(":memory:"), TagMap(), DiceCup(), Settings())
>>> box.screen(0.0).title
'GRAVEBOX'
>>> box.dice.queue(6, 6); box.button("roll", "short", now=1.0); box.dump(1.0)["dice"]["last"]
[6, 6]
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

from box.base.care import ScreenCare
from box.base.session import GameSession
from box.base.settings import Settings
from box.decks.codec import Deck
from box.errors import FileProblem
from box.events import (
    Event,
    EventBus,
    GameOver,
    StorageBack,
    StorageFailed,
    Undone,
)
from box.games.base import Chug, Countdown, Step, View
from box.messages import (
    CardPlaced,
    CardWritten,
    ControlCommand,
    JournalFound,
    Pressed,
    ReaderStatus,
    Refused,
    WriteCard,
)
from box.parts.dice import DiceTray
from box.parts.game_events import game_events, standing
from box.parts.identify import CardIdentifier
from box.parts.lobby import GameStartError, Lobby, journal_sat, main_menu
from box.parts.notices import NOTICE_SECONDS, Notices, fault_view, panel_reason
from box.parts.ownwifi import OwnWifi
from box.parts.phone import Phone
from box.parts.readers import ReaderWatch
from box.parts.seating import Seating
from box.parts.sound import SoundSettings
from box.parts.stick import StickJobs, TagsMoved, TagsProgress, Transfer
from box.screens.game import NO_GAME, GameScreen
from box.screens.menu import Confirm, MenuScreen, Picker, Tool
from box.screens.protocol import Card, Screen
from box.screens.tools import DiceCup, ShotTimerTool
from box.storage.journal import Journal, JournalCorrupted, JournalDamaged, StorageError
from box.storage.player_ids import Sat
from box.storage.roster import RosterSetAside
from box.storage.tags import TagMap, TagsSetAside
from box.words import PressKind, Sound

if TYPE_CHECKING:
    from PIL import Image

log = logging.getLogger(__name__)

__all__ = ["Box", "GameStartError"]

STORAGE_RETRY = 5.0  # seconds between tries of a journal that refused a write
FAULT_SECONDS = 30.0  # how long a bad file's reason stays up (a press puts it away)
NOTHING_TO_UNDO = "Nothing to undo"
JOURNAL_DAMAGED = "Journal damaged: copy kept. New game."


class Box:
    """The screens, the game in play and the tools; see the module's docstring.

    `root` is the screen at the bottom of the stack: the main menu (the default) or a
    tool a command runs on its own (`gravebox selftest`, `gravebox enroll`). `writer` hands
    a card record's write to the readers; `transfer` starts a USB stick job off the loop;
    `bus` takes the events the box publishes.
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
        roster_aside: RosterSetAside | None = None,
        writer: Callable[[WriteCard], None] | None = None,
        transfer: Transfer | None = None,
        bus: EventBus | None = None,
    ):
        self.journal, self.tags, self.dice, self.settings, self.writer = journal, tags, dice, settings, writer
        self.bus = bus if bus is not None else EventBus()
        self.screens: list[Screen] = []
        self.game: GameScreen | None = None
        self.sounds: list[Sound] = []
        self.retry_storage_at = 0.0  # while the journal refuses writes: when to try again
        self.waking: set[str] = set()  # buttons whose press only woke the screen
        self.notices = Notices()
        self.care = ScreenCare(contrast=settings.contrast)  # dims and blanks the OLED when idle
        self.dice_tray = DiceTray(dice, journal, self)
        self.sound = SoundSettings(journal, self)
        self.timer = ShotTimerTool(journal, self)
        menu = MenuScreen(main_menu(journal), lambda choice, now: self.lobby.choose(choice, now))
        self.push(root if root is not None else menu)
        self.root = self.screens[0]  # the bottom of the stack: the main menu, or a command's tool
        self.seating = Seating(settings, menu, self, self.sat)
        self.stick = StickJobs(tags, settings, lambda: self.lobby.loaded_decks(), transfer, self, self.care.input)
        self.readers = ReaderWatch(settings.readers, self, self.care.input)
        tools: dict[Tool, Callable[[float], object]] = {
            Tool.SELF_TEST: self.readers.open_self_test,
            Tool.USB: self.stick.open,
        }
        self.lobby = Lobby(journal, settings, tags, self, menu, self.seating, self.timer, tools, decks)
        self.cards = CardIdentifier(tags, self.lobby.deck, self.seating.player_joins, self, self.notices.flash)
        self.phone = Phone(self, self.lobby, tags, settings, journal, self.sound, self.undo)
        self.own_wifi = OwnWifi(journal, self, settings.own_wifi)
        self.phone.own_wifi = self.own_wifi.screen
        self.doors: dict[type, Callable[[Any, float], None]] = {  # the one door: each input's way in
            Pressed: self.press,
            CardPlaced: self.tap,
            CardWritten: lambda answer, now: self.top.card_written(answer, now),
            ReaderStatus: self.readers.status,
            TagsMoved: self.stick.moved,
            TagsProgress: self.stick.progress,
            ControlCommand: self.command,
            JournalFound: self.found_damage,
        }
        self.set_aside = [str(aside) for aside in (damaged, tags_aside, roster_aside) if aside is not None]
        """What this start set aside as damaged (a copy kept), one line each: for the phone's Box page."""
        if roster_aside is not None:  # said first: a damaged journal or tag map below says more
            log.error("%s", roster_aside)
            self.say("Names damaged: copy kept, no names", now=0.0, seconds=30.0)
        if damaged is not None:
            self.say(JOURNAL_DAMAGED, now=0.0, seconds=30.0)
        if tags_aside is not None:
            kept = "Journal, tag map damaged" if damaged is not None else "Tag map damaged"
            self.say(f"{kept}: copy kept, {tags_aside.readable} tags", now=0.0, seconds=30.0)
        if root is None and (problem := self.lobby.resume()):
            self.say(problem, now=0.0, seconds=30.0)

    # ----- the screen stack ------------------------------------------------------------

    @property
    def top(self) -> Screen:
        return self.screens[-1]

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

    def push(self, screen: Screen) -> None:
        """Show `screen` over the others until it closes."""
        screen.host = self  # type: ignore[attr-defined]  # every screen the Box shows is a BaseScreen
        self.screens.append(screen)

    def settle(self) -> None:
        """Drop the screens that closed (never the root)."""
        self.screens[1:] = [screen for screen in self.screens[1:] if not screen.closed]
        if self.game is not None and self.game not in self.screens:
            self.game = None

    def show_game(self, session: GameSession | None) -> None:
        """The game's screen over the menu (anything else over it goes), or none."""
        del self.screens[1:]
        self.game = GameScreen(session, self, self.dice_tray.free_open, self.lobby.leave_game) if session else None
        if self.game is not None:
            self.push(self.game)

    # ----- the one door ------------------------------------------------------------------

    def take(self, message: Any, now: float) -> str:
        """Every input's way in: "" when taken, else why it was refused, said on the panel too.

        A refusal, a bad file or failed storage refuses that one input and never stops the box: the
        journal refused the write and nothing changed (inputs are refused until it works again, tried
        every 5 s); a deck or board met now (a game chosen, a card named) has its reason flashed.
        """
        door = self.doors.get(type(message))
        if door is None:  # a CardLifted: placements are what count
            return ""
        flash = None
        try:
            door(message, now)
            return ""
        except Refused as refusal:
            reason = str(refusal)
        except JournalCorrupted as error:  # damage, not a fault that passes: never retried
            log.error("%s: the journal is set aside", error)
            reason = JOURNAL_DAMAGED if self.journal_damaged(str(error), now, say=False) else error.reason
        except StorageError as error:
            log.error("%s: new actions are refused until it works again", error)
            self.retry_storage_at = now + STORAGE_RETRY
            reason = error.reason
            self.publish(StorageFailed(reason))
        except FileProblem as problem:
            log.error("%s", problem)
            reason = "Bad file: game refused"
            flash = fault_view(panel_reason(problem), "Bad file", "Fix it: see the log")
        finally:
            self.settle()
        self.reject(reason, now)
        if flash is not None:  # after the reason, which would put a flashed screen away
            self.notices.flash(flash, now + FAULT_SECONDS)
        return reason

    def command(self, command: ControlCommand, now: float) -> None:
        """A command of the control socket: `gravebox hotspot`'s word on the box's own Wi-Fi, else the page's."""
        if command.name in ("hotspot-up", "hotspot-down"):
            self.own_wifi.heard(command.name, command.args)
        else:
            self.phone.carry_out(command, now)

    def found_damage(self, found: JournalFound, now: float) -> None:
        """The whole-file check after READY found the journal damaged (box/core/fullcheck.py)."""
        self.journal_damaged(found.reason, now)

    def journal_damaged(self, found: str, now: float, say: bool = True) -> bool:
        """Damage met in the journal in use (a read, a write, the full check after READY): the file
        set aside with its copy kept, the box on a new journal, the game in play gone with the old
        one, as at a start that finds damage. False when the storage refused the move (said)."""
        try:
            damaged = self.journal.start_over(found)
        except StorageError as error:
            log.error("the damaged journal could not be set aside: %s", error)
            self.retry_storage_at = now + STORAGE_RETRY
            return False
        self.lobby.show(None)
        self.set_aside.append(str(damaged))
        if say:
            self.say(JOURNAL_DAMAGED, now, seconds=30.0)
        return True

    def button(self, button: str, kind: str, now: float) -> None:
        """A press from the press detector: short, long, repeat (as short) or combo."""
        self.take(Pressed(button, kind), now)

    def card_placed(
        self, reader: str, uid: bytes, now: float, lying: bool = False, record: Card | None = None
    ) -> None:
        """A card laid on a reader: `record` is the card its tag's record names (box/parts/identify.py)."""
        self.take(CardPlaced(reader, uid, lying, record), now)

    def tap(self, placed: CardPlaced, now: float) -> None:
        """A card laid on a reader, after the screen woke: named, then handed on (box/parts/identify.py)."""
        self.dice_tray.input(now, card=True)
        self.care.input(now)  # a card wakes the screen and acts: it is laid down on purpose
        self.cards.placed(self.top, placed.reader, placed.uid, now, placed.lying, placed.card)

    def edge(self, button: str, pressed: bool, now: float) -> None:
        """A raw button edge (before the press detector): it wakes the screen; a press that woke a
        dark one does nothing else (a dimmed one is read: it acts); screens that show buttons held see it too."""
        if pressed:
            self.waking.discard(button)
            if self.care.input(now):
                self.waking.add(button)
        self.top.edge(button, pressed, now)

    def press(self, pressed: Pressed, now: float) -> None:
        """A press, after the screen woke: the Box keeps the combo, a long BACK and ROLL; the rest goes on top."""
        button, kind = pressed.button, PressKind(pressed.kind)
        if set(button.split("+")) & self.waking or self.care.input(now):
            return  # the screen was dark: this press only woke it
        kind = PressKind.SHORT if kind == PressKind.REPEAT else kind
        if kind == PressKind.COMBO:
            self.lobby.ask_power_off(now)
            return
        self.dice_tray.input(now)
        if self.notices.press(now) or self.dice_tray.press(button, now):
            return
        top = self.top
        if not top.global_keys:
            top.press(button, kind, now)
        elif button == "back" and kind == PressKind.LONG:
            self.open_box_menu()
        elif button == "roll" and kind == PressKind.LONG:
            self.timer.open()
        elif button == "roll":
            self.dice_tray.roll(top, self.game.game if self.game is not None else None, now)
        else:
            top.press(button, kind, now)

    # ----- what screens and parts ask of the box -------------------------------------------

    def say(self, text: str, now: float, seconds: float = NOTICE_SECONDS) -> None:
        """Show `text` on the bottom line for a while; it replaces any flashed screen."""
        self.notices.say(text, now, seconds)

    def reject(self, reason: str, now: float) -> None:
        """Say why an input was refused, readable until the next press puts it away."""
        self.notices.refuse(reason, now)
        self.play(Sound.ERROR)

    def play(self, sound: Sound) -> None:
        self.sounds.append(sound)

    def publish(self, event: Event) -> None:
        """Tell every subscriber what happened (box/events.py); never waits for them."""
        self.bus.publish(event)

    def refuse_card(self, card: Card | None, now: float) -> None:
        """A known card the screen on top cannot take: say why."""
        self.reject(self.cards.refusal(card, self.game.game if self.game is not None else None), now)

    def request_write(self, request: WriteCard) -> bool:
        """Hand a card-record write to the reader side; False when the box has no reader to do it."""
        if self.writer is None or request.reader not in self.settings.readers:
            return False
        self.writer(request)
        return True

    def accepted(self, step: Step, now: float, before: dict[str, Any]) -> Callable[[], None]:
        """A game step was just taken: what it did is told now (a batch may take more steps before
        it is durable); the call returned shows, plays and publishes it once the step is journaled."""
        session = self.session
        events = game_events(session, before) if session is not None else []
        return partial(self.journaled, step, now, events)

    def journaled(self, step: Step, now: float, events: list[Event]) -> None:
        """A game step is durable: show and play what it asks for, and publish what happened."""
        self.notices.clear()
        self.sounds.extend(Sound(sound) for sound in step.sounds)
        if isinstance(step.timer, Chug):
            self.timer.open().start_chug(now)
        elif isinstance(step.timer, Countdown):
            self.timer.open().start_countdown(step.timer.seconds, now)
        for event in events:
            if isinstance(event, GameOver):
                self.lobby.note_end(event.number)
            self.publish(event)

    def sat(self) -> Sat:
        """Who sat at the journal's games; nobody while the journal cannot be read (a new id is random,
        48 bits: the check against the seats is what makes a clash impossible, not merely unlikely)."""
        try:
            return journal_sat(self.journal)
        except StorageError as problem:
            log.warning("the seats' ids not read: %s", problem)
            return Sat()

    def undo(self, now: float) -> None:
        session = self.session
        said = session.said_last() if session is not None else ""  # in the players' words, for the events
        if session is None or not session.undo():
            self.reject(NOTHING_TO_UNDO, now)
            return
        self.say("Undone", now)
        self.play(Sound.CLICK)
        self.publish(standing(session))
        self.publish(Undone(session.record.name, said))

    def open_box_menu(self) -> None:
        """The long-BACK menu: undo (after its question), abandon the game, pairing a phone, the phone page, the sound."""
        label = self.session.last_action() if self.session is not None else None
        entries: tuple[str, ...] = (f"Undo: {label}" if label else NOTHING_TO_UNDO,)
        ask = (lambda now: self.push(Confirm(f"Undo: {label}?", self.undo))) if label else self.undo
        actions: tuple[Callable[[float], None] | None, ...] = (ask,)
        if self.session is not None:
            entries += ("Abandon game",)
            actions += (self.lobby.ask_abandon,)
        entries += ("Pair a phone", "Phone page", f"Sound: {self.sound.label()}", f"Own Wi-Fi: {self.own_wifi.label()}")
        actions += (self.phone.ask_pairing, self.phone.show_page, self.sound.open, self.own_wifi.toggle)
        self.push(Picker("box-menu", "Box", (*entries, "Back"), (*actions, None)))

    # ----- time and output --------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Let time pass: the shot timer's ticks, a game roll's animation, notices, the screens, the storage."""
        self.care.advance(now)
        self.timer.advance(now)
        for screen in self.screens:
            screen.advance(now)
            self.sounds.extend(screen.take_sounds())
        self.settle()
        self.dice_tray.advance(now)
        self.notices.advance(now)
        if self.journal.fault is not None and now >= self.retry_storage_at:
            if self.journal.healthy():
                self.say("Storage works again", now)
                self.publish(StorageBack())
            else:
                self.retry_storage_at = now + STORAGE_RETRY

    def next_deadline(self, now: float) -> float | None:
        """When the screen or the sounds next change by themselves (None: not until an input)."""
        deadlines = [
            self.timer.next_deadline(),
            self.care.next_deadline(),
            self.notices.next_deadline(),
            *(screen.next_deadline(now) for screen in self.screens),
            *self.dice_tray.deadlines(now),
        ]
        if self.journal.fault is not None:
            deadlines.append(max(self.retry_storage_at, now))
        return min((d for d in deadlines if d is not None), default=None)

    def take_sounds(self) -> list[Sound]:
        sounds, self.sounds = self.sounds, []
        for screen in self.screens:  # sounds a screen queued on an input
            sounds.extend(screen.take_sounds())
        return sounds

    def frame(self, now: float) -> Image.Image | None:
        """A ready-made image to show instead of rendering the screen (test patterns, progress bar)."""
        return self.top.image(now) if self.dice_tray.show is None else None

    def screen(self, now: float) -> View:
        """What the OLED shows now: the flashed screen, the dice or the top screen, and the bottom line."""
        view = self.notices.flash_at(now) or self.dice_tray.view(now)
        if view is None:
            view = self.top.view(now)
            if self.top is self.game:  # after the game's roll, its faces stay on the bottom line
                view = replace(view, notice=self.dice_tray.notice(view.notice))
        notice = self.notices.text_at(now) or self.stick.busy
        if not notice and self.journal.fault is not None:  # until writes work again
            notice = self.journal.fault.reason
        return replace(view, notice=notice or self.readers.notice() or view.notice)

    def dump(self, now: float) -> dict[str, Any]:
        """The state dump (docs/state.md): the box's keys, the game's and the screens' own."""
        own, game = self.dump_parts(now)
        return {**game, **own, **self.count()}

    def count(self) -> dict[str, int]:
        """The state dump's count of the game's actions (none without a game): it moves with every action."""
        return {} if self.game is None else {"actions": self.game.session.count}

    def dump_parts(self, now: float) -> tuple[dict[str, Any], dict[str, Any]]:
        """The state dump but its `count`, in two parts with no key in common: the box's own keys (the
        screens' among them), and the game's (the same dict until the game moves: `GameScreen.dump`)."""
        game = NO_GAME if self.game is None else self.game.dump()
        data: dict[str, Any] = {}
        for screen in self.screens:
            if screen is not self.game:
                data.update(screen.dump())
        data["dice"] = self.dice_tray.dump()
        data["timer"] = self.timer.timer.dump(now)
        data["screen"] = "dice" if self.dice_tray.show is not None else self.top.name
        data["notice"] = self.notices.text_at(now)
        data["readers_offline"] = sorted(self.readers.offline)
        data["display"] = self.care.state()
        data["sound"] = self.sound.dump()
        data["clock"] = self.settings.clock.source()
        data["own_wifi"] = self.own_wifi.dump()
        return data, game
