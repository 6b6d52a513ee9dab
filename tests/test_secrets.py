"""What the table may not see stays at the table: each game declares its secrets (`Rules.secrets`),
and every output of the box and the page goes through that one declaration.

Each game's secrets are played on a simulated box that publishes on a real control socket; the
socket's state line, every page of the phone page (with the box running, then rebuilt from the
journal once it stops), `/api/state`, the exports and the read models on disk are read for them.
"""

from __future__ import annotations

import dataclasses
import html
import json
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from box.games import GAMES, rules_for
from box.games.kit import Rulebook
from box.links.control import ControlServer
from box.sim.script import run_script
from box.web.app import WebSettings, create_app
from tests.support import until_published

SCENARIOS = Path(__file__).parent / "scenarios"
PAGES = ("/", "/api/state", "/history", "/history.json", "/history.csv", "/stats", "/box", "/roster", "/start",
         "/players/Ann", "/players/Bob", "/pair")
SECRETS = {  # what each game keeps from the table, in the words of its declaration
    "dead-fellas": "a face-down recruit: its card, its strength, its items",
    "deadlines": "a drawn card's dates until it is placed, a special card's keywords (the judge's): never in the dump",
    "dead-set": "",
    "deck-of-death": "",
}


def test_each_game_declares_what_it_keeps_secret() -> None:
    assert {game: rules_for(game).secrets.kept for game in GAMES} == SECRETS


def test_a_game_that_keeps_nothing_secret_names_every_card() -> None:
    """`Secrets.kept` "" means every card lies face up: the box's Cards page then names a card laid in
    any state of the game (box/core/loop.py, `seen_tags`, counts on it)."""
    never = {field.name: field.default for field in dataclasses.fields(Rulebook)}["secret"]  # the kit's: no card is
    for game in GAMES:
        if not rules_for(game).secrets.kept:
            assert rules_for(game).secret is never, game


def played_to(tmp_path: Path, game: str, script: str, until: str) -> list[str]:
    """A scenario's lines up to (and with) the first line that starts with `until`, as a script file."""
    lines = []
    for line in (SCENARIOS / game / f"{script}.script").read_text(encoding="utf-8").splitlines():
        lines.append(line)
        if line.strip().startswith(until):
            break
    else:
        raise AssertionError(f"{until!r} is not in {script}")
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{script}.script"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [str(path)]


def outputs(tmp_path: Path, game: str, script: Path) -> dict[str, str]:
    """Every output while the box plays `script` and after it stops: name -> text."""
    decks = SCENARIOS / game / "decks"
    state_dir = tmp_path / "state"
    control = ControlServer(tmp_path / "run" / "control.sock", lambda command: None)
    control.start()
    found: dict[str, str] = {}
    try:
        world, _ = run_script(script, state_dir, decks, seed=1, control=control)
        settings = WebSettings(state_dir=state_dir, control=control.path, decks_dir=decks, hosts=("testserver",))
        app = create_app(settings)
        with TestClient(app) as client:
            link = app.state.link

            client.portal.call(until_published, link, lambda: world.advance(0.05),
                               lambda state: (state or {}).get("game") == game)
            found["socket"] = (control.latest or b"").decode()
            for page in (*PAGES, "/cards"):
                found[f"live {page}"] = html.unescape(client.get(page).text)
        world.close()
        control.stop()
        with TestClient(create_app(settings)) as client:  # the box stopped: the page rebuilds the game
            for page in (*PAGES, "/cards"):
                found[f"journal {page}"] = html.unescape(client.get(page).text)
        for path in state_dir.glob("*history*"):
            found[path.name] = path.read_text(encoding="utf-8")
    finally:
        control.stop()
    return found


def leaks(found: dict[str, str], *secrets: str, cards_page: bool = True) -> list[str]:
    """Where any of `secrets` shows (the Cards page lists every card of a deck: left out unless `cards_page`)."""
    return [
        f"{where}: {secret}"
        for where, text in found.items()
        for secret in secrets
        if secret in text and (cards_page or not where.endswith("/cards"))
    ]


def test_a_face_down_recruit_is_neither_named_nor_weighed_anywhere(tmp_path: Path) -> None:
    [script] = played_to(tmp_path, "dead-fellas", "secret-recruit", "expect mooks.Ann len 4")
    found = outputs(tmp_path, "dead-fellas", Path(script))
    deck = rules_for("dead-fellas").load_deck(SCENARIOS / "dead-fellas" / "decks")
    assert leaks(found, "dfm10", deck.name_of("dfm10"), cards_page=False) == []
    for where in ("socket", "live /api/state", "journal /api/state"):
        text = found[where]
        state = json.loads(text)["state"] if where == "socket" else json.loads(text)
        assert state["mooks"]["Ann"][3] == {"face_up": False}, where  # no card, no strength, no items
        assert [mook.get("card") for mook in state["mooks"]["Ann"][:3]] == ["dfm03", "dfm01", "dfm02"], where
    for where in ("live /", "journal /"):
        assert found[where].count('aria-label="strength') == 6, where  # the six face-up Mooks only
        assert "face down" in found[where]
    assert "a face-down card" in found["live /cards"]  # the last tag seen on the left reader
    assert "Nicky (Dead Fellas)" not in found["live /cards"]


def test_a_special_cards_keywords_and_a_drawn_cards_dates_stay_off_every_output(tmp_path: Path) -> None:
    deck = rules_for("deadlines").load_deck(SCENARIOS / "deadlines" / "decks")
    card = deck["dl41"]
    [script] = played_to(tmp_path / "judging", "deadlines", "reward-one", "expect phase == judging")
    found = outputs(tmp_path / "judging", "deadlines", Path(script))
    assert json.loads(found["socket"])["state"]["phase"] == "judging"
    assert leaks(found, *card.keywords) == []
    [script] = played_to(tmp_path / "drawn", "deadlines", "reward-one", "tap left dl41")
    found = outputs(tmp_path / "drawn", "deadlines", Path(script))
    assert json.loads(found["socket"])["state"]["phase"] == "attempting"
    assert leaks(found, *card.keywords, str(card.born), str(card.died), "1900", "1950", cards_page=False) == []


@pytest.mark.parametrize(("game", "script"), [("dead-set", "bust"), ("deck-of-death", "takeover-and-duels")])
def test_a_game_with_every_card_face_up_publishes_its_whole_dump(game: str, script: str, tmp_path: Path) -> None:
    world, _ = run_script(SCENARIOS / game / f"{script}.script", tmp_path / "state", SCENARIOS / game / "decks", seed=1)
    try:
        session = world.box.session
        assert session is not None
        dump: dict[str, Any] = session.rules.dump(session.state)
        assert session.rules.public(session.state) == dump
        assert {key: world.dump()[key] for key in dump} == dump
    finally:
        world.close()
