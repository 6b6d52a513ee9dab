"""The phone page at the request level: what it shows, and every refusal of a write."""

from __future__ import annotations

import asyncio
import html
import logging
import queue
import re
import shutil
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.testclient import TestClient

from box.games import GAMES, rules_for
from box.links.control import ControlCommand, ControlServer
from box.sim.script import run_script
from box.storage.roster import ROSTER_FILE, load_roster
from box.storage.tags import TAGS_FILE, TagMap
from box.web.app import WebSettings, create_app

SCENARIOS = Path(__file__).parent / "scenarios"
ORIGIN = {"Origin": "http://testserver"}
HOSTS = ("testserver",)  # the test client's Host: a name the page is told it answers to


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state directory with a finished Dead Set game and a Deadlines game played to its end."""
    state = tmp_path_factory.mktemp("played")
    for game, script in (("dead-set", "win-mid-scoring"), ("deadlines", "classic")):
        world, _ = run_script(SCENARIOS / game / f"{script}.script", state, SCENARIOS / game / "decks", seed=1)
        assert world.bus.flush()  # the box's history has written every game that ended
        world.close()
    return state


@pytest.fixture
def state_dir(played: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "state"
    shutil.copytree(played, copy)
    return copy


class Rig:
    """The page with a fake box on its control socket: commands land in `inbox`."""

    def __init__(self, state_dir: Path, runtime: Path, open_reading: bool = True):
        self.inbox: queue.SimpleQueue[ControlCommand | None] = queue.SimpleQueue()
        self.box = ControlServer(runtime / "control.sock", self.inbox.put)
        self.clock = FakeClock()
        self.settings = WebSettings(state_dir=state_dir, control=self.box.path, open_reading=open_reading, hosts=HOSTS)
        self.app = create_app(self.settings, clock=self.clock)
        self.client = TestClient(self.app, base_url="http://testserver")

    def commands(self) -> list[ControlCommand]:
        found = []
        while not self.inbox.empty():
            command = self.inbox.get()
            if command is not None:  # a wake-up from the page's subscription
                found.append(command)
        return found

    def until_online(self) -> None:
        link = self.app.state.link

        async def wait() -> None:
            while not link.online:
                await asyncio.wait_for(link.changed.wait(), 5)

        self.client.portal.call(wait)

    def box_asks(self) -> None:
        """Someone at the box chose *Pair a phone*: its state says so, and the page hears it."""
        link = self.app.state.link
        self.box.publish({"pairing": "asked"})

        async def wait() -> None:
            while (link.state or {}).get("pairing") != "asked":
                await asyncio.wait_for(link.changed.wait(), 5)

        self.client.portal.call(wait)

    def pair(self) -> str:
        """Ask for a code, read it off the "OLED" (the show-code command), type it; the form token."""
        self.box_asks()
        assert self.client.post("/pair/code", headers=ORIGIN).status_code == 200
        shown = [c for c in self.commands() if c.name == "show-code"]
        assert len(shown) == 1
        reply = self.client.post("/pair", data={"code": shown[0].args["code"]}, headers=ORIGIN, follow_redirects=False)
        assert reply.status_code == 303
        assert self.commands() == [ControlCommand("hide-code")]
        return csrf_of(self.client.get("/pair").text)


def csrf_of(page: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page)
    assert found, page
    return found[1]


def text(reply) -> str:
    return html.unescape(reply.text)


@pytest.fixture
def rig(state_dir: Path, tmp_path: Path):
    rig = Rig(state_dir, tmp_path / "run")
    rig.box.start()
    with rig.client:
        yield rig
    rig.box.stop()


def test_reading_pages_show_the_journal_when_the_box_is_not_running(state_dir: Path, tmp_path: Path) -> None:
    with TestClient(create_app(WebSettings(state_dir=state_dir, control=tmp_path / "none.sock", hosts=HOSTS))) as client:
        now = client.get("/")
        assert now.status_code == 200 and "The box is not running" in text(now)
        assert "Deadlines" in text(now) and "penalties" in text(now)
        assert "Life span" in text(now) and 'class="timelines"' in now.text  # the game's declared picture
        state = client.get("/api/state")
        assert state.headers["X-Gravebox-Source"] == "journal"
        assert state.json()["game"] == "deadlines" and state.json()["over"] is True
        history = client.get("/history").text
        assert "Dead Set" in history and "Deadlines" in history and "Winner" in history
        ann = client.get("/players/Ann")
        assert ann.status_code == 200 and "2 games" in text(ann)
        assert client.get("/players/Nobody").status_code == 404
        for page in ("/roster", "/cards", "/box", "/pair"):
            assert client.get(page).status_code == 200, page


def test_history_gives_each_game_its_figures(rig: Rig) -> None:
    games, _ = rig.app.state.view.history()
    by_name = {g.name: g for g in games}
    deadlines, dead_set = by_name["deadlines"], by_name["dead-set"]
    assert deadlines.over and deadlines.winners and set(deadlines.figures["Ann"]) == {figure.key for figure in deadlines.declared} >= {"penalties"}
    assert dead_set.finished and set(dead_set.figures["Ann"]) == {"celebrities", "busts"}
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", deadlines.started or "")  # the date the box noted at its start
    assert deadlines.started[:16] in text(rig.client.get("/history"))
    assert dead_set.winners == ("Ann",) or dead_set.winners == ("Bob",)


def test_api_state_comes_from_the_box_when_it_runs(rig: Rig) -> None:
    rig.box.publish({"game": None, "players": [], "screen": "menu", "timer": {"state": "idle", "best_chug": None}})
    rig.until_online()
    reply = rig.client.get("/api/state")
    assert reply.headers["X-Gravebox-Source"] == "box" and reply.json()["screen"] == "menu"
    assert "The box is not running" not in rig.client.get("/").text


def test_a_write_without_a_paired_phone_is_refused(rig: Rig) -> None:
    reply = rig.client.post("/roster", data={"names": "Ann\nBob", "csrf": "0" * 64}, headers=ORIGIN)
    assert reply.status_code == 403 and "Pair this phone first" in text(reply)
    assert not (rig.settings.state_dir / ROSTER_FILE).exists()
    assert rig.commands() == []


def test_a_wrong_code_pairs_nothing_and_tries_are_limited(rig: Rig) -> None:
    rig.box_asks()
    assert rig.client.post("/pair/code", headers=ORIGIN).status_code == 200
    code = rig.commands()[0].args["code"]
    wrong = "000000" if code != "000000" else "111111"
    reply = rig.client.post("/pair", data={"code": wrong}, headers=ORIGIN, follow_redirects=False)
    assert reply.status_code == 403 and "Wrong code" in text(reply) and "set-cookie" not in reply.headers
    for _ in range(3):
        rig.client.post("/pair", data={"code": wrong}, headers=ORIGIN)
    # the fifth try is allowed but the code dies after five wrong ones; the sixth is over the limit
    assert rig.client.post("/pair", data={"code": wrong}, headers=ORIGIN).status_code == 403
    assert rig.client.post("/pair", data={"code": code}, headers=ORIGIN).status_code == 429
    rig.clock.now += 61
    assert rig.client.post("/pair", data={"code": code}, headers=ORIGIN).status_code == 400  # the code is gone


def test_a_code_expires(rig: Rig) -> None:
    rig.box_asks()
    rig.client.post("/pair/code", headers=ORIGIN)
    code = rig.commands()[0].args["code"]
    rig.clock.now += 121
    reply = rig.client.post("/pair", data={"code": code}, headers=ORIGIN)
    assert reply.status_code == 400 and "No code is showing" in text(reply)


def test_pairing_gives_a_strict_http_only_cookie_and_the_roster_can_be_saved(rig: Rig) -> None:
    rig.box_asks()
    rig.client.post("/pair/code", headers=ORIGIN)
    code = rig.commands()[0].args["code"]
    reply = rig.client.post("/pair", data={"code": code}, headers=ORIGIN, follow_redirects=False)
    cookie = reply.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    assert rig.commands() == [ControlCommand("hide-code")]
    paired = rig.client.get("/roster")
    assert paired.headers["cache-control"] == "no-store"  # the page holds this phone's form token
    token = csrf_of(paired.text)
    form = {"names": "Ann\n Bob \n\nCid", "opt.dead-set.target": "", "csrf": token}
    reply = rig.client.post("/roster", data=form, headers=ORIGIN)
    assert reply.status_code == 200 and "Saved" in text(reply)
    assert load_roster(rig.settings.state_dir / ROSTER_FILE).names == ("Ann", "Bob", "Cid")
    assert rig.commands() == [ControlCommand("roster-changed")]
    bad = rig.client.post("/roster", data={"names": "Ann\nann", "csrf": token}, headers=ORIGIN)
    assert bad.status_code == 400 and "'ann' is there twice" in text(bad)
    assert load_roster(rig.settings.state_dir / ROSTER_FILE).names == ("Ann", "Bob", "Cid")


def test_a_forged_origin_or_a_missing_form_token_is_refused_even_when_paired(rig: Rig) -> None:
    token = rig.pair()
    for headers in ({"Origin": "http://evil.example"}, {}, {"Referer": "http://evil.example/roster"}):
        reply = rig.client.post("/roster", data={"names": "Mallory", "csrf": token}, headers=headers)
        assert reply.status_code == 403 and "did not come from this box's page" in text(reply), headers
    reply = rig.client.post("/roster", data={"names": "Mallory"}, headers=ORIGIN)
    assert reply.status_code == 403 and "stale" in text(reply)
    assert not (rig.settings.state_dir / ROSTER_FILE).exists()
    forged_pair = rig.client.post("/pair/code", headers={"Origin": "http://evil.example"})
    assert forged_pair.status_code == 403


def test_an_oversized_upload_is_refused_before_it_is_read(rig: Rig) -> None:
    token = rig.pair()
    before = (
        (rig.settings.state_dir / TAGS_FILE).read_bytes() if (rig.settings.state_dir / TAGS_FILE).exists() else None
    )
    big = b"uid,game,card\n" + b"04a1b2c3d4e5f6,dead-set,ds001\n" * 10_000
    reply = rig.client.post(
        "/cards/restore", data={"csrf": token}, files={"file": ("big.csv", big, "text/csv")}, headers=ORIGIN
    )
    assert reply.status_code == 413
    after = (rig.settings.state_dir / TAGS_FILE).read_bytes() if (rig.settings.state_dir / TAGS_FILE).exists() else None
    assert after == before


def test_a_tag_map_is_restored_whole_or_not_at_all(rig: Rig) -> None:
    token = rig.pair()
    path = rig.settings.state_dir / TAGS_FILE
    TagMap({bytes.fromhex("04000000000001"): ("dead-set", "ds001")}).save(path)
    before = path.read_bytes()
    bad = b"uid,game,card\n04aa000000000a,deadlines,dl001\n04aa000000000b,dead-set,zz\n"
    reply = rig.client.post(
        "/cards/restore", data={"csrf": token}, files={"file": ("backup.csv", bad, "text/csv")}, headers=ORIGIN
    )
    assert reply.status_code == 400
    assert "Not restored: backup.csv:3: card: no card 'zz' in the dead-set deck" in text(reply)
    assert path.read_bytes() == before and rig.commands() == []
    good = b"uid,game,card\n04aa000000000a,deadlines,dl001\n04aa000000000b,player,Ann\n"
    reply = rig.client.post(
        "/cards/restore", data={"csrf": token}, files={"file": ("backup.csv", good, "text/csv")}, headers=ORIGIN
    )
    assert reply.status_code == 200 and "Restored 2 tags" in text(reply)
    assert TagMap.load(path).cards == {
        bytes.fromhex("04aa000000000a"): ("deadlines", "dl001"),
        bytes.fromhex("04aa000000000b"): ("player", "Ann"),
    }
    assert rig.commands() == [ControlCommand("tags-changed")]
    assert rig.client.get("/cards/tags.csv").content == path.read_bytes()


def test_a_deck_upload_gets_the_command_lines_one_line_error(rig: Rig) -> None:
    token = rig.pair()
    bad = b"id,name,age\nds1,Ada Lovelace,36\nds2,Alan Turing,old\n"
    reply = rig.client.post(
        "/cards/deck",
        data={"csrf": token, "game": "dead-set"},
        files={"file": ("my-deck.csv", bad, "text/csv")},
        headers=ORIGIN,
    )
    assert reply.status_code == 400 and "Not used: my-deck.csv:3: age: not a whole number: 'old'" in text(reply)
    assert not (rig.settings.state_dir / "decks" / "dead-set.csv").exists()
    good = (SCENARIOS / "dead-set" / "decks" / "dead-set.csv").read_bytes()
    reply = rig.client.post(
        "/cards/deck",
        data={"csrf": token, "game": "dead-set"},
        files={"file": ("my-deck.csv", good, "text/csv")},
        headers=ORIGIN,
    )
    assert reply.status_code == 200
    assert (rig.settings.state_dir / "decks" / "dead-set.csv").read_bytes() == good
    assert rig.commands() == [ControlCommand("decks-changed")]


def test_enrol_from_the_phone_asks_the_box(rig: Rig) -> None:
    token = rig.pair()
    reply = rig.client.post("/cards/enrol", data={"csrf": token, "game": "dead-set", "card": "ds001"}, headers=ORIGIN)
    assert reply.status_code == 200 and "Tap the tag for" in text(reply)
    assert rig.commands() == [ControlCommand("enrol", {"game": "dead-set", "card": "ds001"})]
    reply = rig.client.post("/cards/enrol", data={"csrf": token, "game": "dead-set", "card": "nope"}, headers=ORIGIN)
    assert reply.status_code == 400 and rig.commands() == []
    rig.box.stop()
    reply = rig.client.post("/cards/enrol", data={"csrf": token, "game": "dead-set", "card": "ds001"}, headers=ORIGIN)
    assert reply.status_code == 503 and "The box is not running" in text(reply)


def test_pairing_needs_the_box_screen(state_dir: Path, tmp_path: Path) -> None:
    with TestClient(create_app(WebSettings(state_dir=state_dir, control=tmp_path / "none.sock", hosts=HOSTS))) as client:
        reply = client.post("/pair/code", headers=ORIGIN)
        assert reply.status_code == 403 and "Pair a phone" in text(reply)  # nobody at a running box asked


def test_a_closed_page_shows_nothing_before_pairing(state_dir: Path, tmp_path: Path) -> None:
    rig = Rig(state_dir, tmp_path / "run", open_reading=False)
    rig.box.start()
    try:
        with rig.client:
            assert rig.client.get("/", follow_redirects=False).headers["location"] == "/pair"
            assert rig.client.get("/history", follow_redirects=False).status_code == 303
            assert rig.client.get("/api/state").status_code == 403
            assert rig.client.get("/events").status_code == 403
            assert rig.client.get("/cards/tags.csv").status_code == 403
            rig.pair()
            assert rig.client.get("/history").status_code == 200
    finally:
        rig.box.stop()


def test_unpairing_ends_the_session(rig: Rig) -> None:
    token = rig.pair()
    assert rig.client.post("/unpair", data={"csrf": token}, headers=ORIGIN, follow_redirects=False).status_code == 303
    reply = rig.client.post("/roster", data={"names": "Ann", "csrf": token}, headers=ORIGIN)
    assert reply.status_code == 403


def test_the_page_reads_the_journal_without_holding_up_the_box(state_dir: Path, tmp_path: Path) -> None:
    from box.storage.journal import Journal
    from box.web.journal_view import JournalView

    box_journal = Journal(state_dir / "journal.db")  # the box, writing beside the page
    view = JournalView(state_dir / "journal.db")
    try:
        games, _ = view.history()
        assert games and view.current()["game"] == "deadlines"
        game = box_journal.start_game("dead-set", ["Ann", "Bob"], {"target": "3"}, None)
        box_journal.append(game, {"t": "press", "b": "ok", "l": False})
        busy, _, _ = box_journal.db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        assert busy == 0  # no read transaction of the page is left open
        assert view.current()["game"] == "dead-set"  # and the page sees the box's new game at once
        with pytest.raises(sqlite3.OperationalError, match="readonly"), view.reading() as db:
            db.execute("DELETE FROM games")
    finally:
        box_journal.close()


def test_finished_games_are_replayed_once_and_remembered_on_disk(state_dir: Path, monkeypatch) -> None:
    from box.storage.journal import Journal
    from box.web.journal_view import JournalView
    from box.web.summaries import HISTORY_FILE

    first = JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE)
    games, _ = first.history()
    assert (state_dir / HISTORY_FILE).exists()
    replayed: list[int] = []
    replay = JournalView.replay

    def counting(self, record, actions):
        replayed.append(record.id)
        return replay(self, record, actions)

    monkeypatch.setattr(JournalView, "replay", counting)
    again = JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE)  # a restarted page
    assert again.history()[0] == games
    assert replayed == []  # the finished games were kept; the game still open is rebuilt, not replayed
    journal = Journal(state_dir / "journal.db")  # the finished game changes (an undo in a journal...)
    finished = next(g for g in games if g.finished)
    journal.db.execute(
        "UPDATE actions SET undone = 1 WHERE seq = (SELECT MAX(seq) FROM actions WHERE game = ?)", (finished.id,)
    )
    journal.close()
    replayed.clear()
    JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE).history()
    assert finished.id in replayed  # its summary no longer matches: replayed again


def test_a_game_the_box_kept_in_its_history_is_never_replayed(state_dir: Path, monkeypatch) -> None:
    from box.storage.history import HISTORY_FILE as PLAYED
    from box.storage.history import read
    from box.web.journal_view import JournalView
    from box.web.summaries import HISTORY_FILE

    ended = {game.number: game for game in read(state_dir / PLAYED)}  # as the box's history wrote them (newest wins)
    kept, other = sorted(ended.values())
    assert kept.game == "dead-set" and kept.winners == ("Bob",) and kept.figures["Bob"]["celebrities"] == 3
    replayed: list[int] = []
    replay = JournalView.replay

    def counting(self, record, actions):
        replayed.append(record.id)
        return replay(self, record, actions)

    monkeypatch.setattr(JournalView, "replay", counting)
    view = JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE, played=state_dir / PLAYED)
    games, _ = view.history()
    told = next(g for g in games if g.id == kept.number)
    assert kept.number not in replayed and told.finished and told.winners == ("Bob",)
    assert other.number not in replayed  # the game still open (over, but not closed) is rebuilt from its checkpoint
    assert replayed == []
    assert told.figures == {player: dict(row) for player, row in kept.figures.items()}
    assert [figure.key for figure in told.declared] == ["celebrities", "busts"]


def test_an_unpaired_request_never_puts_a_code_over_the_game(rig: Rig) -> None:
    reply = rig.client.post("/pair/code", headers=ORIGIN)  # nobody at the box asked: no code, no screen
    assert reply.status_code == 403 and "Pair a phone" in text(reply) and rig.commands() == []
    token = rig.pair()  # asked at the box: a code, typed, paired
    rig.box.publish({"pairing": False})
    assert rig.client.post("/pair/code", headers=ORIGIN).status_code == 200  # a paired phone may ask for another
    assert [command.name for command in rig.commands()] == ["show-code"] and token


def test_requests_for_another_sites_name_are_refused(rig: Rig) -> None:
    for host in ("evil.example", "gravebox.local.evil.example:8080"):  # DNS rebinding: the attacker's name
        reply = rig.client.get("/", headers={"Host": host})
        assert reply.status_code == 400 and "own name or address" in reply.text
    for host in ("192.168.1.20:8080", "[fe80::1]:8080", "testserver"):
        assert rig.client.get("/", headers={"Host": host}).status_code == 200


def test_the_box_page_shows_who_follows_the_box_and_what_they_missed(rig: Rig) -> None:
    rig.box.publish({"readers_offline": [], "subscribers": {"history": {"delivered": 12, "dropped": 3, "failed": 0}}})
    rig.until_online()
    page = text(rig.client.get("/box"))
    assert "history" in page and "12 told" in page and "3 missed (too slow)" in page


def test_the_box_page_says_what_the_box_set_aside_at_start(rig: Rig) -> None:
    aside = "roster unreadable: roster.json: names: must be a list of names; the box starts with no names"
    rig.box.publish({"readers_offline": [], "set_aside": [aside]})
    rig.until_online()
    page = text(rig.client.get("/box"))
    assert "Set aside at start" in page and aside in page


# ----- the journal view's read model: the game in play from its checkpoint, the history counted once


def box_session(state: Path, game: str = "deck-of-death", every: int = 4) -> Any:
    """A game started in a journal on disk as the box starts one, checkpointed every `every` actions."""
    from box.base.session import GameSession
    from box.storage.journal import Journal

    rules = rules_for(game)
    journal = Journal(state / "journal.db")
    values = {option.key: option.parse(option.default) for option in rules.options}
    journal.start_game(game, [f"P{n}" for n in range(1, max(rules.min_players, 3) + 1)], values, None)
    journal.db.execute("PRAGMA synchronous=OFF")  # a test's journal needs no fsync per action
    record = journal.unfinished_game()
    assert record is not None
    return GameSession(rules, rules.load_deck(None), record, journal, checkpoint_every=every)


def play(session: Any, actions: int, pick: int = 0) -> None:
    """Apply `actions` actions the game accepts: of those that apply, the `pick`-th (modulo), so runs differ."""
    from box.games.base import BUTTONS, READERS, Press, Roll, Step, Tap

    candidates: list[Any] = [Roll((3, 4)), Roll((6, 6)), *(Press(b) for b in BUTTONS if b != "roll")]
    candidates += [Tap(READERS[n % 3], card) for n, card in enumerate(list(session.deck.cards)[:40])]
    for step in range(actions):
        fits = [a for a in candidates if isinstance(session.rules.apply(session.state, a), Step)]
        assert fits, "no action applies"
        session.apply(fits[(pick + step) % len(fits)])


def full_replay_dump(session: Any) -> dict[str, Any]:
    from box.base.session import full_replay

    return session.rules.dump(full_replay(session.rules, session.deck, session.record, session.journal))


@pytest.fixture
def decoded_actions(monkeypatch) -> list[int]:
    """How many journal actions the view decodes (a replay decodes every one)."""
    import box.web.in_play as in_play

    seen: list[int] = []
    decode = in_play.decode

    def counting(data: dict[str, Any]) -> Any:
        seen.append(1)
        return decode(data)

    monkeypatch.setattr(in_play, "decode", counting)
    return seen


def test_a_game_in_play_is_read_from_its_newest_checkpoint(tmp_path: Path, decoded_actions: list[int]) -> None:
    from box.web.journal_view import JournalView

    session = box_session(tmp_path, every=4)
    play(session, 10)
    view = JournalView(tmp_path / "journal.db")
    current = view.current()
    assert len(decoded_actions) == 2  # the checkpoint after action 8, then actions 9 and 10
    assert {key: current[key] for key in session.dump()} == session.dump() == full_replay_dump(session)
    assert current["actions"] == 10
    decoded_actions.clear()
    assert view.current() == current and decoded_actions == []  # nothing new: nothing folded
    play(session, 1)
    assert view.current()["actions"] == 11 and len(decoded_actions) == 1  # only the new action
    session.undo()
    session.undo()  # back across nothing kept in the view: from the checkpoint again
    decoded_actions.clear()
    again = view.current()
    assert again["actions"] == 9 and len(decoded_actions) == 1
    assert {key: again[key] for key in session.dump()} == session.dump() == full_replay_dump(session)
    games, _ = view.history()
    assert games[0].actions == 9 and games[0].figures == session.rules.figures_of(session.state)
    session.journal.close()


@pytest.mark.parametrize("damage", ["version", "state", "table"])
def test_a_checkpoint_the_page_cannot_use_costs_a_replay_not_the_game(
    damage: str, tmp_path: Path, caplog, decoded_actions: list[int]
) -> None:
    from box.web.journal_view import JournalView

    session = box_session(tmp_path, every=4)
    play(session, 9)
    if damage == "table":  # an older box's journal: no checkpoints table at all
        session.journal.db.execute("DROP TABLE checkpoints")
    else:
        column, value = ("version", "0/old/x") if damage == "version" else ("state", b"\xffGB1\x00\x00\x00\x00flipped")
        session.journal.db.execute(f"UPDATE checkpoints SET {column} = ?", (value,))
    with caplog.at_level(logging.WARNING):
        current = JournalView(tmp_path / "journal.db").current()
    assert len(decoded_actions) == 9  # every action, from the first
    assert {key: current[key] for key in session.dump()} == full_replay_dump(session)
    assert "replayed from its first action" in caplog.text
    session.journal.close()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    game=st.sampled_from(sorted(GAMES)),
    every=st.integers(2, 7),
    moves=st.lists(st.tuples(st.integers(0, 12), st.integers(0, 3), st.integers(0, 50)), min_size=1, max_size=6),
)
def test_the_game_in_play_as_the_page_reads_it_is_the_full_replay(game: str, every: int, moves: list[Any]) -> None:
    """Random games: plays, undos and views in any order; each view equals the box's own state."""
    import tempfile

    from box.web.journal_view import JournalView

    with tempfile.TemporaryDirectory() as name:
        session = box_session(Path(name), game, every)
        view = JournalView(Path(name) / "journal.db")
        for actions, undos, pick in moves:
            play(session, actions, pick)
            for _ in range(undos):
                session.undo()
            current = view.current()
            assert session.dump() == full_replay_dump(session)
            public = session.rules.public(session.state)  # the page sees what the table may see
            assert {key: current[key] for key in public} == public
            assert current["actions"] == session.count
        session.journal.close()


