"""Text that fits: no value on the OLED is ever cut, and only free text scrolls.

bench/friction.py's reference players play every title on the simulated box, once for each value
of every option, at a table of the most players the game takes (up to ten, the roster's longest
names) and with decks whose every card bears the deck's longest name. Every View the box renders
on the way is measured with the panel's own font: a title or line wider than its row, a line the
notice pushes off the screen, a notice that needs more than its two rows, or a cut mark ('~')
fails, unless the line is one the View marks as scrolling (free text: a card's name). The setup
screens are measured the same way for every value of every option.
"""

from __future__ import annotations

import csv
import importlib
import random
import re
import shutil
import sys
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from box.decks.codec import BUILTIN_DIR
from box.games import CARD_NAMES, GAMES, TITLES, rules_for
from box.games.base import Option, View
from box.screens import render as screens
from box.screens.menu import Menu
from box.storage.player_ids import MAX_NAME_LENGTH, player_name

BENCH = Path(__file__).resolve().parent.parent / "bench"
LONGEST_NAMES = (  # ten names of the roster's longest, of one, two and three words, in three scripts
    "Maximilian Smith",
    "Anna-Lena Jansen",
    "Bartholomew Kent",
    "Mary Ann Jo Kent",
    "Christopherjames",
    "Zoë-Łucja Dvořák",
    "Антонина Петрова",
    "Jean-Luc Picardo",
    "Guinevere Wright",
    "Αικατερίνη Λάμπη",
)
MOST_PLAYERS = 10
WANDER_INPUTS = 120  # random inputs after a reference game, at the fullest table
CUT = "~"  # what kit.fit leaves where it cut a text
WORD = re.compile(r"[\w-]+")


def problems(view: View) -> list[str]:
    """What of `view` the panel would cut or hide, measured with its font; empty when all fits."""
    found: list[str] = []
    title_room = screens.WIDTH - 2 * screens.TITLE_MARGIN
    if _width(view.title) > title_room or CUT in view.title:
        found.append(f"title {view.title!r} cut")
    if CUT in view.notice:  # free text: on the rows the lines leave it, or scrolling on one
        found.append(f"notice {view.notice!r} cut")
    if view.dice:
        return found
    rows = screens.line_rows(view)
    if len(view.lines) > rows:
        found.append(f"{len(view.lines)} lines {view.lines!r} on {rows} rows (notice {view.notice!r})")
    for index, line in enumerate(view.lines):
        if index in view.scrolling:
            continue
        if _width(line) > screens.WIDTH - 2 * screens.MARGIN or CUT in line:
            found.append(f"line {line!r} cut")
    return found


def cut_names(view: View, names: Sequence[str]) -> list[str]:
    """The words of `view` that are a name's word cut short ("Maximilian S", "Undertaker Sui"):
    a name is shown whole, by its first name or its initials, never cut inside a word."""
    words = {word for name in names for word in WORD.findall(name)}
    texts = (view.title, *view.lines, view.notice)
    return [
        f"{word!r} of {text!r} is a cut name"
        for text in texts
        for word in WORD.findall(text)
        if len(word) > 1 and word not in words and any(whole.startswith(word) for whole in words)
    ]


def _width(text: str) -> float:
    return float(screens._font().getlength(screens._printable(text)))


# ----- the measure itself is honest ------------------------------------------------------------


def test_the_table_has_the_longest_names_the_roster_takes() -> None:
    assert len(set(LONGEST_NAMES)) == MOST_PLAYERS and {len(name) for name in LONGEST_NAMES} == {MAX_NAME_LENGTH}
    assert [player_name(name) for name in LONGEST_NAMES] == list(LONGEST_NAMES)


def test_names_in_greek_cyrillic_and_accented_latin_are_measured_as_drawn() -> None:
    for name in ("Zoë-Łucja Dvořák", "Антонина Петрова", "Αικατερίνη Λάμπη"):
        assert screens._printable(name) == name and _width(name) == 6 * MAX_NAME_LENGTH
    line = f"{'Антонина Петрова'}: 12345"  # a name beside a score: 21 characters, one row
    assert len(line) == 23 and problems(View("t", (line[:21],))) == [] and problems(View("t", (line,))) != []


