"""The tag map to and from a USB stick: the fake sticks, the udisks2 client against a fake
D-Bus connection that answers with real jeepney messages, and the box's menu in the simulator."""

from __future__ import annotations

import queue
import shutil
import threading
from pathlib import Path

import pytest
from jeepney import HeaderFields, new_error, new_method_return

from box.core.app import SIM_STICK, SIM_STICKS, open_sticks
from box.core.tagtransfer import FILE_NAME, Transfers, export_tags, import_tags
from box.decks.codec import Deck
from box.parts.stick import SAVE, TagsMoved
from box.ports.nfc.simchip import SimMifareClassic
from box.ports.usb import BLOCK, DRIVE, FILESYSTEM, FakeSticks, Stick, StickError, UdisksSticks
from box.sim.world import SimulatedBox
from box.storage.roster import PLAYER
from box.storage.tags import TAGS_FILE, TagMap

DECKS = {
    "demo": Deck("demo", {"a": 1, "b": 2, "c": 3}, {"a": "Ada", "b": "Bob", "c": "Cy"}, "demo.csv"),
    "other": Deck("other", {"x": 1}, {"x": "Ex"}, "other.csv"),
}
UID_A, UID_B, UID_X = (bytes.fromhex(text) for text in ("04a1b2c3d4e5f6", "04a1b2c3d4e5f7", "a1b2c3d4"))


@pytest.fixture
def sticks(tmp_path: Path) -> FakeSticks:
    return FakeSticks(tmp_path)


def test_a_tag_map_moves_to_a_second_box(sticks: FakeSticks) -> None:
    first = TagMap({UID_A: ("demo", "a"), UID_B: ("demo", "b"), UID_X: ("other", "x")})
    sticks.plug("STICK")
    assert export_tags(first, DECKS, sticks) == "3 tags saved on STICK: you may pull it"
    assert not sticks.mounted("STICK")  # unmounted again: safe to pull
    assert (sticks.root / "STICK" / FILE_NAME).read_text().splitlines()[:2] == [
        "uid,game,card,name",
        "04a1b2c3d4e5f6,demo,a,Ada",
    ]
    second, answer = import_tags(TagMap(), DECKS, sticks)
    assert answer == "3 tags read from STICK"
    assert second is not None and second.cards == first.cards


def test_an_import_merges_over_the_map_and_the_file_wins(sticks: FakeSticks) -> None:
    sticks.plug("STICK")
    export_tags(TagMap({UID_A: ("demo", "a")}), DECKS, sticks)
    here = TagMap({UID_B: ("demo", "a"), UID_X: ("other", "x")})  # card a has another tag here
    merged, _ = import_tags(here, DECKS, sticks)
    assert merged is not None and merged.cards == {UID_A: ("demo", "a"), UID_X: ("other", "x")}
    assert here.cards == {UID_B: ("demo", "a"), UID_X: ("other", "x")}  # the caller's map is untouched


@pytest.mark.parametrize(
    ("lines", "answer"),
    [
        (["uid,game,card,name", "04a1b2c3d4e5f6,demo,a,Ada", "zz,demo,b,Bob"], ":3: uid: not a hex UID: 'zz'"),
        (
            ["uid,game,card,name", "04a1b2c3d4e5f6,demo,a,Ada", "04a1b2,demo,b,Bob"],
            ":3: uid: a tag UID has 4, 7 or 10 bytes, not 3",
        ),
        (["uid,game,card", "a1b2c3d4,nosuch,a"], ":2: game: no game 'nosuch' on this box"),
        (["uid,game,card", "a1b2c3d4,demo,q"], ":2: card: no card 'q' in the demo deck"),
        (["uid,game,card", "a1b2c3d4,demo,a", "a1b2c3d4,demo,b"], ":3: uid: tag a1b2c3d4 is also on line 2"),
        (["uid,game,card", "a1b2c3d4,demo,a", "a1b2c3d5,demo,a"], ":3: card: demo a is also on line 2"),
        (["uid,game,kind"], ":1: the first line must be the header uid,game,card (name optional)"),
        ([], ": the file is empty: it needs the header line uid,game,card"),
    ],
)
def test_an_import_is_checked_in_full_and_a_bad_line_changes_nothing(
    sticks: FakeSticks, lines: list[str], answer: str
) -> None:
    sticks.plug("STICK")
    (sticks.root / "STICK" / FILE_NAME).write_text("\n".join(lines) + "\n")
    merged, said = import_tags(TagMap({UID_X: ("other", "x")}), DECKS, sticks)
    assert merged is None
    assert said == f"Not read: {FILE_NAME}{answer}"