def test_history_missing_its_read_model_counts_for_a_while_then_in_the_background(
    state_dir: Path, monkeypatch
) -> None:
    """After an upgrade (no summaries kept, no box lines) a view counts within its budget; a worker does the rest."""
    import box.web.journal_view as journal_view
    from box.web.journal_view import JournalView
    from box.web.summaries import HISTORY_FILE

    complete, _ = JournalView(state_dir / "journal.db").history()
    finished = [g for g in complete if g.finished]
    assert finished
    ticks = iter(range(0, 1000, 10))  # every look at the clock: 10 s later
    release = threading.Event()
    count_one = JournalView.count_one

    def slow(self, db, record, played):
        if threading.current_thread().name == "history-count":
            release.wait(5)  # the worker waits until the view has answered
        return count_one(self, db, record, played)

    monkeypatch.setattr(JournalView, "count_one", slow)
    view = JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE, clock=lambda: next(ticks))
    assert journal_view.FIRST_VIEW_BUDGET < 10
    first, _ = view.history()
    assert [g.id for g in first if g.finished] == [] and view.uncounted == len(finished)
    assert view.counting()
    release.set()
    assert view.worker is not None
    view.worker.join(5)
    assert not view.counting()
    assert view.history()[0] == complete and view.uncounted == 0
    assert JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE).history()[0] == complete  # kept


