"""The phone page reads the games' declarations: no game, title or figure named outside box/games/,
a fifth game shown without a line of the page changed, and the figures as the page always gave them."""

from __future__ import annotations

import ast
import re
import shutil
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from box.base.session import decode
from box.decks.codec import Deck
from box.games import GAMES, LISTED, TITLES, rules_for
from box.games.base import Figure, Phone, Press, Rejected, Setup, Shown, Step, View
from box.games.kit import Rulebook
from box.sim.script import run_script
from box.storage.journal import Journal
from box.web.app import WebSettings, create_app
from box.web.journal_view import JournalView

BOX = Path(__file__).parents[1] / "box"
SCENARIOS = Path(__file__).parent / "scenarios"
OWN = ("games", "decks")  # the folders of box/ that may name the games


# ----- no game, title or figure named outside box/games/ -------------------------------------


def forbidden() -> tuple[list[str], list[str]]:
    """The games' names and titles, and every declared figure key."""
    names = [listing.name for listing in LISTED] + [listing.title for listing in LISTED]
    figures = sorted({figure.key for game in GAMES for figure in rules_for(game).figures})
    return names, figures


def drawn() -> tuple[list[str], list[str], list[str]]:
    """What the games' pictures declare: their columns' keys and the fields they reveal, the
    columns' labels, and the limits (as numbers)."""
    phones = [rules_for(game).phone for game in GAMES]
    keys = sorted({word for phone in phones for column in phone.columns for word in (column.key, column.reveals)})
    labels = sorted({column.label for phone in phones for column in phone.columns})
    return keys, labels, sorted({str(phone.limit) for phone in phones if phone.limit})


def word(texts: list[str]) -> re.Pattern[str]:
    return re.compile(r"(?<![\w-])(" + "|".join(re.escape(text) for text in texts) + r")(?![\w-])")


def literals(source: str) -> list[tuple[int, str]]:
    """A module's string literals (f-strings' parts too), but not its docstrings (doctests live there)."""
    tree = ast.parse(source)
    bare = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in bare
    ]


def mentions(root: Path) -> list[str]:
    """Where the code under `root` (a copy of box/) names a game, a title or a figure, outside its own folders."""
    names, figures = forbidden()
    keys, labels, limits = drawn()
    in_code, in_page, anywhere = word(names + figures), word(figures + keys), word(names + labels)
    numbers = re.compile(r"(?<![\w.])(" + "|".join(limits) + r")(?![\w.])")
    found = []
    for path in sorted(root.rglob("*")):
        where = path.relative_to(root)
        if where.parts[0] in OWN or not path.is_file():
            continue
        if path.suffix == ".py":
            found += [f"{where}:{line}: {m[1]!r}" for line, text in literals(path.read_text()) for m in in_code.finditer(text)]
        elif path.suffix in (".html", ".js", ".css"):
            text = path.read_text()
            found += [f"{where}: {m[1]!r}" for m in anywhere.finditer(text)]
            for tag in re.findall(r"\{\{.*?\}\}|\{%.*?%\}", text, re.S):  # a figure or a column read by its key
                found += [f"{where}: {m[1]!r} in {tag}" for m in in_page.finditer(tag)]
            if path.name.startswith("_picture_"):  # a picture's limit is the game's declaration
                found += [f"{where}: {m[1]!r}" for m in numbers.finditer(text)]
    return found


def test_nothing_outside_the_games_names_a_game_a_title_or_a_figure() -> None:
    assert mentions(BOX) == []


def test_the_search_finds_a_game_named_again_in_the_page(tmp_path: Path) -> None:
    copy = tmp_path / "box"
    shutil.copytree(BOX, copy, ignore=shutil.ignore_patterns("__pycache__", "*.csv", "*.toml"))
    assert mentions(copy) == []
    with open(copy / "web" / "site.py", "a") as module:
        module.write('\n\ndef kind(game):\n    """Not "deadlines" here: a docstring may."""\n    return game == "deadlines"\n')
    with open(copy / "web" / "pages" / "now.py", "a") as module:
        module.write('\nLABEL = f"{1} laps"  # a figure\n')
    with open(copy / "web" / "templates" / "_now.html", "a") as page:
        page.write('{% if game == "dead-fellas" %}{{ state.whacks }}{% endif %}<h2>Deck of Death</h2>\n')
    with open(copy / "web" / "templates" / "_picture_columns.html", "a") as page:
        page.write('{% set order = ["birth", "died"] %}<h2>Life span</h2>\n')
    with open(copy / "web" / "templates" / "_picture_hands.html", "a") as page:
        page.write('{% set limit = 200 %}\n')
    found = "\n".join(mentions(copy))
    assert "'birth'" in found and "'died'" in found and "'Life span'" in found and "_picture_hands.html: '200'" in found
    assert "web/site.py:" in found and "'deadlines'" in found and found.count("'deadlines'") == 1
    assert "web/pages/now.py" in found and "'laps'" in found
    assert "'dead-fellas'" in found and "'whacks'" in found and "'Deck of Death'" in found


# ----- a fifth game ----------------------------------------------------------------------


def toss(state: tuple[tuple[str, ...], tuple[int, ...]], action: Any) -> Step | Rejected:
    """Coin Toss: OK gives the player on turn a head; six heads in all end it."""
    players, heads = state
    if sum(heads) >= 6:
        return Rejected("The game is over")
    if action != Press("ok"):
        return Rejected("OK tosses")
    seat = sum(heads) % len(players)
    return Step((players, tuple(h + (i == seat) for i, h in enumerate(heads))))


