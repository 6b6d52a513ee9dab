"""The tag map on a USB stick: save the whole map to a stick, or load a second box's from one; or
save the whole box there (the file `gravebox backup` writes, box/storage/backup.py).

One part of the Box (box/core/service.py). The main menu's *USB stick* opens its picker; a job runs
on the stick's worker, off the loop (box/core/tagtransfer.py), and its answer, `TagsMoved`, comes
back through the inbox to `moved`. A load that would change tags asks first.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING, NamedTuple

from box.screens.menu import Confirm, Picker
from box.storage.tags import TAGS_FILE, TagMap, replaced_by
from box.words import Sound

if TYPE_CHECKING:
    from box.base.settings import Settings
    from box.decks.codec import Deck
    from box.screens.protocol import Host

log = logging.getLogger(__name__)

SAVE, LOAD, KEEP, BACKUP = "save", "load", "keep", "backup"
BUSY = {SAVE: "Saving to USB…", LOAD: "Reading USB…", KEEP: "Keeping the tags…", BACKUP: "Saving the box to USB…"}
"""What the screen says while a job runs: SAVE to a stick, LOAD from one, KEEP a loaded map as the
box's, BACKUP the whole box to a stick."""


class TagsMoved(NamedTuple):
    """A stick job's answer, posted into the loop's inbox for the Box (the Box's one door)."""

    job: str
    """SAVE, LOAD, KEEP or BACKUP."""
    answer: str
    """One line for the screen."""
    ok: bool = True
    """False: nothing was saved or read (the answer says why)."""
    imported: TagMap | None = None
    """LOAD: the stick's tags, checked in full against the decks (None: nothing to change)."""
    merged: TagMap | None = None
    """LOAD: `base` with the stick's tags merged over it: the map to swap in (made off the loop)."""
    replaced: int = 0
    """LOAD: how many tags of `base` the import changes or drops (made-up simulator tags aside)."""
    base: Mapping[bytes, tuple[str, str]] | None = None
    """LOAD: the box's tags when the job started, which `merged` was made over: if the box's tags
    are no longer these (a tag enrolled meanwhile), merge `imported` over them instead."""


class TagsProgress(NamedTuple):
    """A stick job's progress, posted by its worker: what the screen says meanwhile ("Checking 35000 tags…")."""

    job: str
    doing: str


Transfer = Callable[[str, TagMap, Mapping[str, "Deck"]], None]
"""Starts a stick job off the loop (box/core/tagtransfer.py `Transfers.start`); its answer comes as `TagsMoved`."""


class StickJobs:
    """The stick's picker, the job under way (said on the bottom line) and its answer."""

    def __init__(
        self,
        tags: TagMap,
        settings: Settings,
        decks: Callable[[], dict[str, Deck]],
        transfer: Transfer | None,
        host: Host,
        wake: Callable[[float], object],
    ):
        """`wake`: a job's answer is news, shown on a woken screen."""
        self.tags, self.settings, self.decks, self.transfer, self.host = tags, settings, decks, transfer, host
        self.wake = wake
        self.busy = ""  # while a job runs: what the screen says

    def open(self, now: float) -> None:
        """Save the whole tag map to a stick, load one from it (a second box's cards), or save the whole box."""
        if self.busy:
            self.host.say(f"Busy: {self.busy}", now)
            return
        actions = (partial(self.start, SAVE), partial(self.start, LOAD), partial(self.start, BACKUP), None)
        labels = ("Save tags to USB", "Load tags from USB", "Save box to USB", "Back")
        self.host.push(Picker("usb", "USB stick", labels, actions))

    def start(self, job: str, now: float) -> None:
        """Hand a save or a load to the worker; the screen says so until its answer comes."""
        if self.busy:
            self.host.say(f"Busy: {self.busy}", now)
            return
        if self.transfer is None:
            self.host.reject("No USB service on this box", now)
            return
        try:
            tags = self.tags.enrolled() if job == SAVE else self.tags  # the simulator's made-up tags stay here
            self.transfer(job, tags, self.decks())  # it copies them; the import is checked against the decks
        except RuntimeError as problem:  # no thread to be had
            log.error("USB %s not started: %s", job, problem)
            self.host.reject(f"USB failed: {problem}", now)
            return
        self.busy = BUSY[job]
        self.host.say(self.busy, now)

    def progress(self, progress: TagsProgress, now: float) -> None:
        """What the job under way is doing now, said on the bottom line until its answer."""
        self.busy = progress.doing

    def moved(self, result: TagsMoved, now: float) -> None:
        """A job's answer: said; a load's tags replace the map's after a question, if any would change."""
        self.busy = ""
        self.wake(now)
        if result.job == KEEP:
            self.kept(result, now)
            return
        if result.imported is None:
            if not result.ok:
                self.host.reject(result.answer, now)
            else:
                self.host.say(result.answer, now)
                self.host.play(Sound.RIGHT)
            return
        unchanged = result.merged is not None and result.base == self.tags.cards  # as the worker merged them
        replaced = result.replaced if unchanged else replaced_by(self.tags.cards, self.merged(result).cards)
        apply = partial(self.take, result)
        if replaced:
            self.host.push(Confirm(f"Replace {replaced} tag{'s' if replaced != 1 else ''}?", apply))
            self.host.say(result.answer, now)
        else:
            apply(now)

    def merged(self, result: TagsMoved) -> TagMap:
        """The map a load's answer brings: merged off the loop, unless the tags changed meanwhile."""
        if result.merged is not None and result.base == self.tags.cards:
            return result.merged
        merged = TagMap(self.tags.cards)
        merged.merge(result.imported or TagMap())
        return merged

    def take(self, result: TagsMoved, now: float) -> None:
        """Swap in the stick's tags merged over the map; the worker writes them to tags.csv (KEEP), however many."""
        merged = self.merged(result)
        if self.transfer is None and self.settings.state_dir is not None:  # no worker: written here
            try:
                merged.save(self.settings.state_dir / TAGS_FILE)
            except (OSError, ValueError) as problem:  # ValueError: a map its own reader would refuse
                log.error("imported tag map not saved: %s", problem)
                self.host.reject(f"Not saved: {getattr(problem, 'strerror', None) or problem}", now)
                return
        self.tags.cards.clear()  # the same map object: the screens that hold it see the new tags
        self.tags.cards.update(merged.cards)
        self.host.say(result.answer, now)
        self.host.play(Sound.RIGHT)
        if self.transfer is not None:
            self.transfer(KEEP, merged, {})
            self.busy = BUSY[KEEP]

    def kept(self, result: TagsMoved, now: float) -> None:
        """The worker wrote the map it was given (quietly: the load was said already); a tag enrolled
        meanwhile is written too (here, rarely)."""
        if not result.ok:
            log.error("loaded tags not kept: %s", result.answer)
            self.host.reject(f"{result.answer}: the tags work until a restart", now)
            return
        if result.merged is not None and result.merged.cards != self.tags.cards and self.settings.state_dir:
            try:
                self.tags.save(self.settings.state_dir / TAGS_FILE)
            except (OSError, ValueError) as problem:
                log.error("tag map not saved: %s", problem)
                self.host.reject(f"Not saved: {getattr(problem, 'strerror', None) or problem}", now)
                return
        log.info("%s", result.answer)
