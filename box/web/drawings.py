"""What the Now page's pictures need besides the state dump: points on a ring, the players'
colours, a deck's records and board, and the recent events in a player's words.

The pictures themselves are the templates `_picture_<picture>.html` a game's `Phone` declaration
names; these helpers know no game.

>>> [(round(x), round(y)) for x, y in ring(4, 10, 50, 50)]
[(50, 40), (60, 50), (50, 60), (40, 50)]
>>> colour_of(["Ann", "Bob"], "Bob") != colour_of(["Ann", "Bob"], "Ann")
True
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

PALETTE = ("#e0b040", "#4fa3f7", "#e05a5a", "#5ccf7a", "#c77dff", "#ff8c42", "#40d0d0", "#f06292", "#a0a0a0", "#ffffff")
CARD_COLOURS = {"blue": "#3b6fd1", "orange": "#e08a2c", "green": "#3fa556", "red": "#c83a3a", "white": "#e8e8e8"}
RECENT = 6  # events the Now page lists


def ring(count: int, radius: float, cx: float, cy: float) -> list[tuple[float, float]]:
    """`count` points evenly on a circle, the first at the top, clockwise (SVG's y points down)."""
    return [
        (cx + radius * math.sin(2 * math.pi * i / count), cy - radius * math.cos(2 * math.pi * i / count))
        for i in range(max(count, 0))
    ]


def colour_of(players: Sequence[str], name: str) -> str:
    """A player's colour: by seat, the same on every phone and in every picture."""
    return PALETTE[list(players).index(name) % len(PALETTE)] if name in players else PALETTE[-2]


def card_colour(word: str | None) -> str:
    """A card's printed colour as the page paints it (grey when it has none the page knows)."""
    return CARD_COLOURS.get((word or "").lower(), "#777")


def said(event: dict[str, Any], name_of: Callable[[str | None, str], str]) -> str | None:
    """One recent event in a player's words, or None for one the page does not list.

    >>> said({"event": "lap-completed", "game": "g", "player": "Ann", "lap": 3}, lambda g, c: c)
    'Ann completed lap 3'
    >>> said({"event": "bust", "game": "g", "player": "Bob", "total": 212}, lambda g, c: c)
    'Bob went bust: 212'
    """
    kind, player = event.get("event"), event.get("player")
    if kind == "action-accepted":
        return str(event.get("words") or "") or None
    if kind == "undone":
        return f"Undone: {event['words']}" if event.get("words") else "Undone"
    if kind == "dice-rolled" and isinstance(event.get("faces"), list) and len(event["faces"]) == 2:
        first, second = event["faces"]
        return f"Dice: {first} + {second} = {first + second}"
    if kind == "turn-passed":
        return f"{player}'s turn"
    if kind == "column-completed":
        column = event.get("column", "")  # the column's label, as the game declares it
        return f"{player} completed the {column} column" if player else f"The {column} column is complete"
    if kind == "lap-completed":
        return f"{player} completed lap {event.get('lap')}"
    if kind == "bust":
        return f"{player} went bust: {event.get('total')}"
    if kind == "whack":
        victim = name_of(event.get("game"), str(event.get("victim", "")))
        return f"{player} whacked {event.get('owner')}'s {victim}"
    if kind == "game-over":
        winners = list(event.get("winners") or [])
        return f"Game over: {' and '.join(winners)} {'wins' if len(winners) == 1 else 'win'}" if winners else "Game over"
    if kind == "timer-done":
        return "Time!"
    if kind == "chug-timed":
        return f"Chug: {float(event.get('seconds', 0)):.2f} s" + (", the best yet" if event.get("best") else "")
    return None


def recent(state: dict[str, Any], name_of: Callable[[str | None, str], str]) -> list[str]:
    """The newest few events of the game in play (since it started), newest first, in words."""
    events = [e for e in state.get("events") or () if isinstance(e, dict)]
    starts = [i for i, e in enumerate(events) if e.get("event") == "game-started"]
    events = events[starts[-1] + 1 :] if starts else events
    game = state.get("game")
    words = [said(e, name_of) for e in events if e.get("game") in (None, game)]
    return [w for w in words if w][::-1][:RECENT]


def toward(start: tuple[float, float], end: tuple[float, float], distance: float) -> tuple[float, float]:
    """`start` moved `distance` along the line to `end` (an arrow drawn from a circle's edge).

    >>> toward((0, 0), (10, 0), 3)
    (3.0, 0.0)
    """
    length = math.dist(start, end) or 1.0
    return (start[0] + (end[0] - start[0]) * distance / length, start[1] + (end[1] - start[1]) * distance / length)


def around(point: tuple[float, float], seat: int, seats: int, radius: float) -> tuple[float, float]:
    """Where seat `seat`'s token stands on a space at `point`, so tokens sharing a space stay apart."""
    if seats <= 1:
        return point
    angle = 2 * math.pi * seat / seats
    return (point[0] + radius * math.sin(angle), point[1] - radius * math.cos(angle))


def last_dice(state: dict[str, Any]) -> list[int] | None:
    """The dice thrown since the game in play began (the free dice too), else None: an older
    throw, of another game, is not shown as if it were this one's."""
    events = [e for e in state.get("events") or () if isinstance(e, dict)]
    for event in reversed(events):
        if event.get("event") == "game-started":
            return None
        if event.get("event") == "dice-rolled" and isinstance(event.get("faces"), list):
            return list(event["faces"])
    return None


def per(label: str, count: object) -> str:
    """A plural label said of `count`: one of them reads singular.

    >>> per("penalties", 1), per("laps", 1), per("laps", 2), per("dead", 1), per("busts", 0)
    ('penalty', 'lap', 'laps', 'dead', 'busts')
    """
    if count != 1:
        return label
    if label.endswith("ies"):
        return label[:-3] + "y"
    if label.endswith("s") and not label.endswith("ss"):
        return label[:-1]
    return label
