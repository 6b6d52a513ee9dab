"""What a game's accepted step did, told as the box's events (box/events.py).

The action in the words of its undo label, the game's own moments (its rules' `events`: a column
completed, a lap, a bust, a whack), a turn passed, where the game stands (whose turn, each
player's figures) and its end, from the state dumps around the step: the Box publishes them.
"""

from __future__ import annotations

from typing import Any

from box.base.session import GameSession
from box.events import ActionAccepted, Event, GameOver, Standing, TurnPassed


def game_events(session: GameSession, before: dict[str, Any]) -> list[Event]:
    """The events of the step just taken; `before` is the game's dump before it."""
    game, rules, state = session.record.name, session.rules, session.state
    after = session.dump()
    player, figures = after.get("current_player"), rules.figures_of(state)
    events: list[Event] = [ActionAccepted(game, session.said_last(), before.get("current_player"))]
    events += rules.events(session.before, state) if session.before is not None else ()
    if player is not None and player != before.get("current_player"):
        events.append(TurnPassed(game, player))
    if player != before.get("current_player") or session.before is None or figures != rules.figures_of(session.before):
        events.append(Standing(game, player, figures))
    if after.get("over") and not before.get("over"):
        winners = tuple(after.get("winners", ()))
        events.append(GameOver(
            game, rules.title, session.players, winners, figures, session.record.id, session.count, session.last_seq or 0
        ))
    return events


def standing(session: GameSession) -> Standing:
    """Where the game in play stands: whose turn, each player's figures (after an undo, say)."""
    state = session.state
    return Standing(session.record.name, session.dump().get("current_player"), session.rules.figures_of(state))
