"""USB sticks: find one, mount it, unmount it, through udisks2 over D-Bus (a port with a fake).

The service is sandboxed (no capabilities, read-only system, no sudo): it asks udisks2 on the
system bus to mount the stick, as power-off asks logind, and the polkit rule
``systemd/50-gravebox.rules`` lets the gravebox user do it. ``jeepney`` speaks D-Bus (pure
Python, imported only when a stick is used).

>>> import tempfile
>>> root = Path(tempfile.mkdtemp())
>>> sticks = FakeSticks(root)
>>> sticks.find()
[]
>>> stick = sticks.plug("KINGSTON")
>>> [found.label for found in sticks.find()], sticks.mount(stick) == root / "KINGSTON"
(['KINGSTON'], True)
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

UDISKS = "org.freedesktop.UDisks2"
UDISKS_PATH = "/org/freedesktop/UDisks2"
BLOCK, FILESYSTEM, DRIVE = f"{UDISKS}.Block", f"{UDISKS}.Filesystem", f"{UDISKS}.Drive"
TIMEOUT = 10.0
"""Seconds a D-Bus call may take (mounting a large FAT stick reads its tables)."""


class StickError(Exception):
    """A stick cannot be used; the message is one line for the box's screen."""


class NoUsbService(StickError):
    """udisks2 cannot be reached at all (not installed, no D-Bus, no jeepney): no stick can be used."""


@dataclass(frozen=True)
class Stick:
    """A mountable file system on a USB drive."""

    key: str
    """udisks2's block object path (the fake: the folder name)."""
    label: str
    """The file system's label, or the device name when it has none."""
    mounted_at: Path | None = None


class Sticks(Protocol):
    """What the box needs from USB sticks."""

    def find(self) -> list[Stick]:
        """The USB file systems plugged in now."""
        ...

    def mount(self, stick: Stick) -> Path:
        """Mount it (if it is not already); where it is mounted. StickError when it cannot be."""
        ...

    def unmount(self, stick: Stick) -> None:
        """Unmount it, so it can be pulled. StickError when it cannot be."""
        ...


class UdisksSticks:
    """USB sticks through udisks2 on the system bus (jeepney)."""

    def __init__(self, connect: Any = None) -> None:
        """``connect``: a function giving a jeepney blocking connection (default: the system bus)."""
        self._connect = connect
        self._connection: Any = None

    def _call(self, path: str, interface: str, method: str, signature: str = "", body: tuple = ()) -> tuple:
        try:
            from jeepney import DBusAddress, DBusErrorResponse, new_method_call
            from jeepney.io.blocking import open_dbus_connection, unwrap_msg
        except ImportError as error:
            raise NoUsbService("No USB service: the jeepney library is missing (reinstall)") from error

        try:
            if self._connection is None:
                self._connection = (self._connect or (lambda: open_dbus_connection(bus="SYSTEM")))()
            message = new_method_call(DBusAddress(path, UDISKS, interface), method, signature, body)
            reply = self._connection.send_and_get_reply(message, timeout=TIMEOUT)
        except (OSError, TimeoutError) as error:
            self.close()
            raise NoUsbService(f"No USB service: cannot reach udisks2 ({error}): is it installed?") from error
        try:
            return unwrap_msg(reply)
        except DBusErrorResponse as error:
            raise StickError(_dbus_problem(error.name, error.data)) from error

    def close(self) -> None:
        connection, self._connection = self._connection, None
        if connection is not None:
            connection.close()

    def find(self) -> list[Stick]:
        (objects,) = self._call(UDISKS_PATH, "org.freedesktop.DBus.ObjectManager", "GetManagedObjects")
        return usb_file_systems(objects)

    def mount(self, stick: Stick) -> Path:
        if stick.mounted_at is not None:
            return stick.mounted_at
        options = {"auth.no_user_interaction": ("b", True)}
        (where,) = self._call(stick.key, FILESYSTEM, "Mount", "a{sv}", (options,))
        return Path(where)

    def unmount(self, stick: Stick) -> None:
        self._call(stick.key, FILESYSTEM, "Unmount", "a{sv}", ({"auth.no_user_interaction": ("b", True)},))


def usb_file_systems(objects: dict[str, dict[str, dict[str, tuple[str, Any]]]]) -> list[Stick]:
    """The USB file systems in udisks2's GetManagedObjects answer (jeepney's variants are
    ``(signature, value)`` pairs), by label.

    >>> block = {"Drive": ("o", "/d/usb"), "IdLabel": ("s", "STICK"), "Device": ("ay", b"/dev/sda1\\x00"),
    ...          "HintIgnore": ("b", False)}
    >>> objects = {"/b/sda1": {BLOCK: block, FILESYSTEM: {"MountPoints": ("aay", [])}},
    ...            "/d/usb": {DRIVE: {"ConnectionBus": ("s", "usb")}},
    ...            "/b/mmc": {BLOCK: {**block, "Drive": ("o", "/d/sd")}, FILESYSTEM: {"MountPoints": ("aay", [])}},
    ...            "/d/sd": {DRIVE: {"ConnectionBus": ("s", "sdio")}}}
    >>> usb_file_systems(objects)
    [Stick(key='/b/sda1', label='STICK', mounted_at=None)]
    """
    sticks = []
    for path, interfaces in objects.items():
        if BLOCK not in interfaces or FILESYSTEM not in interfaces:
            continue
        block = {name: value for name, (_, value) in interfaces[BLOCK].items()}
        drive = {name: value for name, (_, value) in objects.get(block.get("Drive", "/"), {}).get(DRIVE, {}).items()}
        if drive.get("ConnectionBus") != "usb" or block.get("HintIgnore") or block.get("HintSystem"):
            continue
        device = bytes(block.get("Device", b"")).rstrip(b"\0").decode(errors="replace")
        points = [bytes(point).rstrip(b"\0").decode() for point in interfaces[FILESYSTEM].get("MountPoints", ("", []))[1]]
        label = block.get("IdLabel") or device.rsplit("/", 1)[-1] or path.rsplit("/", 1)[-1]
        sticks.append(Stick(path, label, Path(points[0]) if points else None))
    return sorted(sticks, key=lambda stick: stick.label)


def _dbus_problem(name: str, data: tuple) -> str:
    detail = str(data[0]) if data else name
    if "NotAuthorized" in name:
        return "udisks2 refused: is the polkit rule 50-gravebox.rules installed?"
    return f"udisks2: {detail}"


class FakeSticks:
    """Sticks as folders under ``root`` (tests, the simulator): plugged in, mounted, pulled."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self._plugged: dict[str, bool] = {}
        self.refuse: str | None = None
        """When set, mounting fails with this message (a stick udisks2 cannot mount)."""

    def plug(self, label: str) -> Stick:
        (self.root / label).mkdir(parents=True, exist_ok=True)
        self._plugged[label] = False
        return Stick(label, label)

    def pull(self, label: str) -> None:
        self._plugged.pop(label, None)

    def mounted(self, label: str) -> bool:
        return self._plugged.get(label, False)

    def find(self) -> list[Stick]:
        return [
            Stick(label, label, self.root / label if mounted else None)
            for label, mounted in sorted(self._plugged.items())
        ]

    def mount(self, stick: Stick) -> Path:
        if stick.key not in self._plugged:
            raise StickError(f"the stick {stick.label} is gone")
        if self.refuse is not None:
            raise StickError(self.refuse)
        self._plugged[stick.key] = True
        return self.root / stick.key

    def unmount(self, stick: Stick) -> None:
        if stick.key in self._plugged:
            self._plugged[stick.key] = False
