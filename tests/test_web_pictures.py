"""The Now page draws each game in play (SVG, served by the box itself) and says what just happened."""

from __future__ import annotations

import asyncio
import html
import re
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from box.games import rules_for
from box.links.control import ControlServer
from box.sim.script import run_script
from box.web.app import WebSettings, create_app

SCENARIOS = Path(__file__).parent / "scenarios"


def now_page(tmp_path: Path, game: str, script: str, events: list[dict[str, Any]] = ()) -> tuple[str, dict[str, Any]]:
    """The Now page while the box publishes the state a scenario ends in (and `events`)."""
    decks = SCENARIOS / game / "decks"
    world, _ = run_script(SCENARIOS / game / f"{script}.script", tmp_path / "state", decks, seed=1)
    state = {**world.dump(), "events": list(events)}
    world.close()
    box = ControlServer(tmp_path / "run" / "control.sock", lambda command: None)
    box.start()
    try:
        settings = WebSettings(state_dir=tmp_path / "state", control=box.path, decks_dir=decks, hosts=("testserver",))
        app = create_app(settings)
        with TestClient(app) as client:
            box.publish(state)
            link = app.state.link

            async def heard() -> None:
                while link.state is None:
                    await asyncio.wait_for(link.changed.wait(), 5)

            client.portal.call(heard)
            return html.unescape(client.get("/").text), state
    finally:
        box.stop()


def test_the_board_is_drawn_with_start_arrows_cards_and_tokens(tmp_path: Path) -> None:
    page, state = now_page(tmp_path, "deck-of-death", "takeover-and-duels")
    board = rules_for("deck-of-death").load_deck(SCENARIOS / "deck-of-death" / "decks").board
    assert '<svg class="drawing board"' in page
    outer = re.findall(r'data-space="(\d+)"', page)
    inner = re.findall(r'data-space="i(\d+)"', page)
    assert len(outer) == board.outer and len(inner) == board.inner
    assert re.search(rf'class="space start" data-space="{board.start}"', page)
    assert page.count('class="arrow"') == len(board.arrows)
    assert state["board"], "the scenario leaves a card on the board"
    for space, placed in state["board"].items():
        assert re.search(rf'class="space taken" data-space="{space}">\s*<circle[^>]*><title>[^<]*, {placed["owner"]}\'s</title>', page)
    assert sorted(re.findall(r'class="token" data-player="(\w+)"', page)) == sorted(state["players"])


def test_the_columns_are_timelines_in_the_boxs_order_with_each_cards_date(tmp_path: Path) -> None:
    page, state = now_page(tmp_path, "deadlines", "classic")
    headings = re.findall(r'<section class="timeline" id="column-\w+"><h2>([^<]+?) (?:<span|<small)', page)
    assert headings == ["Birth", "Life span", "Death"]
    deck = rules_for("deadlines").load_deck(SCENARIOS / "deadlines" / "decks")
    first = state["columns"]["death"][0]
    assert f'class="date">{deck[first].died}</text>' in page
    assert page.count('class="placed-card"') == sum(len(ids) for ids in state["columns"].values())


def test_the_piles_show_the_totals_revealed(tmp_path: Path) -> None:
    page, state = now_page(tmp_path, "dead-set", "bust")
    busted = [name for name, r in state["last_round"].items() if r["bust"]]
    assert busted and f"last round {state['last_round'][busted[0]]['total']} · bust" in page
    assert f"over {rules_for('dead-set').phone.limit} is a bust" in page  # the limit the game declares
    assert page.count('class="pile"') == len(state["players"])


def test_the_mooks_show_their_items_and_strength(tmp_path: Path) -> None:
    page, state = now_page(tmp_path, "dead-fellas", "whack")
    strengths = re.findall(r'aria-label="strength (\d+)"', page)
    assert strengths == [str(m["total"]) for name in state["players"] for m in state["mooks"][name]]
    assert "Tommy Gun" in page  # an item on a mook, by its card's name


def test_what_just_happened_in_words_and_no_stale_dice(tmp_path: Path) -> None:
    events = [
        {"event": "dice-rolled", "faces": [1, 5], "game": None},
        {"event": "game-started", "game": "deck-of-death"},
        {"event": "action-accepted", "game": "deck-of-death", "words": "Ann rolls", "player": "Ann"},
        {"event": "lap-completed", "game": "deck-of-death", "player": "Ann", "lap": 2},
    ]
    page, _ = now_page(tmp_path, "deck-of-death", "laps-and-start", events)
    happened = re.search(r'<ol id="happened">(.*?)</ol>', page, re.S)[1]
    assert re.findall(r"<li>(.*?)</li>", happened) == ["Ann completed lap 2", "Ann rolls"]
    assert 'id="dice"' not in page  # the 1 + 5 was thrown before this game began


@pytest.mark.parametrize(("label", "count", "said"), [("penalties", 1, "penalty"), ("laps", 2, "laps"), ("wins", 1, "win")])
def test_plurals(label: str, count: int, said: str) -> None:
    from box.web.drawings import per

    assert per(label, count) == said