@pytest.mark.parametrize(
    "kept",
    [b'{"1": {"key": "old", "summary": {}}}' + b" " * 70_000 + b"\n", b'{"id": 1, "key": "k"}\n', b"\xff\xfe\n"],
)
def test_a_cache_file_the_page_cannot_take_is_counted_again(kept: bytes, state_dir: Path, caplog) -> None:
    """An older page's one-object file, a line that is no summary, bytes that are no text: counted again, logged."""
    from box.web.journal_view import JournalView
    from box.web.summaries import HISTORY_FILE

    complete, _ = JournalView(state_dir / "journal.db").history()
    (state_dir / HISTORY_FILE).write_bytes(kept)
    with caplog.at_level(logging.WARNING):
        view = JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE)
    assert view.summaries == {} and "counted again" in caplog.text
    assert view.history()[0] == complete
    assert JournalView(state_dir / "journal.db", cache=state_dir / HISTORY_FILE).summaries.keys() == {
        g.id for g in complete if g.finished
    }


def test_history_lists_its_games_a_page_at_a_time_and_counts_them_all(tmp_path: Path) -> None:
    from box.storage.history import HISTORY_FILE as PLAYED
    from box.storage.history import Played, append
    from box.storage.journal import Journal
    from box.web.pages.history import PAGE_GAMES

    journal = Journal(tmp_path / "journal.db")
    games = PAGE_GAMES + 5
    for number in range(games):
        game = journal.start_game("dead-set", ["Ann", "Bob"], {}, None)
        journal.finish_game(game)
        declared = ({"key": "celebrities", "label": "celebrities", "adds": "sum"},)
        winner = "Ann" if number % 3 else "Bob"
        figures = {"Ann": {"celebrities": 1}, "Bob": {"celebrities": 2}}
        append(tmp_path / PLAYED, Played(game, "dead-set", "Dead Set", ("Ann", "Bob"), (winner,), figures, "2026-11-30 20:00", 0, declared))
    abandoned = journal.start_game("dead-set", ["Ann", "Bob"], {}, None)
    journal.finish_game(abandoned)
    journal.close()
    with TestClient(create_app(WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=HOSTS))) as client:
        first = client.get("/history").text
        assert first.count('<article class="game">') == PAGE_GAMES and f"#{games}" in first  # the newest first
        assert f"{games} games played to the end; page 1 of 2" in first and 'href="/history?page=2">Older games' in first
        assert "Newer games" not in first and "Abandoned" in first
        assert re.search(r"Ann</a></td><td>\s*" + str(games), first)  # the players' table counts every game
        second = client.get("/history?page=2").text
        assert second.count('<article class="game">') == 5 and "<small>#1</small>" in second and "Older games" not in second
        assert 'href="/history?page=1">Newer games' in second and "Abandoned" not in second
        for odd in ("0", "abc", "-3", "9999999999", "%C2%B2", "%D9%A3", "1e3", "%201", "2&page=x"):  # none: the first, or the last
            for address in ("/history", "/players/Ann"):
                answer = client.get(f"{address}?page={odd}")  # a superscript two is a digit to str.isdigit, not to int
                assert answer.status_code == 200 and ("page 1 of 2" in answer.text or "page 2 of 2" in answer.text), (address, odd)
        ann = client.get("/players/Ann").text  # a player's games a page at a time too; their figures count all
        rows = re.findall(r"<tr><td>#(\d+)", ann)
        assert len(rows) == PAGE_GAMES and rows[0] == str(games) and f"{games} games" in ann
        assert f"In all: celebrities <b>{games}</b>" in ann and "page 1 of 2" in ann and 'href="?page=2">Older games' in ann
        older = client.get("/players/Ann?page=2").text
        assert re.findall(r"<tr><td>#(\d+)", older) == [str(n) for n in range(5, 0, -1)] and "Older games" not in older


