"""The box's brain: menus, the game in play, the tools, undo, and what to show and play.

`Box` owns all state and is driven by one loop thread (box/loop.py on a real box,
the simulator's script runner on virtual time). It is told about inputs by
plain method calls with the time they happened, and answers with the screen
(`screen`) and the sounds to play (`take_sounds`). It never touches hardware.

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
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from box.cards import Deck, deck_folder
from box.enrolment import Enrolment
from box.games import GAMES, rules_for
from box.games.base import READERS, Action, Chug, Countdown, Press, Rejected, Roll, Setup, Sound, Tap, View
from box.journal import Journal, JournalDamaged
from box.menu import Choice, Menu, window
from box.selftest import SelfTest
from box.session import GameSession
from box.tags import TAGS_FILE, TagMap
from box.tools import DiceCup, ShotTimer, TimerScreen

log = logging.getLogger(__name__)

TOOL_SCREENS = (SelfTest, Enrolment)

NOTICE_SECONDS = 3.0
NOTHING_TO_UNDO = "Nothing to undo"
CLOCK_REFRESH = 0.1  # a running shot timer redraws ten times a second
DICE_ANIMATION = (0.08, 0.16, 0.26, 0.38, 0.52)  # frame times after a throw
TITLES = {
    "deadlines": "Deadlines",
    "dead-set": "Dead Set",
    "dead-fellas": "Dead Fellas",
    "deck-of-death": "Deck of Death",
}


@dataclass
class Settings:
    """What the owner configures: player names and deck files."""

    names: tuple[str, ...] = ()
    decks_dir: Path | None = None
    readers: Mapping[str, str] = field(default_factory=lambda: dict.fromkeys(READERS, ""))  # name -> port
    state_dir: Path | None = None  # where enrolment saves the tag map

    def player_names(self, count: int) -> list[str]:
        if len(self.names) >= count:
            return list(self.names[:count])
        return [f"P{n}" for n in range(1, count + 1)]


class GameStartError(ValueError):
    """A game cannot start with the given players or options (the message says why)."""


@dataclass
class DiceShow:
    """Two dice tumbling, then the result; a game's roll closes itself after the animation."""

    dice: tuple[int, int]
    thrown: float
    closes: bool

    def face(self, now: float) -> tuple[int, int]:
        frames = [t for t in DICE_ANIMATION if self.thrown + t > now]
        if not frames:
            return self.dice
        k = len(frames)
        return ((self.dice[0] + k) % 6 + 1, (self.dice[1] + 2 * k) % 6 + 1)


@dataclass
class Picker:
    """A list to choose from: UP/DOWN move, OK runs the entry's action, BACK (or no action) closes.

    `name` is the screen's name in the state dump (the long-BACK menu is "box-menu").
    """

    name: str
    title: str
    entries: tuple[str, ...]
    actions: tuple[Callable[[float], None] | None, ...]
    cursor: int = 0


@dataclass
class Confirm:
    """A yes/no question: OK confirms, BACK cancels."""

    question: str
    on_yes: Callable[[float], None]