def test_what_the_screen_says_when_the_stick_will_not_do(sticks: FakeSticks) -> None:
    tags = TagMap({UID_A: ("demo", "a")})
    assert export_tags(tags, DECKS, sticks) == "Not saved: no USB stick: plug one in"
    sticks.plug("ONE")
    assert import_tags(tags, DECKS, sticks) == (None, f"Not read: no {FILE_NAME} on the stick")
    sticks.plug("TWO")
    assert export_tags(tags, DECKS, sticks) == "Not saved: 2 USB sticks: leave one plugged in"
    sticks.pull("TWO")
    sticks.refuse = "udisks2 refused: is the polkit rule 50-gravebox.rules installed?"
    assert export_tags(tags, DECKS, sticks) == f"Not saved: {sticks.refuse}"
    sticks.refuse = None
    (sticks.root / "ONE" / FILE_NAME).write_bytes(b"\xff\xfe")
    assert import_tags(tags, DECKS, sticks) == (None, f"Not read: {FILE_NAME}:1: not UTF-8 text (byte 0xff)")


# --- the udisks2 client ----------------------------------------------------------------------


class FakeBus:
    """A jeepney blocking connection's one method the client uses, answering as udisks2 would."""

    def __init__(self, refuse_mount: bool = False) -> None:
        self.calls: list[tuple[str, str, str, tuple]] = []
        self.refuse_mount = refuse_mount
        self.closed = False

    def send_and_get_reply(self, message, timeout=None):
        fields = message.header.fields
        call = (fields[HeaderFields.path], fields[HeaderFields.interface], fields[HeaderFields.member], message.body)
        self.calls.append(call)
        member = fields[HeaderFields.member]
        if member == "GetManagedObjects":
            block = {
                "Drive": ("o", "/org/freedesktop/UDisks2/drives/USB"),
                "IdLabel": ("s", "KINGSTON"),
                "Device": ("ay", b"/dev/sda1\x00"),
                "HintIgnore": ("b", False),
                "HintSystem": ("b", False),
            }
            sd_card = {**block, "Drive": ("o", "/org/freedesktop/UDisks2/drives/SD"), "HintSystem": ("b", True)}
            objects = {
                "/org/freedesktop/UDisks2/block_devices/sda1": {BLOCK: block, FILESYSTEM: {"MountPoints": ("aay", [])}},
                "/org/freedesktop/UDisks2/block_devices/mmcblk0p2": {
                    BLOCK: sd_card,
                    FILESYSTEM: {"MountPoints": ("aay", [b"/\x00"])},
                },
                "/org/freedesktop/UDisks2/drives/USB": {DRIVE: {"ConnectionBus": ("s", "usb")}},
                "/org/freedesktop/UDisks2/drives/SD": {DRIVE: {"ConnectionBus": ("s", "sdio")}},
            }
            return new_method_return(message, "a{oa{sa{sv}}}", (objects,))
        if member == "Mount" and self.refuse_mount:
            return new_error(message, "org.freedesktop.UDisks2.Error.NotAuthorizedCanObtain", "s", ("Not authorized",))
        if member == "Mount":
            return new_method_return(message, "s", ("/media/gravebox/KINGSTON",))
        return new_method_return(message)

    def close(self) -> None:
        self.closed = True


def test_the_udisks_client_finds_usb_file_systems_only_and_mounts_without_asking() -> None:
    bus = FakeBus()
    sticks = UdisksSticks(connect=lambda: bus)
    [stick] = sticks.find()
    assert stick == Stick("/org/freedesktop/UDisks2/block_devices/sda1", "KINGSTON", None)
    assert sticks.mount(stick) == Path("/media/gravebox/KINGSTON")
    sticks.unmount(stick)
    assert [call[2] for call in bus.calls] == ["GetManagedObjects", "Mount", "Unmount"]
    path, interface, _, body = bus.calls[1]
    assert (path, interface) == (stick.key, FILESYSTEM)
    assert body == ({"auth.no_user_interaction": ("b", True)},)


def test_a_refusal_names_the_polkit_rule_and_no_bus_names_udisks() -> None:
    sticks = UdisksSticks(connect=lambda: FakeBus(refuse_mount=True))
    with pytest.raises(StickError, match=r"is the polkit rule 50-gravebox\.rules installed"):
        sticks.mount(Stick("/org/freedesktop/UDisks2/block_devices/sda1", "KINGSTON"))

    def no_bus():
        raise FileNotFoundError(2, "No such file or directory")

    with pytest.raises(StickError, match=r"cannot reach udisks2 \(.*\): is it installed\?"):
        UdisksSticks(connect=no_bus).find()


