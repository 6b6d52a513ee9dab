"""Every bad file the command line meets: one line naming file, line and field, exit status 2.

Run in this process through `box.cli.main.main` (the same code as the `gravebox` command, which
tests/test_faults.py runs as a real process): a traceback would fail the test.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from box.cli.main import main
from box.games import rules_for

REPO = Path(__file__).resolve().parent.parent
DEAD_SET = (REPO / "box/decks/dead-set.csv").read_bytes()
PINMAP = (REPO / "wiring/pinmap.toml").read_text(encoding="utf-8")
BOARD = (REPO / "box/decks/deck-of-death.toml").read_text(encoding="utf-8")


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "game.script"
    path.write_text("start dead-set players=2\nexpect game == dead-set\n", encoding="utf-8")
    return path


def one_line(capsys: pytest.CaptureFixture[str], argv: list[str], *parts: str) -> str:
    status = main(argv)
    err = capsys.readouterr().err.strip().splitlines()
    assert status == 2, (status, err)
    problems = [line for line in err if line.startswith("gravebox:")]
    assert len(problems) == 1, err
    for part in parts:
        assert part in problems[0], (part, problems[0])
    return problems[0]


def sim(script: Path, *more: str) -> list[str]:
    return ["sim", "--script", str(script), "--config", "/nonexistent.toml", *more]


# ----- decks and boards ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "content, parts",
    [
        (DEAD_SET.replace(b"Ada", b"\xffda", 1), ["dead-set.csv:", "not UTF-8"]),
        (DEAD_SET + b'ds999,"' + b"x" * (130 * 1024) + b'",40\n', ["dead-set.csv:", "at most 131072"]),
        (DEAD_SET + b'ds999,"' + (b"x" * 60_000 + b"\n") * 3 + b'",40\n', ["dead-set.csv:", "field larger"]),
        (None, ["dead-set.csv", "a folder, not a file"]),
    ],
    ids=["not-utf8", "line-over-128k", "field-over-128k", "a-folder"],
)
def test_a_bad_deck_file(tmp_path, script, capsys, content: bytes | None, parts: list[str]) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    if content is None:
        (decks / "dead-set.csv").mkdir()
    else:
        (decks / "dead-set.csv").write_bytes(content)
    one_line(capsys, sim(script, "--decks", str(decks)), *parts)


def test_an_unreadable_deck(tmp_path, script, capsys) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "dead-set.csv").write_bytes(DEAD_SET)
    (decks / "dead-set.csv").chmod(0)
    if os.access(decks / "dead-set.csv", os.R_OK):
        pytest.skip("this user (root) reads any file")
    one_line(capsys, sim(script, "--decks", str(decks)), "dead-set.csv", "cannot read it")


def test_a_spreadsheets_bom_is_accepted_in_decks_and_boards(tmp_path, script, capsys) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "dead-set.csv").write_bytes(b"\xef\xbb\xbf" + DEAD_SET.replace(b"\n", b"\r\n"))
    (decks / "deck-of-death.toml").write_bytes(b"\xef\xbb\xbf" + BOARD.encode())
    assert main(sim(script, "--decks", str(decks))) == 0, capsys.readouterr().err
    assert rules_for("deck-of-death").load_deck(decks).board.outer > 0


def test_a_decks_folder_that_does_not_exist_is_an_error(tmp_path, script, capsys) -> None:
    one_line(capsys, sim(script, "--decks", str(tmp_path / "deks")), "deks", "no such folder of decks")
    config = tmp_path / "config.toml"
    config.write_text(f'[box]\ndecks = "{tmp_path / "deks"}"\n', encoding="utf-8")
    one_line(capsys, ["sim", "--script", str(script), "--config", str(config)], "config.toml:2:", "box.decks")


def test_a_board_without_a_deck_beside_it_replaces_the_board_of_the_built_in_cards(tmp_path, script, capsys) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    (decks / "deck-of-death.toml").write_text(BOARD.replace("outer = 36", "outer = 40", 1), encoding="utf-8")
    deck = rules_for("deck-of-death").load_deck(decks)
    builtin = rules_for("deck-of-death").load_deck()
    assert deck.cards == builtin.cards and deck.board != builtin.board
    (decks / "deck-of-death.toml").write_text(BOARD.replace("outer = ", 'outer = "many" #', 1), encoding="utf-8")
    script.write_text("start deck-of-death players=2\n", encoding="utf-8")
    one_line(capsys, sim(script, "--decks", str(decks)), "deck-of-death.toml:", "outer")


def test_a_bad_board_file(tmp_path, script, capsys) -> None:
    decks = tmp_path / "decks"
    decks.mkdir()
    shutil.copy(REPO / "box/decks/deck-of-death.csv", decks)
    script.write_text("start deck-of-death players=2\n", encoding="utf-8")
    (decks / "deck-of-death.toml").write_bytes(BOARD.encode().replace(b"outer", b"\xc3uter", 1))
    one_line(capsys, sim(script, "--decks", str(decks)), "deck-of-death.toml:", "not UTF-8")
    (decks / "deck-of-death.toml").unlink()
    (decks / "deck-of-death.toml").mkdir()
    one_line(capsys, sim(script, "--decks", str(decks)), "deck-of-death.toml", "a folder")


# ----- settings and pin map -----------------------------------------------------------------


@pytest.mark.parametrize(
    "text, parts",
    [
        ("box = 3\n", ["config.toml:1:", "box: box must be a section"]),
        ('[box]\nnames = "Ann"\n', ["config.toml:2:", "box.names"]),
        ('[box]\nnames = ["Ann", 7]\n', ["config.toml:2:", "box.names"]),
        ('[box]\nnames = ["Ann", " ann "]\n', ["config.toml:2:", "box.names", "must differ"]),
        ("[box]\ndecks = 5\n", ["config.toml:2:", "box.decks"]),
        ("[box]\npinmap = false\n", ["config.toml:2:", "box.pinmap"]),
        ('\ufeff[box]\nnames = ["Ann", "Ann"]\n', ["config.toml:2:", "box.names"]),  # a BOM is read past
    ],
    ids=[
        "box-not-a-section",
        "names-a-string",
        "a-name-not-text",
        "names-equal-once-trimmed",
        "decks-a-number",
        "pinmap-a-bool",
        "bom",
    ],
)
def test_a_settings_key_of_the_wrong_type(tmp_path, script, capsys, text: str, parts: list[str]) -> None:
    config = tmp_path / "config.toml"
    config.write_text(text, encoding="utf-8")
    one_line(capsys, ["sim", "--script", str(script), "--config", str(config)], *parts)


def test_a_settings_file_that_is_a_folder_or_not_utf8(tmp_path, script, capsys) -> None:
    config = tmp_path / "config.toml"
    config.write_bytes(b'[box]\nnames = ["An\xffn"]\n')
    one_line(capsys, ["sim", "--script", str(script), "--config", str(config)], "config.toml:2:", "not UTF-8")
    config.unlink()
    config.mkdir()
    one_line(capsys, ["sim", "--script", str(script), "--config", str(config)], "config.toml", "a folder")


@pytest.mark.parametrize(
    "change, parts",
    [
        (
            ('middle = "/dev/gravebox-middle"', 'middle = "/dev/gravebox-left"'),
            ["readers.middle", "already reader left"],
        ),
        (('middle = "/dev/gravebox-middle"', 'middle = "/dev/gravebox-left "'), ["readers.middle", "device path"]),
        (("left = ", "# left = "), None),
    ],
    ids=["two-readers-one-device", "a-device-with-spaces", "no-readers"],
)
def test_a_bad_reader_list_in_the_pin_map(tmp_path, capsys, change, parts) -> None:
    text = PINMAP.replace(*change)
    if parts is None:  # every reader commented out
        text = text.replace("middle = ", "# middle = ").replace("right = ", "# right = ")
        parts = ["pinmap.toml:", "readers", "no readers"]
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_text(text, encoding="utf-8")
    argv = ["run", "--fake", "--pinmap", str(pinmap), "--config", "/nonexistent.toml"]
    one_line(capsys, [*argv, "--state-dir", str(tmp_path / "state")], *parts)


def test_a_pin_map_that_is_a_folder_or_not_utf8(tmp_path, capsys) -> None:
    pinmap = tmp_path / "pinmap.toml"
    pinmap.write_bytes(PINMAP.encode().replace(b"left", b"l\xe9ft", 1))
    argv = ["run", "--fake", "--pinmap", str(pinmap), "--config", "/nonexistent.toml", "--state-dir", str(tmp_path)]
    one_line(capsys, argv, "pinmap.toml:", "not UTF-8")
    pinmap.unlink()
    pinmap.mkdir()
    one_line(capsys, argv, "pinmap.toml", "a folder")


# ----- outputs the simulator cannot write ----------------------------------------------------


def test_outputs_that_cannot_be_written_are_refused_before_the_script_runs(tmp_path, script, capsys) -> None:
    missing = tmp_path / "no" / "such" / "folder" / "state.json"
    one_line(capsys, sim(script, "--state-out", str(missing)), "state.json", "--state-out")
    one_line(capsys, sim(script, "--state-out", str(tmp_path)), "--state-out")
    a_file = tmp_path / "frames"
    a_file.write_text("not a folder", encoding="utf-8")
    one_line(capsys, sim(script, "--frames", str(a_file)), "frames", "--frames", "cannot save frames")


def test_an_export_that_cannot_be_written_and_an_import_that_is_a_folder(tmp_path, capsys) -> None:
    state = ["--state-dir", str(tmp_path / "state"), "--config", "/nonexistent.toml"]
    missing = tmp_path / "no" / "such" / "export.csv"
    one_line(capsys, ["enroll", "dead-set", "--export", str(missing), *state], "export.csv", "--export", "cannot write")
    one_line(capsys, ["enroll", "dead-set", "--import", str(tmp_path), *state], "a folder, not a file")
