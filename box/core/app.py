"""The composition root: the one place where a box is put together.

`assemble` builds, in order, the inbox, the parts (real or the libraries' fakes, unless
given), the journal, the tag map, the event bus, the USB sticks' worker, the Box and the loop. The service (`gravebox
run`), the simulator (box/sim/world.py) and the `selftest` and `enroll` commands all use it;
the commands give it their own root screen instead of the menu.
"""

from __future__ import annotations

import queue
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from box.base.settings import Settings
from box.core.hardware import Parts, open_parts
from box.core.loop import BoxLoop
from box.core.service import Box
from box.core.tagtransfer import Transfers
from box.decks.codec import Deck
from box.events import EventBus
from box.games import load_decks
from box.ports.usb import FakeSticks, Sticks, UdisksSticks
from box.screens.protocol import Screen
from box.screens.tools import DiceCup
from box.storage.history import HISTORY_FILE, History, journaled_seats
from box.storage.journal import Journal, JournalCorrupted, JournalDamaged, make_state_directory
from box.storage.pinmap import PinMap
from box.storage.roster import ROSTER_FILE, RosterSetAside, load_or_recover
from box.storage.tags import TAGS_FILE, TagMap, TagsSetAside

if TYPE_CHECKING:
    from box.ports.nfc.simchip import SimChips
    from box.storage.config import MqttConfig

JOURNAL_FILE = "journal.db"
SIM_STICKS = "usb"
"""The simulator's USB sticks: folders under this one in the state folder."""
SIM_STICK = "STICK"
"""The simulator's stick, plugged in at every start: drop a gravebox-tags.csv in its folder."""


@dataclass
class App:
    """A put-together box: close it to release the parts and the journal."""

    inbox: queue.SimpleQueue[Any]
    parts: Parts
    journal: Journal
    loop: BoxLoop
    transfers: Transfers
    owns_bus: bool = True  # False: the caller's bus, which outlives this box (the simulator's power cuts)

    @property
    def box(self) -> Box:
        """The Box the loop runs (made anew when a phone restores a backup)."""
        return self.loop.box

    def close(self) -> None:
        self.loop.close()
        self.parts.close()
        self.journal.close()
        if self.owns_bus:
            self.box.bus.close()


def load_tags(
    state_dir: Path | None, made_up: Callable[[], Iterable[Deck]] | None = None
) -> tuple[TagMap, TagsSetAside | None]:
    """The tag map saved in `state_dir`; in the simulator, every card's made-up tag under it
    (the decks of `made_up` are parsed at the first tap). A tag map that cannot be read is set
    aside and the tags that could be read are kept: the second value says what was set aside."""
    saved, aside = TagMap.load_or_recover(state_dir / TAGS_FILE) if state_dir is not None else (TagMap(), None)
    if made_up is None:
        return saved, aside
    tags = TagMap.simulated(made_up)
    tags.merge(saved)  # what was enrolled in the simulator
    return tags, aside


