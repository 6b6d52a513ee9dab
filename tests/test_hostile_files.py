"""Hostile files: every file and stick surface is read by the one codec of its format, bounded,
judged before it changes anything, and refused in one line; what the box writes it can read back."""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from box.core.tagtransfer import FILE_NAME, LOAD, TagsMoved, Transfers, export_tags, import_tags
from box.errors import FileProblem
from box.files.bounded import read_bounded, temporary_name, write_atomically
from box.ports.usb import FakeSticks
from box.storage.player_ids import MAX_NAME_LENGTH, player_name
from box.storage.roster import (
    ROSTER_FILE,
    Roster,
    format_roster,
    load_or_recover,
    load_roster,
    parse_roster,
    save_roster,
)
from box.storage.tags import TAGS_FILE, TagMap, check_entry, format_tags, parse_tag_bytes, parse_tags
from box.web.cards import check_tags_upload
from tests.test_bad_files import one_line
from tests.test_tag_transfer import DECKS

FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
ONE_LINE_ERRORS = (FileProblem, ValueError)


def assert_one_line(problem: BaseException) -> None:
    assert "\n" not in str(problem) and "\r" not in str(problem) and "Traceback" not in str(problem), str(problem)


# ----- 1. a damaged roster is set aside, the box starts with none ---------------------------------------


DAMAGED_ROSTERS = {
    "names-a-number": b'{"names": 5}',
    "names-null": b'{"names": null}',
    "names-a-string": b'{"names": "Ann"}',
    "defaults-a-list": b'{"defaults": []}',
    "defaults-of-a-list": b'{"defaults": {"dead-set": []}}',
    "option-a-table": b'{"defaults": {"dead-set": {"target": {}}}}',
    "deep-nesting": b'{"names": ' + b"[" * 60_000,
    "non-utf8": b'{"names": ["Ann\xff"]}',
    "a-long-name": b'{"names": ["Bartholomew Smithers"]}',
    "twice": b'{"names": ["Ann", "ann"]}',
    "huge-number": b'{"names": [' + b"9" * 5000 + b"]}",
    "too-big": b'{"names": ["' + b" " * 70_000 + b'"]}',
    "players-and-names": b'{"players": [], "names": []}',
    "players-a-table": b'{"players": {"Ann": 1}}',
    "a-player-a-name": b'{"players": ["Ann"]}',
    "a-player-without-id": b'{"players": [{"name": "Ann"}]}',
    "an-id-of-signs": b'{"players": [{"id": "../..", "name": "Ann"}]}',
    "an-id-twice": b'{"players": [{"id": "a1b2c3", "name": "Ann"}, {"id": "d4e5f6", "name": "Bob", "merged": ["a1b2c3"]}]}',
    "a-player-twice": b'{"players": [{"id": "a1b2c3", "name": "Ann"}, {"id": "d4e5f6", "name": "ANN"}]}',
    "a-former-name-too-long": b'{"players": [{"id": "a1b2c3", "name": "Ann", "former": ["Bartholomew Smithers"]}]}',
    "former-names-without-end": b'{"players": [{"id": "a1b2c3", "name": "Ann", "former": [' + b'"Bo",' * 40 + b'"Bo"]}]}',
    "a-player-of-unknown-keys": b'{"players": [{"id": "a1b2c3", "name": "Ann", "age": 9}]}',
}


@pytest.mark.parametrize("body", DAMAGED_ROSTERS.values(), ids=DAMAGED_ROSTERS.keys())
def test_a_damaged_roster_is_set_aside_once_and_the_box_starts_with_none(tmp_path: Path, body: bytes) -> None:
    path = tmp_path / ROSTER_FILE
    path.write_bytes(body)
    with pytest.raises(FileProblem) as problem:
        load_roster(path)  # the command line and the phone page: one line
    assert_one_line(problem.value)
    roster, aside = load_or_recover(path)  # the box
    assert roster == Roster() and aside is not None and aside.kept is not None
    assert aside.kept.read_bytes() == body, "the kept copy is not the file as it was"
    assert not path.exists() and "\n" not in str(aside)
    again, aside = load_or_recover(path)
    assert again == Roster() and aside is None, "set aside again on the next start"


