"""Helpers several test files share: playing pure rules, and running the `gravebox` command.

>>> gravebox_command()[-1] in ("gravebox", "box") or gravebox_command()[-1].endswith("gravebox")
True
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from box.games.base import Rejected, Rules, Step

REPO = Path(__file__).resolve().parent.parent


def play_all(rules: Rules[Any], state: Any, *actions: Any) -> Any:
    """Apply actions that must all be accepted (a rejection fails the test); the state after the last."""
    for action in actions:
        step = rules.apply(state, action)
        assert isinstance(step, Step), f"{action} rejected: {getattr(step, 'reason', step)}"
        state = step.state
    return state


def refused(rules: Rules[Any], state: Any, action: Any) -> str:
    """The reason `action` is rejected (a step fails the test); also checks it changed nothing."""
    before = rules.dump(state)
    result = rules.apply(state, action)
    assert isinstance(result, Rejected), f"{action} was accepted"
    assert rules.dump(state) == before
    return result.reason


def gravebox_command() -> list[str]:
    """The installed `gravebox` script of this venv, else `python -m box`."""
    script = Path(sys.executable).parent / "gravebox"
    return [str(script)] if script.exists() else [sys.executable, "-m", "box"]


def environment(**extra: str) -> dict[str, str]:
    """This environment without systemd's notify variables, with the checkout on the path."""
    env = {key: value for key, value in os.environ.items() if key not in ("NOTIFY_SOCKET", "WATCHDOG_USEC")}
    return {**env, "PYTHONPATH": str(REPO), **extra}


async def until_published(link: Any, advance: Callable[[], None], heard: Callable[[Any], bool], limit: float = 10.0) -> None:
    """Make passes of a simulated box (`advance`) until the page's `link` has a state that `heard`
    accepts, at most `limit` seconds. A pass made before the page's subscription reached the box
    publishes nothing (the box dumps only for a follower): the next pass does."""
    import asyncio

    async def passes() -> None:
        while not heard(link.state):
            advance()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(link.changed.wait(), 0.5)

    await asyncio.wait_for(passes(), limit)
