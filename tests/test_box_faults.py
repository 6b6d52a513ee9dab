"""The Box meets a refusing storage or a bad file mid-night: it says so, the game stays, nothing is lost.

Storage: a child process plays on the simulated box with a file-size limit of one byte
(every journal write fails, as on a full card), then with the limit lifted.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from box.base.settings import Settings
from box.core.service import Box
from box.screens.tools import DiceCup
from box.storage.journal import Journal
from box.storage.tags import TagMap

REPO = Path(__file__).resolve().parent.parent
FULL_REASONS = {"Storage full", "Storage failing"}

CHILD = r"""
import json, resource, signal, sys
from pathlib import Path
from box.sim.world import SimulatedBox

signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
world = SimulatedBox(state_dir=Path(sys.argv[1]), seed=3)
world.box.lobby.start_game("dead-set", world.now, players=3)
world.advance(5.0)
cards = list(world.decks["dead-set"].cards)

def tap(card):
    world.put("middle", world.uid_for(card)); world.lift("middle")

report = {}
tap(cards[0])
report["before"] = world.dump()["actions"]
resource.setrlimit(resource.RLIMIT_FSIZE, (1, resource.RLIM_INFINITY))  # the card is full
tap(cards[1])
dump = world.dump()
report["refused"] = {"actions": dump["actions"], "game": dump["game"], "screen": dump["screen"],
                     "notice": world.box.screen(world.now).notice}
world.advance(10.0)  # long after the refusal: the reason stays on the bottom line
report["still"] = world.box.screen(world.now).notice
world.press("roll")  # a free roll: its last dice are not journaled either, so no dice are shown
report["roll"] = {"screen": world.dump()["screen"], "notice": world.box.screen(world.now).notice}
resource.setrlimit(resource.RLIMIT_FSIZE, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))  # space freed
world.advance(6.0)  # the box tries again by itself
report["back"] = world.box.screen(world.now).notice
tap(cards[1])
report["after"] = world.dump()["actions"]
world.parts.close(); world.box.journal.close()
print(json.dumps(report))
"""


def test_a_full_card_mid_game_refuses_actions_with_the_reason_and_the_game_goes_on_once_freed(tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    env.pop("NOTIFY_SOCKET", None)
    result = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "state")], capture_output=True, text=True, env=env, timeout=120
    )
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    report = json.loads(result.stdout)
    assert report["before"] == 1
    refused = report["refused"]
    assert refused["actions"] == 1 and refused["game"] == "dead-set" and refused["screen"] == "game", refused
    assert refused["notice"] in FULL_REASONS and report["still"] in FULL_REASONS, report
    assert report["roll"]["screen"] == "game" and report["roll"]["notice"] in FULL_REASONS, report
    assert report["back"] == "Storage works again", report
    assert report["after"] == 2
    journal, damaged = Journal.open_or_recover(tmp_path / "state" / "journal.db")
    try:
        assert damaged is None and len(journal.actions(journal.unfinished_game().id)) == 2
    finally:
        journal.close()


def test_a_bad_deck_met_when_a_game_is_chosen_refuses_that_game_and_the_box_goes_on(tmp_path: Path) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "deadlines.csv").write_bytes(b"id,name\n\xff\n")
    box = Box(Journal(":memory:"), TagMap(), DiceCup.seeded(1), Settings(decks_dir=decks))
    for button in ("ok", "ok", "ok"):  # Deadlines, its players, its options' first entry: START
        box.button(button, "short", 1.0)
    view = box.screen(1.0)
    assert box.session is None and view.title == "Bad file", view
    assert "deadlines.csv:2:" in "".join(view.lines) and "UTF-8" in "".join(view.lines), view
    assert view.notice == "Bad file: game refused"
    box.button("ok", "short", 2.0)  # a press puts the reason away: the menu is there again
    assert box.screen(2.0).title != "Bad file"
    box.lobby.start_game("dead-set", 3.0, players=2)  # another game's deck is fine
    assert box.session is not None


def test_a_tag_map_set_aside_at_start_is_said(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    (state / "tags.csv").write_bytes(b"uid,game,card\n04a1b2c3,dead-set,ds001\nzz,dead-set,ds002\n")
    from box.core.app import load_tags

    tags, aside = load_tags(state)
    box = Box(Journal(":memory:"), tags, DiceCup.seeded(1), Settings(), tags_aside=aside)
    assert box.screen(0.0).notice == "Tag map damaged: copy kept, 1 tags"