def test_a_roster_the_storage_will_not_read_is_left_where_it_is(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / ROSTER_FILE
    path.write_bytes(b'{"names": ["Ann"]}')

    def failing(*args, **kwargs):
        from box.errors import ConfigError

        raise ConfigError(path, "cannot read it: Input/output error", storage_fault=True)

    monkeypatch.setattr("box.storage.roster.read_bounded", failing)
    roster, aside = load_or_recover(path)
    assert roster == Roster() and aside is not None and aside.kept is None and path.exists()


def test_the_simulated_box_starts_on_a_damaged_roster_with_no_names(tmp_path: Path) -> None:
    from box.sim.world import SimulatedBox

    (tmp_path / ROSTER_FILE).write_bytes(b'{"names": 5}')
    world = SimulatedBox(tmp_path)
    try:
        world.advance(0.5)
        assert world.box.settings.roster == Roster() and world.dump()["screen"] == "menu"
    finally:
        world.close()


def test_the_service_boots_on_a_damaged_roster_without_a_traceback(tmp_path: Path) -> None:
    from tests.test_damaged_service import boot_until_ready, played_journal

    state_dir = tmp_path / "state"
    played_journal(state_dir)
    (state_dir / ROSTER_FILE).write_bytes(b'{"names": 5}')
    for boot in (1, 2):
        got, stderr, status = boot_until_ready(state_dir, tmp_path)
        assert "READY=1" in got and status == 0, f"boot {boot}: {got} {stderr[-2000:]}"
        assert "Traceback" not in stderr, stderr[-2000:]


# ----- 9. one rule for a player's name ----------------------------------------------------------------


def test_one_rule_for_a_players_name() -> None:
    assert player_name("ann", ("Bob", "Ann")) == "Ann"  # a roster name, whatever the case
    assert player_name("  Zoë   Li ") == "Zoë Li"
    assert player_name("O'Neil-Smith") == "O'Neil-Smith"  # what the letter picker can spell
    for bad in ("x" * (MAX_NAME_LENGTH + 1), "", "   ", "Ann\x00", "Ann\u200bBob", "x" * 300):
        with pytest.raises(ValueError) as problem:
            player_name(bad)
        assert_one_line(problem.value)


@pytest.mark.parametrize("name", ["Bartholomew Smithers", "x" * 300, "Ann\x07"])
def test_a_player_name_the_roster_would_refuse_is_refused_by_every_tag_surface(tmp_path: Path, name: str) -> None:
    row = f'04a1b2c3,player,"{name}"'
    data = f"uid,game,card\n{row}\n".encode()
    with pytest.raises(FileProblem, match="card: a player's name"):
        parse_tag_bytes(data, "x.csv")
    with pytest.raises(FileProblem, match="card: a player's name"):
        check_tags_upload(data, "backup.csv", DECKS.__getitem__)
    sticks = FakeSticks(tmp_path)
    sticks.plug("STICK")
    (tmp_path / "STICK" / FILE_NAME).write_bytes(data)
    merged, said = import_tags(TagMap(), DECKS, sticks)
    assert merged is None and said.startswith(f"Not read: {FILE_NAME}:2: card: a player's name")
    path = tmp_path / TAGS_FILE
    with pytest.raises(ValueError):
        TagMap({bytes.fromhex("04a1b2c3"): ("player", name)}).save(path)  # never saved
    assert not path.exists() and not list(tmp_path.glob(".tags.csv*"))
    with pytest.raises(ValueError):
        save_roster(Roster((name,)), tmp_path / ROSTER_FILE)  # a roster made around the rule is not saved
    assert not (tmp_path / ROSTER_FILE).exists()


def test_two_tokens_for_one_name_in_another_case_are_not_saved() -> None:
    tags = TagMap({bytes.fromhex("04a1b2c3"): ("player", "Ann"), bytes.fromhex("04a1b2c4"): ("player", "ann")})
    with pytest.raises(ValueError, match="twice"):
        format_tags(tags.cards.items())
    with pytest.raises(FileProblem, match="player ann is also on line 2"):
        parse_tags("uid,game,card\n04a1b2c3,player,Ann\n04a1b2c4,player,ann\n", "x.csv")


# ----- the tag map: one reader for every surface -------------------------------------------------------


def test_the_phone_page_takes_the_sticks_own_file_and_refuses_what_the_stick_refuses(tmp_path: Path) -> None:
    from box.games import load_deck

    decks = {"dead-set": load_deck("dead-set")}
    sticks = FakeSticks(tmp_path)
    sticks.plug("STICK")
    tags = TagMap({bytes.fromhex("04a1b2c3d4e5f6"): ("dead-set", "ds001"), bytes.fromhex("a1b2c3d4"): ("player", "Zoë")})
    export_tags(tags, decks, sticks)
    exported = (tmp_path / "STICK" / FILE_NAME).read_bytes()
    assert exported.startswith(b"uid,game,card,name\n")
    assert check_tags_upload(exported, FILE_NAME, decks.__getitem__).cards == tags.cards
    five_bytes = b"uid,game,card\n04a1b2c3d4,dead-set,ds001\n"
    with pytest.raises(FileProblem, match="uid: a tag UID has 4, 7 or 10 bytes, not 5"):
        check_tags_upload(five_bytes, "backup.csv", decks.__getitem__)
    (tmp_path / "STICK" / FILE_NAME).write_bytes(five_bytes)
    said = import_tags(TagMap(), decks, sticks)[1]
    assert said == f"Not read: {FILE_NAME}:2: uid: a tag UID has 4, 7 or 10 bytes, not 5"


# ----- 5. written without following links --------------------------------------------------------------


def test_a_link_at_the_temporary_name_is_not_followed(tmp_path: Path) -> None:
    journal = tmp_path / "journal.db"
    journal.write_bytes(b"the journal")
    target = tmp_path / "usb" / FILE_NAME
    target.parent.mkdir()
    temporary = temporary_name(target)
    for planted in (temporary, target.with_name(f".{FILE_NAME}.tmp")):  # the name this writer uses, the old one
        planted.symlink_to(journal)
    write_atomically(target, "uid,game,card\n")
    assert journal.read_bytes() == b"the journal"
    assert target.read_text() == "uid,game,card\n" and not target.is_symlink()
    assert not temporary.exists() and not temporary.is_symlink()


def test_save_tags_to_usb_over_a_planted_link_leaves_the_journal_alone(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "journal.db").write_bytes(b"the journal")
    sticks = FakeSticks(state / "usb")
    sticks.plug("STICK")
    stick_file = state / "usb" / "STICK" / FILE_NAME
    for planted in (stick_file.with_name(f".{FILE_NAME}.tmp"), temporary_name(stick_file)):
        planted.symlink_to(state / "journal.db")
    stick_file.symlink_to(state / "journal.db")  # the target itself a link: replaced, not written through
    assert export_tags(TagMap({bytes.fromhex("a1b2c3d4"): ("demo", "a")}), DECKS, sticks).startswith("1 tag saved")
    assert (state / "journal.db").read_bytes() == b"the journal"
    assert not stick_file.is_symlink() and "a1b2c3d4,demo,a,Ada" in stick_file.read_text()


def test_a_failed_write_leaves_the_old_file_and_no_temporary(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / ROSTER_FILE
    save_roster(Roster(("Ann",)), path)

    def full(descriptor: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OSError):
        save_roster(Roster(("Bob",)), path)
    monkeypatch.undo()
    assert load_roster(path).names == ("Ann",) and [p.name for p in tmp_path.iterdir()] == [ROSTER_FILE]


# ----- 6, 7. only regular files are read, and only so much --------------------------------------------


def import_in_time(sticks: FakeSticks) -> tuple[TagMap | None, str]:
    """The import on a thread: a read that hangs fails the test instead of hanging it."""
    answers: queue.SimpleQueue[tuple[TagMap | None, str]] = queue.SimpleQueue()
    worker = threading.Thread(target=lambda: answers.put(import_tags(TagMap(), DECKS, sticks)), daemon=True)
    worker.start()
    worker.join(10.0)
    assert not worker.is_alive(), "the import hangs"
    return answers.get_nowait()


def test_a_fifo_on_the_stick_is_refused_at_once(tmp_path: Path) -> None:
    sticks = FakeSticks(tmp_path)
    sticks.plug("STICK")
    os.mkfifo(tmp_path / "STICK" / FILE_NAME)
    assert import_in_time(sticks) == (None, f"Not read: {FILE_NAME}: a FIFO (a pipe), not a file")


@pytest.mark.parametrize("where", ["/dev/zero", "outside"])
def test_a_link_on_the_stick_is_not_followed(tmp_path: Path, where: str) -> None:
    sticks = FakeSticks(tmp_path / "usb")
    sticks.plug("STICK")
    outside = tmp_path / "outside.csv"
    outside.write_text("uid,game,card\na1b2c3d4,demo,a\n")
    (tmp_path / "usb" / "STICK" / FILE_NAME).symlink_to(outside if where == "outside" else Path(where))
    merged, said = import_in_time(sticks)
    assert merged is None and said == f"Not read: {FILE_NAME}: a link, not a file: the box reads no file through a link"


def test_the_bytes_read_count_not_the_size_the_file_system_tells(tmp_path: Path) -> None:
    assert os.stat("/proc/self/status").st_size == 0  # procfs: a regular file that says it is empty
    with pytest.raises(FileProblem, match="larger than 10 bytes"):
        read_bounded("/proc/self/status", limit=10)
    with pytest.raises(FileProblem, match="a device, not a file"):
        read_bounded("/dev/zero", limit=10)
    big = tmp_path / "big"
    big.write_bytes(b"x" * 11)
    with pytest.raises(FileProblem, match="larger than 10 bytes"):
        read_bounded(big, limit=10)
    assert read_bounded(big, limit=11) == b"x" * 11


# ----- 2. the settings file ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    ['[box]\n"names(" = 1\n', '[box]\n"a[b" = 1\n', '[box]\n"x\\ny" = 1\n', '[web]\n"*+?" = 1\n', "a = " + "[" * 5000],
    ids=["paren", "bracket", "line-break", "web-regex", "deep"],
)
def test_a_settings_file_with_any_key_is_one_line_and_exit_2(tmp_path: Path, capsys, text: str) -> None:
    config = tmp_path / "c.toml"
    config.write_text(text, encoding="utf-8")
    one_line(capsys, ["run", "--fake", "--config", str(config), "--state-dir", str(tmp_path / "s")], "c.toml")


# ----- 8. a big import: merged off the loop, in linear time -------------------------------------------

ROWS = 35_000


def players(count: int, first_uid: int) -> TagMap:
    return TagMap({(0x04000000 + first_uid + n).to_bytes(4, "big"): ("player", f"p{n:05d}") for n in range(count)})


def test_a_merge_is_linear(tmp_path: Path) -> None:
    here, stick = players(ROWS, 0), players(ROWS, ROWS)  # every name gets a new tag
    started = time.perf_counter()
    here.merge(stick)
    assert time.perf_counter() - started < 2.0  # quadratic: minutes
    assert here.cards == stick.cards


def test_a_35000_tag_load_is_merged_and_counted_by_the_worker(tmp_path: Path, monkeypatch) -> None:
    sticks = FakeSticks(tmp_path)
    sticks.plug("STICK")
    (tmp_path / "STICK" / FILE_NAME).write_text(format_tags(players(ROWS, ROWS).cards.items()))
    here = players(ROWS, 0)
    here.cards[bytes.fromhex("a1b2c3d4")] = ("demo", "a")  # a tag the stick leaves alone
    answers: queue.SimpleQueue[TagsMoved] = queue.SimpleQueue()
    transfers = Transfers(sticks, answers.put)
    transfers.start(LOAD, here, DECKS)
    assert transfers.join(60.0)
    said = [answers.get_nowait() for _ in range(answers.qsize())]
    *progress, moved = said
    assert [stage.doing for stage in progress] == [f"Checking {ROWS + 1} lines…", f"Merging {ROWS} tags…"]  # the screen
    assert isinstance(moved, TagsMoved)
    assert moved.ok and moved.replaced == ROWS and moved.base == here.cards
    assert moved.merged is not None and len(moved.merged.cards) == ROWS + 1
    assert moved.merged.lookup(bytes.fromhex("a1b2c3d4")) == ("demo", "a")


def test_the_box_only_swaps_the_merged_map_in(tmp_path: Path, monkeypatch) -> None:
    from box.core.app import SIM_STICK, SIM_STICKS
    from box.sim.world import SimulatedBox
    from tests.test_tag_transfer import answered, usb

    state = tmp_path / "state"
    state.mkdir()
    (state / TAGS_FILE).write_text(format_tags(players(2000, 0).cards.items()))
    world = SimulatedBox(state)
    (state / SIM_STICKS / SIM_STICK / FILE_NAME).write_text(format_tags(players(2000, 2000).cards.items()))
    try:
        usb(world, "Load tags from USB")
        assert world.transfers.join(30.0)

        def no_merge_on_the_loop(self, other):
            raise AssertionError("the loop merged")

        monkeypatch.setattr(TagMap, "merge", no_merge_on_the_loop)
        assert answered(world) == "2000 tags read from STICK"
        assert world.box.screen(world.now).lines[0] == "Replace 2000 tags?"
        savers: list[str] = []
        save = TagMap.save

        def saved_where(self, path):  # type: ignore[no-untyped-def]
            savers.append(threading.current_thread().name)
            return save(self, path)

        monkeypatch.setattr(TagMap, "save", saved_where)
        world.press("ok")
        assert world.box.tags.lookup((0x04000000 + 2000).to_bytes(4, "big")) == ("player", "p00000")
        answered(world)  # the worker keeps them in tags.csv
        assert savers == ["usb-keep"], "written off the loop, once"
    finally:
        world.close()
    saved = TagMap.load(state / TAGS_FILE).cards
    assert {uid: card for uid, card in saved.items() if card[0] == "player"} == players(2000, 2000).cards


# ----- 13. a line over 128 KiB on the phone page ------------------------------------------------------


def test_an_upload_with_a_line_over_128_kib_is_one_line() -> None:
    data = b"uid,game,card\n04a1b2c3,demo," + b"a" * (130 * 1024) + b"\n"
    with pytest.raises(FileProblem) as problem:
        check_tags_upload(data, "backup.csv", DECKS.__getitem__)
    assert str(problem.value).startswith("backup.csv:2: a line of") and "at most 131072" in str(problem.value)


def test_the_phone_page_answers_400_for_a_line_over_128_kib(tmp_path: Path) -> None:
    from tests.test_web import ORIGIN, Rig, text

    state = tmp_path / "state"
    state.mkdir()
    rig = Rig(state, tmp_path / "run")
    rig.box.start()
    try:
        with rig.client:
            token = rig.pair()
            data = b"uid,game,card\n04a1b2c3,dead-set," + b"a" * (130 * 1024) + b"\n"
            files = {"file": ("backup.csv", data, "text/csv")}
            reply = rig.client.post("/cards/restore", data={"csrf": token}, files=files, headers=ORIGIN)
    finally:
        rig.box.stop()
    assert reply.status_code == 400 and "Not restored: backup.csv:2: a line of 133" in text(reply)
    assert not (state / TAGS_FILE).exists()


# ----- what the box writes, it reads back (hypothesis) ------------------------------------------------

UIDS = st.one_of(st.binary(min_size=4, max_size=4), st.binary(min_size=7, max_size=7), st.binary(min_size=10, max_size=10))
WORDS = st.text(min_size=1, max_size=24)
ENTRIES = st.dictionaries(UIDS, st.tuples(st.one_of(st.sampled_from(["player", "dead-set", "demo"]), WORDS), WORDS), max_size=12)


@FUZZ
@given(entries=ENTRIES)
def test_a_tag_map_the_box_saves_it_reads_back_and_one_it_would_refuse_it_does_not_save(
    tmp_path: Path, entries: dict[bytes, tuple[str, str]]
) -> None:
    path = tmp_path / TAGS_FILE
    path.unlink(missing_ok=True)
    tags = TagMap(entries)
    try:
        tags.save(path)
    except ValueError as problem:
        assert_one_line(problem)
        assert not path.exists() and not list(tmp_path.glob(".tags.csv*")), "a refused map left a file"
        return
    assert TagMap.load(path).cards == tags.cards
    named = format_tags(entries.items(), lambda game, card: f"{card}\n\x00 name")
    assert {row.uid: (row.game, row.card) for row in parse_tags(named, "x.csv")} == tags.cards


@FUZZ
@given(entries=ENTRIES)
def test_every_entry_the_checker_takes_round_trips(tmp_path: Path, entries: dict[bytes, tuple[str, str]]) -> None:
    kept = {}
    for uid, (game, card) in entries.items():
        try:
            kept[uid] = (game, check_entry(uid, game, card))
        except ValueError:
            continue
    keys = {(game, card.casefold() if game == "player" else card) for game, card in kept.values()}
    if len(keys) == len(kept):
        assert {r.uid: (r.game, r.card) for r in parse_tags(format_tags(kept.items()), "x.csv")} == kept


NAMES = st.lists(st.text(alphabet=st.characters(codec="utf-8"), min_size=1, max_size=20), max_size=30)
DEFAULTS = st.fixed_dictionaries(
    {}, optional={"dead-set": st.fixed_dictionaries({"target": st.integers(min_value=-5, max_value=40).map(str)})}
)


@FUZZ
@given(names=NAMES, defaults=DEFAULTS)
def test_a_roster_the_box_saves_it_reads_back(tmp_path: Path, names: list[str], defaults: dict) -> None:
    try:
        roster = Roster.checked(names, defaults)
    except ValueError as problem:
        assert_one_line(problem)
        return
    path = tmp_path / ROSTER_FILE
    save_roster(roster, path)
    assert load_roster(path) == roster
    assert parse_roster(format_roster(roster).encode(), "r.json") == roster


@FUZZ
@given(names=st.lists(st.sampled_from(["Ann", "Bo", "Bob", "Cid", "Dee", "Eve"]), min_size=2, max_size=6, unique=True),
       steps=st.lists(st.tuples(st.booleans(), st.integers(0, 5), st.integers(0, 5), st.sampled_from(["Bo", "Zed", "ann"])),
                      max_size=12))
def test_a_roster_renamed_and_merged_at_random_reads_back_with_every_player_and_id(
    tmp_path: Path, names: list[str], steps: list[tuple[bool, int, int, str]]
) -> None:
    roster = Roster.checked(names, {})
    ids = {person.id for person in roster.people}
    for merge, one, other, name in steps:
        people = roster.people
        first, second = people[one % len(people)], people[other % len(people)]
        try:
            roster = roster.merged(first.id, second.id) if merge else roster.renamed(first.id, name)
        except ValueError as problem:  # into themselves, a name another has
            assert_one_line(problem)
    assert {i for person in roster.people for i in person.ids} == ids, "no id is lost, none made up"
    assert all(roster.person(i) is not None for i in ids)
    path = tmp_path / ROSTER_FILE
    save_roster(roster, path)
    assert load_roster(path) == roster


PLAYER_ROWS = st.lists(
    st.fixed_dictionaries({}, optional={
        "id": st.sampled_from(["a1b2c3", "d4e5f6", "A1B2", "x" * 20, 5, None]),
        "name": st.sampled_from(["Ann", "ann", "Bob", "", 3, "Bartholomew Smithers", " Bo "]),
        "former": st.lists(st.sampled_from(["Bo", "Ann", "ann", "\x00", 1]), max_size=3) | st.just("Bo"),
        "merged": st.lists(st.sampled_from(["a1b2c3", "d4e5f6", "99zz99", None]), max_size=3),
    }),
    max_size=4,
)


@FUZZ
@given(rows=PLAYER_ROWS)
def test_fuzz_the_players_of_a_roster(rows: list) -> None:
    roster = refused_in_one_line(lambda: parse_roster(json.dumps({"players": rows}).encode(), "r.json"))
    if isinstance(roster, Roster):
        assert parse_roster(format_roster(roster).encode(), "r.json") == roster


def test_an_old_roster_of_names_is_read_with_ids_and_written_back_in_the_new_form(tmp_path: Path) -> None:
    path = tmp_path / ROSTER_FILE
    path.write_text('{"names": ["Ann", "Bob"], "defaults": {"dead-set": {"target": "9"}}}')
    old = load_roster(path)  # the page reads it as it is: the same ids as the box gives
    assert path.read_text().startswith('{"names"'), "reading wrote"
    roster, aside = load_or_recover(path)  # the box, at start
    assert aside is None and roster == old and roster.names == ("Ann", "Bob")
    assert roster.defaults_for("dead-set") == {"target": "9"}
    saved = json.loads(path.read_text())
    assert [player["name"] for player in saved["players"]] == ["Ann", "Bob"] and "names" not in saved
    assert [player["id"] for player in saved["players"]] == [roster.id_of("Ann"), roster.id_of("Bob")]
    assert load_roster(path) == roster and load_or_recover(path) == (roster, None)


# ----- fuzz: arbitrary bytes into every codec ---------------------------------------------------------

JUNK = st.one_of(
    st.binary(max_size=600),
    st.text(max_size=300).map(str.encode),
    st.lists(st.sampled_from(["uid,game,card", "04a1b2c3,demo,a", "a1b2c3d4,player,Ann", "#", ",", '"', "\xff"]))
    .map(lambda lines: "\n".join(lines).encode("utf-8", "surrogateescape")),
    st.recursive(st.none() | st.integers() | st.text(max_size=8), lambda c: st.lists(c) | st.dictionaries(st.text(max_size=8), c))
    .map(lambda value: json.dumps({"names": value, "defaults": value}).encode()),
)


def refused_in_one_line(call) -> object:
    """`call()`'s answer, or None when it refused in one line; any other exception fails."""
    try:
        return call()
    except ONE_LINE_ERRORS as problem:
        assert_one_line(problem)
        return None


@FUZZ
@given(data=JUNK)
def test_fuzz_the_tag_map_codec(tmp_path: Path, data: bytes) -> None:
    refused_in_one_line(lambda: parse_tag_bytes(data, "x.csv"))
    refused_in_one_line(lambda: parse_tag_bytes(data, "x.csv", DECKS.get))
    refused_in_one_line(lambda: check_tags_upload(data, "upload\n.csv", DECKS.__getitem__))
    path = tmp_path / TAGS_FILE
    path.write_bytes(data)
    tags, aside = TagMap.load_or_recover(path)  # the box never raises: it sets aside and goes on
    assert aside is None or "\n" not in str(aside)
    if aside is not None and tags.cards:  # the tags it could read were saved again, readable
        assert TagMap.load(path).cards == tags.cards
    for kept in tmp_path.glob("tags.csv.bad-*"):
        kept.unlink()
    path.unlink(missing_ok=True)


@FUZZ
@given(data=JUNK)
def test_fuzz_the_stick(tmp_path: Path, data: bytes) -> None:
    sticks = FakeSticks(tmp_path / "usb")
    sticks.plug("STICK")
    (tmp_path / "usb" / "STICK" / FILE_NAME).write_bytes(data)
    merged, said = import_tags(TagMap({bytes.fromhex("a1b2c3d4"): ("demo", "b")}), DECKS, sticks)
    assert "\n" not in said and (merged is not None or said.startswith("Not read: "))
    assert sorted(p.name for p in (tmp_path / "usb" / "STICK").iterdir()) == [FILE_NAME], "the stick was written"


@FUZZ
@given(data=JUNK)
def test_fuzz_the_roster_codec(tmp_path: Path, data: bytes) -> None:
    path = tmp_path / ROSTER_FILE
    path.write_bytes(data)
    refused_in_one_line(lambda: load_roster(path))
    assert path.read_bytes() == data, "reading wrote"


@FUZZ
@given(data=JUNK)
def test_fuzz_the_settings_pin_map_board_and_deck_codecs(tmp_path: Path, data: bytes) -> None:
    from box.games import rules_for
    from box.games.deck_of_death.cards import load_board
    from box.storage.config import load_config
    from box.storage.pinmap import load_pinmap

    folder = tmp_path / "files"
    folder.mkdir(exist_ok=True)
    for name in ("config.toml", "pinmap.toml", "deck-of-death.toml", "dead-set.csv"):
        (folder / name).write_bytes(data)
    before = sorted(p.name for p in folder.iterdir())
    refused_in_one_line(lambda: load_config(folder / "config.toml"))
    refused_in_one_line(lambda: load_pinmap(folder / "pinmap.toml"))
    refused_in_one_line(lambda: load_board(folder / "deck-of-death.toml"))
    refused_in_one_line(lambda: rules_for("dead-set").load_deck(folder))
    assert sorted(p.name for p in folder.iterdir()) == before, "reading wrote"
    for toml in ("a = " + "[" * 3000, "[box]\n" + '"k(" = 1\n', "[readers]\n" + '"l[" = "/dev/x"\n'):
        (folder / "config.toml").write_text(toml)
        (folder / "pinmap.toml").write_text(toml)
        refused_in_one_line(lambda: load_config(folder / "config.toml"))
        refused_in_one_line(lambda: load_pinmap(folder / "pinmap.toml"))


def test_a_tag_map_without_its_header_keeps_every_tag_on_the_box(tmp_path: Path) -> None:
    path = tmp_path / TAGS_FILE
    path.write_text("04a1b2c3,dead-set,ds001\n04a1b2c4,dead-set,ds002\n")
    with pytest.raises(FileProblem, match=":1: the first line must be the header uid,game,card"):
        TagMap.load(path)
    tags, aside = TagMap.load_or_recover(path)
    assert aside is not None and len(tags.cards) == 2
    assert TagMap.load(path).cards == tags.cards  # saved again, with its header


def test_a_roster_its_loader_would_refuse_is_not_saved_and_the_game_goes_on(tmp_path: Path) -> None:
    from tests.test_seating import make_box

    box = make_box(tmp_path)
    box.seating.remember(("Bartholomew Smithers", "Ann"), 1.0)  # a name from a tag, longer than the rule
    assert box.dump(1.0)["notice"].startswith("Names not saved: players[1]: a player's name has at most 16")
    assert not (tmp_path / ROSTER_FILE).exists()


def test_a_damaged_roster_is_said_on_the_screen_and_sent_to_the_box_page(tmp_path: Path) -> None:
    from box.sim.world import SimulatedBox

    (tmp_path / "roster.json").write_text('{"names": 5}')
    world = SimulatedBox(tmp_path)
    try:
        assert world.box.notices.text.startswith("Names damaged")
        assert any("roster" in line for line in world.box.set_aside)
    finally:
        world.close()
