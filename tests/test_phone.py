"""The box's side of the phone page: commands through the one loop, the code on the OLED, tokens."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from box.core.loop import PUBLISH_GAP
from box.links.client import ControlClient
from box.links.control import ControlCommand, ControlServer
from box.sim.world import SimulatedBox
from box.storage.roster import ROSTER_FILE, Roster, save_roster
from box.storage.tags import TAGS_FILE, TagMap

SCENARIOS = Path(__file__).parent / "scenarios"
FRESH_TAG = bytes.fromhex("04c0ffee000001")


@pytest.fixture
def world(tmp_path: Path):
    world = SimulatedBox(state_dir=tmp_path / "state", decks_dir=SCENARIOS / "dead-set" / "decks", seed=1)
    yield world
    world.close()


def send(world: SimulatedBox, command: str, **args: object) -> None:
    world.loop.enqueue(ControlCommand(command, dict(args)))
    world.advance(0.05)


def oled(world: SimulatedBox) -> list[str]:
    view = world.box.screen(world.now)
    return [view.title, *view.lines]


def test_the_pairing_code_shows_on_the_oled_and_never_in_the_state(world: SimulatedBox) -> None:
    send(world, "show-code", code="482913", seconds=120)
    assert world.dump()["screen"] == "pair" and "   482 913" in oled(world)
    assert "482913" not in json.dumps(world.dump()) and world.dump()["pairing"] is True
    send(world, "hide-code")
    assert world.dump()["screen"] == "menu"
    send(world, "show-code", code="111222", seconds=30)
    world.advance(31)
    assert world.dump()["screen"] == "menu"  # expired
    logged = world.box.journal.get("phone")
    assert [entry["cmd"] for entry in logged] == ["show-code", "hide-code", "show-code"]
    assert all("code" not in entry for entry in logged)  # journaled like any input, without the secret


def test_enrol_from_the_phone_takes_the_next_tag_on_any_reader(world: SimulatedBox) -> None:
    send(world, "enrol", game="dead-set", card="ds10")
    assert world.dump()["screen"] == "enrol" and "Tess Ten" in oled(world)
    assert world.dump()["enrolment"]["current"] == "ds10"
    taken = world.box.tags.uid_of("dead-set", "ds20")  # a tag that is another card's: refused
    world.put("left", taken)
    world.lift("left")
    assert world.dump()["screen"] == "enrol" and world.box.tags.lookup(taken) == ("dead-set", "ds20")
    world.put("middle", FRESH_TAG)
    world.lift("middle")
    assert world.dump()["screen"] == "menu" and world.dump()["notice"] == "Enrolled: Tess Ten"
    assert TagMap.load(world.state_dir / TAGS_FILE).lookup(FRESH_TAG) == ("dead-set", "ds10")
    assert world.loop.last_tags["middle"][0] == FRESH_TAG.hex()


def test_a_command_for_a_card_that_is_not_in_the_deck_changes_nothing(world: SimulatedBox) -> None:
    send(world, "enrol", game="dead-set", card="nope")
    assert world.dump()["screen"] == "menu"


def test_a_player_token_seats_its_player_at_a_games_setup(world: SimulatedBox) -> None:
    save_roster(Roster.checked(["Ann", "Bob", "Cid"], {"dead-set": {"target": "4"}}), world.state_dir / ROSTER_FILE)
    send(world, "roster-changed")
    send(world, "enrol-player", name="Cid")
    world.put("left", FRESH_TAG)
    world.lift("left")
    assert world.box.tags.lookup(FRESH_TAG) == ("player", "Cid")
    world.put("left", FRESH_TAG)  # at the main menu: refused
    world.lift("left")
    assert world.dump()["notice"] == "Player tokens join at a game's setup"
    world.press("down")  # Dead Set
    world.press("ok")
    world.put("right", FRESH_TAG)
    world.lift("right")
    assert world.dump()["notice"] == "Cid joins: 1 seated"
    world.press("ok")  # the options page: the roster's default target
    assert any("4" in line for line in oled(world))
    world.press("ok")  # START, the options' first line
    state = world.dump()
    assert state["game"] == "dead-set" and state["players"] == ["Cid", "Ann"]
    assert state["options"]["target"] == "4"


def test_a_restored_tag_map_is_read_again(world: SimulatedBox) -> None:
    TagMap({FRESH_TAG: ("dead-set", "ds30")}).save(world.state_dir / TAGS_FILE)
    send(world, "tags-changed")
    assert world.box.tags.lookup(FRESH_TAG) == ("dead-set", "ds30")
    assert world.box.tags.uid_of("dead-set", "ds10") is not None  # the simulator's own tags stay under it


def test_an_uploaded_deck_is_used_from_the_next_game(world: SimulatedBox) -> None:
    uploaded = world.state_dir / "decks"
    uploaded.mkdir()
    (uploaded / "dead-set.csv").write_text("id,name,age\nds901,Zed Zero,50\nds902,Zoe Two,60\n")
    send(world, "decks-changed")
    world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
    assert list(world.box.session.deck.cards) == ["ds901", "ds902"]
    assert world.box.session.record.decks == str(uploaded)  # the history replays it with that deck


def test_the_state_reaches_a_subscriber_through_the_socket(world: SimulatedBox, tmp_path: Path) -> None:
    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue)
    control.start()
    try:
        world.loop.attach_control(control)
        stream = ControlClient(control.path).subscribe()
        world.advance(0.05)  # a pass: someone listens now, so the state is published
        assert next(stream)["screen"] == "menu"
        assert ControlClient(control.path).request("show-code", code="123456", seconds=60) == {"ok": True}
        world.advance(0.05)  # the loop takes the command from its inbox
        assert next(stream)["screen"] == "pair"
        world.put("left", FRESH_TAG)
        seen = next(stream)
        while (seen["last_tags"].get("left") or {}).get("uid") != FRESH_TAG.hex():
            seen = next(stream)
        world.box.lobby.start_game("dead-set", world.now, names=["Ann", "Bob"])
        assert world.bus.flush()
        world.advance(0.05)  # the phone link woke the loop: the state goes out with the newest events
        while "game-started" not in [event["event"] for event in seen["events"]]:
            seen = next(stream)
        started = next(event for event in seen["events"] if event["event"] == "game-started")
        assert started["seats"] == ["Ann", "Bob"] and seen["subscribers"]["phone"]["dropped"] == 0
        assert any(event["event"] == "standing" and event["current_player"] == "Ann" for event in seen["events"])
        stream.close()
    finally:
        control.stop()


def test_a_burst_of_passes_costs_one_dump_at_once_and_one_at_the_gap_end(world: SimulatedBox) -> None:
    class Listening:
        """A control socket with one subscriber, counting the dumps it is handed."""

        def __init__(self) -> None:
            self.dumps: list[dict[str, object]] = []

        def subscribed(self) -> bool:
            return True

        def publish(self, *parts: dict[str, object], events: object = None) -> None:
            self.dumps.append({key: value for part in parts for key, value in part.items()})

    control = Listening()
    world.loop.attach_control(control)  # type: ignore[arg-type]
    world.loop.publish_gap = PUBLISH_GAP  # as the box's own loop, on the real clock
    start = world.now
    for step in range(5):  # five passes inside one gap: an input's edges and its reader's answers
        world.loop.process(start + step * PUBLISH_GAP / 10)
    assert len(control.dumps) == 1
    world.box.notices.say("Bob's turn", start + PUBLISH_GAP / 2)  # a change the next dump must carry
    world.loop.process(start + PUBLISH_GAP / 2)  # the pass that shows it, inside the gap
    assert len(control.dumps) == 1
    assert world.loop.next_deadline(start + PUBLISH_GAP / 2) == pytest.approx(start + PUBLISH_GAP)
    world.loop.process(start + PUBLISH_GAP)
    assert len(control.dumps) == 2 and control.dumps[-1]["notice"] == "Bob's turn"
    assert not world.loop.publish_due  # nothing more to send: the loop sleeps again


def test_the_self_test_report_is_kept_for_the_box_page(tmp_path: Path) -> None:
    from starlette.testclient import TestClient

    from box.cli.main import main
    from box.web.app import WebSettings, create_app

    assert main(["selftest", "--fake", "--seconds", "0", "--state-dir", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "selftest.json").read_text())
    assert {check["part"] for check in report["checks"]} >= {"display", "buzzer", "reader left"}
    with TestClient(create_app(WebSettings(tmp_path, tmp_path / "none.sock", hosts=("testserver",)))) as client:
        page = client.get("/box").text
    assert "reader left" in page and "(simulated parts)" in page


def test_a_phone_command_during_a_storage_fault_is_refused_with_its_reason_and_the_box_stays_up(
    world: SimulatedBox,
) -> None:
    import sqlite3

    answers: list[str] = []
    holder = sqlite3.connect(world.state_dir / "journal.db", timeout=0)
    holder.execute("BEGIN IMMEDIATE")  # another program holds the journal: every write is refused
    try:
        world.loop.enqueue(ControlCommand("show-code", {"code": "123456", "seconds": 60}, reply=answers.append))
        world.advance(0.05)
        assert answers == ["Journal in use"]  # the page is told why, and nothing was done
        assert world.dump()["screen"] == "menu" and world.dump()["notice"] == "Journal in use"
    finally:
        holder.rollback()
        holder.close()
    world.advance(6.0)  # the journal is tried again: writes work
    world.loop.enqueue(ControlCommand("show-code", {"code": "123456", "seconds": 60}, reply=answers.append))
    world.advance(0.05)
    assert answers == ["Journal in use", ""] and world.dump()["screen"] == "pair"


def test_a_phone_command_that_no_longer_fits_is_refused_to_the_page(world: SimulatedBox) -> None:
    answers: list[str] = []
    world.loop.enqueue(ControlCommand("enrol", {"game": "dead-set", "card": "ds999"}, reply=answers.append))
    world.advance(0.05)
    assert answers == ["No such card: ds999"] and world.dump()["screen"] == "menu"


def test_the_socket_answers_the_page_what_became_of_its_command(world: SimulatedBox, tmp_path: Path) -> None:
    import sqlite3
    import threading

    control = ControlServer(tmp_path / "run" / "control.sock", world.loop.enqueue, wait=15.0)  # > SQLite's 5 s busy wait
    control.start()
    holder = sqlite3.connect(world.state_dir / "journal.db", timeout=0)
    answers: list[dict] = []

    def ask(**args: object) -> threading.Thread:
        asking = threading.Thread(
            target=lambda: answers.append(ControlClient(control.path, timeout=20.0).request("show-code", **args))
        )
        asking.start()
        while asking.is_alive():  # the box's loop runs while the page waits for its verdict
            world.advance(0.05)
            asking.join(0.01)
        return asking

    try:
        holder.execute("BEGIN IMMEDIATE")
        ask(code="123456", seconds=60)
        holder.rollback()
        world.advance(6.0)  # the journal works again
        ask(code="123456", seconds=60)
    finally:
        holder.close()
        control.stop()
    assert answers == [{"ok": False, "refused": True, "error": "Journal in use"}, {"ok": True}]
    assert world.dump()["screen"] == "pair"


def ask(world: SimulatedBox, name: str, **args: object) -> str:
    """Send a paired phone's command through the loop; what became of it ("" taken, else why not)."""
    answers: list[str] = []
    world.loop.enqueue(ControlCommand(name, dict(args), reply=answers.append))
    world.advance(0.05)
    (answer,) = answers
    return answer