def test_player_tokens_move_with_the_cards(sticks: FakeSticks) -> None:
    first = TagMap({UID_A: ("demo", "a"), UID_X: (PLAYER, "Zoë")})
    sticks.plug("STICK")
    export_tags(first, DECKS, sticks)
    assert f"{UID_X.hex()},player,Zoë,Zoë" in (sticks.root / "STICK" / FILE_NAME).read_text()
    second, _ = import_tags(TagMap(), DECKS, sticks)
    assert second is not None and second.cards == first.cards


def test_a_box_without_udisks2_answers_one_line_and_a_simulated_one_has_its_stick(tmp_path: Path) -> None:
    def no_bus():
        raise FileNotFoundError(2, "No such file or directory")

    answers: queue.SimpleQueue[TagsMoved] = queue.SimpleQueue()
    Transfers(UdisksSticks(connect=no_bus), answers.put).start(SAVE, TagMap({UID_A: ("demo", "a")}), DECKS)
    answer = answers.get(timeout=10.0)  # the worker's answer (no sleep: it is waited for)
    assert not answer.ok and answer.answer.startswith("No USB service: cannot reach udisks2")
    real, _ = open_sticks(tmp_path, simulated=False)
    assert isinstance(real, UdisksSticks), "a real box never falls back to fake sticks"
    simulated, _ = open_sticks(tmp_path, simulated=True)
    assert isinstance(simulated, FakeSticks) and [stick.label for stick in simulated.find()] == [SIM_STICK]


# --- from the box's menu, in the simulator (virtual time; the worker thread is waited for) ----

CLASSIC = bytes.fromhex("c0ffee12")  # a MIFARE Classic: no record, known only by the tag map
MARILYN = ("dead-set", "ds001")


def simulated_box(state: Path, tags: str = "") -> SimulatedBox:
    state.mkdir(parents=True, exist_ok=True)
    if tags:
        (state / TAGS_FILE).write_text(f"uid,game,card\n{tags}\n")
    return SimulatedBox(state)


def choose(world: SimulatedBox, label: str) -> None:
    """Move the cursor of the menu or picker on top to `label` and press OK (a flashed screen put away first)."""
    for _ in range(12):
        view = world.box.screen(world.now)
        if view.cursor is not None and view.lines[view.cursor] == label:
            world.press("ok")
            return
        world.press("down" if view.cursor is not None else "back")
    raise AssertionError(f"no {label!r} on the screen")


def usb(world: SimulatedBox, entry: str) -> None:
    """Main menu -> USB stick -> `entry`."""
    choose(world, "USB stick")
    assert world.dump()["screen"] == "usb"
    choose(world, entry)


def answered(world: SimulatedBox) -> str:
    """Wait for the worker's answers (a load's tags are then kept by it too), let the loop take them;
    what the screen says."""
    for _ in range(3):
        assert world.transfers.join(10.0)
        world.advance(0.1)
        if not world.box.stick.busy:
            break
    assert not world.box.stick.busy
    return world.box.screen(world.now).notice


def tap(world: SimulatedBox) -> str:
    world.chip("left").place(SimMifareClassic(CLASSIC))
    world.advance(0.3)
    world.chip("left").lift()
    world.advance(0.3)
    return world.box.screen(world.now).notice


def test_a_card_saved_from_the_menu_is_known_on_a_second_box_after_it_loads_the_stick(tmp_path: Path) -> None:
    first = simulated_box(tmp_path / "first", tags=f"{CLASSIC.hex()},dead-set,ds001")
    try:
        usb(first, "Save tags to USB")
        assert answered(first) == "1 tag saved on STICK: you may pull it"  # the made-up tags stay on the box
    finally:
        first.close()
    saved = tmp_path / "first" / SIM_STICKS / SIM_STICK / FILE_NAME
    assert f"{CLASSIC.hex()},dead-set,ds001,Marilyn Monroe" in saved.read_text().splitlines()

    second = simulated_box(tmp_path / "second")  # its own state: nothing enrolled there
    try:
        assert tap(second) == f"Unknown card {CLASSIC.hex()}"
        shutil.copy(saved, tmp_path / "second" / SIM_STICKS / SIM_STICK / FILE_NAME)  # the stick moves over
        usb(second, "Load tags from USB")
        assert answered(second) == "1 tag read from STICK"  # nothing replaced: no question
        assert second.dump()["screen"] == "menu"
        assert tap(second) == "No game running (Dead Set card)"  # known now
        second.restart()
        assert second.box.tags.lookup(CLASSIC) == MARILYN, "saved in tags.csv as enrolment saves it"
    finally:
        second.close()
    assert TagMap.load(tmp_path / "second" / TAGS_FILE).lookup(CLASSIC) == MARILYN


