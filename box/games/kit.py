"""The games' building blocks: the rulebook and its phase table, one list with a cursor, one window, text fitting.

Every list on the box behaves the same way (`Picker`): UP moves the cursor one line up, DOWN one
line down, and both **wrap round** at the ends (UP on the first line goes to the last), so a long
list is never a dead end and a two-line question toggles. A cursor left past the end of a list
that shrank stands on its last line. Read-only pages (rules, scores) have no cursor: they scroll
by their top line and stop at the ends (`scroll`).

The layout constants come from `box.words` (21 characters a line, 5 text lines).

>>> picker = Picker(("Whack", "Draw a card", "Recruit a Mook"))
>>> picker.move("up").cursor, picker.move("down").move("down").move("down").cursor
(2, 0)
>>> fit("Fuhgeddaboutit and friends", 20)
'Fuhgeddaboutit and~'
"""

from __future__ import annotations

import functools
import textwrap
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from box.decks.codec import Deck
from box.events import Event
from box.games.base import Action, Figure, Figures, Option, Phone, Rejected, Secrets, Setup, Step, View
from box.words import LINE_CHARS, TEXT_LINES

S = TypeVar("S")  # a game's state
T = TypeVar("T")

MOVES = {"up": -1, "down": 1}  # the buttons that move a cursor, and which way


class Stage(NamedTuple, Generic[S]):
    """One row of a game's phase table: how the phase answers an input, and what it shows.

    Every game declares `PHASES = {phase: Stage(handler, screen), ...}` in its rules; `apply`
    answers the inputs every phase shares, then hands the rest to the phase's `handle`.
    """

    handle: Callable[[S, Action], Step[S] | Rejected]
    screen: Callable[[S], View]


def expect(phase: object, kind: type[T]) -> T:
    """`phase`, which the phase table promises is a `kind` (a handler's typed view of its own phase).

    >>> expect(3, int)
    3
    """
    assert isinstance(phase, kind), f"{phase!r} is no {kind.__name__}"
    return phase


def never(state: object) -> bool:
    """`wants_roll` of a game without dice."""
    return False


@dataclass(frozen=True)
class Rulebook(Generic[S]):
    """A game's `RULES` (the `box.games.base.Rules` contract): its declarations and its pure functions.

    >>> book = Rulebook("coin", "Coin", (1, 2), (), load_deck=lambda directory=None: None,
    ...                 new=lambda setup, deck: 0, apply=lambda state, action: Rejected("no"),
    ...                 view=lambda state: View("Coin"), dump=lambda state: {}, is_over=lambda state: False,
    ...                 figures=(Figure("heads", "heads"),), figures_of=lambda state: {"Ann": {"heads": state}},
    ...                 phone=Phone("coin"))
    >>> book.min_players, book.max_players, book.wants_roll(0), book.figures_of(3)
    (1, 2, False, {'Ann': {'heads': 3}})
    """

    name: str  # the canonical name: "dead-set"
    title: str  # as the menu shows it
    players: tuple[int, int]  # the fewest and the most
    options: tuple[Option, ...]
    load_deck: Callable[..., Deck]  # (directory=None): `<directory>/<name>.csv`, or the built-in deck
    new: Callable[[Setup, Deck], S]
    apply: Callable[[S, Action], Step[S] | Rejected]
    view: Callable[[S], View]
    dump: Callable[[S], dict[str, Any]]
    is_over: Callable[[S], bool]
    wants_roll: Callable[[S], bool] = never
    secret: Callable[[S, str], bool] = lambda state, card: False  # a card the table must not see named
    describe: Callable[[S | None, Action, S], str | None] = lambda before, action, after: told(before, after)
    """What an action did, for the undo label ("Ann sticks"): (state before or None, action, state after)."""
    events: Callable[[S, S], tuple[Event, ...]] = lambda before, after: ()
    """The game's own moments an action made (a column completed, a lap...): (state before, state after)."""
    figures: tuple[Figure, ...] = field(kw_only=True)  # each player's numbers, in the history's order
    figures_of: Callable[[S], Figures] = field(kw_only=True)  # {player: {figure key: value}}, pure
    phone: Phone = field(kw_only=True)  # what the phone page draws of a game in play
    secrets: Secrets = field(default=Secrets(), kw_only=True)  # what the table may not see of the dump

    def public(self, state: S) -> dict[str, Any]:
        """The dump as the table may see it: the game's `secrets` taken out."""
        return self.secrets.hide(self.dump(state))

    @property
    def min_players(self) -> int:
        return self.players[0]

    @property
    def max_players(self) -> int:
        return self.players[1]


def told(before: Any, after: Any) -> str | None:
    """The default undo label: the notice an action left on the screen, when it set a new one.

    The notice is what the table already saw, so it never names a secret card.

    >>> from types import SimpleNamespace as S
    >>> told(S(notice="Ann twists (1)"), S(notice="Bob sticks")), told(S(notice="x"), S(notice="x"))
    ('Bob sticks', None)
    """
    notice = getattr(after, "notice", "")
    return notice if notice and (before is None or notice != getattr(before, "notice", "")) else None


