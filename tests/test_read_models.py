"""The read models are caches of the journal: `history.jsonl` (the box's) and `web-history.json` (the
page's). A line its codec refuses is left out and its game counted again from the journal; a link, a
folder or a FIFO in their place is refused without blocking; the page always starts and answers."""

from __future__ import annotations

import errno
import json
import logging
import os
import threading
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from box.storage.history import HISTORY_FILE, read
from box.web.app import WebSettings, create_app
from box.web.summaries import HISTORY_FILE as KEPT_FILE
from tests import test_web
from tests.test_web import HOSTS, ORIGIN, Rig, text

played, state_dir, rig = test_web.played, test_web.state_dir, test_web.rig  # the fixtures: two games by Ann and Bob
PAGES = ("/history", "/stats", "/history.json", "/history.csv", "/players/Ann", "/players/Bob", "/")


def answers(state: Path, tmp_path: Path) -> dict[str, str]:
    """Every reading page of a page started on `state` (the box not running): path -> text; each answered 200."""
    found = {}
    with TestClient(create_app(WebSettings(state_dir=state, control=tmp_path / "none.sock", hosts=HOSTS))) as client:
        for page in PAGES:
            reply = client.get(page)
            assert reply.status_code == 200, page
            found[page] = text(reply)
    return found


def assert_both_games_counted(found: dict[str, str]) -> None:
    assert "2 games" in found["/players/Ann"] and "2 games" in found["/players/Bob"]
    assert len(json.loads(found["/history.json"])["plays"]) == 2


def planted(state: Path, change: object) -> None:
    """Every line of history.jsonl rewritten by `change` (a function of the line's object)."""
    path = state / HISTORY_FILE
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    path.write_text("".join(json.dumps(change(line)) + "\n" for line in lines), encoding="utf-8")  # type: ignore[operator]
    (state / KEPT_FILE).unlink(missing_ok=True)  # the page's own cache: made again from the box's lines


@pytest.mark.parametrize(
    "change",
    [
        lambda line: {**line, "figures": {p: {k: float("inf") for k in row} for p, row in line["figures"].items()}},
        lambda line: {**line, "figures": {p: {k: float("nan") for k in row} for p, row in line["figures"].items()}},
        lambda line: {**line, "winners": ["Zed"]},
        lambda line: {**line, "figures": {p: [1, 2] for p in line["figures"]}},
    ],
    ids=["infinity", "nan", "a-winner-who-did-not-play", "list-figures"],
)
def test_a_line_its_codec_refuses_is_counted_again_from_the_journal(state_dir: Path, tmp_path: Path, change) -> None:
    planted(state_dir, change)
    assert read(state_dir / HISTORY_FILE) == []  # every line refused...
    found = answers(state_dir, tmp_path)
    assert_both_games_counted(found)  # ...and each game replayed instead
    assert "Zed" not in found["/history"] and "Infinity" not in found["/history.json"]


def test_a_figure_of_1e309_is_refused(state_dir: Path, tmp_path: Path) -> None:
    path = state_dir / HISTORY_FILE
    path.write_text(path.read_text(encoding="utf-8").replace('"figures":{"', '"figures":{"X":{"k":1e309},"'), encoding="utf-8")
    assert read(path) == []
    assert_both_games_counted(answers(state_dir, tmp_path))


@pytest.mark.parametrize("kind", ["link", "folder", "fifo"])
def test_a_link_a_folder_or_a_fifo_for_either_read_model_is_refused_without_blocking(
    state_dir: Path, tmp_path: Path, kind: str
) -> None:
    for name in (HISTORY_FILE, KEPT_FILE):
        path = state_dir / name
        aside = tmp_path / f"{name}.real"
        if path.exists():
            path.rename(aside)
        if kind == "link":
            path.symlink_to(aside)
        elif kind == "folder":
            path.mkdir()
        else:
            os.mkfifo(path)
    found: dict[str, str] = {}
    reader = threading.Thread(target=lambda: found.update(answers(state_dir, tmp_path)), daemon=True)
    reader.start()
    reader.join(60)
    assert not reader.is_alive(), "the page blocked on a FIFO"
    assert_both_games_counted(found)


def test_junk_is_left_out_with_one_warning_and_the_history_counted_again(
    state_dir: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (state_dir / HISTORY_FILE).write_bytes(b"x\n" * (2 * 1024 * 1024))  # 4 MiB of junk
    (state_dir / KEPT_FILE).write_bytes(b"{\n" * 1024)
    with caplog.at_level(logging.WARNING):
        found = answers(state_dir, tmp_path)
    assert_both_games_counted(found)
    assert len([r for r in caplog.records if "left out" in r.getMessage()]) <= len(PAGES) + 1


def test_list_shaped_figures_in_the_pages_cache_do_not_stop_it_starting(state_dir: Path, tmp_path: Path) -> None:
    answers(state_dir, tmp_path)  # the page keeps its summaries
    path = state_dir / KEPT_FILE
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    assert lines
    for line in lines:
        line["summary"]["figures"] = {player: [1, 2] for player in line["summary"]["figures"]}
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    assert_both_games_counted(answers(state_dir, tmp_path))


def test_the_roster_on_a_full_disk_says_storage_full(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    import box.web.pages.roster as roster_page

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(roster_page, "save_roster", full)
    token = rig.pair()
    reply = rig.client.post("/roster", data={"csrf": token, "names": "Ann\nBob"}, headers=ORIGIN)
    assert reply.status_code == 409 and "Not saved: Storage full" in text(reply)


def test_a_deck_upload_on_a_full_disk_says_storage_full(rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    import box.web.cards as deck_checks

    def full(*args: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(deck_checks, "write_atomically", full)
    token = rig.pair()
    good = (test_web.SCENARIOS / "dead-set" / "decks" / "dead-set.csv").read_bytes()
    reply = rig.client.post(
        "/cards/deck",
        data={"csrf": token, "game": "dead-set"},
        files={"file": ("my-deck.csv", good, "text/csv")},
        headers=ORIGIN,
    )
    assert reply.status_code == 409 and "Not saved: Storage full" in text(reply)
    assert not (rig.settings.state_dir / "decks" / "dead-set.csv").exists() and rig.commands() == []