@dataclass
class Box:
    journal: Journal
    tags: TagMap
    dice: DiceCup
    settings: Settings
    damaged: JournalDamaged | None = None
    session: GameSession | None = None
    menu: Menu = field(init=False)
    overlay: Any = None
    notice: str = ""
    notice_until: float = 0.0
    offline: dict[str, str] = field(default_factory=dict)
    sounds: list[str] = field(default_factory=list)
    timer: ShotTimer = field(init=False)
    dice_show: DiceShow | None = None
    last_dice: list[int] | None = None
    flash: View | None = None  # a screen shown for a moment (an unknown card), over everything
    flash_until: float = 0.0
    power_off_requested: bool = False
    decks: dict[str, Deck] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.menu = Menu.main(tuple(GAMES), TITLES)
        self.timer = ShotTimer(best_chug=self.journal.get("best_chug"))
        self.last_dice = self.journal.get("dice")
        if self.damaged is not None:
            self.say("Journal damaged: copy kept. New game.", now=0.0, seconds=30.0)
        record = self.journal.unfinished_game()
        if record is not None:
            try:
                rules = rules_for(record.name)
                self.session = GameSession(rules, self.deck(record.name, record.decks), record, self.journal)
                log.info("resumed %s (game %d, %d actions)", record.name, record.id, self.session.count)
            except Exception as problem:  # a deck that changed or broke since: say so, keep the box usable
                log.error("cannot resume %s: %s", record.name, problem)
                self.journal.finish_game(record.id)
                self.say(f"Cannot resume: {problem}", now=0.0, seconds=30.0)

    # ----- decks and games -------------------------------------------------------------

    def deck(self, game: str, decks_dir: str | None = None) -> Deck:
        """The game's deck (loaded once): from the decks directory where it has the file."""
        if game not in self.decks:
            directory = Path(decks_dir) if decks_dir else self.settings.decks_dir
            self.decks[game] = rules_for(game).load_deck(deck_folder(game, directory))
        return self.decks[game]

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
        chosen = dict(options or {})
        known = {o.key: o for o in rules.options}
        unknown = [key for key in chosen if key not in known]
        if unknown:
            raise GameStartError(f"unknown option {unknown[0]!r} for {game}; options are {', '.join(known) or 'none'}")
        try:
            values = {key: known[key].parse(chosen.get(key, known[key].default)) for key in known}
        except ValueError as problem:
            raise GameStartError(str(problem)) from None
        deck = self.deck(game)
        decks_dir = str(self.settings.decks_dir) if self.settings.decks_dir else None
        # Let the rules refuse bad setups before anything is journaled.
        rules.new(Setup(tuple(names), values), deck)
        record_id = self.journal.start_game(game, names, values, decks_dir)  # finishes the old one too
        record = self.journal.unfinished_game()
        assert record is not None and record.id == record_id
        self.session = GameSession(rules, deck, record, self.journal)
        self.overlay = None
        self.say(f"{TITLES[game]}: {len(names)} players", now)

    def leave_game(self, now: float) -> None:
        if self.session is not None:
            self.journal.finish_game(self.session.record.id)
            self.session = None
        self.menu = Menu.main(tuple(GAMES), TITLES)
        self.overlay = None
        self.say("Game closed", now)

    # ----- inputs ---------------------------------------------------------------------

    def button(self, button: str, kind: str, now: float) -> None:
        """A button event from the press detector: short, long, repeat or combo."""
        if kind == "combo":
            self.overlay = Confirm("Power off the box?", self.request_power_off)
            return
        if isinstance(self.overlay, TOOL_SCREENS):
            self.overlay.press(button, kind, now)
            self.close_finished_tool()
            return
        press = Press(button, long=(kind == "long"))
        if self.flash is not None:
            self.flash = None
            if now < self.flash_until:
                return
        if self.dice_show is not None and not self.dice_show.closes:
            self.dice_show = None
            if button != "roll":
                return
        if self.overlay is not None:
            self.overlay_press(press, now)
        elif press == Press("back", long=True):
            self.open_box_menu()
        elif press == Press("roll", long=True):
            self.overlay = TimerScreen(self.timer)
        elif press == Press("roll"):
            self.roll(now)
        elif self.session is not None:
            if press == Press("ok", long=True) and self.session.dump().get("over"):
                self.leave_game(now)
            else:
                self.act(press, now)
        else:
            self.menu_press(press, now)

    def card_placed(self, reader: str, uid: bytes, now: float, lying: bool = False) -> None:
        """A card laid on a reader (the driver reports each placement once); `lying`: it was
        already there when the reader (re)connected."""
        if isinstance(self.overlay, TOOL_SCREENS):  # the self-test and enrolment take raw tags
            self.overlay.card(reader, uid, now)
            return
        if lying:  # there before the reader (re)connected: tapped before a power cut or an unplug, not now
            self.reject(f"Card left on reader {reader}: lift it, tap again", now)
            return
        card = self.tags.lookup(uid)
        if card is None:
            self.reject(f"Unknown card {uid.hex()}", now)
            self.flash = View(
                "Unknown card",
                (uid.hex(), "This tag is in no", "deck of this box.", "Enrol it: gravebox", "enroll GAME"),
            )
            self.flash_until = self.notice_until
            return
        game, card_id = card
        if self.session is None:
            self.reject(f"No game running ({TITLES.get(game, game)} card)", now)
        elif game != self.session.record.name:
            self.reject(f"That card is from {TITLES.get(game, game)}", now)
        elif self.overlay is not None or (self.dice_show is not None and not self.dice_show.closes):
            self.reject("Finish this screen first", now)
        else:
            self.act(Tap(reader, card_id), now)

    def reader_status(self, reader: str, online: bool, message: str, now: float) -> None:
        if isinstance(self.overlay, TOOL_SCREENS):
            self.overlay.reader_status(reader, online, message, now)
        if online:
            if self.offline.pop(reader, None) is not None:
                self.say(f"Reader {reader} back", now)
        else:
            self.offline[reader] = message
            self.say(message, now, seconds=NOTICE_SECONDS * 2)
            self.sounds.append(Sound.ERROR)

    # ----- actions --------------------------------------------------------------------

    def act(self, action: Action, now: float) -> None:
        """Apply an action to the game: journaled first, then shown and heard."""
        assert self.session is not None
        result = self.session.apply(action)
        if isinstance(result, Rejected):
            self.reject(result.reason, now)
            return
        self.notice, self.flash = "", None
        self.sounds.extend(result.sounds)
        if isinstance(result.timer, Chug):
            self.overlay = TimerScreen(self.timer)
            self.overlay.start_chug(now)
        elif isinstance(result.timer, Countdown):
            self.overlay = TimerScreen(self.timer)
            self.overlay.start_countdown(result.timer.seconds, now)

    def roll(self, now: float) -> None:
        """ROLL: the game's dice when it wants them, else the free dice tool."""
        dice = self.dice.throw()
        game_roll = self.session is not None and self.session.rules.wants_roll(self.session.state)
        with self.journal.batch():  # the roll and the last dice: one durable write
            if game_roll:
                self.act(Roll(dice), now)
            self.last_dice = list(dice)
            self.journal.put("dice", self.last_dice)
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

    # ----- menus and overlays -----------------------------------------------------------

    def menu_press(self, press: Press, now: float) -> None:
        result = self.menu.press(press)
        if isinstance(result, Menu):
            self.menu = result
            return
        self.choose(result, now)

    def choose(self, choice: Choice, now: float) -> None:
        if choice.kind == "game":
            rules = rules_for(choice.game)
            self.menu = self.menu.configure(choice.game, rules.options, (rules.min_players, rules.max_players))
        elif choice.kind == "start":
            try:
                self.start_game(choice.game, now, players=choice.players, options=dict(choice.options))
            except (GameStartError, ValueError) as problem:
                self.reject(str(problem), now)
        elif choice.tool == "Shot timer":
            self.overlay = TimerScreen(self.timer)
        elif choice.tool == "Power off":
            self.overlay = Confirm("Power off the box?", self.request_power_off)
        elif choice.tool == "Self-test":
            self.overlay = SelfTest(self.settings.readers, now, offline=self.offline, assume_online=True)
        elif choice.tool == "Enrol cards":
            actions = tuple(partial(self.open_enrolment, game) for game in GAMES)
            self.overlay = Picker(
                "picker", "Enrol which game?", (*(TITLES[g] for g in GAMES), "Back"), (*actions, None)
            )

    def open_enrolment(self, game: str, now: float) -> None:
        """Walk `game`'s deck; each tag laid on a reader becomes the card shown (saved at once)."""
        path = self.settings.state_dir / TAGS_FILE if self.settings.state_dir is not None else None
        deck = self.deck(game)
        walked = all(self.tags.uid_of(game, card_id) is not None for card_id in deck.cards)
        self.overlay = Enrolment(
            game,
            deck,
            self.tags,
            path=path,
            names=lambda other, card_id: self.deck(other).name_of(card_id),
            title=f"Enrol {TITLES[game]}",
            every_card=walked,  # every card has a tag already: walk the deck again from the top
        )

    def open_box_menu(self) -> None:
        label = self.session.last_action() if self.session is not None else None
        entries: tuple[str, ...] = (f"Undo: {label}" if label else NOTHING_TO_UNDO,)
        actions: tuple[Callable[[float], None] | None, ...] = (self.undo,)
        if self.session is not None:
            entries += ("Abandon game",)
            actions += (lambda now: setattr(self, "overlay", Confirm("Abandon this game?", self.leave_game)),)
        self.overlay = Picker("box-menu", "Box", (*entries, "Back"), (*actions, None))

    def overlay_press(self, press: Press, now: float) -> None:
        overlay = self.overlay
        if isinstance(overlay, Confirm):
            if press.button == "ok":
                self.overlay = None
                overlay.on_yes(now)
            elif press.button == "back":
                self.overlay = None
        elif isinstance(overlay, Picker):
            self.picker_press(overlay, press, now)
        elif isinstance(overlay, TimerScreen):
            chug = overlay.press(press, now)
            if chug is not None:
                self.journal.put("best_chug", self.timer.best_chug)
                self.say(f"Chug: {chug:.2f} s", now)
                self.sounds.append(Sound.END)
            if overlay.closed:
                self.overlay = None

    def picker_press(self, picker: Picker, press: Press, now: float) -> None:
        if press.button in ("up", "down"):
            picker.cursor = (picker.cursor + (1 if press.button == "down" else -1)) % len(picker.entries)
        elif press.button == "back":
            self.overlay = None
        elif press.button == "ok":
            action = picker.actions[picker.cursor]
            self.overlay = None
            if action is not None:
                action(now)

    # ----- time -----------------------------------------------------------------------

    def advance(self, now: float) -> None:
        """Let time pass: the shot timer's ticks, a game roll's animation, notices, tool screens."""
        self.sounds.extend(self.timer.advance(now))
        if isinstance(self.overlay, TOOL_SCREENS):
            self.overlay.advance(now)
            self.sounds.extend(self.overlay.take_sounds())
            self.close_finished_tool()
        if self.dice_show is not None and self.dice_show.closes and now >= self.dice_show.thrown + DICE_ANIMATION[-1]:
            self.dice_show = None
        if self.notice and now >= self.notice_until:
            self.notice = ""
        if self.flash is not None and now >= self.flash_until:
            self.flash = None

    def next_deadline(self, now: float) -> float | None:
        """When the screen or the sounds next change by themselves (None: not until an input)."""
        deadlines = [self.timer.next_deadline()]
        if self.dice_show is not None:
            deadlines += [self.dice_show.thrown + t for t in DICE_ANIMATION if self.dice_show.thrown + t > now]
        if self.notice:
            deadlines.append(self.notice_until)
        if isinstance(self.overlay, TimerScreen) and self.overlay.running():
            deadlines.append(now + CLOCK_REFRESH)
        if isinstance(self.overlay, TOOL_SCREENS):
            deadlines.append(self.overlay.next_deadline(now))
        return min((d for d in deadlines if d is not None), default=None)

    def close_finished_tool(self) -> None:
        if isinstance(self.overlay, TOOL_SCREENS) and self.overlay.closed:
            self.overlay = None

    def frame(self, now: float) -> Any:
        """A ready-made image to show instead of rendering the screen (test patterns, progress bar)."""
        if isinstance(self.overlay, TOOL_SCREENS) and self.dice_show is None:
            return self.overlay.image(now)
        return None

    def take_sounds(self) -> list[str]:
        sounds, self.sounds = self.sounds, []
        return sounds

    # ----- output ---------------------------------------------------------------------

    def screen(self, now: float) -> View:
        """What the OLED shows now."""
        view = self.base_view(now)
        notice = self.notice if self.notice and now < self.notice_until else ""
        if not notice and self.offline:
            notice = "! reader " + ", ".join(sorted(self.offline)) + " off"
        if not notice and self.session is not None and self.session.dump().get("over") and self.overlay is None:
            notice = view.notice or "Hold OK: menu"
        return replace(view, notice=notice or view.notice)

    def base_view(self, now: float) -> View:
        if self.flash is not None and now < self.flash_until:
            return self.flash
        if self.dice_show is not None:
            return View("Dice", dice=self.dice_show.face(now))
        overlay = self.overlay
        if isinstance(overlay, Confirm):
            return View("Are you sure?", (overlay.question, "", "OK: yes", "BACK: no"))
        if isinstance(overlay, Picker):
            lines, cursor = window(overlay.entries, overlay.cursor)
            return View(overlay.title, lines, cursor)
        if isinstance(overlay, TOOL_SCREENS):
            return overlay.view(now)
        if isinstance(overlay, TimerScreen):
            return overlay.view(now)
        if self.session is not None:
            return self.session.rules.view(self.session.state)
        return self.menu.view()

    def screen_name(self) -> str:
        if self.dice_show is not None:
            return "dice"
        if self.overlay is not None:
            if isinstance(self.overlay, Picker):
                return self.overlay.name
            return {Confirm: "confirm", TimerScreen: "timer", SelfTest: "selftest", Enrolment: "enrol"}[
                type(self.overlay)
            ]
        return "game" if self.session is not None else "menu"

    def dump(self, now: float) -> dict[str, Any]:
        """The state dump (docs/state.md): the box's keys and the game's own."""
        data: dict[str, Any] = {
            "game": None,
            "players": [],
            "current_player": None,
            "over": False,
            "winners": [],
        }
        if self.session is not None:
            data["game"] = self.session.record.name
            data["players"] = list(self.session.players)
            data["options"] = dict(self.session.record.options)
            data["actions"] = self.session.count
            data.update(self.session.dump())
        data["dice"] = {"last": self.last_dice}
        data["timer"] = self.timer.dump(now)
        data["screen"] = self.screen_name()
        data["notice"] = self.notice if now < self.notice_until else ""
        data["readers_offline"] = sorted(self.offline)
        if isinstance(self.overlay, Enrolment):
            walk = self.overlay
            data["enrolment"] = {
                "game": walk.game,
                "current": walk.current,
                "done": walk.done,
                "total": len(walk.ids),
                "notice": walk.notice,
            }
        return data