def test_the_measure_finds_a_cut_value_an_overflow_and_a_line_under_the_notice() -> None:
    assert problems(View("Dead Set", ("To win: 13", "Names: Ann, Bob"), cursor=0, notice="OK: start")) == []
    assert problems(View("Dead Set", ("Celebrities to win: 1~",))) == ["line 'Celebrities to win: 1~' cut"]
    assert problems(View("Dead Set", ("Celebrities to win: 13",))) == ["line 'Celebrities to win: 13' cut"]
    assert problems(View("Ditch which evidence?!")) == ["title 'Ditch which evidence?!' cut"]
    full = View("t", ("1", "2", "3", "4", "DOWN: table menu"), notice="a notice long enough for two rows of text")
    assert problems(replace(full, lines=(*full.lines, "6"))) == [
        f"6 lines {(*full.lines, '6')!r} on 5 rows (notice {full.notice!r})"
    ]
    assert problems(full) == [] and screens.scrolling_texts(full) == {5: full.notice}  # one row, scrolling
    free = View("t", ("Johann Wolfgang von Goethe, poet",), scrolling=(0,))
    assert problems(free) == [] and problems(replace(free, scrolling=())) != []
    names = ("Maximilian Smith", "Undertaker Sui004")
    assert cut_names(View("Maximilian: turn", ("M.S. 3", "Undertaker Sui004")), names) == []
    assert cut_names(View("Maximilian Smi failed"), names) == ["'Smi' of 'Maximilian Smi failed' is a cut name"]
    assert cut_names(View("t", ("Undertaker Sui",)), names) == ["'Sui' of 'Undertaker Sui' is a cut name"]


# ----- the setup screens --------------------------------------------------------------------------


def _values(option: Option) -> tuple[str, ...]:
    """Every value an option can show: its choices, or a number's lowest, default and highest."""
    return option.choices or (str(option.low), option.default, str(option.high))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_setup_line_shows_its_whole_value(game: str) -> None:
    rules = rules_for(game)
    low, high = rules.min_players, min(rules.max_players, MOST_PLAYERS)
    menu = Menu.main(sorted(GAMES), TITLES).configure(game, rules.options, (low, high), LONGEST_NAMES)
    menu = replace(menu, players=high, page="options")
    seen: list[str] = []
    for index, option in enumerate(rules.options):
        for value in _values(option):
            for editing in (False, True) if not option.choices else (False,):
                shown = replace(menu, values=(*menu.values[:index], value, *menu.values[index + 1 :]),
                                cursor=2 + index, editing=editing)
                view = shown.view()
                assert problems(view) == [], view
                line = view.lines[view.cursor or 0]
                assert line.endswith(f"< {value} >" if editing else f": {value}"), line
                seen.append(line)
    assert all(len(line) <= 21 for line in seen)
    players = replace(menu, page="players", cursor=0).view()
    assert problems(players) == [], players


def test_a_long_label_where_it_fits_with_every_value_else_the_short_one() -> None:
    menu = Menu.main(("dead-set",), TITLES).configure("dead-set", rules_for("dead-set").options, (2, 6))
    menu = replace(menu, page="options")
    entries = menu.entries()
    assert "To win: 13" in entries and "Order bonus: 2" in entries and "High tie: all" in entries
    variant = rules_for("deadlines").options[0]
    assert Menu.main(("deadlines",), TITLES).configure("deadlines", (variant,), (2, 6)).entries() == ["Players: < 2 >"]
    assert replace(Menu.main((), {}), page="options", options=(variant,), values=("classic",)).entries()[2] == (
        "Variant: classic"
    )


# ----- every screen of the reference games --------------------------------------------------------


