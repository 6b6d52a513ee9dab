"""`gravebox enroll GAME`: teach the box which tag is which card, or move a game's tags as CSV.

The walk is the enrolment screen (box/screens/enrolment.py) as the root of the box's one loop
(box/core/app.py): on a Pi the real buttons and readers in real time; off a Pi, or with
`--fake`, the simulator's parts on virtual time, moved by lines read from stdin
(`tap READER uid:HEX`, `press BUTTON`, `hold BUTTON SECONDS`). `--export FILE` and
`--import FILE` write and read the game's tags (`uid,game,card,name`).
"""

from __future__ import annotations

import argparse
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from box.decks.codec import Deck
from box.screens.enrolment import Enrolment, export_tags, import_tags
from box.storage.tags import TAGS_FILE, TagMap

if TYPE_CHECKING:
    from box.sim.world import SimulatedBox

PRESS_SECONDS = 0.1
TAP_SECONDS = 0.3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of `gravebox enroll` (the game is checked by `main`: no game module loads for --help)."""
    from box.games import GAMES  # the registry only: no game's module

    parser.add_argument("game", help=f"the game whose cards to enrol: {', '.join(GAMES)}")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--export", type=Path, metavar="FILE", help="write the game's tags to FILE (CSV)")
    action.add_argument("--import", dest="import_file", type=Path, metavar="FILE", help="enrol the tags in FILE")
    parser.add_argument("--again", action="store_true", help="walk every card from the first (new stickers)")
    parser.add_argument(
        "--fake",
        action="store_true",
        help="simulated parts (the default off a Pi): read `tap READER uid:HEX`, `press BUTTON` lines from stdin",
    )
    parser.add_argument("--pinmap", type=Path, help="pin map file (default wiring/pinmap.toml)")


def card_namer(decks_dir: Path | None) -> Callable[[str, str], str]:
    """Names of any game's cards, loading each deck once when first asked."""
    from box.games import GAMES, load_deck

    loaded: dict[str, Deck] = {}

    def name(game: str, card_id: str) -> str:
        if game not in GAMES:
            return card_id
        if game not in loaded:
            loaded[game] = load_deck(game, decks_dir)
        return loaded[game].name_of(card_id) if card_id in loaded[game] else card_id

    return name


def main(args: argparse.Namespace) -> int:
    """`gravebox enroll GAME [--export FILE | --import FILE] [--again] [--fake]`."""
    from box.core.hardware import is_raspberry_pi
    from box.games import GAMES, load_deck, rules_for
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.journal import enter_state_directory, make_state_directory, state_directory

    if args.game not in GAMES:
        print(f"gravebox enroll: unknown game {args.game!r}; games are {', '.join(GAMES)}", file=sys.stderr)
        return 2
    config = load_config(getattr(args, "config", None) or DEFAULT_CONFIG)
    decks_dir = getattr(args, "decks", None) or config.decks
    simulated = bool(getattr(args, "fake", False)) or not is_raspberry_pi()
    state_dir = enter_state_directory(getattr(args, "state_dir", None) or state_directory(simulated=simulated))
    make_state_directory(state_dir)
    tags_path = state_dir / TAGS_FILE
    tags = TagMap.load(tags_path)
    deck = load_deck(args.game, decks_dir)
    names = card_namer(decks_dir)
    if getattr(args, "export", None):
        count = export_tags(tags, args.game, deck, args.export)
        print(f"{args.export}: {count} of {len(deck)} {args.game} tags exported")
        return 0
    if getattr(args, "import_file", None):
        count = import_tags(args.import_file, args.game, deck, tags, names)
        tags.save(tags_path)
        print(f"{args.import_file}: {count} {args.game} tags imported into {tags_path}")
        return 0

    def walk(tags: TagMap) -> Enrolment:
        title = f"Enrol {rules_for(args.game).title}"
        every = getattr(args, "again", False)
        return Enrolment(args.game, deck, tags, path=tags_path, names=names, title=title, every_card=every)

    return run_enrolment(walk, args, state_dir)