@dataclass(frozen=True)
class Picker:
    """A list of labels with a cursor, moved by UP/DOWN with wrap-round (see the module's doc).

    >>> Picker(("Yes", "No"), cursor=5).cursor  # the list shrank under the cursor
    1
    >>> Picker(tuple("abcdefg"), 6).lines()
    (('c', 'd', 'e', 'f', 'g'), 4)
    """

    labels: tuple[str, ...]
    cursor: int = 0

    def __post_init__(self) -> None:
        object.__setattr__(self, "cursor", max(0, min(self.cursor, len(self.labels) - 1)))

    def move(self, button: str) -> Picker:
        """The picker after UP or DOWN (wrapping round); any other button, or an empty list, moves nothing."""
        return Picker(self.labels, moved(self.cursor, len(self.labels), button))

    def lines(self, size: int = TEXT_LINES) -> tuple[tuple[str, ...], int]:
        """The labels fitted to a line, `size` of them around the cursor, and the cursor's line among them."""
        return window(tuple(fit(label) for label in self.labels), self.cursor, size)


def moved(cursor: int, count: int, button: str) -> int:
    """The cursor after UP/DOWN on a list of `count` lines: one line, wrapping round at the ends.

    The rule of every `Picker`, for the lists whose lines a game computes (an insertion mark's
    positions, a column of targets). Any other button, or an empty list, leaves it where it is.

    >>> moved(0, 3, "up"), moved(2, 3, "down"), moved(1, 3, "ok")
    (2, 0, 1)
    """
    if count <= 0 or button not in MOVES:
        return cursor
    return (cursor + MOVES[button]) % count