def test_a_paired_phone_starts_undoes_and_abandons_a_game_as_if_pressed_on_the_box(tmp_path: Path) -> None:
    world = SimulatedBox(tmp_path / "state", SCENARIOS / "dead-set" / "decks", seed=1, names=("Ann", "Bob"))
    try:
        played_from_a_phone(world)
    finally:
        world.close()


def played_from_a_phone(world: SimulatedBox) -> None:
    assert ask(world, "start", game="dead-set", names=["ann", "Bob"], options={"target": "9"}) == ""
    assert world.dump()["players"] == ["Ann", "Bob"] and world.dump()["options"]["target"] == "9"  # the roster's Ann
    assert ask(world, "start", game="dead-set", names=["Ann", "Bob"], options={}) == "A game is in play: abandon it first"
    world.put("left", world.uid_for("ds70"))
    world.lift("left")
    label = world.box.session.last_action()
    assert label and world.dump()["actions"] == 1
    assert ask(world, "undo", label="Bob sticks") == f"Not undone: the last action is now {label}"  # what it saw changed
    assert ask(world, "undo", label=label) == "" and world.dump()["actions"] == 0
    assert world.dump()["notice"] == "Undone", "on the OLED as if pressed there"
    assert ask(world, "undo", label=label) == "Nothing to undo"
    assert ask(world, "abandon") == "" and world.dump()["game"] is None
    assert ask(world, "abandon") == "No game in play"
    logged = [entry["cmd"] for entry in world.box.journal.get("phone")]
    assert logged[-3:] == ["undo", "abandon", "abandon"], "journaled like any input"


def test_a_paired_phone_sets_the_volume_and_a_bad_start_is_refused_in_one_line(world: SimulatedBox) -> None:
    assert ask(world, "sound", volume="low", muted=True) == ""
    assert world.dump()["sound"] == {"volume": "low", "muted": True}
    assert ask(world, "sound", volume="loud", muted=False).startswith("volume must be one of")
    assert ask(world, "start", game="dead-set", names=["Ann", "Ann"], options={}) == "player names must differ"
    assert "takes" in ask(world, "start", game="dead-set", names=["Ann"], options={})
    assert world.dump()["game"] is None
