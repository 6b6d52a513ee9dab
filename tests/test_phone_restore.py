"""Restore by upload from a paired phone (`/box/restore`, box/storage/backup_upload.py): the page
takes the file into the state folder, checks it with the restore's own reader, asks, and the box
restores it itself through its `restore` command and resumes the restored game. Refused in one line
with nothing changed: unpaired, another site, damaged, foreign, truncated, oversized, a full disk."""

from __future__ import annotations

import errno
import io
import tarfile
from pathlib import Path

import pytest

from bench.soak import stable
from box.links.control import ControlCommand, ControlServer
from box.sim.world import SimulatedBox
from box.storage.backup import JOURNAL, Places, write_backup
from box.storage.backup_upload import upload_name
from tests.test_backup import actions_of, owner_box, play, snapshot
from tests.test_web import ORIGIN, Rig, text


class BoxRig(Rig):
    """The page beside a simulated box that takes every command through its loop's own `handle`
    (on the socket's thread, while the test waits on the page: one thread at a time drives it)."""

    def __init__(self, world: SimulatedBox, runtime: Path):
        super().__init__(world.state_dir, runtime)
        self.world = world
        self.box = ControlServer(runtime / "control.sock", self.take, wait=5.0)

    def take(self, command: ControlCommand | None) -> None:
        if command is None:
            return
        if command.name in ("show-code", "hide-code"):  # pairing: the test reads the code as it is sent
            self.inbox.put(command)
            if command.reply is not None:
                command.reply("")
            return
        self.world.loop.handle(command, self.world.now)
        self.world.advance(0.0)


@pytest.fixture
def made(tmp_path: Path) -> dict:
    """A backup of a box with a Dead Set game in play: the file, and the game as the box had it."""
    state, decks, settings = owner_box(tmp_path / "home")
    world = SimulatedBox(state_dir=state, seed=7)
    try:
        play(world, "dead-set", seed=7, steps=25)
        assert world.box.session is not None and world.box.session.record.name == "dead-set"
        made = {"dump": stable(world.dump()), "actions": actions_of(world.journal)}
        write_backup(Places(state, settings, decks), tmp_path / "box.tar", "test")
    finally:
        world.close()
    return {**made, "file": tmp_path / "box.tar"}


@pytest.fixture
def rig(tmp_path: Path):
    """A friend's box, in another state (other names, a Deadlines game in play), and its page."""
    state, _, _ = owner_box(tmp_path / "friend", names=("Dee", "Eve"))
    world = SimulatedBox(state_dir=state, seed=3)
    play(world, "deadlines", seed=3, steps=12)
    assert world.box.session is not None and world.box.session.record.name == "deadlines"
    rig = BoxRig(world, tmp_path / "run")
    rig.box.start()
    try:
        with rig.client:
            yield rig
    finally:
        rig.box.stop()
        world.close()


def send(rig: BoxRig, token: str, data: bytes, origin: dict[str, str] = ORIGIN):
    return rig.client.post("/box/restore", data={"csrf": token}, files={"backup": ("box.tar", data, "application/x-tar")},
                           headers=origin)


def uploads(rig: BoxRig) -> list[Path]:
    return sorted(rig.world.state_dir.glob(".gravebox-*"))


def test_a_paired_phone_restores_a_backup_and_the_box_resumes_its_game(rig: BoxRig, made: dict) -> None:
    world = rig.world
    token = rig.pair()
    assert "Restore the whole box from a backup" in text(rig.client.get("/box"))
    before = actions_of(world.journal)
    asked = send(rig, token, made["file"].read_bytes())
    assert asked.status_code == 200, text(asked)
    said = text(asked)
    assert "Replace everything on the box with this backup?" in said and "replaced-<date>-<time>/" in said
    assert world.box.session is not None and world.box.session.record.name == "deadlines"  # nothing yet
    assert actions_of(world.journal) == before and len(uploads(rig)) == 1
    answer = rig.client.post("/box/restore/confirm", data={"csrf": token, "token": uploads(rig)[0].name[18:50]},
                             headers=ORIGIN)
    assert answer.status_code == 200, text(answer)
    assert "Restored" in text(answer)
    session = world.box.session
    assert session is not None and session.record.name == "dead-set"  # the backup's game, resumed
    assert actions_of(world.journal) == made["actions"]
    assert stable(world.dump()) == made["dump"] and world.dump()["notice"] == "Backup restored"
    assert world.box.settings.roster.names == ("Ann", "Bob", "Cid")  # the backup's roster
    (kept,) = world.state_dir.glob("replaced-*")
    assert (kept / JOURNAL).is_file() and uploads(rig) == []
    play(world, "dead-set", seed=8, steps=15)  # and it plays on
    assert len(actions_of(world.journal)) > len(made["actions"])