def coin_dump(state: tuple[tuple[str, ...], tuple[int, ...]]) -> dict[str, Any]:
    players, heads = state
    over = sum(heads) >= 6
    best = max(heads)
    return {
        "current_player": None if over else players[sum(heads) % len(players)],
        "over": over,
        "winners": [p for p, h in zip(players, heads, strict=True) if over and h == best],
        "heads": dict(zip(players, heads, strict=True)),
    }


RULES = Rulebook(
    "coin",
    "Coin Toss",
    (2, 4),
    (),
    load_deck=lambda directory=None: Deck("coin", {}, {}, "built in"),
    new=lambda setup, deck: (tuple(setup.players), tuple(0 for _ in setup.players)),
    apply=toss,
    view=lambda state: View("Coin Toss"),
    dump=coin_dump,
    is_over=lambda state: sum(state[1]) >= 6,
    figures=(Figure("heads", "heads tossed"), Figure("streak", "longest run", "max")),
    figures_of=lambda state: {p: {"heads": h, "streak": h} for p, h in zip(*state, strict=True)},
    phone=Phone("coins", counts=(Shown("heads", "heads so far"),)),
)


def test_a_fifth_game_is_shown_from_its_declarations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "coin", __name__)
    monkeypatch.setitem(TITLES, "coin", "Coin Toss")
    journal = Journal(tmp_path / "journal.db")
    for presses, finished in ((6, True), (3, True), (1, False)):
        game = journal.start_game("coin", ["Ann", "Bob"], {}, None)
        for _ in range(presses):
            journal.append(game, {"t": "press", "b": "ok", "l": False})
        if finished:
            journal.finish_game(game)
    journal.close()
    with TestClient(create_app(WebSettings(state_dir=tmp_path, control=tmp_path / "none.sock", hosts=("testserver",)))) as client:
        history = client.get("/history")
        assert history.status_code == 200
        assert "Coin Toss" in history.text and "heads tossed" in history.text and "longest run" in history.text
        ann = client.get("/players/Ann")
        assert ann.status_code == 200 and "1 game ·" in ann.text  # the game closed before its end counts for nobody
        assert "heads tossed <b>3</b>" in ann.text and "longest run <b>3</b>" in ann.text
        now = client.get("/")
        assert now.status_code == 200 and "Coin Toss" in now.text and "1 <small>heads so far</small>" in now.text


# ----- the figures as the page gave them before the games declared them -------------------


def figures_as_before(view: JournalView, record: Any, actions: list[tuple[int, dict[str, Any]]]) -> dict[str, Any]:
    """The page's own replay and figures, as they were written before the declarations (for comparison)."""
    rules = rules_for(record.name)
    state = rules.new(Setup(tuple(record.players), dict(record.options)), view.deck(record.name, record.decks))
    busts = dict.fromkeys(record.players, 0)
    last_round = None
    placed: dict[tuple[str, int], list[bool]] = {}  # Deadlines: (player, column) -> each placement, right or not
    for _, data in actions:
        result = rules.apply(state, decode(data))
        if isinstance(result, Rejected):
            continue
        before, state = state, result.state
        card = getattr(before.phase, "card", None) if record.name == "deadlines" else None
        if card is not None and hasattr(before.phase, "column") and card in state.used - before.used:
            kept = card in state.columns[before.phase.column]
            placed.setdefault((before.players[before.turn], before.phase.column), []).append(kept)
        if record.name == "dead-set":
            dump = rules.dump(state)
            if dump["round"] != last_round or dump["over"]:
                if last_round is not None:
                    for name, round_result in dump["last_round"].items():
                        busts[name] += bool(round_result.get("bust"))
                last_round = dump["round"]
    dump = rules.dump(state)
    rows = {
        "deadlines": lambda name: {
            "penalties": dump["penalties"][name],
            **{
                f"{field}_right": round(100 * sum(tries) / len(tries)) if (tries := placed.get((name, column))) else 0
                for column, field in enumerate(("born", "lifespan", "died"))
            },
        },
        "dead-set": lambda name: {"celebrities": dump["celebrities"][name], "busts": busts[name]},
        "dead-fellas": lambda name: {"score": dump["score"][name], "whacks": len(dump["score_piles"][name])},
        "deck-of-death": lambda name: {
            "laps": dump["laps"][name],
            "drinks": dump["drinks"][name],
            "duels_won": dump["duels_won"][name],
        },
    }
    return {name: rows[record.name](name) for name in record.players}


@pytest.mark.parametrize(
    "game, script",
    [
        ("dead-set", "bust"),
        ("dead-set", "win-mid-scoring"),
        ("deadlines", "death-match"),
        ("dead-fellas", "win"),
        ("deck-of-death", "enough-chaos"),
    ],
)
def test_the_declared_figures_are_the_ones_the_page_gave(game: str, script: str, tmp_path: Path) -> None:
    world, _ = run_script(SCENARIOS / game / f"{script}.script", tmp_path, seed=1)
    world.parts.close()
    world.box.journal.close()
    view = JournalView(tmp_path / "journal.db", (SCENARIOS / game / "decks",))
    records = view.records()
    assert records
    journal = Journal(tmp_path / "journal.db")
    for record in records:
        actions = journal.actions(record.id)
        _, summary = view.replay(record, actions)
        assert summary.figures == figures_as_before(view, record, actions)
        assert [figure.key for figure in summary.declared] == list(summary.figures[record.players[0]])