def window(lines: Sequence[str], cursor: int, size: int = TEXT_LINES) -> tuple[tuple[str, ...], int]:
    """The `size` lines around `cursor` (kept in the middle where it can be), and its index among them.

    >>> window([str(n) for n in range(10)], 7, size=3)
    (('6', '7', '8'), 1)
    >>> window(["a", "b"], 1)
    (('a', 'b'), 1)
    """
    start = min(max(0, cursor - size // 2), max(0, len(lines) - size))
    return tuple(lines[start : start + size]), cursor - start


def scroll(top: int, button: str, count: int, size: int = TEXT_LINES) -> int | None:
    """A page's new top line after UP/DOWN, or None at its ends (a page has no cursor, so it stops).

    >>> scroll(0, "down", 7), scroll(2, "down", 7), scroll(0, "up", 7)
    (1, None, None)
    """
    moved = top + MOVES.get(button, 0)
    return moved if moved != top and 0 <= moved <= max(0, count - size) else None


def fit(text: str, width: int = LINE_CHARS) -> str:
    """`text` cut to `width` characters at a word boundary, with '~' where it was cut.

    A word that would leave less than half the width is cut inside instead.

    >>> fit("Albert Einstein"), fit("Leonardo da Vinci", 14), fit("Annabelle-Marie", 8)
    ('Albert Einstein', 'Leonardo da~', 'Annabel~')
    """
    if len(text) <= width:
        return text
    head = text[: width - 1]
    space = head.rfind(" ")
    if text[width - 1] != " " and space >= width // 2:
        head = head[:space]
    return head.rstrip() + "~"


def short_name(name: str, width: int) -> str:
    """A player's `name` in `width` characters, for a line that holds two: whole where it fits, else
    the first name, else the initials (never cut inside a word).

    >>> short_name("Ann", 6), short_name("Maximilian Smith", 10), short_name("Jean-Luc Picardo", 6)
    ('Ann', 'Maximilian', 'J.P.')
    >>> short_name("Christopherjames", 8), short_name("Mary Ann Jo Kent", 3)
    ('C.', 'MAJ')
    """
    if len(name) <= width:
        return name
    words = name.split() or [name]
    return words[0] if len(words[0]) <= width else initials(words, width)


def name_line(before: str, name: str, after: str = "", width: int = LINE_CHARS) -> str:
    """A line of `width` characters around a player's name, the name shortened to fit (`short_name`).

    >>> name_line("R12 ", "Christopherjames", "'s turn"), name_line("", "Ann", ": bonus card")
    ("R12 C.'s turn", 'Ann: bonus card')
    """
    return f"{before}{short_name(name, width - len(before) - len(after))}{after}"


def initials(words: Sequence[str], width: int) -> str:
    """The words' initials in `width` characters: "J.P." where the dots fit, else "JP".

    >>> initials(["Jean-Luc", "Picardo"], 4), initials(["Jean-Luc", "Picardo"], 3)
    ('J.P.', 'JP')
    """
    dotted = "".join(f"{word[0]}." for word in words if word)
    return dotted if len(dotted) <= width else "".join(word[0] for word in words if word)[:width]


def short_person(name: str, width: int, among: Sequence[str] = ()) -> str:
    """A card's `name` (a famous person) in `width` characters beside a value: whole where it fits,
    else the first of its short forms (`short_forms`) that fits and that no other name of `among`
    (the deck's names) can be read as; else the name cut to fit.

    >>> short_person("Albert Einstein", 10), short_person("Leonardo da Vinci", 13), short_person("Marie Curie", 3)
    ('Einstein', 'L. d. Vinci', 'MC')
    >>> deck = ("John F. Kennedy", "Robert F. Kennedy", "Alexander the Great", "Peter the Great")
    >>> [short_person(name, 10, deck) for name in deck]
    ['JFK', 'RFK', 'Alexander', 'Peter']
    """
    if len(name) <= width:
        return name
    claims = _claims(tuple(among)) if among else {}
    for short in short_forms(name):
        if len(short) <= width and claims.get(short, 0) <= 1:
            return short
    return fit(name, width)


def short_forms(name: str) -> tuple[str, ...]:
    """A person's name shortened, longest first: the name before "the" of an epithet, the initials
    and the surname, the last two words, the surname, the first name, the first name and the
    surname's initial, the initials (first for a name with a middle initial, as JFK; none for an epithet).

    >>> short_forms("Queen Elizabeth The Queen Mother")
    ('Queen Elizabeth', 'Queen Mother', 'Mother', 'Queen', 'Queen M.')
    >>> short_forms("John F. Kennedy")
    ('J. F. Kennedy', 'F. Kennedy', 'Kennedy', 'JFK', 'John', 'John K.')
    """
    words = name.split() or [name]
    forms: list[str] = []
    epithet = next((at for at, word in enumerate(words) if at and word.lower() == "the"), None)
    if epithet is not None:
        forms.append(" ".join(words[:epithet]))
    if 1 < len(words) <= 3 and epithet is None:
        forms.append(" ".join([*(f"{word[0]}." for word in words[:-1]), words[-1]]))
    if len(words) >= 3 and words[-2][:1].isupper():
        forms.append(" ".join(words[-2:]))
    letters = "".join(word[0] for word in words if word) if len(words) > 1 and epithet is None else ""
    middle = any(_initial(word) for word in words[1:-1])  # "F.": known by initials (JFK)
    first = "" if _initial(words[0]) else words[0]  # "J. Robert Oppenheimer" is no "J."
    known = f"{first} {words[-1][0]}." if first and len(words) > 1 else ""  # "Louis A."
    forms.extend((words[-1], letters, first, known) if middle else (words[-1], first, known, letters))
    return tuple(dict.fromkeys(form for form in forms if form))


def _initial(word: str) -> bool:
    return len(word) == 2 and word.endswith(".")


@functools.lru_cache(maxsize=8)
def _claims(names: tuple[str, ...]) -> Mapping[str, int]:
    """How many of `names` each short text may be read as: a name claims its short forms and every
    run of its words ("Kennedy" is both Kennedys', "Mother" both the Queen Mother's and Mother Teresa's)."""
    counts: dict[str, int] = {}
    for name in dict.fromkeys(names):
        words = name.split()
        runs = {" ".join(words[start:end]) for start in range(len(words)) for end in range(start + 1, len(words) + 1)}
        for text in runs | set(short_forms(name)):
            counts[text] = counts.get(text, 0) + 1
    return counts


def wrap(text: str, most: int = TEXT_LINES, width: int = LINE_CHARS) -> tuple[str, ...]:
    """`text` broken at spaces into at most `most` lines of `width` characters.

    >>> wrap("Cancel the last play made by anyone at the table", 2)
    ('Cancel the last play', 'made by anyone at the')
    """
    return tuple(textwrap.wrap(text, width)[:most])


def set_at(values: tuple[T, ...], index: int, value: T) -> tuple[T, ...]:
    """A copy of `values` with `values[index]` replaced by `value`.

    >>> set_at((0, 0, 0), 1, 5)
    (0, 5, 0)
    """
    return (*values[:index], value, *values[index + 1 :])


MOST_PLAYERS = 10  # the most seats a game takes, however many cards its deck holds


def deal_for(players: int, cards: int, each: int, what: str = "cards", kept: int = 0) -> None:
    """Refuse a setup whose deck cannot deal `each` of its `cards` to every player (`kept` set aside first).

    The one-line reason says how many players the deck deals for (a game's `new` raises it).

    >>> deal_for(4, 12, 3, "Mooks")
    >>> deal_for(5, 12, 3, "Mooks")
    Traceback (most recent call last):
    ValueError: 12 Mooks deal for 4 players, not 5
    """
    most = max(0, cards - kept) // each
    if players > most:
        raise ValueError(f"{cards} {what} deal for {most} player{'' if most == 1 else 's'}, not {players}")


def read_options(options: Sequence[Option], given: Mapping[str, str]) -> dict[str, str]:
    """Every option's canonical value: `given`'s where set, else the default; ValueError names a bad one.

    >>> read_options((Option("ties", "Ties", "either", ("either", "strict")),), {})
    {'ties': 'either'}
    >>> read_options((), {"colour": "red"})
    Traceback (most recent call last):
    ValueError: unknown option 'colour'; options are none
    """
    known = {option.key: option for option in options}
    for key in given:
        if key not in known:
            raise ValueError(f"unknown option {key!r}; options are {', '.join(known) or 'none'}")
    return {key: option.parse(given.get(key, option.default)) for key, option in known.items()}
