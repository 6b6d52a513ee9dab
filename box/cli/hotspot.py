"""`gravebox hotspot`: the box's own Wi-Fi beside the box (box/links/hotspot/, gravebox-hotspot.service)."""

from __future__ import annotations

import argparse


def main(args: argparse.Namespace) -> int:
    """Read the settings' [hotspot] and [web], then look at the network until stopped."""
    from box.core.hardware import is_raspberry_pi
    from box.links.control import socket_path
    from box.links.hotspot.service import main as look
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.journal import enter_state_directory, state_directory

    config = load_config(args.config or DEFAULT_CONFIG)
    state_dir = enter_state_directory(args.state_dir or state_directory(simulated=not is_raspberry_pi()))
    return look(state_dir, args.socket or socket_path(), config.hotspot_after, config.hotspot_enabled, config.web_listen)
