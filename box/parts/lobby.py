"""The games on the box: their decks, a game's setup and start, resuming after a power cut, leaving.

One part of the Box (box/core/service.py), written against the `Host` every screen uses plus the
one thing only the Box can do, `show_game` (a game's screen replaces whatever was over the
menu). The main menu's choices come here: a game's setup (seats from box/parts/seating.py, the
roster's default options), START, and the tools.

>>> from box.storage.journal import Journal
>>> from box.core.service import Box
>>> from box.base.settings import Settings
>>> from box.storage.tags import TagMap
>>> from box.screens.tools import DiceCup
>>> box = Box(Journal(":memory:"), TagMap(), DiceCup(), Settings())
>>> box.lobby.start_game(next(iter(GAMES)), now=0.0, names=["Ann", "Bob"]); box.session.players
('Ann', 'Bob')
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from box.base.session import GameSession
from box.decks.codec import Deck
from box.events import GameLeft, GameStarted, Redated
from box.games import GAMES, TITLES, load_deck, rules_for
from box.games.base import Option, Setup
from box.games.kit import read_options
from box.parts.game_events import standing
from box.screens.menu import Choice, Confirm, Menu, MenuScreen, Picker, Tool
from box.screens.protocol import Host
from box.storage.journal import Journal, JournalCorrupted, StorageError
from box.storage.player_ids import SEATS, Sat, seated_ids
from box.storage.roster import DATED, ENDED, STARTED, UPLOADED_DECKS
from box.storage.stamps import PHONE, STAMP, UNSYNCHRONISED, stamp_time

if TYPE_CHECKING:
    from box.base.settings import Settings
    from box.parts.seating import Seating
    from box.screens.tools import ShotTimerTool
    from box.storage.tags import TagMap

log = logging.getLogger(__name__)

TABLE = "table."  # the journal's box value "table.<game>": that game's last seats, names and options
LAST_GAME = "last_game"  # the game played last: the main menu's cursor rests on it


def main_menu(journal: Journal) -> Menu:
    """The main menu, its cursor on the game played last."""
    last = journal.get(LAST_GAME, kind=str)
    return replace(Menu.main(tuple(GAMES), TITLES), cursor=list(GAMES).index(last) if last in GAMES else 0)


def offered(option: Option, kept: Mapping[str, object], default: str) -> str:
    """The value the setup offers for `option`: the kept one where it is still allowed, else `default`.

    >>> offered(Option("streak", "Streak", "off", ("off", "must")), {"streak": "must"}, "off")
    'must'
    >>> offered(Option("streak", "Streak", "off", ("off", "must")), {"streak": "never"}, "off")
    'off'
    """
    try:
        return option.parse(str(kept[option.key])) if option.key in kept else default
    except ValueError:  # a value this version no longer allows: the default
        return default


class GameStartError(ValueError):
    """A game cannot start with the given players or options (the message says why)."""


class Table(Host, Protocol):
    """What the lobby needs of the Box besides a screen's host: to show a game, or none."""

    def show_game(self, session: GameSession | None) -> None: ...


