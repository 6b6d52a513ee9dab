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


def test_every_command_on_an_installed_box_uses_the_services_state(tmp_path: Path, monkeypatch) -> None:
    from box.journal import state_directory

    for variable in ("GRAVEBOX_STATE", "STATE_DIRECTORY"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    own = tmp_path / "home/.local/state/gravebox"
    system = tmp_path / "var/lib/gravebox"
    assert state_directory(system=system) == own, "not installed: the owner's folder"
    system.mkdir(parents=True)
    assert state_directory(system=system) == system, "installed: the service's folder, from any shell"
    assert state_directory(simulated=True, system=system) == own, "the simulator never touches the box's state"
    monkeypatch.setenv("STATE_DIRECTORY", str(tmp_path / "unit"))
    assert state_directory(system=system) == tmp_path / "unit", "the service itself: what systemd gives"
    monkeypatch.setenv("GRAVEBOX_STATE", str(tmp_path / "chosen"))
    assert state_directory(simulated=True, system=system) == tmp_path / "chosen"


def test_contrast_is_a_setting_checked_like_the_others(tmp_path: Path) -> None:
    from box.care import DEFAULT_CONTRAST
    from box.config import load_config
    from box.errors import ConfigError

    path = tmp_path / "config.toml"
    path.write_text("[box]\ncontrast = 90\n")
    assert load_config(path).contrast == 90
    path.write_text("[box]\nnames = []\n")
    assert load_config(path).contrast == DEFAULT_CONTRAST
    for bad in ("256", "-1", '"bright"', "true", "12.5"):
        path.write_text(f"[box]\n\ncontrast = {bad}\n")
        with pytest.raises(ConfigError) as problem:
            load_config(path)
        assert str(problem.value) == f"{path}:3: box.contrast: must be a whole number 0..255 (the OLED's brightness)"
