"""The owner's box: decks where the service can read them, one state for every command."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from box.cards import check_decks_folder
from box.errors import DeckError


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any folder: the refusal is for other users")
def test_a_decks_folder_the_box_cannot_read_is_an_error(tmp_path: Path) -> None:
    folder = tmp_path / "decks"
    folder.mkdir()
    folder.chmod(0)
    try:
        with pytest.raises(DeckError, match="cannot read this folder of decks"):
            check_decks_folder(folder)
    finally:
        folder.chmod(0o755)


def test_missing_decks_folder_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(DeckError, match="no such folder of decks"):
        check_decks_folder(tmp_path / "nowhere")
    assert check_decks_folder(tmp_path) == tmp_path
