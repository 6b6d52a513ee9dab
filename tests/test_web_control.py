"""A paired phone's hands on the box at the request level: start, undo, abandon, the sound; each
refusal in the box's words, and nothing sent from an unpaired phone."""

from __future__ import annotations

import html
from pathlib import Path

import pytest

from box.links.control import ControlCommand, ControlServer
from box.storage.roster import ROSTER_FILE, Roster, save_roster
from tests import test_web
from tests.test_web import ORIGIN, Rig, text

played, state_dir = test_web.played, test_web.state_dir  # the fixtures: a state directory with two games


class JudgingRig(Rig):
    """A fake box that judges each command at once: `verdict` is its refusal ("" takes it)."""

    def __init__(self, state_dir: Path, runtime: Path):
        super().__init__(state_dir, runtime)
        self.verdict = ""
        self.box = ControlServer(runtime / "control.sock", self.judge, wait=5.0)

    def judge(self, command: ControlCommand | None) -> None:
        self.inbox.put(command)
        if command is not None and command.reply is not None:
            command.reply(self.verdict)


@pytest.fixture
def box(state_dir: Path, tmp_path: Path):
    save_roster(Roster.checked(["Ann", "Bob", "Cid"], {}), state_dir / ROSTER_FILE)
    rig = JudgingRig(state_dir, tmp_path / "run")
    rig.box.start()
    with rig.client:
        yield rig
    rig.box.stop()


def sent(rig: Rig) -> list[ControlCommand]:
    return [c for c in rig.commands() if c.name not in ("show-code", "hide-code")]


def playing(rig: Rig, undo: str | None = "Ann sticks") -> None:
    rig.box.publish({"game": "dead-set", "players": ["Ann", "Bob"], "undo": undo, "over": False,
                     "sound": {"volume": "medium", "muted": False}, "timer": {}, "dice": {}, "round": 1,
                     "celebrities": {"Ann": 0, "Bob": 1}, "round_cards": {"Ann": [], "Bob": []}, "last_round": {}})
    link = rig.app.state.link

    async def wait() -> None:
        import asyncio

        while (link.state or {}).get("undo") != undo or link.state.get("game") is None:
            await asyncio.wait_for(link.changed.wait(), 5)

    rig.client.portal.call(wait)


def test_an_unpaired_phone_sees_no_controls_and_sends_nothing(box: JudgingRig) -> None:
    playing(box)
    assert 'id="controls"' not in box.client.get("/").text
    for path, form in (("/undo", {"label": "Ann sticks"}), ("/abandon", {}), ("/sound", {"volume": "low"}),
                       ("/start/dead-set", {"seat0": "Ann", "seat1": "Bob"})):
        reply = box.client.post(path, data={"csrf": "0" * 64, **form}, headers=ORIGIN)
        assert reply.status_code == 403 and "Pair this phone first" in text(reply), path
    assert sent(box) == []


def test_undo_shows_its_label_asks_and_sends_the_label_it_showed(box: JudgingRig) -> None:
    token = box.pair()
    playing(box)
    now = text(box.client.get("/"))
    assert 'id="controls"' in now and "Undo: Ann sticks" in now
    ask = box.client.get("/undo")
    assert "Undo?" in text(ask) and "Ann sticks" in text(ask)
    assert sent(box) == []  # asking sends nothing
    reply = box.client.post("/undo", data={"csrf": token, "label": "Ann sticks"}, headers=ORIGIN, follow_redirects=False)
    assert reply.status_code == 303
    assert sent(box) == [ControlCommand("undo", {"label": "Ann sticks"})]


def test_a_refused_undo_says_the_boxs_reason(box: JudgingRig) -> None:
    token = box.pair()
    playing(box, undo="Bob twists")
    box.verdict = "Not undone: the last action is now Bob twists"
    reply = box.client.post("/undo", data={"csrf": token, "label": "Ann sticks"}, headers=ORIGIN)
    assert reply.status_code == 409
    assert "The box refused: Not undone: the last action is now Bob twists" in text(reply)


