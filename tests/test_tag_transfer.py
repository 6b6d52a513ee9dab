"""The tag map to and from a USB stick: the fake sticks, and the udisks2 client against a fake
D-Bus connection that answers with real jeepney messages."""

from __future__ import annotations

from pathlib import Path

import pytest
from jeepney import HeaderFields, new_error, new_method_return

from box.cards import Deck
from box.ports.usb import BLOCK, DRIVE, FILESYSTEM, FakeSticks, Stick, StickError, UdisksSticks
from box.tags import TagMap
from box.tagtransfer import FILE_NAME, export_tags, import_tags

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
        (["uid,game,card,name", "04a1b2c3d4e5f6,demo,a,Ada", "zz,demo,b,Bob"], "line 3: not a hex UID: 'zz'"),
        (["uid,game,card,name", "04a1b2c3d4e5f6,demo,a,Ada", "04a1b2,demo,b,Bob"], "line 3: a tag UID has 4, 7 or 10 bytes, not 3"),
        (["uid,game,card", "a1b2c3d4,nosuch,a"], "line 2: no game 'nosuch' on this box"),
        (["uid,game,card", "a1b2c3d4,demo,q"], "line 2: no card 'q' in the demo deck"),
        (["uid,game,card", "a1b2c3d4,demo,a", "a1b2c3d4,demo,b"], "line 3: tag a1b2c3d4 is on an earlier line too"),
        (["uid,game,card", "a1b2c3d4,demo,a", "a1b2c3d5,demo,a"], "line 3: demo a is on line 2 too"),
        (["card,uid,game"], "line 1: the header must be uid,game,card,name"),
        ([], "is empty"),
    ],
)
def test_an_import_is_checked_in_full_and_a_bad_line_changes_nothing(
    sticks: FakeSticks, lines: list[str], answer: str
) -> None:
    sticks.plug("STICK")
    (sticks.root / "STICK" / FILE_NAME).write_text("\n".join(lines) + "\n")
    merged, said = import_tags(TagMap({UID_X: ("other", "x")}), DECKS, sticks)
    assert merged is None
    assert said == f"Not read: {FILE_NAME} {answer}"


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
    assert import_tags(tags, DECKS, sticks) == (None, f"Not read: {FILE_NAME} is not UTF-8 text")


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