def assemble(
    pinmap: PinMap,
    clock: Callable[[], float],
    settings: Settings,
    state_dir: Path | None,
    simulated: bool,
    dice: DiceCup | None = None,
    decks: dict[str, Deck] | None = None,
    root: Callable[[TagMap], Screen] | None = None,
    chips: SimChips | None = None,
    parts: Parts | None = None,
    inbox: queue.SimpleQueue[Any] | None = None,
    bus: EventBus | None = None,
    mqtt: MqttConfig | None = None,
) -> App:
    """Open everything a box needs; raises HardwareError for a part that cannot be opened.

    `decks` (the simulator's, loaded once) also give the simulated tags (else the decks are
    parsed for them at the first tap). With `root` the
    box runs that screen instead of the menu, on a journal in memory: a tool plays no game.
    `chips`: the simulator's chips, for simulated readers (kept across its power cuts).
    `parts`: parts already opened (a bench's, a test's), posting into `inbox`; `bus`: the event
    bus the box publishes on (a new one by default). `mqtt`: the settings have MQTT on; the box
    only shows what the MQTT process (`gravebox mqtt`, box/links/mqtt/, its own process fed by the
    control socket) says of itself: nothing of MQTT runs or is imported in the box.
    """
    inbox = inbox if inbox is not None else queue.SimpleQueue()
    if parts is None:
        parts = open_parts(pinmap, inbox.put, clock, simulated=simulated, chips=chips)
    journal: Journal | None = None
    try:
        if root is None and state_dir is not None:
            make_state_directory(state_dir)
            journal, damaged = Journal.open_or_recover(state_dir / JOURNAL_FILE)
        else:
            journal, damaged = Journal(":memory:"), None
        made_up = None
        if simulated and root is None:  # a tool sees only the tags really enrolled
            made_up = (lambda: decks.values()) if decks is not None else (lambda: load_decks(settings.decks_dir).values())
        tags, tags_aside = load_tags(state_dir, made_up)
        settings.readers, settings.state_dir = dict(pinmap.readers), state_dir
        roster_aside = None
        if root is None and state_dir is not None:  # the phone page's names and default options
            settings.roster, roster_aside = load_or_recover(state_dir / ROSTER_FILE)
        sticks, no_sticks = open_sticks(state_dir if root is None else None, simulated)
        keep = state_dir / TAGS_FILE if state_dir is not None and root is None else None
        transfers = Transfers(sticks, inbox.put, unavailable=no_sticks, keep=keep, settings=settings if keep else None)
        opened = parts
        owns_bus = bus is None
        bus = bus if bus is not None else EventBus()
        if root is None and state_dir is not None and "history" not in bus.stats():  # the subscribers
            seats, wall = journaled_seats(state_dir / JOURNAL_FILE), settings.clock
            bus.subscribe("history", History(state_dir / HISTORY_FILE, wall.stamp, seats, wall.source))

        def make_box(
            journal: Journal,
            damaged: JournalDamaged | None,
            tags_aside: TagsSetAside | None = tags_aside,
            roster_aside: RosterSetAside | None = roster_aside,
        ) -> Box:
            return Box(
                journal,
                tags,
                dice or DiceCup(),
                settings,
                damaged=damaged,
                decks=decks,
                root=root(tags) if root else None,
                tags_aside=tags_aside,
                roster_aside=roster_aside,
                writer=lambda request: opened.readers[request.reader].request_write(request),
                transfer=transfers.start,
                bus=bus,
            )

        try:
            box = make_box(journal, damaged)
        except JournalCorrupted as met:  # damage the judge's reads did not meet (the resume's): set aside
            box = make_box(journal, journal.start_over(str(met)))
    except BaseException:
        parts.close()
        if journal is not None:
            journal.close()
        raise
    loop = BoxLoop(box, parts, clock, inbox)
    if root is None and state_dir is not None:

        def remake(now: float) -> Box:
            """The Box made anew on the state a phone's backup put back (its journal already reopened):
            the tags read again into the same map, the roster, then the restored game resumed."""
            fresh, tags_aside = load_tags(state_dir, made_up)
            tags.cards.clear()  # the same map object: the stick's worker holds it too
            tags.cards.update(fresh.cards)
            settings.roster, roster_aside = load_or_recover(state_dir / ROSTER_FILE)
            assert journal is not None
            box = make_box(journal, None, tags_aside, roster_aside)
            box.say("Backup restored", now, seconds=10.0)
            return box

        loop.remake = remake
    if mqtt is not None and root is None:
        loop.mqtt_status = lambda: mqtt_line(loop)
    return App(inbox, parts, journal, loop, transfers, owns_bus=owns_bus)


MQTT_SILENT = "MQTT: the MQTT process has not reported (is gravebox-mqtt running?)"


def mqtt_line(loop: BoxLoop) -> str:
    """The Box page's MQTT line: what the MQTT process last said over the control socket."""
    line = loop.control.mqtt_line if loop.control is not None else None
    return line or MQTT_SILENT


def open_sticks(state_dir: Path | None, simulated: bool) -> tuple[Sticks | None, str]:
    """The USB sticks: udisks2 on a box (reached at the first use: a missing service is then one
    line on the screen); in the simulator folders under the state folder, one stick plugged in."""
    if not simulated:
        return UdisksSticks(), ""
    if state_dir is None:
        return None, "No USB service: the simulator has no state folder"
    sticks = FakeSticks(state_dir / SIM_STICKS)
    sticks.plug(SIM_STICK)
    return sticks, ""
