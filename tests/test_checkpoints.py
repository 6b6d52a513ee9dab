"""Checkpoints: undo and resume from one give the state a full replay of the journal gives.

Small checkpoint intervals make every boundary come often; hypothesis plays random actions,
undos and resumes (a new session on the same journal, as after a restart) on every game.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from box.base.session import GameSession, full_replay
from box.games import GAMES, rules_for
from box.games.base import BUTTONS, READERS, Press, Roll, Step, Tap
from box.storage.journal import Journal


def start(game: str, every: int, journal: Journal | None = None) -> GameSession:
    journal = journal or Journal(":memory:")
    rules = rules_for(game)
    values = {option.key: option.parse(option.default) for option in rules.options}
    players = [f"P{n}" for n in range(1, max(rules.min_players, 3) + 1)]
    journal.start_game(game, players, values, None)
    record = journal.unfinished_game()
    assert record is not None
    return GameSession(rules, rules.load_deck(None), record, journal, checkpoint_every=every)


def resumed(session: GameSession) -> GameSession:
    """The session a restarted box builds from the same journal."""
    record = session.journal.unfinished_game()
    assert record is not None
    return GameSession(session.rules, session.deck, record, session.journal, session.checkpoint_every)


def agrees_with_the_journal(session: GameSession) -> None:
    count, last = session.journal.db.execute(
        "SELECT COUNT(*), MAX(seq) FROM actions WHERE game = ? AND undone = 0", (session.record.id,)
    ).fetchone()
    assert (session.count, session.last_seq) == (count, last)
    assert session.state == full_replay(session.rules, session.deck, session.record, session.journal)
    assert len(session.tail) < session.checkpoint_every


def accepted(session: GameSession, actions: int) -> None:
    """Apply `actions` actions the game accepts (the first that fits from a fixed list)."""
    cards = list(session.deck.cards)
    candidates: list[Any] = [Roll((3, 4)), *(Press(b) for b in BUTTONS if b != "roll")]
    candidates += [Tap(READERS[n % 3], card) for n, card in enumerate(cards[:40])]
    for _ in range(actions):
        for action in candidates:
            if isinstance(session.rules.apply(session.state, action), Step):
                session.apply(action)
                break
        else:
            raise AssertionError("no action applies")


def test_undo_across_checkpoint_boundaries_gives_the_full_replay() -> None:
    session = start("deck-of-death", every=4)
    accepted(session, 10)
    assert session.count == 10 and len(session.tail) == 2
    checkpoints = session.journal.db.execute("SELECT count FROM checkpoints ORDER BY seq").fetchall()
    assert checkpoints == [(4,), (8,)]
    for expected in range(9, 2, -1):
        assert session.undo()
        assert session.count == expected
        agrees_with_the_journal(session)
    assert session.journal.db.execute("SELECT count FROM checkpoints").fetchall() == []
    accepted(session, 6)  # checkpoints come back at 4 and 8
    assert [c for (c,) in session.journal.db.execute("SELECT count FROM checkpoints ORDER BY seq")] == [4, 8]
    agrees_with_the_journal(session)


def test_resume_starts_from_the_newest_checkpoint_and_replays_only_after_it() -> None:
    session = start("deck-of-death", every=5)
    accepted(session, 23)
    calls = []
    journal = session.journal
    actions = journal.actions
    journal.actions = lambda game, after=0: calls.append(after) or actions(game, after)  # type: ignore[method-assign]
    again = resumed(session)
    assert calls == [again.base.seq] and again.base.count == 20 and len(again.tail) == 3
    assert again.state == session.state
    agrees_with_the_journal(again)


def test_a_journal_without_checkpoints_gets_them_at_its_first_resume() -> None:
    session = start("dead-set", every=1000)
    accepted(session, 30)
    assert session.journal.checkpoint(session.record.id) is None
    again = GameSession(session.rules, session.deck, session.record, session.journal, checkpoint_every=8)
    assert again.state == session.state and again.base.count == 24
    assert [c for (c,) in session.journal.db.execute("SELECT count FROM checkpoints ORDER BY seq")] == [8, 16, 24]


@pytest.mark.parametrize("damage", ["version", "state"])
def test_a_checkpoint_from_other_code_or_damaged_is_not_used(damage: str, caplog) -> None:
    session = start("deck-of-death", every=4)
    accepted(session, 9)
    column, value = ("version", "0/old/x") if damage == "version" else ("state", b"not a pickle")
    session.journal.db.execute(f"UPDATE checkpoints SET {column} = ?", (value,))
    with caplog.at_level(logging.INFO):
        again = resumed(session)
    assert again.state == session.state and again.count == 9
    assert "replaying" in caplog.text
    versions = {v for (v,) in session.journal.db.execute("SELECT version FROM checkpoints")}
    assert versions == {again.codec.version}  # checkpointed anew


def test_finished_games_keep_no_checkpoints() -> None:
    session = start("deck-of-death", every=4)
    accepted(session, 9)
    session.journal.finish_game(session.record.id)
    assert session.journal.db.execute("SELECT COUNT(*) FROM checkpoints").fetchone() == (0,)


def actions_for(game: str) -> st.SearchStrategy[Any]:
    cards = list(rules_for(game).load_deck(None).cards)
    return st.one_of(
        st.builds(Press, st.sampled_from([b for b in BUTTONS if b != "roll"]), st.booleans()),
        st.builds(Tap, st.sampled_from(READERS), st.sampled_from(cards)),
        st.builds(Roll, st.tuples(st.integers(1, 6), st.integers(1, 6))),
    )


@pytest.mark.parametrize("game", list(GAMES))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data(), every=st.integers(1, 6))
def test_random_play_undo_and_resume_always_equal_a_full_replay(game: str, data: Any, every: int) -> None:
    session = start(game, every)
    actions = actions_for(game)
    for _ in range(data.draw(st.integers(0, 60))):
        kind = data.draw(st.sampled_from(["act", "act", "act", "act", "undo", "resume"]))
        if kind == "act":
            session.apply(data.draw(actions))
        elif kind == "undo":
            session.undo()
        else:
            session = resumed(session)
        agrees_with_the_journal(session)


def test_a_version_1_journal_resumes_and_gets_its_checkpoints_table_with_the_first_write(tmp_path) -> None:
    import sqlite3

    from box.storage.journal import Journal

    path = tmp_path / "journal.db"
    session = start("deck-of-death", every=4, journal=Journal(path))
    accepted(session, 6)
    session.journal.close()
    db = sqlite3.connect(path)  # as version 1 left it: no checkpoints table
    db.execute("DROP TABLE checkpoints")
    db.execute("PRAGMA user_version=1")
    db.commit()
    db.close()
    journal, damaged = Journal.open_or_recover(path)
    assert damaged is None
    record = journal.unfinished_game()
    assert record is not None
    again = GameSession(session.rules, session.deck, record, journal, checkpoint_every=4)
    assert again.count == 6 and again.state == session.state
    accepted(again, 2)
    assert journal.db.execute("PRAGMA user_version").fetchone() == (2,)
    assert journal.checkpoint(record.id) is not None
    agrees_with_the_journal(again)


class CountingRules:
    """The game's rules, counting the actions applied through them."""

    def __init__(self, rules: Any):
        self.rules, self.applied = rules, 0

    def apply(self, state: Any, action: Any) -> Any:
        self.applied += 1
        return self.rules.apply(state, action)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.rules, name)


def test_an_undo_after_the_base_replays_nothing_and_one_past_it_replays_fewer_than_the_interval() -> None:
    session = start("deck-of-death", every=8)
    accepted(session, 16 + 5)
    rules = session.rules = CountingRules(session.rules)  # type: ignore[assignment]
    labels = []
    for _ in range(5):  # the kept states: the state and the one before it (the undo menu's label) come from memory
        assert session.undo()
        labels.append(session.last_action())
    assert rules.applied == 0 and None not in labels
    session.rules = rules.rules
    agrees_with_the_journal(session)
    session.rules = rules
    assert session.undo()  # past the base: the checkpoint before it, and the 7 actions after that
    assert rules.applied == 7 and session.count == 15 and len(session.tail) == 7
    session.rules = rules.rules
    agrees_with_the_journal(session)