def test_nothing_to_undo_offers_no_button(box: JudgingRig) -> None:
    box.pair()
    playing(box, undo=None)
    assert "Nothing to undo" in text(box.client.get("/undo"))
    assert 'id="confirm"' not in box.client.get("/undo").text


def test_abandon_asks_then_sends(box: JudgingRig) -> None:
    token = box.pair()
    playing(box)
    ask = text(box.client.get("/abandon"))
    assert "Abandon Dead Set?" in ask
    reply = box.client.post("/abandon", data={"csrf": token}, headers=ORIGIN, follow_redirects=False)
    assert reply.status_code == 303 and sent(box) == [ControlCommand("abandon")]


def test_the_sound_is_judged_before_it_is_sent(box: JudgingRig) -> None:
    token = box.pair()
    playing(box)
    assert 'name="volume"' in box.client.get("/").text
    bad = box.client.post("/sound", data={"csrf": token, "volume": "deafening"}, headers=ORIGIN)
    assert bad.status_code == 400 and "the volume is one of low, medium, high" in text(bad)
    assert sent(box) == []
    ok = box.client.post("/sound", data={"csrf": token, "volume": "low", "muted": "on"}, headers=ORIGIN,
                         follow_redirects=False)
    assert ok.status_code == 303 and sent(box) == [ControlCommand("sound", {"volume": "low", "muted": True})]


def test_the_start_form_offers_the_roster_and_the_options_by_their_labels(box: JudgingRig) -> None:
    box.pair()
    page = text(box.client.get("/start/dead-set"))
    assert "Seat 1" in page and "<option selected>Ann</option>" in page and "<option selected>Bob</option>" in page
    assert "Celebrities to win" in page and "target" not in page.split("Options")[1].split("name=")[0]
    assert box.client.get("/start/chess").status_code == 404


def test_start_sends_the_seats_in_order_and_the_options(box: JudgingRig) -> None:
    token = box.pair()
    form = {"csrf": token, "seat0": "Cid", "seat1": "", "seat2": "Ann", "opt.target": "7"}
    reply = box.client.post("/start/dead-set", data=form, headers=ORIGIN, follow_redirects=False)
    assert reply.status_code == 303
    (command,) = sent(box)
    assert command.name == "start" and command.args["game"] == "dead-set"
    assert command.args["names"] == ["Cid", "Ann"] and command.args["options"]["target"] == "7"


@pytest.mark.parametrize(
    ("form", "says"),
    [
        ({"seat0": "Ann"}, "2 to 10 players: 1 chosen"),
        ({"seat0": "Ann", "seat1": "ann"}, "ann sits twice"),
        ({"seat0": "Ann", "seat1": "x" * 40}, "at most 16 characters"),
        ({"seat0": "Ann", "seat1": "Bob", "opt.target": "999"}, "Celebrities to win: '999' is not one of 1 to"),
    ],
)
def test_a_bad_start_is_refused_in_one_line_and_keeps_the_form(box: JudgingRig, form: dict, says: str) -> None:
    token = box.pair()
    reply = box.client.post("/start/dead-set", data={"csrf": token, **form}, headers=ORIGIN)
    assert reply.status_code == 400 and says in text(reply)
    assert "Not started:" in text(reply) and sent(box) == []


def test_a_start_the_box_refuses_says_why(box: JudgingRig) -> None:
    token = box.pair()
    box.verdict = "A game is in play: abandon it first"
    reply = box.client.post("/start/dead-set", data={"csrf": token, "seat0": "Ann", "seat1": "Bob"}, headers=ORIGIN)
    assert reply.status_code == 409 and "Not started: The box refused: A game is in play: abandon it first" in text(reply)


