"""The box's events: a subscriber in a few lines sees what a game did, and can never hold up or end the box."""

from __future__ import annotations

import threading
import typing
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from box.events import (
    ActionAccepted,
    Bust,
    DiceRolled,
    Event,
    EventBus,
    GameOver,
    GameStarted,
    Standing,
    StorageBack,
    StorageFailed,
    TurnPassed,
    Undone,
    as_json,
    compact_json,
    event_text,
)
from box.sim.script import ScriptRunner, parse_script
from box.sim.world import SimulatedBox

SCENARIOS = Path(__file__).parent / "scenarios"


def play_script(world: SimulatedBox, path: Path) -> None:
    ScriptRunner(world, str(path)).run(parse_script(path.read_text(), str(path)))


def test_a_throwaway_subscriber_sees_a_games_events(tmp_path: Path) -> None:
    world = SimulatedBox(tmp_path, decks_dir=SCENARIOS / "dead-set" / "decks")
    seen = []
    world.bus.subscribe("test", seen.append)  # the whole of a subscriber: one function, one line

    play_script(world, SCENARIOS / "dead-set" / "bust.script")
    world.box.button("roll", "short", world.now)
    assert world.bus.flush()

    assert seen[0] == GameStarted("dead-set", "Dead Set", seen[0].options, ("Ann", "Bob"), 1)
    assert seen[1] == Standing("dead-set", "Ann", {"Ann": {"celebrities": 0, "busts": 0}, "Bob": {"celebrities": 0, "busts": 0}})
    accepted = [event for event in seen if isinstance(event, ActionAccepted)]
    assert accepted[0] == ActionAccepted("dead-set", accepted[0].words, "Ann") and accepted[0].words
    assert Bust("dead-set", "Ann", 210) in seen
    assert TurnPassed("dead-set", "Bob") in seen
    assert isinstance(seen[-1], DiceRolled) and seen[-1].game is None  # no game roll in Dead Set: the free dice
    assert world.bus.stats()["test"] == {"delivered": len(seen), "dropped": 0, "failed": 0}


def test_undo_and_the_end_of_a_game_are_published(tmp_path: Path) -> None:
    world = SimulatedBox(tmp_path, decks_dir=SCENARIOS / "dead-set" / "decks")
    seen = []
    world.bus.subscribe("test", seen.append)
    world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
    world.box.card_placed("left", world.uid_for("ds70"), world.now)
    world.box.undo(world.now)
    assert world.bus.flush()
    assert isinstance(seen[-1], Undone) and seen[-1].words == [e for e in seen if isinstance(e, ActionAccepted)][-1].words


def test_a_resumed_game_says_where_it_stands(tmp_path: Path) -> None:
    first = SimulatedBox(tmp_path, decks_dir=SCENARIOS / "dead-set" / "decks")
    first.box.lobby.start_game("dead-set", first.now, names=["Ann", "Bob"])
    first.box.card_placed("left", first.uid_for("ds70"), first.now)
    standing = first.box.dump(first.now)["current_player"]
    first.close()
    bus = EventBus()
    seen: list[object] = []
    bus.subscribe("test", seen.append)
    SimulatedBox(tmp_path, decks_dir=SCENARIOS / "dead-set" / "decks", bus=bus)  # the box starts again
    assert bus.flush()
    assert [e for e in seen if isinstance(e, Standing)][-1].current_player == standing


def test_a_slow_or_failing_subscriber_never_holds_up_the_loop() -> None:
    bus = EventBus()
    release = threading.Event()
    stuck = bus.subscribe("stuck", lambda event: release.wait(10), limit=4)
    broken = bus.subscribe("broken", lambda event: 1 / 0)
    for _ in range(20):  # the loop's side: never waits
        bus.publish(StorageFailed("Storage full"))
    release.set()
    assert bus.flush()
    assert stuck.dropped >= 15 and stuck.delivered + stuck.dropped == 20
    assert broken.failed == 20 and broken.delivered == 0
    bus.close()


def test_events_are_json_for_the_wire() -> None:
    assert as_json(GameOver("dead-set", "Dead Set", ("Ann", "Bob"), ("Ann",), {"Ann": {"celebrities": 13}}, 7, 40)) == {
        "event": "game-over",
        "game": "dead-set",
        "title": "Dead Set",
        "players": ["Ann", "Bob"],
        "winners": ["Ann"],
        "figures": {"Ann": {"celebrities": 13}},
        "number": 7,
        "actions": 40,
        "last": 0,
    }
    assert as_json(StorageBack()) == {"event": "storage-back"}


FIELD_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False, allow_infinity=False), st.text(max_size=8),
    st.tuples(st.integers(1, 6), st.integers(1, 6)), st.lists(st.text(max_size=4), max_size=3),
    st.dictionaries(st.text(max_size=4), st.dictionaries(st.text(max_size=4), st.integers()), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(typing.get_args(Event)), st.data(), st.floats(0, 2e9), st.none() | st.integers(1, 10**6))
