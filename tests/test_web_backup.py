"""The phone's download of the whole box (`/box/backup`): for a paired phone only, from this page's
own form, and the file is a backup `gravebox restore` takes."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.storage.backup import judge_parts, read_backup
from box.storage.journal import Journal
from tests.test_backup import owner_box
from tests.test_web import ORIGIN, Rig, text


@pytest.fixture
def rig(tmp_path: Path):
    state, decks, settings = owner_box(tmp_path / "box")
    journal = Journal(state / "journal.db")
    journal.append(journal.start_game("dead-set", ["Ann", "Bob"], {"target": "13"}, None), {"t": "press", "b": "ok"})
    journal.close()
    rig = Rig(state, tmp_path / "run")
    rig.settings.settings_file, rig.settings.decks_dir = settings, decks
    rig.box.start()
    with rig.client:
        yield rig
    rig.box.stop()


def test_a_paired_phone_downloads_a_backup_restore_takes(rig: Rig, tmp_path: Path) -> None:
    token = rig.pair()
    assert "Download the whole box" in text(rig.client.get("/box"))
    reply = rig.client.post("/box/backup", data={"csrf": token}, headers=ORIGIN)
    assert reply.status_code == 200, reply.text
    assert reply.headers["content-disposition"].startswith('attachment; filename="gravebox-backup-')
    (tmp_path / "phone.tar").write_bytes(reply.content)
    staging = tmp_path / "staging"
    staging.mkdir()
    manifest = read_backup(tmp_path / "phone.tar", staging)
    judge_parts(staging, manifest, "phone.tar")
    assert {"journal.db", "roster.json", "tags.csv", "settings/config.toml", "decks/dead-set.csv"} <= set(manifest.parts)
    assert not list(rig.settings.state_dir.glob(".gravebox-*")), "the download's file is removed once sent"


def test_no_backup_for_an_unpaired_phone_or_another_site(rig: Rig) -> None:
    assert "Pair this phone to download" in text(rig.client.get("/box"))
    assert rig.client.post("/box/backup", data={"csrf": "0" * 64}, headers=ORIGIN).status_code == 403
    token = rig.pair()
    elsewhere = {"Origin": "http://evil.example"}
    assert rig.client.post("/box/backup", data={"csrf": token}, headers=elsewhere).status_code == 403
    assert rig.client.post("/box/backup", data={"csrf": "0" * 64}, headers=ORIGIN).status_code == 403
    assert not list(rig.settings.state_dir.glob(".gravebox-*"))
