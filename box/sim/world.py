"""The whole box on simulated parts, on a virtual clock.

The same code paths as a Pi: button presses drive gpiozero mock pins, taps
lay a card's tag on a simulated PN532 that the real driver polls through
pyserial, and frames go through luma's dummy device. Only time is virtual:
`advance` jumps from one deadline to the next, so a 30-minute game runs in
seconds. This is the one harness for virtual time: the terminal simulator, the script
runner, the `selftest --fake` and `enroll --fake` commands, the tests and the benches.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from box.base.settings import Settings
from box.core.app import assemble
from box.core.fullcheck import check
from box.core.hardware import Parts
from box.core.loop import BoxLoop
from box.core.service import Box
from box.core.tagtransfer import Transfers
from box.decks.codec import Deck, find_card
from box.events import EventBus
from box.games import load_decks
from box.links.control import ControlServer
from box.ports.nfc.simchip import SimChips
from box.screens.protocol import Screen
from box.screens.tools import DiceCup
from box.storage.config import MqttConfig
from box.storage.journal import Journal
from box.storage.pinmap import PinMap, load_pinmap
from box.storage.tags import TagMap

log = logging.getLogger(__name__)

POLL_INTERVAL = 0.05  # the readers' polling period, as on a box
POLL_WINDOW = 3.0  # after a change on a reader, poll it this long (an idle chip has nothing new)
PRESS_SECONDS = 0.1
TAP_SECONDS = 0.3


@runtime_checkable
class Paced(Protocol):
    """A control socket whose follower the box waits for (box/links/mqtt/child.py `PacedControl`)."""

    def all_taken(self) -> bool: ...


@dataclass
class SimulatedBox:
    """A box on fakes. `restart()` is a power cut: everything but the journal and the chips is dropped.

    `root` makes the box run that screen (a tool) instead of the menu.
    """

    state_dir: Path
    decks_dir: Path | None = None
    seed: int | None = None
    names: tuple[str, ...] = ()
    page: str = ""  # the phone page's address, as the box menu's *Phone page* shows it ("": this machine's)
    pinmap: PinMap = field(default_factory=load_pinmap)
    now: float = 0.0
    frames_dir: Path | None = None
    root: Callable[[TagMap], Screen] | None = None
    control: ControlServer | None = None  # the phone page's socket (`gravebox sim --web`), kept across restarts
    bus: EventBus = field(default_factory=EventBus)  # the box's events: subscribers stay across restarts
    mqtt: MqttConfig | None = None  # the events also to this broker (`gravebox sim --mqtt`), across restarts too
    frames_saved: int = 0
    pushes: int = 0
    polling_until: dict[str, float] = field(default_factory=dict)
    next_poll: float = 0.0
    decks: dict[str, Deck] = field(init=False)
    parts: Parts = field(init=False)
    loop: BoxLoop = field(init=False)
    journal: Journal = field(init=False)
    chips: SimChips = field(init=False)
    transfers: Transfers = field(init=False)  # the USB sticks' worker: `transfers.sticks` are folders under state_dir/usb
    last_frame: bytes = b""

    def __post_init__(self) -> None:
        from box.ports.nfc.simchip import SimChips

        self.chips = SimChips()  # a new world: no card lies on any reader; they outlive a power cut
        self.decks = load_decks(self.decks_dir)
        self.boot()

    def clock(self) -> float:
        return self.now

    @property
    def box(self) -> Box:
        """The Box the loop runs (made anew when a phone restores a backup)."""
        return self.loop.box

    def boot(self, dice: DiceCup | None = None) -> None:
        if dice is None:
            dice = DiceCup.seeded(self.seed) if self.seed is not None else DiceCup()
        settings = Settings(names=self.names, decks_dir=self.decks_dir, page=self.page)
        app = assemble(
            self.pinmap,
            self.clock,
            settings,
            self.state_dir,
            simulated=True,
            dice=dice,
            decks=dict(self.decks),
            root=self.root,
            chips=self.chips,
            bus=self.bus,
            mqtt=self.mqtt,
        )
        self.parts, self.loop, self.journal = app.parts, app.loop, app.journal
        self.loop.publish_gap = 0.0  # the clock stands between a script's steps: each pass's state goes out
        self.transfers = app.transfers
        if self.control is not None:
            self.control.enqueue = self.loop.enqueue
            self.loop.attach_control(self.control)
        for name in self.parts.readers:
            self.polling_until[name] = self.now + POLL_WINDOW
        self.next_poll = self.now  # the readers are polled as the box starts, as on a Pi
        self.advance(0.0)
        if self.journal.path != ":memory:":  # after READY, as on a box: here at once, its finding in the inbox
            check(Path(self.journal.path), self.loop.enqueue)

    def restart(self) -> None:
        """A power cut and a boot: the process state is gone, the journal stays.

        The dice cup (its seeded generator and the script's queued throws) is the
        table's, not the box's: it carries on, so a seeded run throws the same
        dice with or without power cuts.
        """
        dice = self.box.dice
        if isinstance(self.control, Paced):  # `gravebox sim --mqtt`: on virtual time the MQTT process
            self.bus.flush()  # takes the events out before the cut (a box's would have had the time)
            self.advance(0.0)
            self.control.all_taken()
        self.close()
        self.boot(dice)

    def close(self) -> None:
        """A power cut: the box's process gone; the bus and its subscribers outlive it."""
        self.loop.close()
        self.parts.close()
        self.journal.close()

    def end(self, wait: float = 30.0) -> None:
        """The simulator is done: the box closed, then the USB worker and the subscribers (the
        history) finished, so nothing writes in the state folder any more (it may be removed)."""
        self.close()
        self.transfers.join(wait)
        self.bus.close(wait)

    # ----- physical inputs ---------------------------------------------------------------

    def pin(self, button: str) -> Any:
        if button not in self.pinmap.buttons:
            raise ValueError(f"unknown button {button!r}; buttons are {', '.join(self.pinmap.buttons)}")
        return self.parts.mock_factory.pin(self.pinmap.buttons[button])

    def press(self, button: str, seconds: float = PRESS_SECONDS) -> None:
        pin = self.pin(button)
        pin.drive_low()
        self.advance(seconds)
        pin.drive_high()
        self.advance(PRESS_SECONDS)

    def chip(self, reader: str) -> Any:
        if reader not in self.pinmap.readers:
            raise ValueError(f"unknown reader {reader!r}; readers are {', '.join(self.pinmap.readers)}")
        self.polling_until[reader] = self.now + POLL_WINDOW
        return self.chips.chip(reader)

    def uid_for(self, card: str) -> bytes:
        """The tag of a card named by id, name or a word of it: the running game's deck first, then the others."""
        games = list(self.decks)
        if self.box.session is not None:
            games.remove(self.box.session.record.name)
            games.insert(0, self.box.session.record.name)
        deck, card_id = find_card((self.decks[game] for game in games), card)
        uid = self.box.tags.uid_of(deck.game, card_id)
        assert uid is not None
        return uid

    def put(self, reader: str, uid: bytes) -> None:
        """Lay a tag on a reader: a card of the simulator's decks is an NTAG213 carrying its record."""
        from box.ports.nfc.simchip import SimNtag

        card = self.box.tags.lookup(uid) if len(uid) == 7 else None
        card = card if card is not None and card[0] in self.decks else None  # player tokens stay bare
        self.chip(reader).place(SimNtag(uid, card=card) if card is not None else uid)
        self.advance(TAP_SECONDS)

    def lift(self, reader: str) -> None:
        self.chip(reader).lift()
        self.advance(TAP_SECONDS)

    # ----- time ----------------------------------------------------------------------------

    def advance(self, seconds: float) -> None:
        """Let `seconds` of virtual time pass, stopping at every deadline on the way."""
        target = self.now + seconds
        while True:
            if self.polling() and self.now >= self.next_poll:
                self.poll_readers()
            self.loop.process(self.now)
            self.push_frames()
            if self.now >= target:
                return
            candidates = [target, self.loop.next_deadline(self.now), self.parts.pusher.next_deadline()]
            if self.polling():
                candidates.append(self.next_poll)
            self.now = min(t for t in candidates if t is not None and t > self.now)

    def polling(self) -> bool:
        """Whether any reader is in its polling window (an untouched chip has nothing new to say)."""
        return any(until > self.now for until in self.polling_until.values())

    def poll_readers(self) -> None:
        for name, reader in self.parts.readers.items():
            if self.polling_until.get(name, 0.0) > self.now:
                for event in reader.poll(self.now):
                    self.loop.enqueue(event)
        self.next_poll = self.now + POLL_INTERVAL

    def push_frames(self) -> None:
        if self.parts.pusher.push_due(self.now):
            self.pushes += 1
            if self.frames_dir is not None:
                image = self.parts.display.image
                data = image.tobytes()
                if data != self.last_frame:
                    self.last_frame = data
                    self.frames_saved += 1
                    self.frames_dir.mkdir(parents=True, exist_ok=True)
                    image.save(self.frames_dir / f"frame-{self.frames_saved:05d}.png")

    def dump(self) -> dict[str, Any]:
        return self.box.dump(self.now)