def _long_decks(folder: Path) -> list[str]:
    """The built-in decks, in `folder`, with every card renamed to a name as long as the deck's longest
    (each unique); answers the names."""
    folder.mkdir()
    names: list[str] = []
    for game in GAMES:
        source = BUILTIN_DIR / f"{game}.csv"
        text = [line for line in source.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
        rows = list(csv.DictReader(text))
        column = CARD_NAMES[game]
        longest = max((row[column] for row in rows), key=len)
        for number, row in enumerate(rows):
            row[column] = longest[: len(longest) - 3] + f"{number:03d}"
            names.append(row[column])
        with (folder / f"{game}.csv").open("w", newline="", encoding="utf-8") as out:
            writer = csv.DictWriter(out, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    for extra in BUILTIN_DIR.glob("*.toml"):
        shutil.copy(extra, folder / extra.name)
    return names


def _option_sets(game: str) -> list[dict[str, str]]:
    """Option sets that between them give every option each of its values."""
    options = rules_for(game).options
    runs = max((len(_values(option)) for option in options), default=1)
    return [{option.key: _values(option)[run % len(_values(option))] for option in options} for run in range(runs)]


@pytest.fixture(scope="module")
def friction() -> Iterator[Any]:
    sys.path.insert(0, str(BENCH))
    try:
        yield importlib.import_module("friction")
    finally:
        sys.modules.pop("friction", None)
        sys.path.remove(str(BENCH))


@pytest.fixture(scope="module")
def shown(friction: Any, tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, list[View]], list[str]]:
    """Every View rendered while the reference players play each title, by title; and the cards' names."""
    decks = tmp_path_factory.mktemp("decks") / "long"
    card_names = _long_decks(decks)
    views: dict[str, list[View]] = {game: [] for game in GAMES}
    playing: list[str] = []
    render = screens.render

    def recorded(view: View, elapsed: float = 0.0) -> Any:
        if playing:
            views[playing[-1]].append(view)
        return render(view, elapsed)

    class LongTable(friction.Table):  # type: ignore[misc, name-defined]
        def __init__(self, state_dir: Path, seed: int):
            from box.sim.world import SimulatedBox

            self.world = SimulatedBox(state_dir=state_dir, decks_dir=decks, seed=seed)
            self.counted, self.tally, self.trace = 0, friction.defaultdict(list), None

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(screens, "render", recorded)
        for game, play in friction.PLAYERS.items():
            playing.append(game)
            for seed, options in enumerate(_option_sets(game)):
                seats = _seats(game)

                def start(
                    table: Any, name: str, players: int, options: dict[str, str] = options, seats: int = seats, **_: str
                ) -> None:
                    count = seats if name != "dead-fellas" else players  # its reference player plays two seats
                    names = list(LONGEST_NAMES[:count])
                    table.world.box.lobby.start_game(name, table.world.now, names=names, options=options)
                    table.world.advance(0.0)

                patch.setattr(friction, "start", start)
                table = LongTable(tmp_path_factory.mktemp(game) / "state", seed)
                try:
                    play(table, random.Random(seed))
                    _wander(table, game, random.Random(seed), options)
                finally:
                    table.close()
    return views, card_names


def _seats(game: str) -> int:
    return min(rules_for(game).max_players, MOST_PLAYERS)


def _wander(table: Any, game: str, rng: random.Random, options: dict[str, str]) -> None:
    """A new game at the fullest table, dealt where it must be, then random presses and taps."""
    world = table.world
    names = list(LONGEST_NAMES[: _seats(game)])
    world.box.lobby.start_game(game, world.now, names=names, options=options)
    world.advance(0.0)
    deck = world.box.session.deck
    cards = list(deck.cards)
    rng.shuffle(cards)
    if game == "dead-fellas":
        mooks = [card for card in cards if deck[card].kind == "mook"]
        for mook in mooks[: 3 * len(names)]:
            table.tap("left", mook)
    for _ in range(WANDER_INPUTS):
        if rng.random() < 0.35:
            table.tap(rng.choice(("left", "middle", "right")), rng.choice(cards))
        else:
            table.press(rng.choice(("up", "down", "ok", "ok", "back", "roll")))


@pytest.mark.parametrize("game", sorted(GAMES))
def test_every_screen_of_the_reference_games_fits(shown: tuple[dict[str, list[View]], list[str]], game: str) -> None:
    views = list(dict.fromkeys(shown[0][game]))
    assert len(views) > 20, f"{game}: only {len(views)} screens seen"
    names = (*LONGEST_NAMES, *shown[1])
    cut = {problem: view for view in views for problem in (*problems(view), *cut_names(view, names))}
    assert not cut, "\n".join(f"{problem}\n    in {view}" for problem, view in cut.items())
    seen = " ".join(" ".join(view.lines) + view.title for view in views)
    assert any(name.split()[0] in seen for name in LONGEST_NAMES), "the long names were not seen"
