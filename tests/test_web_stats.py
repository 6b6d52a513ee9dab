"""The Stats page: wins per night, each game's records by its figures' adding rule, head to head."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.testclient import TestClient

from box.decks.codec import Deck
from box.games import GAMES, TITLES
from box.games.base import Figure, Phone, Press, Rejected, Shown, Step, View
from box.games.kit import Rulebook
from box.storage.journal import Journal
from box.storage.player_ids import person_id
from box.storage.roster import STARTED, Roster
from box.web.app import WebSettings, create_app
from box.web.stats import CHARTED_NIGHTS, gather
from box.web.summaries import GameSummary

POINTS = Figure("points", "points")
QUICKEST = Figure("quickest", "quickest win", "min")
LONGEST = Figure("longest", "longest run", "max")
DECLARED = (POINTS, QUICKEST, LONGEST)


def game(
    number: int,
    players: tuple[str, ...],
    winners: tuple[str, ...],
    figures: dict[str, dict[str, int]] | None = None,
    started: str | None = "2026-11-27 20:00",
    over: bool = True,
    name: str = "race",
) -> GameSummary:
    return GameSummary(number, name, players, {}, True, started, 5, over, winners, figures or {}, DECLARED)


def row(points: int, quickest: int, longest: int) -> dict[str, int]:
    return {"points": points, "quickest": quickest, "longest": longest}


# ----- the numbers ----------------------------------------------------------------------


def test_a_renamed_player_is_one_person_with_the_games_and_records_of_both_names() -> None:
    roster = Roster(("Bo", "Cid")).renamed(person_id("Bo"), "Bob")
    games = [
        game(1, ("Bo", "Cid"), ("Bo",), {"Bo": row(9, 4, 2), "Cid": row(1, 8, 1)}),
        game(2, ("Bob", "Cid"), ("Cid",), {"Bob": row(2, 6, 3), "Cid": row(3, 5, 1)}),
    ]
    stats = gather(games, roster)
    assert stats.games == {"Bob": 2, "Cid": 2} and stats.wins == {"Bob": 1, "Cid": 1}
    records = {r.figure.key: (r.value, r.holders) for r in stats.records["race"]}
    assert records["points"] == (9, ("Bob",))  # scored as Bo, held by Bob
    assert [(p.first, p.second, p.games) for p in stats.head_to_head] == [("Bob", "Cid", 2)]
    assert gather(games).games == {"Bo": 1, "Bob": 1, "Cid": 2}  # without the roster: names only


def test_records_follow_each_figures_adding_rule() -> None:
    games = [
        game(1, ("Ann", "Bob"), ("Ann",), {"Ann": row(5, 9, 2), "Bob": row(4, 7, 6)}),
        game(2, ("Ann", "Bob"), ("Bob",), {"Ann": row(6, 8, 3), "Bob": row(1, 12, 1)}),
    ]
    stats = gather(games)
    records = {r.figure.key: (r.value, r.holders) for r in stats.records["race"]}
    assert records == {"points": (6, ("Ann",)), "quickest": (7, ("Bob",)), "longest": (6, ("Bob",))}
    assert [(r.figure.key, r.value, r.holders) for r in stats.totals["race"]] == [("points", 11, ("Ann",))]


def test_a_record_reached_twice_is_shared_in_the_order_it_was_reached() -> None:
    games = [
        game(1, ("Ann", "Bob", "Cid"), ("Cid",), {"Ann": row(3, 5, 1), "Bob": row(2, 5, 1), "Cid": row(3, 6, 1)}),
    ]
    records = {r.figure.key: r.holders for r in gather(games).records["race"]}
    assert records == {"points": ("Ann", "Cid"), "quickest": ("Ann", "Bob"), "longest": ("Ann", "Bob", "Cid")}


def test_head_to_head_counts_games_together_and_each_ones_wins() -> None:
    games = [
        game(1, ("Bob", "Ann"), ("Ann",)),
        game(2, ("Ann", "Bob", "Cid"), ("Bob",)),
        game(3, ("Cid", "Ann"), ("Cid", "Ann")),  # a shared win is a win for both
        game(4, ("Ann", "Bob"), ("Bob",), over=False),  # abandoned: counts for nobody
        game(5, ("Ann", "P2"), ("P2",)),  # a seat nobody named is nobody
    ]
    pairs = {(p.first, p.second): (p.games, p.first_wins, p.second_wins) for p in gather(games).head_to_head}
    assert pairs == {("Ann", "Bob"): (2, 1, 1), ("Ann", "Cid"): (2, 1, 1), ("Bob", "Cid"): (1, 1, 0)}


def test_a_night_is_the_date_a_game_started_on() -> None:
    games = [
        game(1, ("Ann", "Bob"), ("Ann",), started="2026-11-28 23:50"),
        game(2, ("Ann", "Bob"), ("Ann",), started="2026-11-27 20:00"),
        game(3, ("Ann", "Bob"), ("Bob",), started="2026-11-28 21:00"),
        game(4, ("Ann", "Bob"), ("Bob",), started=None),  # no date: counted, but in no night
    ]
    stats = gather(games)
    assert stats.nights == ["2026-11-27", "2026-11-28"]
    assert stats.wins_on == {"Ann": {"2026-11-28": 1, "2026-11-27": 1}, "Bob": {"2026-11-28": 1, "2026-11-27": 0}}
    assert stats.played_on["Bob"] == {"2026-11-28": 2, "2026-11-27": 1}
    assert stats.wins == {"Ann": 2, "Bob": 2} and stats.games == {"Ann": 4, "Bob": 4}
    assert stats.most_games_in_a_night() == 2


def test_the_labels_are_the_newest_games_declaration() -> None:
    renamed = (Figure("points", "points scored"),)
    old = game(1, ("Ann", "Bob"), ("Ann",), {"Ann": row(1, 1, 1), "Bob": row(2, 2, 2)})
    new = GameSummary(2, "race", ("Ann", "Bob"), {}, True, None, 5, True, ("Bob",), {"Ann": {"points": 3}}, renamed)
    for order in ([old, new], [new, old]):
        stats = gather(order)
        assert stats.declared["race"] == renamed
        assert [(r.figure.label, r.value) for r in stats.records["race"]] == [("points scored", 3)]


def test_only_the_newest_nights_are_charted() -> None:
    games = [game(n, ("Ann", "Bob"), ("Ann",), started=f"2026-{1 + n // 28:02}-{1 + n % 28:02} 20:00") for n in range(40)]
    stats = gather(games)
    assert len(stats.nights) == 40 and stats.charted == stats.nights[-CHARTED_NIGHTS:]


names = st.sampled_from(["Ann", "Bob", "Cid", "Dee", "P3"])


@given(st.lists(st.tuples(st.lists(names, min_size=1, max_size=4, unique=True), st.booleans(), st.integers(0, 9)), max_size=30))
def test_every_pairs_wins_add_up_and_no_record_is_beaten(plays: list[tuple[list[str], bool, int]]) -> None:
    games = []
    for number, (players, over, points) in enumerate(plays):
        figures = {name: row(points + i, points - i, i) for i, name in enumerate(players)}
        games.append(game(number, tuple(players), tuple(players[:1]), figures, over=over))
    stats = gather(games)
    for pair in stats.head_to_head:
        assert 0 <= pair.first_wins <= pair.games and 0 <= pair.second_wins <= pair.games
        assert pair.games <= min(stats.games[pair.first], stats.games[pair.second])
    counted = [g for g in games if g.over]
    for record in stats.records.get("race", []):
        values = [v[record.figure.key] for g in counted for n, v in g.figures.items() if n != "P3"]
        assert record.value == (min(values) if record.figure.adds == "min" else max(values))
    assert "P3" not in stats.games and sum(stats.wins.values()) == sum(g.players[0] != "P3" for g in counted)


# ----- the page -------------------------------------------------------------------------


def race(state: tuple[tuple[str, ...], tuple[int, ...], int], action: Any) -> Step | Rejected:
    """Race to three: OK scores a point for the player on turn, DOWN passes the turn."""
    players, points, turn = state
    if max(points) >= 3:
        return Rejected("The game is over")
    if action == Press("down"):
        return Step((players, points, (turn + 1) % len(players)))
    if action != Press("ok"):
        return Rejected("OK scores")
    return Step((players, tuple(p + (i == turn) for i, p in enumerate(points)), turn))


def race_dump(state: tuple[tuple[str, ...], tuple[int, ...], int]) -> dict[str, Any]:
    players, points, turn = state
    over = max(points) >= 3
    return {
        "current_player": None if over else players[turn],
        "over": over,
        "winners": [p for p, n in zip(players, points, strict=True) if n >= 3],
        "points": dict(zip(players, points, strict=True)),
    }


RULES = Rulebook(
    "race",
    "Race to Three",
    (2, 4),
    (),
    load_deck=lambda directory=None: Deck("race", {}, {}, "built in"),
    new=lambda setup, deck: (tuple(setup.players), tuple(0 for _ in setup.players), 0),
    apply=race,
    view=lambda state: View("Race to Three"),
    dump=race_dump,
    is_over=lambda state: max(state[1]) >= 3,
    figures=(Figure("points", "points scored"), Figure("lead", "widest lead", "max")),
    figures_of=lambda state: {p: {"points": n, "lead": n - min(state[1])} for p, n in zip(state[0], state[1], strict=True)},
    phone=Phone("race", counts=(Shown("points", "points"),)),
)


def presses(*buttons: str) -> list[dict[str, Any]]:
    return [{"t": "press", "b": button, "l": False} for button in buttons]


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setitem(GAMES, "race", __name__)
    monkeypatch.setitem(TITLES, "race", "Race to Three")
    journal = Journal(tmp_path / "journal.db")
    plays = [  # players, presses, finished, started
        (["Ann", "Bob"], presses("ok", "ok", "ok"), True, "2026-11-27 20:10"),  # Ann 3-0
        (["Ann", "Bob", "P3"], presses("ok", "down", "ok", "ok", "ok"), True, "2026-11-27 21:00"),  # Bob 3-1
        (["Bob", "Cid"], presses("down", "ok", "ok", "ok"), True, "2026-11-28 20:00"),  # Cid 3-0
        (["Ann", "Bob"], presses("down", "ok"), True, "2026-11-28 21:00"),  # closed before its end
        (["Ann", "Cid"], presses("ok"), False, "2026-11-28 22:00"),  # in play
    ]
    for players, actions, finished, started in plays:
        number = journal.start_game("race", players, {}, None)
        journal.put(f"{STARTED}{number}", started)
        for action in actions:
            journal.append(number, action)
        if finished:
            journal.finish_game(number)
    journal.put("best_chug", 3.25)
    journal.close()
    settings = WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=("testserver",))
    with TestClient(create_app(settings)) as test_client:
        yield test_client


def test_the_stats_page_draws_nights_records_and_head_to_head(client: TestClient) -> None:
    response = client.get("/stats")
    assert response.status_code == 200
    page = html.unescape(response.text)
    assert '<a href="/stats" aria-current="page">Stats</a>' in page
    assert "2 game nights" in page
    players = re.findall(r'<section class="wins" data-player="(\w+)">', page)
    assert players == ["Bob", "Ann", "Cid"]  # most wins first, then most games, then by name
    assert "P3" not in page
    bob = re.search(r'data-player="Bob">(.*?)</section>', page, re.S)[1]
    assert "1 win in 3 games" in bob
    assert re.findall(r"<title>([^<]*)</title>", bob) == ["2026-11-27: 1 win in 2 games", "2026-11-28: 0 wins in 1 game"]
    assert bob.count('class="won"') == 1
    cid = re.search(r'data-player="Cid">(.*?)</section>', page, re.S)[1]
    assert "1 win in 1 game<" in cid and "2026-11-27: not playing" in cid
    assert "Race to Three" in page
    assert "<td>points scored</td><td><b>3</b> Ann, Bob, Cid</td><td><b>4</b> Ann</td>" in page
    assert "<td>widest lead</td><td><b>3</b> Ann, Bob, Cid</td><td>-</td>" in page
    assert "Best chug on this box: <b>3.25\xa0s</b>" in page
    head = re.search(r'<table class="head-to-head">(.*?)</table>', page, re.S)[1]
    assert re.findall(r"<tr><td>(\w+) <b>(\d)</b></td><td><b>(\d)</b> (\w+)</td><td>(\d \w+)</td></tr>", head) == [
        ("Ann", "1", "1", "Bob", "2 games"),
        ("Bob", "0", "1", "Cid", "1 game"),
    ]
    assert "points" not in re.sub(r"points scored|<[^>]*>", "", page)  # the labels, never the keys


def test_a_record_shared_by_many_names_three_and_counts_the_rest(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from box.web.journal_view import JournalView

    crowd = tuple(f"Player {n}" for n in range(6))
    tie = game(1, crowd, crowd[:1], {name: row(2, 2, 2) for name in crowd})
    monkeypatch.setattr(JournalView, "history", lambda self: ([tie], {}))
    settings = WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=("testserver",))
    with TestClient(create_app(settings)) as client:
        page = client.get("/stats").text
    assert "<td>points</td><td><b>2</b> Player 0, Player 1, Player 2 and 3 more</td>" in page


def test_the_stats_page_before_any_game(tmp_path: Path) -> None:
    settings = WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=("testserver",))
    with TestClient(create_app(settings)) as client:
        response = client.get("/stats")
    assert response.status_code == 200 and "No finished game yet" in response.text
