"""The one loop that owns all state.

Hardware threads (gpiozero's callbacks, the reader threads) only put events in the
inbox; `BoxLoop.process` takes them out, runs the press detector and the Box, plays
sounds and hands the new frame to the display pusher (whose own thread does the slow
I2C push). `run` is the real-time loop of a box and of the `selftest` and `enroll`
commands; the simulator (box/sim/world.py) calls `process` itself on virtual time.

Every message but a button's raw edge goes through the Box's one door, `Box.take`: the
readers' cards and status, a card write's answer, a USB stick job's answer (box/core/tagtransfer.py)
and the phone page's commands (the control socket's thread puts a `ControlCommand` in the
inbox, box/links/control.py; what became of it goes back to the page). After a pass that may have
changed something (a message taken, a deadline due, a new screen, a new event) the loop makes one
state dump for every follower of the socket (the pages, the MQTT process), when one follows; a pass
that changed nothing costs them nothing.

An input's way: gpiozero callback -> `Edge` in the inbox -> `PressDetector` -> `Pressed` ->
`Box.take` -> the screen on top -> `Box.screen` -> `render` -> `FramePusher.submit` -> luma
`display()`.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

from box.core.hardware import Parts
from box.core.service import Box
from box.events import EncodedEvents, OnLoop
from box.games.base import View
from box.links.control import ControlCommand, ControlServer
from box.messages import CardPlaced, Edge, Pressed
from box.parts.phonelink import PhoneLink
from box.ports.buttons import PressDetector
from box.screens.protocol import Card
from box.storage.journal import JournalCorrupted

log = logging.getLogger(__name__)

TRIM_EVERY = 1000  # loop passes between clearing simulated pins' change history
IDLE_WAKE = 5.0  # seconds the loop may sleep with nothing to do (the watchdog pings in between)
FIGURES_EVERY = 5.0  # seconds the subscribers' figures in a state dump may be behind by
PUBLISH_GAP = 0.05  # least seconds between two state dumps for the page; a change in between goes at the gap's end

Inbox = queue.SimpleQueue


class BoxLoop:
    """Feeds inputs to the Box and its answers to the buzzer and the display."""

    def __init__(self, box: Box, parts: Parts, clock: Callable[[], float], inbox: Inbox[Any] | None = None):
        self.box = box
        self.parts = parts
        self.clock = clock
        self.inbox: Inbox[Any] = inbox if inbox is not None else queue.SimpleQueue()
        self.detector = PressDetector()
        self.last_view: View | None = None
        self.shown_at = 0.0  # when last_view went up: the clock of its selected line's marquee
        self.scrolled: tuple[int, ...] | None = None  # where its marquees stood in the last frame (None: at their start)
        self.renders = 0
        self.passes = 0
        self.control: ControlServer | None = None  # the phone page's socket, when it is served
        self.link: PhoneLink | None = None  # the events the page is sent, once it is served
        self.following: OnLoop | None = None  # the phone link's subscription
        self.undo_for: tuple[int, int, int | None] | None = None  # the game's place the undo label was made at
        self.undo: str | None = None
        self.last_tags: dict[str, tuple[str, Card | None]] = {}  # reader -> the last tag laid on it (UID, card), for the Cards page
        self.tags_laid = 0  # tags laid so far: `seen_tags` is made again when it moves
        self.tags_seen: tuple[Any, int, dict[str, dict[str, Any]]] | None = None  # what `seen_tags` was made at, and it
        self.kept_keys: tuple[tuple[Any, ...], dict[str, Any]] | None = None  # `loop_keys`: what they were made of, and them
        self.sound_applied: tuple[str, bool] | None = None
        self.panel_applied: tuple[int, bool] | None = None
        self.publish_gap = PUBLISH_GAP  # 0 where the clock is a script's (box/sim/world.py): every pass
        self.publish_at = 0.0  # the earliest the next state dump may go to the page
        self.publish_due = False  # a change waits for the gap's end
        self.changed = True  # something may have changed since the last state dump
        self.events_seen = 0  # the phone link's count of events when the last dump was made
        self.mqtt_said: str | None = None  # the MQTT line the last dump carried
        self.dumps = 0  # state dumps made for the socket's followers
        self.figures: tuple[float, dict[str, dict[str, int]]] | None = None  # until when the subscribers' figures stand
        self.mqtt_status: Callable[[], str] | None = None  # the MQTT publisher's one line, when there is one
        self.remake: Callable[[float], Box] | None = None  # the Box made anew on a restored state (box/core/app.py)

    def attach_control(self, control: ControlServer) -> None:
        """Publish the state to `control`'s subscribers after each change (its commands come by the inbox),
        with the newest events (the phone link, a subscriber of the box's events)."""
        self.control, self.changed = control, True
        if self.link is None:
            self.link = PhoneLink()
            self.following = self.box.bus.keep_on_loop("phone", self.link)

    def close(self) -> None:
        """The box is closed: the phone link stops following the bus (which may outlive this loop)."""
        if self.following is not None:
            self.box.bus.unsubscribe(self.following)
            self.link = self.following = None

    def enqueue(self, event: Any) -> None:
        """Thread-safe: called from hardware threads with an Edge or a reader event."""
        self.inbox.put(event)

    def process(self, now: float) -> None:
        """Handle everything queued and everything due by `now`, then refresh the outputs."""
        while True:
            try:
                event = self.inbox.get_nowait()
            except queue.Empty:
                break
            self.handle(event, now)
        for press in self.detector.advance(now):
            self.changed = True
            self.box.take(Pressed(press.button, press.kind), now)
        if not self.changed:
            due = self.box.next_deadline(now)
            self.changed = due is not None and due <= now
        self.box.advance(now)
        self.apply_settings()
        for sound in self.box.take_sounds():
            self.parts.buzzer.play(sound, now)
        self.parts.buzzer.advance(now)
        self.refresh(now)
        try:
            self.publish(now)
        except JournalCorrupted as met:  # the undo label's read of the journal met damage: set aside
            self.box.journal_damaged(str(met), now)
        self.passes += 1
        if self.passes % TRIM_EVERY == 0:
            self.parts.forget_pin_history()

    def publish(self, now: float) -> None:
        """The state dump to the socket's followers, once for all of them, made only when someone
        follows and something may have changed since the last one; at most one every `publish_gap`:
        a burst of passes (an input's edges, its reader's answers) costs one dump at once and one at
        the gap's end. Without a follower the change waits for one."""
        if self.control is None or not self.control.subscribed():
            return
        mqtt = self.mqtt_status() if self.mqtt_status is not None else None
        seen = self.link.changes if self.link is not None else 0
        if not (self.changed or mqtt != self.mqtt_said or seen != self.events_seen):
            return
        if now < self.publish_at:
            self.publish_due = True
            return
        self.publish_at, self.publish_due, self.changed = now + self.publish_gap, False, False
        self.mqtt_said, self.events_seen = mqtt, seen
        self.dumps += 1
        own, game = self.box.dump_parts(now)
        moves = {**self.box.count(), "undo": self.undo_label()}  # new with every action
        events = self.link.events() if self.link is not None else EncodedEvents()
        self.control.publish(own, game, moves, self.loop_keys(now, mqtt), events=events)  # sent when changed

    def loop_keys(self, now: float, mqtt: str | None) -> dict[str, Any]:
        """The loop's keys of the state dump that seldom change, the same dict until one does (the
        line then skips them whole: box/links/statelines.py)."""
        keys = (self.seen_tags(), self.subscriber_figures(now), tuple(self.box.set_aside), mqtt)
        if self.kept_keys is None or keys != self.kept_keys[0]:
            tags, figures, aside, mqtt = keys
            self.kept_keys = (keys, {"last_tags": tags, "subscribers": figures, "set_aside": list(aside), "mqtt": mqtt})
        return self.kept_keys[1]

    def subscriber_figures(self, now: float) -> dict[str, dict[str, int]]:
        """The event subscribers' figures for the phone's Box page, read again at most every
        `FIGURES_EVERY` (they grow with every event: a press would otherwise write them anew)."""
        if self.figures is None or now >= self.figures[0]:
            self.figures = (now + FIGURES_EVERY, self.box.bus.stats())
        return self.figures[1]

    def seen_tags(self) -> dict[str, dict[str, Any]]:
        """The last tag on each reader as the box knew it: its UID and the card it is (its record's, else
        the tag map's). A card the game in play keeps secret (a face-down recruit) is only "hidden".
        The same dict until a tag is laid, or another game is in play, or (in a game that keeps a card
        secret) the game moves."""
        session = self.box.session
        at = session if session is None or not session.rules.secrets.kept else session.state
        if self.tags_seen is not None and self.tags_seen[0] is at and self.tags_seen[1] == self.tags_laid:
            return self.tags_seen[2]
        seen: dict[str, dict[str, Any]] = {}
        for reader, (uid, card) in self.last_tags.items():
            hidden = (
                card is not None
                and session is not None
                and card[0] == session.record.name
                and session.rules.secret(session.state, card[1])
            )
            seen[reader] = {"hidden": True} if hidden else {"uid": uid, "card": list(card) if card else None}
        self.tags_seen = (at, self.tags_laid, seen)
        return seen

    def undo_label(self) -> str | None:
        """What the box menu's undo would take back, for a phone to offer; worked out again only when
        the game moved (it may read the journal)."""
        session = self.box.session
        key = None if session is None else (session.record.id, session.count, session.last_seq)
        if key != self.undo_for:
            self.undo_for = key
            self.undo = session.last_action() if session is not None else None
        return self.undo

    def apply_settings(self) -> None:
        """The owner's sound settings to the buzzer, the screen's care (contrast, dim, dark) to
        the panel: only when they change."""
        sound = (self.box.sound.volume, self.box.sound.muted)
        if sound != self.sound_applied:
            self.sound_applied, self.changed = sound, True
            self.parts.buzzer.set_volume(sound[0])
            self.parts.buzzer.set_muted(sound[1])
        panel = self.box.care.panel()
        if panel != self.panel_applied:
            self.panel_applied, self.changed = panel, True
            self.parts.pusher.set_panel(*panel)

    def handle(self, event: Any, now: float) -> None:
        """One message from the inbox: a button's edge goes through the press detector, the rest to the Box."""
        if event is None:  # a wake-up call (a signal asking the loop to stop, a new follower)
            return
        if isinstance(event, Edge):  # what an edge changes shows on the screen or the panel
            self.box.edge(event.button, event.pressed, event.at)
            for press in self.detector.edge(event):
                self.changed = True
                self.box.take(Pressed(press.button, press.kind), now)
            return
        self.changed = True
        if isinstance(event, CardPlaced):
            self.last_tags[event.reader] = (event.uid.hex(), event.card or self.box.tags.lookup(event.uid))
            self.tags_laid += 1
        refused = self.box.take(event, now)
        if self.box.phone.restored is not None and self.remake is not None:  # a phone restored a backup
            self.box, self.last_view = self.remake(now), None  # which resumes the restored game
        if isinstance(event, ControlCommand) and event.reply is not None:  # the page waits for what became of it
            event.reply(refused)

    def refresh(self, now: float) -> None:
        """Render the screen only when it changed; the pusher decides when to push."""
        from box.screens.render import render

        frame = self.box.frame(now)
        if frame is not None:  # a tool's own image: the self-test's patterns, enrolment's progress bar
            self.last_view, self.changed = None, True
            self.parts.pusher.submit(frame)
            return
        view = self.box.screen(now)
        if view != self.last_view:
            self.last_view, self.shown_at, self.changed = view, now, True
            self.scrolled = None  # the frame below shows every marquee at its start
            self.renders += 1
            self.parts.pusher.submit(render(view))
            return
        scrolled = self.marquee(view, now)
        drawn = (0,) * len(scrolled) if self.scrolled is None else self.scrolled
        if scrolled != drawn:  # a scrolling line moved on by a character
            self.scrolled = scrolled
            self.renders += 1
            self.parts.pusher.submit(render(view, now - self.shown_at))

    def marquee(self, view: View, now: float) -> tuple[int, ...]:
        """How far each scrolling text has scrolled; they rest at their start while the screen is dimmed or dark."""
        from box.screens.render import marquee_starts

        resting = self.box.care.dimmed or self.box.care.blank
        return marquee_starts(view, 0.0 if resting else now - self.shown_at)

    def next_deadline(self, now: float) -> float | None:
        deadlines = [self.detector.next_deadline(), self.box.next_deadline(now), self.parts.buzzer.next_deadline()]
        if self.publish_due:
            deadlines.append(self.publish_at)
        view, care = self.last_view, self.box.care
        if view is not None and not (care.dimmed or care.blank):
            from box.screens.render import next_scroll

            wait = next_scroll(view, now - self.shown_at)
            deadlines.append(None if wait is None else now + wait)
        return min((d for d in deadlines if d is not None), default=None)

    def status_line(self) -> str:
        """What `systemctl status gravebox` shows while the box runs: the storage's fault, the game
        in play or the menu."""
        from box.games import TITLES

        if self.box.journal.fault is not None:
            return f"Running, refusing inputs: {self.box.journal.fault.reason}"
        session = self.box.session
        if session is not None:
            return f"Running: {TITLES.get(session.record.name, session.record.name)}, {len(session.players)} players"
        return "Running: the menu"

    def say_status(self, said: str | None) -> str:
        """Send systemd the status line when it changed since `said`; returns the line now."""
        from box.links import sdnotify

        line = self.status_line()
        if line != said:
            sdnotify.status(line)
        return line

    def run(
        self,
        stop: threading.Event,
        on_power_off: Callable[[], None] | None = None,
        until: float | None = None,
        after_pass: Callable[[], None] | None = None,
    ) -> None:
        """The real-time loop: sleep until an event or a deadline, never busy-wait.

        It ends when `stop` is set, at `until` (a clock time), or when the Box's root screen
        closes (a tool command is done); `after_pass` runs after every pass (a command's
        terminal report).
        """
        from box.core.fullcheck import check_after_ready
        from box.links import sdnotify
        from box.ports.display import PusherThread
        from box.ports.nfc.reader import start_readers

        pusher = PusherThread(self.parts.pusher)
        pusher.start()
        watchdog = sdnotify.WatchdogPinger(clock=self.clock)
        self.process(self.clock())
        sdnotify.ready()
        said = self.say_status(None)
        readers = start_readers(self.parts.readers.values(), self.enqueue)  # after READY: they come online alone
        check_after_ready(self.box.journal.path, self.enqueue)  # what grows with the years: after READY, off the loop
        try:
            while not stop.is_set() and not self.box.finished:
                now = self.clock()
                if until is not None and now >= until:
                    break
                deadline = self.next_deadline(now)
                if until is not None:
                    deadline = until if deadline is None else min(deadline, until)
                timeout = IDLE_WAKE if deadline is None else min(IDLE_WAKE, max(0.0, deadline - now))
                due = watchdog.due_in()
                if due is not None:
                    timeout = min(timeout, due)
                try:
                    event = self.inbox.get(timeout=timeout)
                except queue.Empty:
                    event = None
                now = self.clock()
                if event is not None:
                    self.handle(event, now)
                self.process(now)
                if after_pass is not None:
                    after_pass()
                watchdog.tick()
                said = self.say_status(said)
                if self.box.lobby.power_off_requested:
                    if on_power_off is not None:
                        on_power_off()
                    stop.set()
        finally:
            sdnotify.stopping()
            readers.stop()
            pusher.stop()
