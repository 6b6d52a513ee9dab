"""The tag map: a file that cannot be read whole is set aside, kept, and the good tags used."""

from __future__ import annotations

from pathlib import Path

import pytest

from box.errors import ConfigError
from box.storage.tags import TAGS_FILE, TagMap

GOOD = b"uid,game,card\n04a1b2c3d4e5f6,dead-set,ds001\n04a1b2c3d4e5f7,deadlines,dl002\n"


@pytest.mark.parametrize(
    "bad, problem",
    [
        (b"04a1b2c3d4e5f8,dead-set,ds\xff03\n", "not UTF-8"),
        (b"04a1b2c3d4e5f8,dead-set," + b"x" * (200 * 1024) + b"\n", "characters; at most"),
        (b"04a1b2c3d4e5fz,dead-set,ds003\n", "uid: not a hex UID"),
        (b"04a1b2c3d4e5f8,dead-set\n", "expected uid,game,card"),
        (b'04a1b2c3d4e5f8,"dead-set,ds003\n', "not CSV"),
    ],
    ids=["not-utf8", "field-over-the-limit", "bad-hex-uid", "two-fields", "open-quote"],
)
def test_a_bad_line_sets_the_file_aside_and_the_good_tags_are_kept(tmp_path: Path, bad: bytes, problem: str) -> None:
    path = tmp_path / TAGS_FILE
    original = GOOD + bad
    path.write_bytes(original)
    with pytest.raises(ConfigError, match=problem):
        TagMap.load(path)  # the command line: one line
    tags, aside = TagMap.load_or_recover(path)  # the box: goes on with what it could read
    assert aside is not None and problem in aside.problem and f"{TAGS_FILE}:4" in aside.problem
    assert aside.kept.read_bytes() == original, "the kept copy is not the file as it was"
    assert aside.readable == 2 and len(tags.cards) == 2
    assert tags.lookup(bytes.fromhex("04a1b2c3d4e5f6")) == ("dead-set", "ds001")
    again, aside = TagMap.load_or_recover(path)  # the next start is clean, with the good tags
    assert aside is None and again.cards == tags.cards


def test_a_directory_in_place_of_the_tag_map_is_set_aside(tmp_path: Path) -> None:
    path = tmp_path / TAGS_FILE
    path.mkdir()
    tags, aside = TagMap.load_or_recover(path)
    assert aside is not None and aside.readable == 0 and not tags.cards
    assert aside.kept.is_dir() and not path.exists()
    tags.enrol(bytes.fromhex("04a1b2c3d4e5f6"), "dead-set", "ds001")
    tags.save(path)  # enrolment can save again
    assert TagMap.load(path).cards == tags.cards


def test_a_spreadsheets_bom_is_simply_accepted(tmp_path: Path) -> None:
    path = tmp_path / TAGS_FILE
    path.write_bytes(b"\xef\xbb\xbf" + GOOD.replace(b"\n", b"\r\n"))
    tags, aside = TagMap.load_or_recover(path)
    assert aside is None and len(tags.cards) == 2


def test_no_file_is_no_tags_and_nothing_set_aside(tmp_path: Path) -> None:
    tags, aside = TagMap.load_or_recover(tmp_path / TAGS_FILE)
    assert aside is None and not tags.cards and not list(tmp_path.iterdir())