def test_a_players_figures_in_all_say_which_are_their_best(tmp_path: Path) -> None:
    """A figure that adds up as a sum is their total; one that keeps the highest (Deadlines' "% right")
    is their best, and says so; a label with a comma in it stays one item."""
    from box.storage.history import HISTORY_FILE as PLAYED
    from box.storage.history import Played, append
    from box.storage.journal import Journal

    journal = Journal(tmp_path / "journal.db")
    declared = ({"key": "penalties", "label": "penalties", "adds": "sum"}, {"key": "birth_right", "label": "% right, Birth", "adds": "max"})
    for penalties, right in ((1, 80), (2, 50)):
        game = journal.start_game("deadlines", ["Ann", "Bob"], {}, None)
        journal.finish_game(game)
        figures = {"Ann": {"penalties": penalties, "birth_right": right}, "Bob": {"penalties": 3, "birth_right": 10}}
        append(tmp_path / PLAYED, Played(game, "deadlines", "Deadlines", ("Ann", "Bob"), ("Ann",), figures, "2026-11-30 20:00", 0, declared))
    journal.close()
    with TestClient(create_app(WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=HOSTS))) as client:
        ann = client.get("/players/Ann").text
    assert "In all: penalties <b>3</b> · % right, Birth <b>80</b> (best)</p>" in ann
