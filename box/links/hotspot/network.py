"""The box's own Wi-Fi through NetworkManager: the small port the hotspot process acts through
(`Network`), its nmcli adapter (`Nmcli`) and a fake for tests (`FakeNetwork`).

The access point is one NetworkManager profile, `gravebox-wifi` (`profile_args`): Wi-Fi in AP mode,
WPA2 (RSN, CCMP) with the box's own name and password, and IPv4 `shared` at a fixed address
(`ADDRESS`): NetworkManager then runs dnsmasq for the phones on it (addresses by DHCP, and DNS), and
the file install.sh puts in /etc/NetworkManager/dnsmasq-shared.d/ (`dnsmasq_conf`) makes that DNS
answer every name with the box's address, so a phone's "sign in to network" check opens the box.

>>> args = profile_args(WifiCredentials("Gravebox-3f2a", "k7pq-m2xd-94tz"))
>>> args[:6], args[args.index("ipv4.method") + 1], args[args.index("ipv4.addresses") + 1]
(['connection', 'add', 'type', 'wifi', 'con-name', 'gravebox-wifi'], 'shared', '10.42.0.1/24')
>>> dnsmasq_conf()
'address=/#/10.42.0.1\\n'
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

PROFILE = "gravebox-wifi"
ADDRESS = "10.42.0.1"  # the box on its own Wi-Fi (NetworkManager's usual shared address, set fixed)
PREFIX = 24
WIRED_TYPES = ("802-3-ethernet", "802-11-wireless", "gsm", "cdma", "bluetooth", "wireguard", "vpn")
"""The kinds of connection that give the box a network (a bridge or loopback does not)."""
NMCLI_WAIT = 30.0  # seconds an nmcli call may take (bringing a profile up waits for the device)


@dataclass(frozen=True)
class WifiCredentials:
    """The box's own Wi-Fi: its name (SSID) and WPA2 password; the password is never shown (repr)."""

    ssid: str
    password: str = field(repr=False)


class NetworkError(Exception):
    """NetworkManager refused or failed: one line, for the log and the Box page."""


class Network(Protocol):
    """What the hotspot process asks of the network, and does to it."""

    def online(self) -> bool: ...
    def known_in_range(self) -> bool: ...
    def up(self) -> bool: ...
    def start(self, credentials: WifiCredentials) -> None: ...
    def stop(self) -> None: ...


def profile_args(credentials: WifiCredentials, kind: str = "wifi", device: str | None = None) -> list[str]:
    """nmcli's arguments that add the box's own Wi-Fi profile. `kind` "ethernet" (with `device`) gives
    the same IPv4 `shared` profile on a wired device: where a test has no Wi-Fi hardware."""
    args = ["connection", "add", "type", kind, "con-name", PROFILE]
    args += ["ifname", device] if device is not None else []
    args += ["autoconnect", "no", "ipv4.method", "shared", "ipv4.addresses", f"{ADDRESS}/{PREFIX}", "ipv6.method", "disabled"]
    if kind == "wifi":
        args += [
            "ssid", credentials.ssid, "802-11-wireless.mode", "ap", "802-11-wireless.band", "bg",
            "wifi-sec.key-mgmt", "wpa-psk", "wifi-sec.psk", credentials.password, "wifi-sec.proto", "rsn",
            "wifi-sec.pairwise", "ccmp", "wifi-sec.group", "ccmp", "wifi-sec.pmf", "disable",
        ]
    return args


def dnsmasq_conf(address: str = ADDRESS) -> str:
    """NetworkManager's dnsmasq for shared connections (/etc/NetworkManager/dnsmasq-shared.d/): every
    name answers with the box's address, so a phone's captive-portal check reaches the box."""
    return f"address=/#/{address}\n"


def terse_fields(line: str) -> list[str]:
    """One line of `nmcli -t` cut at its unescaped colons, the escapes taken off.

    >>> terse_fields(r"Ann\\:s Wi-Fi:802-11-wireless:activated")
    ['Ann:s Wi-Fi', '802-11-wireless', 'activated']
    """
    return [re.sub(r"\\(.)", r"\1", part) for part in re.split(r"(?<!\\):", line)]


def run_nmcli(args: Sequence[str]) -> str:
    """nmcli's output; NetworkError (one line) when it fails or is missing."""
    try:
        done = subprocess.run(["nmcli", *args], capture_output=True, text=True, timeout=NMCLI_WAIT, check=False)
    except FileNotFoundError:
        raise NetworkError("nmcli not found: NetworkManager is not installed") from None
    except subprocess.TimeoutExpired:
        raise NetworkError(f"nmcli {args[0]} {args[1] if len(args) > 1 else ''}: no answer in {NMCLI_WAIT:.0f} s") from None
    if done.returncode != 0:
        said = (done.stderr.strip() or done.stdout.strip()).splitlines()
        raise NetworkError(f"nmcli {' '.join(args[:2])}: {said[-1] if said else f'exit status {done.returncode}'}")
    return done.stdout


class Nmcli:
    """The network as NetworkManager says it is, through `nmcli` (`run`: a test's stand-in)."""

    def __init__(self, run: Callable[[Sequence[str]], str] = run_nmcli):
        self.run = run

    def active(self) -> list[tuple[str, str]]:
        """The active connections' names and types."""
        out = self.run(["-t", "-f", "NAME,TYPE,STATE", "connection", "show", "--active"])
        rows = [terse_fields(line) for line in out.splitlines() if line]
        return [(row[0], row[1]) for row in rows if len(row) == 3 and row[2] == "activated"]

    def online(self) -> bool:
        return any(name != PROFILE and kind in WIRED_TYPES for name, kind in self.active())

    def up(self) -> bool:
        return any(name == PROFILE for name, _ in self.active())

    def known_in_range(self) -> bool:
        """Whether a scan finds a Wi-Fi network the box has a profile for (not its own)."""
        known = set()
        for line in self.run(["-t", "-f", "NAME,TYPE", "connection", "show"]).splitlines():
            row = terse_fields(line)
            if len(row) == 2 and row[1] == "802-11-wireless" and row[0] != PROFILE:
                known.add(self.run(["-g", "802-11-wireless.ssid", "connection", "show", row[0]]).strip())
        if not known:
            return False
        seen = {line.strip() for line in self.run(["-g", "SSID", "device", "wifi", "list", "--rescan", "auto"]).splitlines()}
        return bool(known & seen)

    def start(self, credentials: WifiCredentials) -> None:
        """The profile made anew with these credentials, then brought up."""
        if any(terse_fields(line)[0] == PROFILE for line in self.run(["-t", "-f", "NAME", "connection", "show"]).splitlines()):
            self.run(["connection", "delete", PROFILE])
        self.run(profile_args(credentials))
        self.run(["connection", "up", PROFILE])

    def stop(self) -> None:
        self.run(["connection", "down", PROFILE])


class FakeNetwork:
    """The network of a test: what it says is set by hand; what is done to it is counted in `done`."""

    def __init__(self, online: bool = False, known_in_range: bool = False, fails: str = ""):
        self.is_online, self.in_range, self.is_up, self.fails = online, known_in_range, False, fails
        self.done: list[str] = []
        self.credentials: WifiCredentials | None = None

    def online(self) -> bool:
        return self.is_online

    def known_in_range(self) -> bool:
        return self.in_range

    def up(self) -> bool:
        return self.is_up

    def start(self, credentials: WifiCredentials) -> None:
        if self.fails:
            raise NetworkError(self.fails)
        self.done.append("start")
        self.is_up, self.credentials = True, credentials

    def stop(self) -> None:
        self.done.append("stop")
        self.is_up = False