def test_an_events_text_is_its_entrys_json(kind: type, data: st.DataObject, at: float, seq: int | None) -> None:
    """The dump's event text, written without its entry, is byte for byte the entry's `compact_json`."""
    event = kind(*(data.draw(FIELD_VALUES) for _ in kind._fields))
    entry = {**as_json(event), "at": at, "run": "ab12", **({} if seq is None else {"seq": seq})}
    assert event_text(event, at, "ab12", seq) == compact_json(entry)


def test_the_history_keeps_each_finished_game_as_one_line(tmp_path: Path) -> None:
    from box.storage.history import HISTORY_FILE, read

    world = SimulatedBox(tmp_path, decks_dir=SCENARIOS / "dead-set" / "decks")
    world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
    session = world.box.session
    assert session is not None
    world.box.publish(GameOver("dead-set", "Dead Set", session.players, ("Bob",), {"Bob": {"celebrities": 13}}, 1, 0))
    assert world.bus.flush()
    (played,) = read(tmp_path / HISTORY_FILE)
    assert (played.number, played.players, played.winners, played.figures) == (
        1, ("Ann", "Bob"), ("Bob",), {"Bob": {"celebrities": 13}}
    )
    (tmp_path / HISTORY_FILE).write_bytes(b"\xff{not json\n" + (tmp_path / HISTORY_FILE).read_bytes())
    assert [game.number for game in read(tmp_path / HISTORY_FILE)] == [1]  # a damaged line is skipped
    assert read(tmp_path / HISTORY_FILE, limit=10) == []  # bounded: a cut line is no game


names = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=16)


@settings(max_examples=60, deadline=None)
@given(
    number=st.integers(1, 10**6),
    players=st.lists(names, min_size=1, max_size=10, unique=True),
    figure=st.integers(-1000, 10**6),
    actions=st.integers(0, 10**5),
)
def test_the_history_reads_back_every_game_it_writes(tmp_path_factory, number, players, figure, actions) -> None:
    from box.storage.history import HISTORY_FILE, Played, append, read

    path = tmp_path_factory.mktemp("history") / HISTORY_FILE
    played = Played(number, "dead-set", "Dead Set", tuple(players), tuple(players[:1]),
                    {players[0]: {"celebrities": figure}}, "2026-12-01 21:00", actions,
                    ({"key": "celebrities", "label": "celebrities", "adds": "sum"},))
    append(path, played)
    assert read(path) == [played]


@settings(max_examples=200, deadline=None)
@given(data=st.binary(max_size=4096))
def test_the_history_takes_any_bytes_without_a_traceback(tmp_path_factory, data) -> None:
    from box.storage.history import HISTORY_FILE, Played, read

    path = tmp_path_factory.mktemp("history") / HISTORY_FILE
    path.write_bytes(data)
    assert all(isinstance(game, Played) for game in read(path))  # what it cannot take, it skips (logged)


def test_the_loops_own_subscriber_has_each_event_when_publish_returns() -> None:
    """The phone link keeps the events on the loop's thread: the dump of the same pass carries them."""
    from box.parts.phonelink import PhoneLink

    bus = EventBus()
    link = PhoneLink()
    bus.keep_on_loop("phone", link)
    bus.publish(DiceRolled((2, 3), game=None))
    assert link.changes == 1 and [entry["faces"] for entry in link.events()] == [[2, 3]]
    assert bus.stats()["phone"] == {"delivered": 1, "dropped": 0, "failed": 0}


def test_a_cursor_moved_in_a_picker_says_where_it_moved_and_the_house_is_not_told(tmp_path: Path) -> None:
    """A press that only moved a picker's cursor is an action (journaled, undoable) whose words name
    the line it moved to, as its undo label does; MQTT keeps it from the house (`is_cursor_move`).
    An OK is not one."""
    from box.links.mqtt.topics import is_cursor_move

    world = SimulatedBox(tmp_path)
    seen: list[Event] = []
    world.bus.subscribe("test", seen.append)
    world.box.lobby.start_game("deck-of-death", world.now, names=["Ann", "Bob"])
    world.put("left", world.uid_for("dd177"))  # Immunity: a picker of the players
    world.lift("left")
    world.press("down")
    assert world.bus.flush()
    moved = [event for event in seen if isinstance(event, ActionAccepted)][-1]
    session = world.box.session
    assert session is not None
    view = session.view(session.state)
    assert view.cursor is not None and moved.words == f"move to {view.lines[view.cursor].strip()}"
    assert is_cursor_move(moved) and session.last_action() == moved.words
    world.press("ok")
    assert world.bus.flush()
    chosen = [event for event in seen if isinstance(event, ActionAccepted)][-1]
    assert chosen is not moved and not is_cursor_move(chosen)
