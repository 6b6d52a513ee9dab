"""bench/friction.py's reference players still play every kind of turn it reports (the figures and
their targets are the bench's business, not checked here): a rules change that leaves a player
stuck shows up as a kind with no turns."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent.parent / "bench"


def test_one_reference_game_of_each_title_reaches_every_kind_of_turn(monkeypatch) -> None:
    monkeypatch.syspath_prepend(str(BENCH))
    friction = importlib.import_module("friction")
    try:
        figures = friction.measure(1)
    finally:
        sys.modules.pop("friction", None)
    assert set(figures) == set(friction.KINDS)
    for title, kinds in friction.KINDS.items():
        for kind in kinds:
            entry = figures[title][kind]
            assert entry["turns"] > 0 and entry["mean"] is not None, (title, kind, entry)
            assert entry["mean"] <= entry["worst"]
