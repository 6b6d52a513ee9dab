"""A paired phone's *End the session*: the game's declared end (Deck of Death's "enough chaos"),
played through its rules as if pressed on the box, journaled; refused in one line where it does not fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.games import rules_for
from box.links.control import ControlCommand, check_command
from box.sim.world import SimulatedBox
from box.words import Sound


@pytest.fixture
def world(tmp_path: Path):
    world = SimulatedBox(state_dir=tmp_path / "state", seed=1, names=("Ann", "Bob"))
    yield world
    world.close()


def ask(world: SimulatedBox, name: str, **args: object) -> str:
    """A paired phone's command through the loop, checked as the socket checks it: "" taken, else why not."""
    answers: list[str] = []
    command = check_command({"cmd": name, **args})
    world.loop.enqueue(ControlCommand(command.name, command.args, reply=answers.append))
    world.advance(0.05)
    (answer,) = answers
    return answer


def test_a_phone_ends_a_deck_of_death_session_as_the_box_does_after_enough_chaos(world: SimulatedBox) -> None:
    assert ask(world, "start", game="deck-of-death", names=["Ann", "Bob"], options={}) == ""
    actions = world.dump()["actions"]
    assert ask(world, "end-session", game="deck-of-death") == ""
    state = world.dump()
    assert state["over"] is True and state["actions"] == actions + 2, "journaled as the long OK and the OK"
    assert world.box.screen(world.now).title == "Enough chaos!", "on the OLED as if pressed there"
    assert Sound.FANFARE in [sound for _, sound in world.parts.buzzer.played], "heard as if pressed there"
    assert ask(world, "end-session", game="deck-of-death") == "The session has ended already"
    assert [entry["cmd"] for entry in world.box.journal.get("phone")][-2:] == ["end-session", "end-session"]
    world.restart()  # a power cut: the journal holds the end
    assert world.dump()["over"] is True and world.dump()["game"] == "deck-of-death"


def test_the_box_takes_the_same_presses_the_phone_sends(world: SimulatedBox) -> None:
    """The declared presses are the box's own way to the end: a long OK asks, OK answers yes."""
    assert ask(world, "start", game="deck-of-death", names=["Ann", "Bob"], options={}) == ""
    world.press("ok", seconds=1.2)
    assert world.box.screen(world.now).title == "Enough chaos?"
    world.press("ok")
    assert world.dump()["over"] is True
    assert rules_for("deck-of-death").phone.ends_with and not rules_for("dead-set").phone.ends_with


def test_ending_is_refused_with_its_reason_and_changes_nothing(world: SimulatedBox) -> None:
    assert ask(world, "end-session", game="deck-of-death") == "No game in play"
    assert ask(world, "start", game="dead-set", names=["Ann", "Bob"], options={}) == ""
    assert ask(world, "end-session", game="dead-set") == "Dead Set ends by its own rules: abandon it instead"
    assert ask(world, "end-session", game="deck-of-death") == "Not ended: Dead Set is in play now"
    assert ask(world, "abandon") == ""
    assert ask(world, "start", game="deck-of-death", names=["Ann", "Bob"], options={}) == ""
    world.press("up", seconds=1.2)  # someone at the box reads the rules list
    actions = world.dump()["actions"]
    assert ask(world, "end-session", game="deck-of-death") == "Not ended: on the box, close this screen first"
    assert world.dump()["actions"] == actions and world.dump()["over"] is False, "neither press journaled"
    with pytest.raises(ValueError, match="end-session: game must be text"):
        check_command({"cmd": "end-session", "game": 7})


def test_what_just_happened_says_each_moment_once_in_the_players_words(world: SimulatedBox, tmp_path: Path) -> None:
    """No button or roll as a moment ("press OK", "hold DOWN", "roll 2+5"), and the end of a session
    ended from a phone once: each step's events are told as it is taken, not when the batch is durable."""
    from box.links.control import ControlServer
    from box.web.drawings import recent

    world.loop.attach_control(ControlServer(tmp_path / "control.sock", lambda command: None))
    assert ask(world, "start", game="deck-of-death", names=["Ann", "Bob"], options={}) == ""
    world.press("ok")
    world.press("roll")
    world.press("down", seconds=1.2)  # the scores
    world.press("back")
    assert ask(world, "end-session", game="deck-of-death") == ""
    assert world.bus.flush()
    assert world.loop.link is not None
    events = list(world.loop.link.events())
    words = recent({"game": "deck-of-death", "events": events}, lambda game, card: card)
    assert words[0] == "Game over" and words.count("Game over") == 1
    assert words.count("Yeah... that's enough chaos") == 1
    raw = ("press ", "hold ", "roll ", "OK on ", "move to ")
    assert [line for line in words if line.startswith(raw)] == [], words
    assert [e["event"] for e in events].count("game-over") == 1