def run_enrolment(walk: Callable[[TagMap], Enrolment], args: argparse.Namespace, state_dir: Path) -> int:
    """Run the walk on the parts: a real box's buttons and readers, or simulated ones fed from stdin."""
    from box.core.hardware import HardwareError, is_raspberry_pi
    from box.storage.config import DEFAULT_CONFIG, load_config
    from box.storage.pinmap import default_pinmap_path, load_pinmap

    simulated = bool(getattr(args, "fake", False)) or not is_raspberry_pi()
    config = load_config(getattr(args, "config", None) or DEFAULT_CONFIG)
    pinmap = load_pinmap(getattr(args, "pinmap", None) or config.pinmap or default_pinmap_path())
    try:
        if simulated:
            from box.sim.world import SimulatedBox

            world = SimulatedBox(state_dir, pinmap=pinmap, root=walk)
            box, close = world.box, world.close
        else:
            from box.base.settings import Settings
            from box.core.app import assemble

            app = assemble(pinmap, time.monotonic, Settings(), state_dir, simulated=False, root=walk)
            box, close = app.box, app.close
    except HardwareError as problem:
        print(f"gravebox enroll: {problem}", file=sys.stderr)
        return 1
    enrolment = box.root
    assert isinstance(enrolment, Enrolment)
    print(f"Enrolling {enrolment.game}: {enrolment.done}/{len(enrolment.ids)} cards have a tag. {help_line(simulated)}")
    shown: list[str | None] = [report_progress(enrolment, None)]

    def report() -> None:
        shown[0] = report_progress(enrolment, shown[0])

    try:
        if simulated:
            world.advance(0.5)
            for number, line in enumerate(sys.stdin, start=1):
                if box.finished:
                    break
                try:
                    command(world, line)
                except ValueError as problem:
                    print(f"stdin:{number}: {problem}", file=sys.stderr)
                report()
        else:
            app.loop.run(threading.Event(), after_pass=report)
    except KeyboardInterrupt:
        pass
    finally:
        close()
    missing = enrolment.missing()
    total = len(enrolment.ids)
    print(f"{enrolment.enrolled} enrolled; {total - len(missing)}/{total} {enrolment.game} cards have a tag")
    written = len(enrolment.written)
    if written or enrolment.map_only:
        print(f"{written} written onto their tags; {len(enrolment.map_only)} in this box's tag map only:")
        for card_id, why in enrolment.map_only.items():
            print(f"  {enrolment.deck.name_of(card_id)} ({card_id}): {why}")
    return 0


def help_line(simulated: bool) -> str:
    if simulated:
        return "Lines: tap READER uid:HEX | press BUTTON | hold BUTTON SECONDS (BACK ends)"
    return "Tap each card shown; UP back, DOWN skip, OK next missing, BACK ends (Ctrl-C too)"


def report_progress(walk: Enrolment, shown: str | None) -> str | None:
    """Print what happened and the card to tap when it changed; answer the card now shown."""
    for message in walk.take_messages():
        print(f"  {message}", flush=True)
    card_id = walk.current
    if card_id != shown and not walk.closed:
        if card_id is None:
            print(f"Every card walked: {len(walk.missing())} without a tag", flush=True)
        else:
            print(f"{walk.place()}: tap {walk.deck.name_of(card_id)} ({walk.cursor + 1}/{len(walk.ids)})", flush=True)
    return card_id


def command(world: SimulatedBox, line: str) -> None:
    """Carry out one line on the simulated box; a bad one raises ValueError saying what is allowed.

    `tap READER uid:HEX` lays a raw tag on a simulated PN532 (the real driver reads it)
    and lifts it; `press BUTTON` and `hold BUTTON SECONDS` drive the mock GPIO pins.
    """
    words = line.split("#", 1)[0].split()
    if not words:
        return
    verb, rest = words[0], words[1:]
    if verb == "tap" and len(rest) == 2 and rest[1].startswith("uid:"):
        reader, uid_text = rest
        try:
            uid = bytes.fromhex(uid_text[4:])
        except ValueError as problem:
            raise ValueError(f"bad tag {uid_text!r}: {problem}") from None
        world.put(reader, uid)
        world.lift(reader)
    elif verb in ("press", "hold") and len(rest) == (1 if verb == "press" else 2):
        try:
            seconds = PRESS_SECONDS if verb == "press" else float(rest[1])
        except ValueError:
            raise ValueError(f"hold takes seconds, not {rest[1]!r}") from None
        world.press(rest[0], seconds)
    else:
        raise ValueError(f"expected tap READER uid:HEX, press BUTTON or hold BUTTON SECONDS, not {line.strip()!r}")
