"""A paired phone's *End the session* at the request level: offered only for a game that declares how
its session ends, asked first, sent with the game the phone showed, refused in the box's words."""

from __future__ import annotations

from box.links.control import ControlCommand
from tests import test_web, test_web_control
from tests.test_web import ORIGIN, text
from tests.test_web_control import JudgingRig, sent

played, state_dir, box = test_web.played, test_web.state_dir, test_web_control.box  # the fixtures


def deck_of_death(rig: JudgingRig, over: bool = False) -> None:
    rig.box.publish({"game": "deck-of-death", "players": ["Ann", "Bob"], "undo": "Ann rolls 7", "over": over,
                     "sound": {"volume": "medium", "muted": False}, "timer": {}, "dice": {}})
    link = rig.app.state.link

    async def wait() -> None:
        import asyncio

        while (link.state or {}).get("game") != "deck-of-death" or link.state.get("over") is not over:
            await asyncio.wait_for(link.changed.wait(), 5)

    rig.client.portal.call(wait)


def test_end_is_offered_for_a_session_the_table_ends_asks_then_sends_the_game_shown(box: JudgingRig) -> None:
    token = box.pair()
    deck_of_death(box)
    assert 'id="end"' in box.client.get("/").text
    ask = box.client.get("/end")
    assert "End the session?" in text(ask) and "Deck of Death ends here" in text(ask)
    assert sent(box) == []  # asking sends nothing
    reply = box.client.post("/end", data={"csrf": token, "game": "deck-of-death"}, headers=ORIGIN, follow_redirects=False)
    assert reply.status_code == 303 and sent(box) == [ControlCommand("end-session", {"game": "deck-of-death"})]


def test_a_game_that_ends_by_its_own_rules_offers_no_end(box: JudgingRig) -> None:
    box.pair()
    test_web_control.playing(box)  # Dead Set
    assert 'id="end"' not in box.client.get("/").text
    ask = box.client.get("/end")
    assert "Dead Set ends by its own rules" in text(ask) and 'id="confirm"' not in ask.text


def test_an_ended_session_offers_no_end_and_a_refusal_says_the_boxs_reason(box: JudgingRig) -> None:
    token = box.pair()
    deck_of_death(box, over=True)
    assert 'id="end"' not in box.client.get("/").text and 'id="confirm"' not in box.client.get("/end").text
    box.verdict = "The session has ended already"
    reply = box.client.post("/end", data={"csrf": token, "game": "deck-of-death"}, headers=ORIGIN)
    assert reply.status_code == 409 and "The box refused: The session has ended already" in text(reply)
    bad = box.client.post("/end", data={"csrf": token, "game": "chess"}, headers=ORIGIN)
    assert bad.status_code == 400 and len(sent(box)) == 1


def test_an_unpaired_phone_cannot_end_a_session(box: JudgingRig) -> None:
    deck_of_death(box)
    reply = box.client.post("/end", data={"csrf": "0" * 64, "game": "deck-of-death"}, headers=ORIGIN)
    assert reply.status_code == 403 and "Pair this phone first" in text(reply) and sent(box) == []