def test_every_page_links_the_manifest_and_its_icons_are_served(box: JudgingRig) -> None:
    for path in ("/", "/history", "/roster", "/cards", "/box", "/pair", "/start"):
        page = box.client.get(path).text
        assert '<link rel="manifest" href="/manifest.webmanifest">' in page and 'rel="icon"' in page, path
    manifest = box.client.get("/manifest.webmanifest")
    assert manifest.headers["content-type"].startswith("application/manifest+json")
    data = manifest.json()
    assert data["display"] == "standalone" and data["start_url"] == "/"
    from PIL import Image

    for icon in data["icons"]:
        reply = box.client.get(icon["src"])
        assert reply.status_code == 200
        import io

        assert f"{Image.open(io.BytesIO(reply.content)).size[0]}x{Image.open(io.BytesIO(reply.content)).size[1]}" == icon["sizes"]


def test_history_says_options_by_their_labels_and_the_last_tag_as_its_card(box: JudgingRig) -> None:
    from box.storage.journal import Journal

    journal = Journal(box.settings.state_dir / "journal.db")
    journal.finish_game(journal.start_game("dead-set", ["Ann", "Bob"], {"target": "7", "ties": "strict"}, None))
    journal.close()
    history = text(box.client.get("/history"))
    assert "Celebrities to win: 7 · Equal ages in order: strict" in history and "target=" not in history
    assert "Abandoned" in history
    from box.storage.tags import TAGS_FILE, TagMap

    tags = TagMap({bytes.fromhex("04aa000000000a"): ("dead-set", "ds001")})
    tags.save(box.settings.state_dir / TAGS_FILE)
    box.box.publish({"game": None, "players": [], "last_tags": {"left": "04aa000000000a", "right": "04bb000000000b"}, "readers_offline": []})
    link = box.app.state.link

    async def wait() -> None:
        import asyncio

        while not (link.state or {}).get("last_tags"):
            await asyncio.wait_for(link.changed.wait(), 5)

    box.client.portal.call(wait)
    cards = text(box.client.get("/cards"))
    name = box.app.state.view.card_list("dead-set").name_of("ds001")
    assert f"{name} (Dead Set)" in cards and "unknown tag" in cards


def test_each_finished_game_offers_bg_stats_and_every_play_exports(box: JudgingRig) -> None:
    import csv
    import io
    import json
    import re
    import socket
    import urllib.parse

    history = box.client.get("/history").text
    links = [html.unescape(link) for link in re.findall(r'href="([^"]+)"[^>]*>Log in BG Stats<', history)]
    games, _ = box.app.state.view.history()
    over = [g for g in games if g.over]
    assert len(links) == len(over) == 2
    prefix = "https://app.bgstatsapp.com/createPlay.html?data="
    play = json.loads(urllib.parse.unquote(links[0].removeprefix(prefix)))
    assert links[0].startswith(prefix)
    newest = over[0]
    assert play["game"]["sourceGameId"] == newest.name and play["game"]["name"] in history
    assert play["location"] == socket.gethostname() and play["sourceName"] == "Gravebox"
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", play["playDate"])
    assert [p["name"] for p in play["players"]] == list(newest.players)
    assert [p["winner"] for p in play["players"]] == [name in newest.winners for name in newest.players]
    assert [p["startPlayer"] for p in play["players"]] == [True] + [False] * (len(newest.players) - 1)
    assert play["game"]["noPoints"] is True and newest.players[0] in play["comments"]
    assert play["sourcePlayId"] == f"gravebox-{socket.gethostname()}-{newest.id}" and "bggId" not in play["game"]
    assert play["game"]["highestWins"] is (newest.name != "deadlines")

    exported = box.client.get("/history.json")
    assert exported.headers["content-disposition"].endswith('"gravebox-plays.json"')
    plays = exported.json()["plays"]
    assert [p["number"] for p in plays] == sorted(g.id for g in games if g.finished or g.over)
    rows = list(csv.DictReader(io.StringIO(box.client.get("/history.csv").text)))
    assert len(rows) == sum(len(p["players"]) for p in plays)
    assert {row["winner"] for row in rows} == {"True", "False"}
