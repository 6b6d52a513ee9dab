"""Card enrolment: the walk, refusals, skipping, resuming, export and import, the simulator."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from box.decks.codec import Deck
from box.errors import ConfigError
from box.games import rules_for
from box.games.base import Sound
from box.screens.enrolment import Enrolment, export_tags, import_tags, names_from
from box.screens.render import render, render_progress
from box.storage.tags import TAGS_FILE, TagMap

ROOT = Path(__file__).resolve().parent.parent
TAG = [bytes.fromhex(h) for h in ("04a1b2c3", "04a1b2c4", "04a1b2c5", "04a1b2c6d7e8f9", "04a1b2c7")]


@pytest.fixture(scope="module")
def decks() -> dict[str, Deck]:
    return {game: rules_for(game).load_deck() for game in ("dead-set", "deadlines")}


def walk(decks, tmp_path, tags=None, **options) -> Enrolment:
    return Enrolment(
        "dead-set", decks["dead-set"], tags or TagMap(), path=tmp_path / TAGS_FILE, names=names_from(decks), **options
    )


def test_walks_the_deck_in_order_and_enrols_each_tap(decks, tmp_path):
    deck = decks["dead-set"]
    ids = list(deck.cards)
    enrol = walk(decks, tmp_path)
    assert enrol.current == ids[0]
    assert enrol.lines(0.0)[:3] == ["Sheet 1, card 1:", deck.name_of(ids[0]), "Tap its card"]
    enrol.tag("left", TAG[0], None, 1.0)
    enrol.tag("right", TAG[1], None, 2.0)
    assert enrol.current == ids[2]
    assert enrol.tags.lookup(TAG[0]) == ("dead-set", ids[0])
    assert enrol.tags.lookup(TAG[1]) == ("dead-set", ids[1])
    assert enrol.take_sounds() == [Sound.RIGHT, Sound.RIGHT]
    assert enrol.done == 2
    assert enrol.lines(2.5)[-1] == f"{deck.name_of(ids[1])}: enrolled"


def test_saved_after_each_enrolment(decks, tmp_path):
    enrol = walk(decks, tmp_path)
    enrol.tag("left", TAG[0], None, 1.0)
    first = next(iter(decks["dead-set"].cards))
    assert TagMap.load(tmp_path / TAGS_FILE).lookup(TAG[0]) == ("dead-set", first)


def test_a_tag_of_another_card_is_refused_naming_the_card(decks, tmp_path):
    deadlines = decks["deadlines"]
    other = next(card_id for card_id in deadlines.cards)
    tags = TagMap({TAG[0]: ("deadlines", other)})
    enrol = walk(decks, tmp_path, tags=tags)
    enrol.tag("middle", TAG[0], None, 1.0)
    assert enrol.notice == f"tag already {deadlines.name_of(other)} (deadlines): OK overwrites"
    assert enrol.take_sounds() == [Sound.ERROR]
    first = next(iter(decks["dead-set"].cards))
    assert enrol.current == first
    assert tags.lookup(TAG[0]) == ("deadlines", other)
    enrol.tag("middle", TAG[1], None, 2.0)
    enrol.tag("middle", TAG[1], None, 3.0)  # the card just enrolled: refused as the one before
    assert enrol.notice == f"tag already {decks['dead-set'].name_of(first)} (dead-set): OK overwrites"


def test_the_same_tag_again_moves_on(decks, tmp_path):
    ids = list(decks["dead-set"].cards)
    tags = TagMap({TAG[0]: ("dead-set", ids[0])})
    enrol = walk(decks, tmp_path, tags=tags, every_card=True)
    assert enrol.current == ids[0]  # every card, from the first (with a tag or not)
    enrol.tag("left", TAG[0], None, 1.0)
    assert enrol.notice == f"Already {decks['dead-set'].name_of(ids[0])}"
    assert enrol.current == ids[1]


def test_down_skips_and_up_goes_back(decks, tmp_path):
    ids = list(decks["dead-set"].cards)
    enrol = walk(decks, tmp_path)
    enrol.press("down", "short", 1.0)
    enrol.press("down", "short", 1.1)
    assert enrol.current == ids[2]
    enrol.tag("left", TAG[2], None, 2.0)
    assert enrol.current == ids[3]
    enrol.press("up", "short", 3.0)
    enrol.press("up", "repeat", 3.2)
    assert enrol.current == ids[1]
    enrol.tag("left", TAG[1], None, 4.0)
    assert enrol.current == ids[3]  # on to the next card without a tag, past the one done
    assert enrol.missing()[:2] == [ids[0], ids[3]]
    enrol.press("ok", "short", 5.0)
    assert enrol.current == ids[0]  # OK: the first card without a tag


def test_going_back_to_a_card_with_a_tag_replaces_it(decks, tmp_path):
    ids = list(decks["dead-set"].cards)
    enrol = walk(decks, tmp_path)
    enrol.tag("left", TAG[0], None, 1.0)
    enrol.press("up", "short", 2.0)
    assert enrol.lines(2.0)[2] == "Tap replaces 04a1b2c3"  # the tag it has, and what a tap does
    enrol.tag("left", TAG[4], None, 3.0)
    assert enrol.tags.uid_of("dead-set", ids[0]) == TAG[4]
    assert enrol.tags.lookup(TAG[0]) is None


def test_resumes_from_the_first_card_without_a_tag_after_reloading(decks, tmp_path):
    ids = list(decks["dead-set"].cards)
    enrol = walk(decks, tmp_path)
    enrol.tag("left", TAG[0], None, 1.0)
    enrol.press("down", "short", 1.5)  # no tag for the second card yet
    enrol.tag("left", TAG[2], None, 2.0)
    enrol.press("back", "short", 3.0)
    assert enrol.closed
    again = walk(decks, tmp_path, tags=TagMap.load(tmp_path / TAGS_FILE))
    assert again.current == ids[1]
    assert again.done == 2
    again.tag("left", TAG[1], None, 4.0)
    assert again.current == ids[3]


def test_done_ids_choose_where_to_start(decks, tmp_path):
    ids = list(decks["dead-set"].cards)
    enrol = walk(decks, tmp_path, done_ids=ids[:5])
    assert enrol.current == ids[5]


def test_past_the_last_card_the_screen_says_so(decks, tmp_path):
    deck = Deck("dead-set", {"a": 1, "b": 2}, {"a": "Ada", "b": "Bob"}, "mini.csv")
    enrol = Enrolment("dead-set", deck, TagMap(), path=tmp_path / TAGS_FILE)
    enrol.tag("left", TAG[0], None, 1.0)
    enrol.press("down", "short", 2.0)
    assert enrol.current is None
    assert enrol.lines(9.0) == ["Every card walked", "1 without a tag", "OK: to the missing"]
    enrol.tag("left", TAG[3], None, 9.5)
    assert enrol.take_sounds()[-1] == Sound.ERROR
    enrol.press("ok", "short", 10.0)
    assert enrol.current == "b"
    enrol.tag("left", TAG[1], None, 11.0)
    assert enrol.current is None
    assert enrol.lines(20.0)[1] == "All cards have tags"


def test_progress_screen_and_view(decks, tmp_path):
    deck = decks["dead-set"]
    enrol = walk(decks, tmp_path)
    enrol.tag("left", TAG[0], None, 1.0)
    image = enrol.image(10.0)
    assert image.tobytes() == render_progress("Enrol dead-set", 1, len(deck), enrol.lines(10.0)).tobytes()
    view = enrol.view(10.0)
    assert view.lines[0] == f"[..........] 1/{len(deck)}"
    assert render(view).size == (128, 64)


def test_an_offline_reader_is_named(decks, tmp_path):
    enrol = walk(decks, tmp_path)
    enrol.reader_status("middle", False, "reader middle: unplugged (/dev/gravebox-middle): check its cable", 1.0)
    assert "! reader middle off" in enrol.lines(1.0)
    enrol.reader_status("middle", True, "reader middle: ready", 2.0)
    assert "! reader middle off" not in enrol.lines(2.0)


def test_export_import_round_trip(decks, tmp_path):
    deck = decks["dead-set"]
    ids = list(deck.cards)
    tags = TagMap({TAG[0]: ("dead-set", ids[0]), TAG[3]: ("dead-set", ids[5]), TAG[4]: ("deadlines", "x")})
    exported = tmp_path / "dead-set-tags.csv"
    assert export_tags(tags, "dead-set", deck, exported) == 2
    lines = exported.read_text(encoding="utf-8").splitlines()
    assert lines == [
        "uid,game,card,name",
        f"{TAG[0].hex()},dead-set,{ids[0]},{deck.name_of(ids[0])}",
        f"{TAG[3].hex()},dead-set,{ids[5]},{deck.name_of(ids[5])}",
    ]
    fresh = TagMap()
    assert import_tags(exported, "dead-set", deck, fresh) == 2
    assert fresh.cards == {TAG[0]: ("dead-set", ids[0]), TAG[3]: ("dead-set", ids[5])}


def test_import_may_swap_tags_and_name_cards_by_name(decks, tmp_path):
    deck = decks["dead-set"]
    ids = list(deck.cards)
    tags = TagMap({TAG[0]: ("dead-set", ids[0]), TAG[1]: ("dead-set", ids[1])})
    swap = tmp_path / "swap.csv"
    swap.write_text(
        f"uid,game,card\n{TAG[1].hex()},dead-set,{deck.name_of(ids[0])}\n{TAG[0].hex()},dead-set,{ids[1]}\n"
    )
    import_tags(swap, "dead-set", deck, tags)
    assert tags.cards == {TAG[1]: ("dead-set", ids[0]), TAG[0]: ("dead-set", ids[1])}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("uid,game,card\n04a1b2c3,dead-set,ds001\nzz,dead-set,ds002\n", "bad.csv:3: uid: not a hex UID: 'zz'"),
        ("uid,game,card\n04a1b2,dead-set,ds001\n", "bad.csv:2: uid: a tag UID has 4, 7 or 10 bytes, not 3"),
        ("uid,game,card\n\n04a1b2c3,dead-set,nobody\n", "bad.csv:3: card: no card 'nobody' in the dead-set deck"),
        ("uid,game,card\n04a1b2c3,deadlines,ds001\n", "bad.csv:2: game: this row is for 'deadlines', not dead-set"),
        ("uid,game,card\n04a1b2c3,dead-set,ds001\n04a1b2c3,dead-set,ds002\n", "bad.csv:3: uid: tag 04a1b2c3 is also"),
        ("uid,game,card\n04a1b2c3,dead-set,ds001\n04a1b2c4,dead-set,ds001\n", "bad.csv:3: card: dead-set ds001 is also"),
        ("uid,game,card\n04a1b2c3,dead-set\n", "bad.csv:2: expected uid,game,card, found 2 fields"),
        ("tag,card\n", "bad.csv:1: the first line must be the header uid,game,card (name optional)"),
        ("", "bad.csv: the file is empty"),
    ],
)
def test_a_bad_import_line_is_reported_with_file_and_line(decks, tmp_path, text, where):
    bad = tmp_path / "bad.csv"
    bad.write_text(text, encoding="utf-8")
    tags = TagMap({TAG[4]: ("dead-set", "ds003")})
    with pytest.raises(ConfigError) as problem:
        import_tags(bad, "dead-set", decks["dead-set"], tags)
    assert str(problem.value).startswith(str(tmp_path / where))
    assert tags.cards == {TAG[4]: ("dead-set", "ds003")}  # all or nothing


def test_import_refuses_a_tag_kept_by_another_card(decks, tmp_path):
    deadlines = decks["deadlines"]
    other = next(iter(deadlines.cards))
    tags = TagMap({TAG[0]: ("deadlines", other)})
    bad = tmp_path / "bad.csv"
    bad.write_text(f"uid,game,card\n{TAG[0].hex()},dead-set,ds001\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"bad.csv:2: uid: tag already {deadlines.name_of(other)} \(deadlines\)"):
        import_tags(bad, "dead-set", decks["dead-set"], tags, names_from(decks))


def test_the_simulator_enrols_raw_uids_through_the_pn532_driver(decks, tmp_path):
    """The box's one loop on simulated parts: a raw tag laid on a simulated chip is enrolled and saved."""
    from box.cli.enroll import command
    from box.sim.world import SimulatedBox

    world = SimulatedBox(tmp_path, root=lambda tags: walk(decks, tmp_path, tags))
    enrol = world.box.root
    ids = list(decks["dead-set"].cards)
    try:
        world.advance(0.5)
        command(world, "tap left uid:04a1b2c3")
        command(world, "press down")
        command(world, "tap right uid:04a1b2c6d7e8f9")
        assert enrol.current == ids[3]
        command(world, "hold up 0.3")
        command(world, "press up")
        assert enrol.current == ids[1]
        assert world.parts.display.image.tobytes() == enrol.image(world.now).tobytes()
        with pytest.raises(ValueError, match="unknown reader 'top'"):
            command(world, "tap top uid:04a1b2c3")
        with pytest.raises(ValueError, match="expected tap READER uid:HEX"):
            command(world, "tap left Marilyn")
    finally:
        world.close()
    saved = TagMap.load(tmp_path / TAGS_FILE)
    assert saved.cards == {TAG[0]: ("dead-set", ids[0]), TAG[3]: ("dead-set", ids[2])}


