"""The whole box in one file: `gravebox backup` and `gravebox restore` (box/storage/backup.py).

Round trips onto a fresh state folder (the simulated box resumes the game in play with the same
actions), a backup taken while a box writes, a restore onto a box in another state (what it
replaced is kept), and files that must be refused with one line, exit 2 and nothing changed:
truncated, tampered, oversized, foreign, with links or paths that leave the folder.
"""

from __future__ import annotations

import hashlib
import io
import json
import random
import shutil
import sqlite3
import tarfile
import tempfile
import threading
from contextlib import closing
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bench.soak import RandomPlayer, stable
from box.cli.main import main
from box.decks.codec import BUILTIN_DIR
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox
from box.storage.backup import (
    MANIFEST,
    JournalInUse,
    NotABackup,
    Places,
    journal_in_use,
    read_backup,
    restore,
    write_backup,
)
from box.storage.history import HISTORY_FILE, Played, append
from box.storage.journal import Journal
from box.storage.roster import ROSTER_FILE, UPLOADED_DECKS, Roster, save_roster
from box.storage.tags import TAGS_FILE, TagMap

UID = bytes.fromhex("04a1b2c3d4e5f6")


def owner_box(root: Path, names: tuple[str, ...] = ("Ann", "Bob", "Cid")) -> tuple[Path, Path, Path]:
    """A box's state folder with a roster, a tag map and a history; its settings file naming its decks folder."""
    state, decks, settings = root / "state", root / "decks", root / "config.toml"
    for folder in (state, decks):
        folder.mkdir(parents=True)
    save_roster(Roster.checked(list(names), {}), state / ROSTER_FILE)
    TagMap({UID: ("dead-set", "ds001")}).save(state / TAGS_FILE)
    append(state / HISTORY_FILE, Played(1, "dead-set", "Dead Set", names, names[:1], {}, "2026-12-01 21:00", 9, ()))
    shutil.copy(BUILTIN_DIR / "dead-set.csv", decks / "dead-set.csv")
    (state / UPLOADED_DECKS).mkdir()  # a deck uploaded from the phone
    shutil.copy(BUILTIN_DIR / "deadlines.csv", state / UPLOADED_DECKS / "deadlines.csv")
    settings.write_text(f'[box]\nnames = {json.dumps(list(names))}\ndecks = "{decks}"\n', encoding="utf-8")
    return state, decks, settings


def play(world: SimulatedBox, game: str, seed: int, steps: int) -> None:
    player = RandomPlayer(game, random.Random(seed), faults=False, tidy=True)
    runner = ScriptRunner(world, f"{game}:{seed}")
    for _ in range(steps):
        runner.run(parse_script("\n".join(player.step(world)), runner.path))


def actions_of(journal: Journal) -> list[tuple[int, str, int]]:
    return journal.db.execute("SELECT game, action, undone FROM actions ORDER BY game, seq").fetchall()


def snapshot(*folders: Path) -> dict[str, bytes]:
    """Every file under `folders` and its bytes: what "nothing changed" compares."""
    return {str(p): p.read_bytes() for folder in folders for p in sorted(folder.rglob("*")) if p.is_file()}


def test_a_box_restored_on_a_fresh_state_folder_resumes_its_game(tmp_path: Path) -> None:
    state, decks, settings = owner_box(tmp_path / "home")
    world = SimulatedBox(state_dir=state, seed=7)
    try:
        play(world, "dead-set", seed=7, steps=25)
        assert world.box.session is not None, "a game is in play"
        expected, actions = stable(world.dump()), actions_of(world.journal)
        assert main(["backup", "-o", str(tmp_path / "box.tar"), "--state-dir", str(state), "--config", str(settings)]) == 0
    finally:
        world.close()
    fresh = tmp_path / "friend"
    fresh_decks = fresh / "decks"
    fresh_decks.mkdir(parents=True)
    code = main(["restore", str(tmp_path / "box.tar"), "--state-dir", str(fresh / "state"),
                 "--config", str(fresh / "config.toml"), "--decks", str(fresh_decks)])
    assert code == 0
    names = ["journal.db", ROSTER_FILE, TAGS_FILE, HISTORY_FILE, UPLOADED_DECKS]
    assert sorted(p.name for p in (fresh / "state").iterdir()) == sorted(names)
    assert list(snapshot(fresh / "state" / UPLOADED_DECKS).values()) == list(snapshot(state / UPLOADED_DECKS).values())
    for name in (ROSTER_FILE, TAGS_FILE, HISTORY_FILE):
        assert (fresh / "state" / name).read_bytes() == (state / name).read_bytes()
    assert (fresh / "config.toml").read_bytes() == settings.read_bytes()
    assert (fresh_decks / "dead-set.csv").read_bytes() == (decks / "dead-set.csv").read_bytes()
    again = SimulatedBox(state_dir=fresh / "state", seed=7)
    try:
        assert again.box.session is not None and again.box.session.record.name == "dead-set"
        assert actions_of(again.journal) == actions
        assert stable(again.dump()) == expected
        play(again, "dead-set", seed=8, steps=3)  # and it plays on
    finally:
        again.close()