class Lobby:
    """Decks loaded once, games started, resumed and left; the main menu's choices carried out."""

    def __init__(
        self,
        journal: Journal,
        settings: Settings,
        tags: TagMap,
        table: Table,
        menu: MenuScreen | None,
        seating: Seating,
        timer: ShotTimerTool,
        tools: Mapping[Tool, Callable[[float], object]],
        decks: Mapping[str, Deck] | None = None,
    ):
        """`tools`: what the main menu's tools that are not about games open (the self-test, the stick...)."""
        self.journal, self.settings, self.tags, self.table = journal, settings, tags, table
        self.menu, self.seating = menu, seating
        self.tools: dict[Tool, Callable[[float], object]] = {
            Tool.SHOT_TIMER: lambda now: timer.open(),
            Tool.ENROL: self.open_enrolments,
            Tool.POWER_OFF: self.ask_power_off,
            **tools,
        }
        self.decks: dict[str, Deck] = dict(decks or {})
        self.session: GameSession | None = None
        self.power_off_requested = False  # the loop ends and the box powers off
        self.undated: list[int] = []  # games started since this start by the unsynchronised clock: `redate`
        self.undated_ends: list[int] = []  # games that ended since this start by the unsynchronised clock

    def redate(self) -> None:
        """A phone gave the box its time: the games started or ended since this start by the
        unsynchronised clock are dated again by it (their offset is the phone's: the clock ran on
        since), in one write, and `Redated` says which (the history's lines follow). History, Stats
        and the exports read these dates."""
        offset = self.settings.clock.offset
        if offset is None or not (self.undated or self.undated_ends):
            return
        with self.journal.batch():  # StorageError: none is changed, and they are tried again next time
            for key, games in ((STARTED, self.undated), (ENDED, self.undated_ends)):
                for game in games:
                    written = stamp_time(self.journal.get(f"{key}{game}", None, kind=str) or "")
                    if written is None:
                        continue
                    self.journal.put(f"{key}{game}", time.strftime(STAMP, time.localtime(written + offset)))
                    if key == STARTED:
                        self.journal.put(f"{DATED}{game}", PHONE)
        numbers = tuple(sorted({*self.undated, *self.undated_ends}))
        self.undated, self.undated_ends = [], []
        self.table.publish(Redated(numbers, offset))

    def note_end(self, game: int) -> None:
        """A game reached its end: when, by the box's clock (`ended.<id>`, beside its start; the page
        reads it). A storage that refuses it loses only this date (logged): the game is journaled."""
        try:
            self.journal.put(f"{ENDED}{game}", self.settings.clock.stamp())
        except StorageError as problem:
            log.error("game %d's end not dated: %s", game, problem)
            return
        if self.settings.clock.source() == UNSYNCHRONISED:
            self.undated_ends.append(game)

    # ----- decks -------------------------------------------------------------------------------

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

    def forget_decks(self) -> None:
        """A deck file was replaced: every deck but the running game's loads again at its next use."""
        running = self.session.record.name if self.session is not None else None
        self.decks = {game: deck for game, deck in self.decks.items() if game == running}

    def loaded_decks(self) -> dict[str, Deck]:
        """Every game's deck that loads (one that will not is logged and left out)."""
        decks = {}
        for game in GAMES:
            try:
                decks[game] = self.deck(game)
            except Exception as problem:  # a deck that will not load: its cards go unnamed, the box goes on
                log.error("deck %s not loaded: %s", game, problem)
        return decks

    # ----- games -------------------------------------------------------------------------------

    def resume(self) -> str:
        """Show the unfinished game of the journal, if any, as it was; else why it cannot be ("" when none)."""
        record = self.journal.unfinished_game()
        if record is None:
            return ""
        try:
            rules = rules_for(record.name)
            session = GameSession(rules, self.deck(record.name, record.decks), record, self.journal)
            log.info("resumed %s (game %d, %d actions)", record.name, record.id, session.count)
        except JournalCorrupted:  # the journal's damage, not the game's: it is set aside (box/core/app.py)
            raise
        except Exception as problem:  # a deck that changed or broke since: say so, keep the box usable
            log.error("cannot resume %s: %s", record.name, problem)
            try:
                self.journal.finish_game(record.id)
            except StorageError as error:  # left unfinished: the next start tries it again
                log.error("%s", error)
            return f"Cannot resume: {problem}"
        self.show(session)
        self.table.publish(standing(session))  # where the resumed game stands, for whoever follows the events
        return ""

    def show(self, session: GameSession | None) -> None:
        self.session = session
        self.table.show_game(session)

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
        try:  # the rules refuse bad setups (a deck too small for the table...) before anything is journaled
            rules.new(Setup(tuple(names), values), deck)
        except ValueError as problem:
            raise GameStartError(str(problem)) from None
        with self.journal.batch():  # the game, when it started and who sat where (the page's history), its table: one write
            record_id = self.journal.start_game(game, names, values, str(folder) if folder else None)
            self.journal.put(f"{STARTED}{record_id}", self.settings.clock.stamp())
            self.journal.put(f"{DATED}{record_id}", self.settings.clock.source())  # which clock said so
            ids = self.settings.roster.seat_ids(names, journal_sat(self.journal))
            self.journal.put(f"{SEATS}{record_id}", ids)  # players by id: a rename keeps them
            self.journal.put(f"{TABLE}{game}", {"players": len(names), "names": names, "options": dict(values)})
            self.journal.put(LAST_GAME, game)
        if self.settings.clock.source() == UNSYNCHRONISED:
            self.undated.append(record_id)
        record = self.journal.unfinished_game()
        assert record is not None and record.id == record_id
        session = GameSession(rules, deck, record, self.journal)
        self.show(session)
        self.table.say(f"{rules.title}: {len(names)} players", now)
        self.table.publish(GameStarted(game, rules.title, dict(values), tuple(names), record_id))
        self.table.publish(standing(session))  # whose turn it is before anyone acts (the house's dashboards)

    def leave_game(self, now: float) -> None:
        """Close the game in play (journaled as finished) and go back to the main menu."""
        session = self.session
        if session is not None:
            self.journal.finish_game(session.record.id)
        self.show(None)
        if self.menu is not None:
            self.menu.menu = main_menu(self.journal)
        self.table.say("Game closed", now)
        if session is not None:
            over = session.rules.is_over(session.state)
            self.table.publish(GameLeft(session.record.name, abandoned=not over))

    def ask_abandon(self, now: float) -> None:
        self.table.push(Confirm("Abandon this game?", self.leave_game))

    def ask_power_off(self, now: float) -> None:
        self.table.push(Confirm("Power off the box?", self.power_off))

    def power_off(self, now: float) -> None:
        self.power_off_requested = True
        self.table.say("Powering off...", now, seconds=60)

    # ----- the main menu -----------------------------------------------------------------------

    def choose(self, choice: Choice, now: float) -> None:
        """What the main menu asked for: a game's setup, its seats, its start, or a tool."""
        assert self.menu is not None
        if choice.kind == "game":
            self.set_up(choice.game)
        elif choice.kind == "names":
            self.seating.open_seats(now)
        elif choice.kind == "start":
            self.seating.joined = []
            try:
                self.start_game(choice.game, now, players=choice.players, names=list(choice.names) or None,
                                options=dict(choice.options))
            except ValueError as problem:  # GameStartError, or the rules' own refusal of the setup
                self.table.reject(str(problem), now)
            else:
                self.seating.remember(choice.names, now)
        elif choice.tool is not None:
            self.tools[choice.tool](now)

    def set_up(self, game: str) -> None:
        """A game's setup, offering first what its last game had: the seats, their names, the options
        (else the roster's default options, else the game's)."""
        assert self.menu is not None
        rules = rules_for(game)
        low, high = rules.min_players, rules.max_players
        last = self.journal.get(f"{TABLE}{game}", {}, kind=dict)
        names = [name for name in last.get("names", ()) if isinstance(name, str)]
        menu = self.menu.menu.configure(game, rules.options, (low, high), self.seating.begin(high, names))
        players = last.get("players")
        if isinstance(players, int) and not isinstance(players, bool) and low <= players <= high:
            menu = replace(menu, players=players)
        kept = {**self.settings.roster.defaults_for(game), **dict(last.get("options") or {})}
        self.menu.menu = replace(menu, values=tuple(offered(o, kept, v) for o, v in zip(menu.options, menu.values)))

    def open_enrolments(self, now: float) -> None:
        """Enrol cards: which game's deck to walk."""
        actions = tuple(partial(self.open_enrolment, game) for game in GAMES)
        self.table.push(Picker("picker", "Enrol which game?", (*TITLES.values(), "Back"), (*actions, None)))

    def open_enrolment(self, game: str, now: float) -> None:
        """Walk `game`'s deck; each tag laid on a reader becomes the card shown (saved at once)."""
        from box.screens.enrolment import Enrolment
        from box.storage.tags import TAGS_FILE

        path = self.settings.state_dir / TAGS_FILE if self.settings.state_dir is not None else None
        deck = self.deck(game)
        walked = all(self.tags.enrolled_uid(game, card_id) is not None for card_id in deck.cards)
        self.table.push(
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


def journal_sat(journal: Journal) -> Sat:
    """Who sat at the journal's games (box.storage.roster.Sat): new players' ids are judged against it."""
    return Sat(frozenset(seated_ids(journal.values_under(SEATS))), journal.seated_names(SEATS))
