"""The right date without a network: the box's wall clock (box/base/wallclock.py) on a fake
unsynchronised clock, a paired phone giving the box its time, the journal and the history keeping
which clock a date came from, and the Box page saying where the time comes from."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from box.base.wallclock import NETWORK, PHONE, RECHECK, STAMP, UNSYNCHRONISED, WallClock, system_synchronised
from box.links.control import ControlCommand
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.history import HISTORY_FILE, read
from box.storage.roster import DATED, STARTED

STALE = 1_764_000_000.0  # the clock a Pi resumed from: the last time it saved it (late November 2025)
PHONE_MS = 1_780_000_000_000  # what the phone says it is


class Fake:
    """A system clock that says whether it is synchronised, and a monotonic one."""

    def __init__(self, synced: bool = False) -> None:
        self.synced, self.wall, self.mono, self.looks = synced, STALE, 0.0, 0

    def synchronised(self) -> bool:
        self.looks += 1
        return self.synced

    def clock(self) -> WallClock:
        return WallClock(self.synchronised, lambda: self.wall, lambda: self.mono)


def test_an_unsynchronised_clock_takes_the_phones_time_and_goes_on_with_it() -> None:
    fake = Fake()
    clock = fake.clock()
    assert clock.source() == UNSYNCHRONISED and clock.now() == STALE
    assert clock.set_from_phone(PHONE_MS)
    assert clock.source() == PHONE and clock.now() == PHONE_MS / 1000
    fake.wall += 90.0  # the system clock ticks on: so does the phone's time
    assert clock.now() == PHONE_MS / 1000 + 90.0
    assert clock.stamp() == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(PHONE_MS / 1000 + 90.0))


def test_the_networks_time_wins_and_is_looked_at_once_a_minute() -> None:
    fake = Fake()
    clock = fake.clock()
    clock.set_from_phone(PHONE_MS)
    fake.synced = True
    assert clock.source() == PHONE  # not looked at again yet
    fake.mono += RECHECK
    assert clock.source() == NETWORK and clock.now() == STALE  # the system's own, synchronised
    assert not clock.set_from_phone(PHONE_MS) and clock.now() == STALE
    looks = fake.looks
    for _ in range(100):
        clock.source()
    assert fake.looks == looks  # every frame's dump asks: the system is asked once a minute


@pytest.mark.parametrize("ms", [True, "1780000000000", 1.78e12, 0, 999_999_999_999, 10**16])
def test_no_phone_has_such_a_time(ms: object) -> None:
    with pytest.raises(ValueError, match="not a phone's time"):
        Fake().clock().set_from_phone(ms)  # type: ignore[arg-type]


def test_the_system_says_it_is_synchronised_by_timesyncds_flag(tmp_path: Path) -> None:
    flag = tmp_path / "synchronized"
    flag.touch()
    assert system_synchronised(flag) is True
    assert system_synchronised(tmp_path / "none") in (True, False)  # the kernel's answer, whatever it is here


def test_a_game_played_at_a_friends_house_is_dated_by_the_phone(tmp_path: Path) -> None:
    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    world.box.settings.clock = Fake().clock()
    runner = ScriptRunner(world, "friend")
    phone_said = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(PHONE_MS / 1000))
    try:
        assert world.dump()["clock"] == UNSYNCHRONISED
        runner.run(parse_script("start dead-set names=Ann,Bob", runner.path))  # before any phone came
        assert world.box.session is not None
        first = world.box.session.record.id
        assert world.journal.get(f"{STARTED}{first}") == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(STALE))
        assert world.journal.get(f"{DATED}{first}") == UNSYNCHRONISED
        answers: list[str] = []
        world.loop.enqueue(ControlCommand("phone-time", {"ms": 5}, reply=answers.append))
        world.advance(0.05)
        assert answers == ["not a phone's time"] and world.dump()["clock"] == UNSYNCHRONISED
        world.loop.enqueue(ControlCommand("phone-time", {"ms": PHONE_MS}, reply=answers.append))
        world.advance(0.05)
        assert answers[-1] == "" and world.dump()["clock"] == PHONE
        # the game already started is dated again by the phone's clock: History, Stats and the exports read it
        assert world.journal.get(f"{STARTED}{first}") == phone_said and world.journal.get(f"{DATED}{first}") == PHONE
        runner.run(parse_script("hold back 1.2\npress down\npress ok\npress ok", runner.path))  # abandoned
        runner.run(parse_script("start dead-set names=Ann,Bob", runner.path))
        assert world.box.session is not None and world.box.session.record.id != first
        second = world.box.session.record.id
        assert world.journal.get(f"{STARTED}{second}") == phone_said and world.journal.get(f"{DATED}{second}") == PHONE
    finally:
        world.close()


def test_the_history_keeps_which_clock_dated_a_game(tmp_path: Path) -> None:
    from box.events import GameOver
    from box.storage.history import History

    fake = Fake()
    clock = fake.clock()
    clock.set_from_phone(PHONE_MS)
    history = History(tmp_path / HISTORY_FILE, clock.stamp, source=clock.source)
    history(GameOver("dead-set", "Dead Set", ("Ann", "Bob"), ("Ann",), {}, 3, 40))
    (played,) = read(tmp_path / HISTORY_FILE)
    assert played.clock == PHONE and played.ended == time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(PHONE_MS / 1000))


def told(rig, state: dict) -> None:
    """The fake box publishes `state`; the page has heard it."""
    import asyncio

    link = rig.app.state.link
    rig.box.publish(state)

    async def heard() -> None:
        while link.state != state:
            await asyncio.wait_for(link.changed.wait(), 5)

    rig.client.portal.call(heard)


def test_a_paired_phone_gives_the_box_its_time_and_the_box_page_says_where_it_comes_from(tmp_path: Path) -> None:
    from tests.test_web import ORIGIN, Rig, csrf_of, text

    state = tmp_path / "state"
    state.mkdir()
    rig = Rig(state, tmp_path / "run")
    rig.box.start()
    try:
        with rig.client:
            told(rig, {"clock": UNSYNCHRONISED})
            page = rig.client.get("/box")
            assert "clock.js" not in page.text  # an unpaired phone sends nothing
            assert "not synchronised: the box dates games by its own clock" in text(page)
            rig.pair()
            told(rig, {"clock": UNSYNCHRONISED})
            page = rig.client.get("/box").text
            assert '<script src="/static/clock.js?v=' in page
            token = csrf_of(page.replace("data-csrf", 'name="csrf" value'))
            reply = rig.client.post("/clock", data={"csrf": token, "ms": str(PHONE_MS)}, headers=ORIGIN)
            assert reply.status_code == 200, reply.text
            assert [c for c in rig.commands() if c.name == "phone-time"] == [ControlCommand("phone-time", {"ms": PHONE_MS})]
            assert rig.client.post("/clock", data={"csrf": token, "ms": "soon"}, headers=ORIGIN).status_code == 400
            other = {"Origin": "http://evil.example"}
            assert rig.client.post("/clock", data={"csrf": token, "ms": str(PHONE_MS)}, headers=other).status_code == 403
            assert not [c for c in rig.commands() if c.name == "phone-time"]
            told(rig, {"clock": PHONE})
            page = rig.client.get("/box").text
            assert "from a paired phone" in text(rig.client.get("/box")) and "clock.js" not in page
    finally:
        rig.box.stop()


@pytest.mark.parametrize("synced", [True, False])
def test_a_game_keeps_its_seats_and_table_whichever_clock_dates_it(tmp_path: Path, synced: bool) -> None:
    from box.storage.player_ids import SEATS

    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    world.box.settings.clock = Fake(synced=synced).clock()
    runner = ScriptRunner(world, "seats")
    try:
        runner.run(parse_script("start dead-set names=Ann,Bob", runner.path))
        assert world.box.session is not None
        number = world.box.session.record.id
        assert world.journal.get(f"{DATED}{number}") == (NETWORK if synced else UNSYNCHRONISED)
        assert len(world.journal.get(f"{SEATS}{number}")) == 2  # who sat where: the page's history and stats
        assert world.journal.get("table.dead-set")["names"] == ["Ann", "Bob"]  # the next setup offers the same table
    finally:
        world.close()


def test_a_game_ended_before_the_phone_came_is_dated_again_in_the_history_and_the_exports(tmp_path: Path) -> None:
    """The history's line (written by the box's unsynchronised clock as the game ended), the journal's
    start and end, the page's History (a summary it already kept, too) and the BG Stats play all
    follow the phone's time; a line from before this start is left byte for byte."""
    from box.storage.history import Played, append
    from box.storage.roster import ENDED
    from box.web.exports import bgstats_play
    from box.web.journal_view import JournalView

    script = Path(__file__).parent / "scenarios" / "dead-set" / "win-mid-scoring.script"
    state = tmp_path / "state"
    state.mkdir()
    older = Played(7, "dead-set", "Dead Set", ("Cid", "Dee"), ("Cid",), {}, "2025-01-01 20:00", 9, (), clock=UNSYNCHRONISED)
    append(state / HISTORY_FILE, older)  # a night at a friend's long ago, no phone then: its offset unknown
    kept_line = (state / HISTORY_FILE).read_bytes()
    world = SimulatedBox(state_dir=state, decks_dir=script.parent / "decks", seed=1)
    fake = Fake()
    clock = world.box.settings.clock  # the box's own clock, which its history reads too: made a fake one
    clock.synchronised, clock.system, clock.monotonic = fake.synchronised, lambda: fake.wall, lambda: fake.mono
    clock._checked = None
    stale = time.strftime(STAMP, time.localtime(STALE))
    phone_said = time.strftime(STAMP, time.localtime(PHONE_MS / 1000))
    try:
        runner = ScriptRunner(world, "friend")
        commands = parse_script(script.read_text(), script.stem)
        runner.run(commands[: next(i for i, c in enumerate(commands) if c.verb == "expect" and "winners" in c.words) + 1])
        runner.run(parse_script("hold back 1.2\npress down\npress ok\npress ok", runner.path))  # closed: finished
        assert world.box.session is None and world.bus.flush()
        *_, line = read(state / HISTORY_FILE)
        number = line.number
        assert (line.ended, line.clock) == (stale, UNSYNCHRONISED)
        assert world.journal.get(f"{STARTED}{number}") == world.journal.get(f"{ENDED}{number}") == stale
        view = JournalView(state / "journal.db", (script.parent / "decks",), played=state / HISTORY_FILE)
        (seen,) = [game for game in view.history()[0] if game.id == number]
        assert seen.ended == stale  # the page keeps this summary from now on

        answers: list[str] = []
        world.loop.enqueue(ControlCommand("phone-time", {"ms": PHONE_MS}, reply=answers.append))
        world.advance(0.05)
        assert answers == [""] and world.bus.flush()
        assert world.journal.get(f"{STARTED}{number}") == world.journal.get(f"{ENDED}{number}") == phone_said
        first, *_, line = read(state / HISTORY_FILE)
        assert (line.number, line.ended, line.clock) == (number, phone_said, PHONE)
        assert first == older and (state / HISTORY_FILE).read_bytes().startswith(kept_line)
        (seen,) = [game for game in view.history()[0] if game.id == number]
        assert (seen.started, seen.ended) == (phone_said, phone_said)
        play = bgstats_play(seen, "Dead Set", "gravebox")
        assert play["playDate"] == phone_said and play["durationMin"] == 0
    finally:
        world.close()