def test_a_load_that_would_replace_tags_asks_first_saying_how_many(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box", tags=f"{CLASSIC.hex()},dead-set,ds002")  # the tag is Elvis here
    stick = tmp_path / "box" / SIM_STICKS / SIM_STICK / FILE_NAME
    stick.write_text(f"uid,game,card\n{CLASSIC.hex()},dead-set,ds001\n")
    try:
        usb(world, "Load tags from USB")
        answered(world)
        assert world.dump()["screen"] == "confirm"
        assert world.box.screen(world.now).lines[0] == "Replace 1 tag?"
        world.press("back")  # no: nothing changes
        assert world.box.tags.lookup(CLASSIC) == ("dead-set", "ds002")
        usb(world, "Load tags from USB")
        answered(world)
        world.press("ok")
        assert world.box.tags.lookup(CLASSIC) == MARILYN
        assert world.box.screen(world.now).notice == "1 tag read from STICK"
    finally:
        world.close()
    assert TagMap.load(tmp_path / "box" / TAGS_FILE).lookup(CLASSIC) == MARILYN


def test_a_bad_file_changes_nothing_and_the_screen_names_its_line(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box", tags=f"{CLASSIC.hex()},dead-set,ds002")
    before = (tmp_path / "box" / TAGS_FILE).read_bytes()
    stick = tmp_path / "box" / SIM_STICKS / SIM_STICK / FILE_NAME
    stick.write_text(f"uid,game,card\n{CLASSIC.hex()},dead-set,ds001\n04c0ffee000001,dead-set,ds999\n")
    try:
        usb(world, "Load tags from USB")
        assert answered(world) == f"Not read: {FILE_NAME}:3: card: no card 'ds999' in the dead-set deck"
        assert world.dump()["screen"] == "menu"
        assert world.box.tags.lookup(CLASSIC) == ("dead-set", "ds002")
    finally:
        world.close()
    assert (tmp_path / "box" / TAGS_FILE).read_bytes() == before


def test_no_stick_or_two_sticks_is_one_line(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box")
    sticks = world.transfers.sticks
    assert isinstance(sticks, FakeSticks)
    try:
        sticks.pull(SIM_STICK)
        usb(world, "Save tags to USB")
        assert answered(world) == "Not saved: no USB stick: plug one in"
        sticks.plug("ONE"), sticks.plug("TWO")
        usb(world, "Load tags from USB")
        assert answered(world) == "Not read: 2 USB sticks: leave one plugged in"
    finally:
        world.close()


class SlowSticks(FakeSticks):
    """Sticks whose search waits until the test lets it go (a stick that takes its time)."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        self.go = threading.Event()

    def find(self) -> list[Stick]:
        self.go.wait(10.0)
        return super().find()


def test_the_loop_goes_on_while_the_stick_is_slow_and_the_tool_says_it_is_busy(tmp_path: Path) -> None:
    world = simulated_box(tmp_path / "box")
    slow = world.transfers.sticks = SlowSticks(tmp_path / "sticks")
    slow.plug("SLOW")
    try:
        usb(world, "Save tags to USB")
        assert world.box.screen(world.now).notice == "Saving to USB…"
        world.advance(5.0)  # the notice's time is up: the screen still says it
        assert world.box.screen(world.now).notice == "Saving to USB…"
        cursor = world.box.root.menu.cursor
        world.press("down")  # the loop takes presses meanwhile
        assert world.box.root.menu.cursor == cursor + 1
        world.press("up")
        world.press("ok")  # USB stick again: refused politely, no second job
        assert world.dump()["screen"] == "menu"
        assert world.box.screen(world.now).notice == "Busy: Saving to USB…"
        slow.go.set()
        assert answered(world).endswith("tags saved on SLOW: you may pull it")
        assert (tmp_path / "sticks" / "SLOW" / FILE_NAME).exists()
    finally:
        slow.go.set()
        world.close()