def test_the_command_says_what_it_wrote(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, _, settings = owner_box(tmp_path)
    Journal(state / "journal.db").close()
    assert main(["backup", "-o", str(tmp_path / "b.tar"), "--state-dir", str(state), "--config", str(settings)]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"{tmp_path / 'b.tar'}: the box's backup: journal.db, roster.json, tags.csv, history.jsonl,"
                           " settings, 1 deck file, 1 deck from the phone (")
    with tarfile.open(tmp_path / "b.tar") as tar:  # a plain tar any tool lists
        assert tar.getnames()[0] == MANIFEST and "decks/dead-set.csv" in tar.getnames()


@pytest.mark.parametrize("where", ["no state", "no folder", "a folder"])
def test_a_backup_that_cannot_be_written_is_one_line(where: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, _, settings = owner_box(tmp_path)
    output = {"no state": tmp_path / "b.tar", "no folder": tmp_path / "gone" / "b.tar", "a folder": tmp_path}[where]
    state = tmp_path / "nowhere" if where == "no state" else state
    assert main(["backup", "-o", str(output), "--state-dir", str(state), "--config", str(settings)]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("gravebox: ") and "\n" not in err
    assert not (tmp_path / "b.tar").exists()


def test_a_backup_taken_while_the_box_writes_is_one_moment_of_its_journal(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    box = Journal(state / "journal.db")
    game = box.start_game("dead-set", ["Ann", "Bob"], {"target": "13"}, None)
    written, stop, more = [0], threading.Event(), threading.Condition()

    def keep_writing() -> None:  # the box, writing on while the backups are taken
        while not stop.is_set():
            box.append(game, {"t": "press", "b": "ok", "n": written[0]})
            with more:
                written[0] += 1
                more.notify_all()

    writer = threading.Thread(target=keep_writing)
    writer.start()
    counts = []
    try:
        for number in range(4):
            with more:
                more.wait_for(lambda least=5 * (number + 1): written[0] > least, timeout=30)
            write_backup(Places(state), tmp_path / f"{number}.tar", "test")
            staging = tmp_path / f"staged-{number}"
            staging.mkdir()
            read_backup(tmp_path / f"{number}.tar", staging)
            with closing(sqlite3.connect(staging / "journal.db")) as copy:
                seen = [json.loads(a)["n"] for (a,) in copy.execute("SELECT action FROM actions ORDER BY seq")]
            assert seen == list(range(len(seen))), "a prefix of the actions, none torn"
            counts.append(len(seen))
    finally:
        stop.set()
        writer.join()
        box.close()
    assert counts == sorted(counts) and counts[0] > 5


def test_a_restore_onto_a_box_in_another_state_keeps_what_it_replaced(tmp_path: Path) -> None:
    state, _, settings = owner_box(tmp_path / "a")
    world = SimulatedBox(state_dir=state, seed=3)
    try:
        play(world, "dead-fellas", seed=3, steps=20)
        expected = stable(world.dump())
        write_backup(Places(state, settings, tmp_path / "a" / "decks"), tmp_path / "a.tar", "test")
    finally:
        world.close()
    other, other_decks, other_settings = owner_box(tmp_path / "b", names=("Dee", "Eve"))
    (other_decks / "deadlines.csv").write_bytes((BUILTIN_DIR / "deadlines.csv").read_bytes())
    world = SimulatedBox(state_dir=other, seed=4)
    try:
        play(world, "deadlines", seed=4, steps=15)
    finally:
        world.close()
    before = snapshot(other, other_decks) | {str(other_settings): other_settings.read_bytes()}
    done = restore(tmp_path / "a.tar", Places(other, other_settings, other_decks), decks=other_decks)
    assert done.kept is not None and done.kept.parent == other and done.kept.name.startswith("replaced-")
    for name in (ROSTER_FILE, TAGS_FILE, HISTORY_FILE, "journal.db", f"{UPLOADED_DECKS}/deadlines.csv"):
        assert (done.kept / name).read_bytes() == before[str(other / name)], name
    assert (done.kept / "settings" / "config.toml").read_bytes() == before[str(other_settings)]
    assert (done.kept / "owner-decks" / "deadlines.csv").exists() and not (other_decks / "deadlines.csv").exists()
    assert other_settings.read_bytes() == settings.read_bytes()
    again = SimulatedBox(state_dir=other, seed=3)
    try:
        assert stable(again.dump()) == expected
    finally:
        again.close()


def test_state_only_leaves_the_settings_and_decks(tmp_path: Path) -> None:
    state, decks, settings = owner_box(tmp_path / "a")
    write_backup(Places(state, settings, decks), tmp_path / "a.tar", "test")
    other, other_decks, other_settings = owner_box(tmp_path / "b", names=("Dee",))
    (other_decks / "deadlines.csv").write_bytes((BUILTIN_DIR / "deadlines.csv").read_bytes())
    kept = snapshot(other_decks) | {"settings": other_settings.read_bytes()}
    code = main(["restore", str(tmp_path / "a.tar"), "--state-only", "--state-dir", str(other),
                 "--config", str(other_settings)])
    assert code == 0 and snapshot(other_decks) | {"settings": other_settings.read_bytes()} == kept
    assert (other / ROSTER_FILE).read_bytes() == (state / ROSTER_FILE).read_bytes()


def test_restore_waits_until_the_box_is_stopped(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, decks, settings = owner_box(tmp_path / "a")
    write_backup(Places(state, settings, decks), tmp_path / "a.tar", "test")
    other, _, other_settings = owner_box(tmp_path / "b")
    running = Journal(other / "journal.db")  # the service holds it
    try:
        assert journal_in_use(other / "journal.db")
        before = snapshot(other)
        assert main(["restore", str(tmp_path / "a.tar"), "--state-dir", str(other), "--config", str(other_settings)]) == 1
        assert snapshot(other) == before
    finally:
        running.close()
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "stop it first" in err
    assert not journal_in_use(other / "journal.db")


# ----- files a restore refuses ------------------------------------------------------------------


def crafted(parts: dict[str, bytes], manifest: dict | None = None, extra: list[tarfile.TarInfo] = ()) -> bytes:
    """A tar of `parts` with a true manifest (or `manifest`), and `extra` members after it."""
    rows = [{"name": n, "size": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in parts.items()]
    found = manifest if manifest is not None else {"format": "gravebox-backup", "version": 1, "box": "t", "made": "t", "parts": rows}
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        for name, data in {MANIFEST: json.dumps(found).encode(), **parts}.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        for info in extra:
            tar.addfile(info)
    return out.getvalue()


@pytest.fixture(scope="module")
def good(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    tmp_path = tmp_path_factory.mktemp("good")
    state, decks, settings = owner_box(tmp_path / "source")
    journal = Journal(state / "journal.db")
    game = journal.start_game("dead-set", ["Ann", "Bob"], {"target": "13"}, None)
    journal.append(game, {"t": "press", "b": "ok"})
    journal.close()
    write_backup(Places(state, settings, decks), tmp_path / "good.tar", "test")
    return (tmp_path / "good.tar").read_bytes()


def link(name: str, target: str, kind: bytes = tarfile.SYMTYPE) -> tarfile.TarInfo:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info


def refusals(good: bytes) -> dict[str, tuple[bytes, str]]:
    """Each bad file and a word its one line must hold."""
    data_at = good.index(b"SQLite format 3")
    roster = json.dumps({"players": 5}).encode()
    return {
        "empty": (b"", "not a Gravebox backup"),
        "cut in the manifest": (good[:700], "truncated"),
        "cut in the journal": (good[: data_at + 1000], "truncated"),
        "cut between parts": (good[: good.index(b"tags.csv\0") - 1], "truncated"),
        "a part's byte changed": (good[: data_at + 200] + bytes([good[data_at + 200] ^ 1]) + good[data_at + 201 :], "checksum"),
        "a header's byte changed": (good[:10] + b"X" + good[11:], "checksum"),
        "a zip": (b"PK\x03\x04" + bytes(600), "not a"),
        "a gzip": (b"\x1f\x8b\x08" + bytes(600), "not a"),
        "a tar of something else": (crafted({}, manifest={"format": "photos"}), "not a Gravebox backup"),
        "a later format": (crafted({}, manifest={"format": "gravebox-backup", "version": 9, "parts": []}), "update"),
        "a path out of the folder": (crafted({"decks/../../x.csv": b"id,name\n"}), "no backup holds"),
        "an absolute path": (crafted({"/etc/x.csv": b"x"}), "no backup holds"),
        "a link": (crafted({}, extra=[link("decks/a.csv", "/etc/shadow")]), "not a plain file"),
        "a hard link": (crafted({}, extra=[link("roster.json", "/etc/shadow", tarfile.LNKTYPE)]), "not a plain file"),
        "a part not in the manifest": (crafted({}, extra=[tarfile.TarInfo("tags.csv")]), "does not list"),
        "garbage after the end": (good + b"more" + bytes(508), "follows the end"),
        "a journal that is no SQLite file": (crafted({"journal.db": b"hello" * 100}), "journal.db: not an SQLite file"),
        "a roster its loader refuses": (crafted({"roster.json": roster}), "roster.json"),
        "a tag map its loader refuses": (crafted({"tags.csv": b"uid,game,card\nzz,dead-set,ds001\n"}), "tags.csv:2"),
        "settings their loader refuses": (crafted({"settings/config.toml": b"[box]\nbogus = 1\n"}), "bogus"),
        "a deck its loader refuses": (crafted({"decks/dead-set.csv": b"id,name\n"}), "dead-set.csv"),
        "an uploaded deck its loader refuses": (crafted({"uploaded-decks/deadlines.csv": b"id\n"}), "deadlines.csv"),
        "a history line unreadable": (crafted({"history.jsonl": b'{"number": "x"}\n'}), "history.jsonl:1"),
    }


CASES = list(refusals(b"SQLite format 3tags.csv\0" + bytes(2048)))  # the names: each test makes its file from a real backup


@pytest.mark.parametrize("case", CASES)
def test_a_bad_file_is_refused_in_one_line_and_nothing_changes(
    case: str, good: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data, word = refusals(good)[case]
    state, decks, settings = owner_box(tmp_path / "target", names=("Dee",))
    Journal(state / "journal.db").close()
    (tmp_path / "bad.tar").write_bytes(data)
    before = snapshot(state, decks) | {"settings": settings.read_bytes()}
    code = main(["restore", str(tmp_path / "bad.tar"), "--state-dir", str(state), "--config", str(settings)])
    err = capsys.readouterr().err.strip()
    assert code == 2, err
    assert err.startswith("gravebox: ") and "\n" not in err and word in err, err
    assert snapshot(state, decks) | {"settings": settings.read_bytes()} == before
    assert not [p for p in state.iterdir() if p.name.startswith((".gravebox-backup-", "replaced-"))]


def test_an_oversized_file_is_refused_before_it_is_read(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from box.storage.backup import MAX_BACKUP

    huge = tmp_path / "huge.tar"
    with open(huge, "wb") as handle:
        handle.truncate(MAX_BACKUP + 1)  # sparse: no room taken
    state = tmp_path / "state"
    assert main(["restore", str(huge), "--state-dir", str(state), "--config", str(tmp_path / "none.toml")]) == 2
    assert "larger than" in capsys.readouterr().err
    assert not state.exists() or not any(state.iterdir())


def test_a_part_over_its_bound_is_refused_by_the_manifest(tmp_path: Path) -> None:
    from box.storage.backup import NotABackup

    rows = [{"name": "roster.json", "size": 10**9, "sha256": "0" * 64}]
    (tmp_path / "b.tar").write_bytes(crafted({}, manifest={"format": "gravebox-backup", "version": 1, "parts": rows}))
    (tmp_path / "staging").mkdir()
    with pytest.raises(NotABackup, match="over its bound"):
        read_backup(tmp_path / "b.tar", tmp_path / "staging")


def test_damaged_history_lines_are_left_out_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, _, settings = owner_box(tmp_path / "a")
    good_line = (state / HISTORY_FILE).read_bytes()
    (state / HISTORY_FILE).write_bytes(good_line + b'{"number": "torn\n' + good_line + b'{"numb')
    assert main(["backup", "-o", str(tmp_path / "b.tar"), "--state-dir", str(state), "--config", str(settings)]) == 0
    assert "left out of the history: 1 damaged line(s)" in capsys.readouterr().out
    fresh = ["--state-dir", str(tmp_path / "fresh"), "--config", str(tmp_path / "none.toml")]
    assert main(["restore", str(tmp_path / "b.tar"), "--state-only", *fresh]) == 0
    assert (tmp_path / "fresh" / HISTORY_FILE).read_bytes() == good_line * 2


def test_a_damaged_journal_gives_no_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state, _, settings = owner_box(tmp_path)
    (state / "journal.db").write_bytes(b"SQLite format 3\0" + bytes(4000))
    assert main(["backup", "-o", str(tmp_path / "b.tar"), "--state-dir", str(state), "--config", str(settings)]) == 2
    err = capsys.readouterr().err.strip()
    assert "journal" in err and "\n" not in err
    assert not (tmp_path / "b.tar").exists() and not list(tmp_path.glob(".gravebox-backup-*"))


def test_restore_waits_for_a_box_in_another_process(tmp_path: Path) -> None:
    import subprocess
    import sys

    state, decks, settings = owner_box(tmp_path / "a")
    write_backup(Places(state, settings, decks), tmp_path / "a.tar", "test")
    other = tmp_path / "b"
    other.mkdir()
    holder = "import sys; from box.storage.journal import Journal; j = Journal(sys.argv[1]); print('open', flush=True); sys.stdin.read()"
    box = subprocess.Popen([sys.executable, "-c", holder, str(other / "journal.db")],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=Path(__file__).parent.parent)
    try:
        assert box.stdout is not None and box.stdout.readline() == "open\n"
        with pytest.raises(JournalInUse):
            restore(tmp_path / "a.tar", Places(other), state_only=True)
    finally:
        box.communicate("")
    restore(tmp_path / "a.tar", Places(other), state_only=True)
    assert (other / ROSTER_FILE).read_bytes() == (state / ROSTER_FILE).read_bytes()


def test_the_box_menu_saves_the_whole_box_to_a_stick(tmp_path: Path) -> None:
    from box.core.app import SIM_STICK, SIM_STICKS
    from tests.test_tag_transfer import answered, usb

    state, _, _ = owner_box(tmp_path / "box")
    world = SimulatedBox(state_dir=state, seed=5)
    try:
        usb(world, "Save box to USB")  # main menu, USB stick: the job runs on the stick's worker
        assert answered(world) == "Box saved on STICK: you may pull it"
        actions = actions_of(world.journal)
    finally:
        world.close()
    saved = list((state / SIM_STICKS / SIM_STICK).glob("gravebox-backup-*.tar"))
    assert len(saved) == 1
    done = restore(saved[0], Places(tmp_path / "fresh"), state_only=True)
    assert {"journal.db", ROSTER_FILE, TAGS_FILE, HISTORY_FILE} <= set(done.manifest.parts)
    assert (tmp_path / "fresh" / ROSTER_FILE).read_bytes() == (state / ROSTER_FILE).read_bytes()
    again = SimulatedBox(state_dir=tmp_path / "fresh", seed=5)
    try:
        assert actions_of(again.journal) == actions
    finally:
        again.close()


def test_no_stick_no_backup_one_line(tmp_path: Path) -> None:
    from box.core.app import SIM_STICK
    from box.ports.usb import FakeSticks
    from tests.test_tag_transfer import answered, usb

    state, _, _ = owner_box(tmp_path / "box")
    world = SimulatedBox(state_dir=state)
    try:
        sticks = world.transfers.sticks
        assert isinstance(sticks, FakeSticks)
        sticks.pull(SIM_STICK)
        usb(world, "Save box to USB")
        assert answered(world) == "Not saved: no USB stick: plug one in"
    finally:
        world.close()


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_one_byte_changed_anywhere_is_refused_or_changes_no_part(data: st.DataObject, good: bytes, tmp_path: Path) -> None:
    at = data.draw(st.integers(0, len(good) - 1), label="at")
    changed = good[:at] + bytes([good[at] ^ data.draw(st.integers(1, 255), label="xor")]) + good[at + 1 :]
    folder = Path(tempfile.mkdtemp(dir=tmp_path))
    (folder / "staging").mkdir()
    (folder / "original").mkdir()
    (folder / "b.tar").write_bytes(changed)
    (folder / "a.tar").write_bytes(good)
    try:
        read_backup(folder / "b.tar", folder / "staging")
    except NotABackup:
        return
    read_backup(folder / "a.tar", folder / "original")  # taken: only the manifest's own words changed
    assert [p.read_bytes() for p in sorted((folder / "staging").rglob("*")) if p.is_file()] == [
        p.read_bytes() for p in sorted((folder / "original").rglob("*")) if p.is_file()
    ]