def run_enrol(tmp_path, *args, stdin=""):
    return subprocess.run(
        [sys.executable, "-m", "box.cli.main", "enroll", *args, "--state-dir", str(tmp_path), "--config", str(tmp_path / "x")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        input=stdin,
        timeout=60,
    )


def test_gravebox_enroll_fake_reads_taps_then_exports_and_imports(tmp_path):
    result = run_enrol(tmp_path, "dead-set", "--fake", stdin="tap left uid:04a1b2c3\ntap middle uid:04a1b2c4\n")
    assert result.returncode == 0, result.stderr
    assert "2 enrolled; 2/108 dead-set cards have a tag" in result.stdout
    exported = tmp_path / "out.csv"
    assert run_enrol(tmp_path, "dead-set", "--export", str(exported)).returncode == 0
    (tmp_path / TAGS_FILE).unlink()
    result = run_enrol(tmp_path, "dead-set", "--import", str(exported))
    assert result.returncode == 0, result.stderr
    assert len(TagMap.load(tmp_path / TAGS_FILE).cards) == 2
    bad = tmp_path / "bad.csv"
    bad.write_text("uid,game,card\n04a1b2c3,dead-set,nobody\n", encoding="utf-8")
    result = run_enrol(tmp_path, "dead-set", "--import", str(bad))
    assert result.returncode == 2
    assert f"{bad}:2: card: no card 'nobody' in the dead-set deck" in result.stderr
