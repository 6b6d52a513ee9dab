"""What the phone page asks of the box, carried out by the one loop.

The control socket's threads (box/control.py) only put a `ControlCommand` in the
loop's inbox; the loop hands it to `carry_out` with the Box, like any input. A
command is journaled (`phone` in the journal's box values: the last few, without
the pairing code) before its effect. Two screens serve the phone: the pairing
code, and "tap the tag for ..." when the phone enrols one card or a player token.

>>> screen = PairingCode("482913", until=120.0)
>>> screen.view(0.0).lines[1]
'   482 913'
>>> screen.advance(120.0); screen.closed
True
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from box.control import ControlCommand
from box.errors import FileProblem
from box.games.base import View
from box.roster import PLAYER, ROSTER_FILE
from box.roster import load_roster as read_roster
from box.screen import BaseScreen, Card
from box.tags import TAGS_FILE, TagMap, simulated_uid
from box.words import PressKind, Sound

if TYPE_CHECKING:
    from box.service import Box

log = logging.getLogger(__name__)

JOURNAL_KEY = "phone"
KEPT = 20  # commands kept in the journal


class PairingCode(BaseScreen):
    """The six digits a phone types to pair, shown until they expire or BACK."""

    name = "pair"

    def __init__(self, code: str, until: float):
        super().__init__()
        self.code, self.until = code, until

    def view(self, now: float) -> View:
        spaced = f"{self.code[:3]} {self.code[3:]}"
        return View("Pair a phone", ("Type on the phone:", f"   {spaced}", "", "BACK: hide"))

    def advance(self, now: float) -> None:
        if now >= self.until:
            self.closed = True

    def next_deadline(self, now: float) -> float | None:
        return self.until

    def dump(self) -> dict[str, Any]:
        return {"pairing": True}  # never the code: the state dump is open to the network


class EnrolOne(BaseScreen):
    """The next tag laid on any reader becomes one card (or a player's token); BACK cancels."""

    name = "enrol"
    raw_tags = True

    def __init__(self, box: Box, game: str, card: str, label: str):
        super().__init__()
        self.box, self.game, self.card, self.label = box, game, card, label
        self.notice = ""

    def tag(self, reader: str, uid: bytes, card: Card | None, now: float) -> None:
        try:
            self.box.tags.enrol(uid, self.game, self.card)
        except ValueError as problem:  # the tag is another card's: say whose
            self.notice = str(problem)
            self.box.reject(f"Tag is {card[1] if card else 'taken'}", now)
            return
        save_tags(self.box, now)
        self.box.say(f"Enrolled: {self.label}"[:40], now)
        self.play(Sound.RIGHT)
        self.closed = True

    def press(self, button: str, kind: PressKind, now: float) -> None:
        if button == "back":
            self.closed = True

    def view(self, now: float) -> View:
        return View("Enrol from phone", ("Tap the tag for", self.label[:21], "on any reader.", "", "BACK: cancel"))

    def dump(self) -> dict[str, Any]:
        return {"enrolment": {"game": self.game, "current": self.card, "done": 0, "total": 1, "notice": self.notice}}


def journal_command(box: Box, command: ControlCommand) -> None:
    """Keep the command (never a pairing code) in the journal before carrying it out."""
    entry = {"cmd": command.name, **{k: v for k, v in command.args.items() if k != "code"}}
    log_ = box.journal.get(JOURNAL_KEY, [])
    box.journal.put(JOURNAL_KEY, [*log_[-(KEPT - 1) :], entry])


def carry_out(box: Box, command: ControlCommand, now: float) -> None:
    """Do what the page asked; a command that no longer fits (a card gone from its deck) is logged."""
    journal_command(box, command)
    name, args = command.name, command.args
    if name == "show-code":
        close(box, PairingCode)
        box.push(PairingCode(str(args["code"]), until=now + max(10, min(600, int(args["seconds"])))))
    elif name == "hide-code":
        close(box, PairingCode)
    elif name in ("enrol", "enrol-player"):
        game, card = (PLAYER, args["name"]) if name == "enrol-player" else (args["game"], args["card"])
        if game != PLAYER:
            try:
                label = box.deck(game).name_of(card)
            except (KeyError, ValueError, FileProblem) as problem:
                log.warning("phone asked to enrol %s %s: %s", game, card, problem)
                return
        else:
            label = f"player {card}"
        close(box, EnrolOne)
        box.push(EnrolOne(box, game, card, label))
    elif name == "enrol-stop":
        close(box, EnrolOne)
    elif name == "roster-changed":
        load_roster(box, now)
    elif name == "tags-changed":
        reload_tags(box, now)
    elif name == "decks-changed":
        running = box.session.record.name if box.session is not None else None
        box.decks = {game: deck for game, deck in box.decks.items() if game == running}


def close(box: Box, kind: type) -> None:
    for screen in box.screens[1:]:
        if isinstance(screen, kind):
            screen.closed = True
    box.settle()


def save_tags(box: Box, now: float) -> None:
    if box.settings.state_dir is None:
        return
    try:
        box.tags.save(box.settings.state_dir / TAGS_FILE)
    except OSError as problem:
        box.reject(f"Not saved: {problem.strerror or problem}", now)


def reload_tags(box: Box, now: float) -> None:
    """Read the tag map again (a restored backup); the simulator's made-up tags stay under it."""
    if box.settings.state_dir is None:
        return
    try:
        saved = TagMap.load(box.settings.state_dir / TAGS_FILE)
    except FileProblem as problem:
        log.error("restored tag map unreadable: %s", problem)
        box.reject("Tag map unreadable: kept the old", now)
        return
    fresh = TagMap({uid: card for uid, card in box.tags.cards.items() if uid == simulated_uid(*card)})
    fresh.merge(saved)
    box.tags.cards.clear()  # the same map object: the screens that hold it see the new tags
    box.tags.cards.update(fresh.cards)
    box.say(f"Tag map restored: {len(saved.cards)} tags", now)


def load_roster(box: Box, now: float | None = None) -> None:
    """Read roster.json from the state directory; a bad one is logged and the old roster kept."""
    if box.settings.state_dir is None:
        return
    try:
        box.settings.roster = read_roster(box.settings.state_dir / ROSTER_FILE)
    except FileProblem as problem:
        log.error("roster not used: %s", problem)
        if now is not None:
            box.reject("Roster unreadable: kept the old", now)
        return
    if now is not None:
        box.say(f"Roster: {len(box.settings.roster.names)} names", now)