def test_no_restore_for_an_unpaired_phone_or_another_site(rig: BoxRig, made: dict) -> None:
    data = made["file"].read_bytes()
    assert "Pair this phone to download the whole box in one file or restore one" in text(rig.client.get("/box"))
    assert send(rig, "0" * 64, data).status_code == 403
    token = rig.pair()
    assert send(rig, token, data, {"Origin": "http://evil.example"}).status_code == 403
    assert send(rig, "0" * 64, data).status_code == 403  # a stale form token: the file is never kept
    assert rig.client.post("/box/restore/confirm", data={"csrf": "0" * 64, "token": "0" * 32}, headers=ORIGIN).status_code == 403
    assert uploads(rig) == [] and rig.world.box.session.record.name == "deadlines"


def tampered(data: bytes) -> bytes:
    at = data.index(b"SQLite format 3") + 4096  # a byte inside the journal: its checksum no longer matches
    return data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]


def foreign() -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
        info = tarfile.TarInfo("holiday.jpg")
        info.size = 5
        tar.addfile(info, io.BytesIO(b"JFIF!"))
    return out.getvalue()


@pytest.mark.parametrize("kind", ["tampered", "truncated", "foreign", "empty"])
def test_a_bad_file_is_refused_in_one_line_and_nothing_changes(rig: BoxRig, made: dict, kind: str) -> None:
    good = made["file"].read_bytes()
    data = {"tampered": tampered(good), "truncated": good[: len(good) // 2], "foreign": foreign(), "empty": b""}[kind]
    token = rig.pair()
    state = snapshot(rig.world.state_dir)
    reply = send(rig, token, data)
    assert reply.status_code == 400, text(reply)
    line = next(line for line in text(reply).splitlines() if "Not restored" in line)
    assert line.strip().startswith('<p class="message bad"') and len(line) < 300
    assert snapshot(rig.world.state_dir) == state and uploads(rig) == []


def test_an_oversized_upload_is_refused_before_it_is_read(rig: BoxRig, made: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import box.web.pages.box as box_page

    token = rig.pair()
    monkeypatch.setattr(box_page, "MAX_BACKUP", 1000)
    reply = send(rig, token, made["file"].read_bytes())
    assert reply.status_code == 413 and "not a Gravebox backup" in text(reply)
    assert uploads(rig) == []


def test_an_upload_onto_a_full_disk_says_storage_full(rig: BoxRig, made: dict, monkeypatch: pytest.MonkeyPatch) -> None:
    import box.web.upload as upload

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    token = rig.pair()
    monkeypatch.setattr(upload, "open", full, raising=False)
    reply = send(rig, token, made["file"].read_bytes())
    assert reply.status_code == 409 and "Not saved: Storage full" in text(reply)
    assert uploads(rig) == [] and rig.world.box.session.record.name == "deadlines"


def test_no_changes_the_mind_and_the_box_stays_as_it_was(rig: BoxRig, made: dict) -> None:
    token = rig.pair()
    before = actions_of(rig.world.journal)
    assert send(rig, token, made["file"].read_bytes()).status_code == 200
    upload = uploads(rig)[0].name[18:50]
    answer = rig.client.post("/box/restore/cancel", data={"csrf": token, "token": upload}, headers=ORIGIN)
    assert answer.status_code == 200 and "Nothing restored" in text(answer)
    assert uploads(rig) == [] and actions_of(rig.world.journal) == before
    gone = rig.client.post("/box/restore/confirm", data={"csrf": token, "token": upload}, headers=ORIGIN)
    assert gone.status_code == 410


def test_the_box_checks_the_file_itself_and_refuses_a_bad_one(tmp_path: Path, made: dict) -> None:
    """The box trusts no check of the page's: a file changed after the question is refused by the box
    (one line back to the page), the game in play goes on, and the file is removed."""
    state, _, _ = owner_box(tmp_path / "friend", names=("Dee", "Eve"))
    world = SimulatedBox(state_dir=state, seed=3)
    try:
        play(world, "deadlines", seed=3, steps=12)
        before, dump = actions_of(world.journal), stable(world.dump())
        name = upload_name("ab" * 16)
        (state / name).write_bytes(tampered(made["file"].read_bytes()))
        answers: list[str] = []
        for file in (name, "../journal.db"):
            world.loop.enqueue(ControlCommand("restore", {"file": file}, reply=answers.append))
            world.advance(0.05)
        assert answers[0].startswith("Not restored: journal.db: its checksum does not match")
        assert answers[1] == "Not restored: not a backup the phone page uploaded"
        assert actions_of(world.journal) == before and not (state / name).exists()
        assert not list(state.glob("replaced-*"))
        assert world.box.session is not None and stable(world.dump())["game"] == dump["game"]
        play(world, "deadlines", seed=4, steps=2)  # the journal works on
        assert len(actions_of(world.journal)) > len(before)
    finally:
        world.close()


def test_the_page_says_when_the_box_is_not_running(rig: BoxRig, made: dict) -> None:
    token = rig.pair()
    assert send(rig, token, made["file"].read_bytes()).status_code == 200
    upload = uploads(rig)[0].name[18:50]
    rig.box.stop()
    answer = rig.client.post("/box/restore/confirm", data={"csrf": token, "token": upload}, headers=ORIGIN)
    assert answer.status_code == 503 and "The box is not running: nothing restored" in text(answer)
    assert uploads(rig) == [] and rig.world.box.session.record.name == "deadlines"
