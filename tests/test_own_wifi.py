"""The box's own Wi-Fi (box/links/hotspot/, box/parts/ownwifi.py): when it starts and stops on a fake
network and a fake clock, what the process tells the box, the codes on the OLED's *Phone page*, the
box menu's line, the settings, the name and password kept in the state folder, and the redirect a
phone's captive-portal check meets. The NetworkManager profile and its DNS answer against a real
NetworkManager: tests/test_own_wifi_nm.py."""

from __future__ import annotations

import http.client
import json
import socket
from pathlib import Path

import pytest
import segno

from box.errors import ConfigError, FileProblem
from box.links.control import ControlCommand
from box.links.hotspot.credentials import FILE, load_or_make
from box.links.hotspot.decide import Decider, Seen
from box.links.hotspot.network import PROFILE, FakeNetwork, NetworkError, Nmcli, WifiCredentials
from box.links.hotspot.service import SCAN_EVERY, Hotspot, Portal, page_on_own_wifi
from box.parts.ownwifi import wifi_qr
from box.sim.world import SimulatedBox
from box.storage.config import load_config
from tests.test_phone_page import read_qr

AFTER = 120.0
KEY = WifiCredentials("Gravebox-3f2a", "k7pq-m2xd-94tz")


def seen(now: float, online: bool = False, in_range: bool = False, up: bool = False, wanted: bool = True) -> Seen:
    return Seen(now, online, in_range, up, wanted)


def test_it_starts_only_after_the_box_has_had_no_network_for_a_while_from_its_start() -> None:
    decider = Decider(AFTER, started=1000.0)
    assert decider.decide(seen(1000.0)) is None
    assert decider.decide(seen(1119.9)) is None
    assert decider.decide(seen(1120.0)) == "start"
    again = Decider(AFTER, started=0.0)
    assert again.decide(seen(100.0, online=True)) is None  # the owner's network: the wait begins anew when it goes
    assert again.decide(seen(150.0)) is None
    assert again.decide(seen(269.9)) is None and again.decide(seen(270.0)) == "start"


def test_it_stops_when_the_owners_network_is_back_and_waits_again_before_it_starts() -> None:
    decider = Decider(AFTER, started=0.0)
    assert decider.decide(seen(120.0)) == "start"
    assert decider.decide(seen(130.0, up=True)) is None  # up, nothing known around: stays
    assert decider.decide(seen(140.0, up=True, in_range=True)) == "stop"  # the home Wi-Fi in range again
    assert decider.decide(seen(150.0)) is None  # NetworkManager tries to join it...
    assert decider.decide(seen(259.9)) is None
    assert decider.decide(seen(260.0)) == "start"  # ...and could not: the box's own again, no flapping
    assert decider.decide(seen(300.0, up=True, online=True)) == "stop"  # a cable, say: a network of the owner's


def test_off_it_stops_and_turned_on_after_long_without_network_it_starts_at_once() -> None:
    decider = Decider(AFTER, started=0.0)
    assert decider.decide(seen(500.0, wanted=False)) is None
    assert decider.decide(seen(510.0, wanted=False, up=True)) == "stop"
    assert decider.decide(seen(520.0, wanted=True)) == "start"  # offline since the start, 520 s


class FakeBox:
    """The box as the process reaches it: what the owner wants, and what it was told."""

    def __init__(self, wanted: bool | None = True) -> None:
        self.want, self.told = wanted, []

    def wanted(self) -> bool | None:
        return self.want

    def tell(self, up: WifiCredentials | None, page: str) -> None:
        self.told.append((up, page))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Scans(FakeNetwork):
    def __init__(self) -> None:
        super().__init__()
        self.scans = 0

    def known_in_range(self) -> bool:
        self.scans += 1
        return self.in_range


def test_the_process_starts_the_wifi_tells_the_box_and_stops_it_when_home_is_back() -> None:
    clock, network, box = Clock(), Scans(), FakeBox()
    hotspot = Hotspot(network, box, lambda: KEY, AFTER, enabled=False, page="http://10.42.0.1:8080/", clock=clock)
    for clock.now in (0.0, 60.0):
        hotspot.tick()
    assert network.done == [] and box.told[-1] == (None, "http://10.42.0.1:8080/")
    clock.now = 120.0
    hotspot.tick()
    assert network.done == ["start"] and network.credentials == KEY and box.told[-1][0] == KEY
    for clock.now in (130.0, 140.0, 150.0, 189.0):
        hotspot.tick()
    assert network.scans == 1, "a scan a minute while up (the first at 130 s), never at every look"
    network.in_range = True
    clock.now = 130.0 + SCAN_EVERY
    hotspot.tick()
    assert network.scans == 2 and network.done == ["start", "stop"] and box.told[-1][0] is None


def test_the_settings_decide_while_the_box_does_not_answer_and_a_failure_is_said_once(caplog) -> None:
    clock, network, box = Clock(), FakeNetwork(fails="nmcli connection up: No suitable device found"), FakeBox(None)
    hotspot = Hotspot(network, box, lambda: KEY, AFTER, enabled=True, page="p", clock=clock)
    for clock.now in (120.0, 130.0, 140.0):
        hotspot.tick()
    said = [r.message for r in caplog.records if "No suitable device" in r.message]
    assert len(said) == 1 and box.told[-1][0] is None and not network.is_up
    off = Hotspot(FakeNetwork(), FakeBox(None), lambda: KEY, AFTER, enabled=False, page="p", clock=clock)
    clock.now = 1000.0
    off.tick()
    assert off.network.done == []  # type: ignore[attr-defined]


def test_nmcli_is_read_and_driven_as_networkmanager_answers() -> None:
    calls: list[list[str]] = []
    answers = {
        "--active": "Wired connection 1:802-3-ethernet:activated\nlo:loopback:activated\n",
        "NAME": f"Home\\:net:802-11-wireless\n{PROFILE}:802-11-wireless\n",
    }

    def run(args) -> str:
        calls.append(list(args))
        if args[-1] == "--active":
            return answers["--active"]
        if args[:3] == ["-t", "-f", "NAME,TYPE"]:
            return answers["NAME"]
        if args[:2] == ["-g", "802-11-wireless.ssid"]:
            return "Home:net\n"
        if args[:2] == ["-g", "SSID"]:
            return "Neighbours\nHome:net\n"
        if args[:3] == ["-t", "-f", "NAME"]:
            return f"{PROFILE}\n"
        return ""

    nm = Nmcli(run)
    assert nm.online() and not nm.up()
    answers["--active"] = f"{PROFILE}:802-11-wireless:activated\nlo:loopback:activated\n"
    assert not nm.online() and nm.up()
    assert nm.known_in_range() and ["-g", "802-11-wireless.ssid", "connection", "show", "Home:net"] in calls
    calls.clear()
    nm.start(KEY)
    assert [c[:2] for c in calls] == [["-t", "-f"], ["connection", "delete"], ["connection", "add"], ["connection", "up"]]
    add = calls[2]
    assert add[add.index("ssid") + 1] == KEY.ssid and add[add.index("wifi-sec.psk") + 1] == KEY.password
    assert add[add.index("802-11-wireless.mode") + 1] == "ap" and add[add.index("ipv4.method") + 1] == "shared"


def test_no_networkmanager_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(NetworkError, match=r"^nmcli not found: NetworkManager is not installed$"):
        Nmcli().stop()


def test_the_name_and_password_are_made_at_first_use_and_kept(tmp_path: Path) -> None:
    made = load_or_make(tmp_path)
    assert load_or_make(tmp_path) == made
    assert json.loads((tmp_path / FILE).read_text()) == {"ssid": made.ssid, "password": made.password}
    assert 8 <= len(made.password) <= 63 and not set(made.password) & set("0o1li")
    (tmp_path / FILE).write_text('{"ssid": "x", "password": "short"}')
    with pytest.raises(FileProblem, match="password: 8 to 63"):
        load_or_make(tmp_path)


@pytest.mark.parametrize("ssid, password, text", [
    ("Gravebox-3f2a", "k7pq-m2xd-94tz", "WIFI:S:Gravebox-3f2a;T:WPA;P:k7pq-m2xd-94tz;;"),
    ('Ann;s "net"', "a:b,c\\d", 'WIFI:S:Ann\\;s \\"net\\";T:WPA;P:a\\:b\\,c\\\\d;;'),
])
def test_the_join_code_escapes_what_the_spec_says(ssid: str, password: str, text: str) -> None:
    assert wifi_qr(ssid, password) == text


def test_the_phone_page_shows_the_code_that_joins_the_wifi_then_the_one_that_opens_the_page(tmp_path: Path) -> None:
    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    try:
        answers: list[str] = []
        up = {"ssid": KEY.ssid, "password": KEY.password, "page": "http://10.42.0.1:8080/"}
        world.loop.enqueue(ControlCommand("hotspot-up", up, reply=answers.append))
        world.advance(0.05)
        assert answers == [""] and world.dump()["own_wifi"] == {"wanted": False, "up": True}
        assert KEY.password not in json.dumps(world.dump()), "the state dump is open to the network"
        world.box.phone.show_page(world.now)
        world.advance(0.05)
        modules, _, _ = read_qr(world.parts.display.image)
        assert modules == [list(row) for row in segno.make_qr(wifi_qr(KEY.ssid, KEY.password), error="l").matrix]
        assert world.dump()["own_wifi_shown"] == "join"
        world.press("ok")
        modules, _, _ = read_qr(world.parts.display.image)
        assert modules == [list(row) for row in segno.make_qr("http://10.42.0.1:8080/", error="l", boost_error=True).matrix]
        assert world.dump()["own_wifi_shown"] == "page" and world.dump()["phone_page"] == "http://10.42.0.1:8080/"
        world.press("back")
        world.loop.enqueue(ControlCommand("hotspot-down"))
        world.advance(0.05)
        world.box.phone.show_page(world.now)
        world.advance(0.05)
        assert "own_wifi_shown" not in world.dump(), "down: the usual Phone page"
        assert KEY.password not in repr(world.journal.values_under(""))
    finally:
        world.close()


def test_the_box_menu_turns_it_on_and_off_and_a_restart_keeps_it(tmp_path: Path) -> None:
    world = SimulatedBox(state_dir=tmp_path / "state", seed=1)
    try:
        assert world.dump()["own_wifi"]["wanted"] is False
        world.press("back", seconds=1.2)
        menu = world.box.top
        assert menu.entries[-2] == "Own Wi-Fi: off"
        for _ in range(len(menu.entries) - 2):
            world.press("down")
        world.press("ok")
        assert world.dump()["own_wifi"]["wanted"] is True and world.dump()["notice"] == "Own Wi-Fi: on"
        world.restart()
        assert world.dump()["own_wifi"]["wanted"] is True
    finally:
        world.close()


def test_the_settings_say_whether_it_is_on_and_after_how_long(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text("[hotspot]\nenabled = true\nafter = 300\n", encoding="utf-8")
    loaded = load_config(config)
    assert (loaded.hotspot_enabled, loaded.hotspot_after) == (True, 300)
    assert (load_config(None).hotspot_enabled, load_config(None).hotspot_after) == (False, 120)
    for bad, said in (("after = 5", "hotspot.after: must be a whole number of seconds"),
                      ('enabled = "yes"', "hotspot.enabled: must be true or false"),
                      ("ssid = 'x'", "hotspot.ssid: unknown setting")):
        config.write_text(f"[hotspot]\n{bad}\n", encoding="utf-8")
        with pytest.raises(ConfigError) as error:
            load_config(config)
        assert said in str(error.value) and str(error.value).count("\n") == 0 and ":2:" in str(error.value)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def test_a_captive_portal_check_is_sent_to_the_page() -> None:
    page = page_on_own_wifi("0.0.0.0:8080")
    portal = Portal(page, address="127.0.0.1", port=free_port())
    portal.follow(True)
    try:
        for path in ("/generate_204", "/hotspot-detect.html", "/"):
            connection = http.client.HTTPConnection("127.0.0.1", portal.port, timeout=5)
            connection.request("GET", path, headers={"Host": "connectivitycheck.gstatic.com"})
            answer = connection.getresponse()
            assert answer.status == 302 and answer.getheader("Location") == "http://10.42.0.1:8080/"
            connection.close()
    finally:
        portal.follow(False)
    assert portal.server is None
    with pytest.raises(OSError):
        http.client.HTTPConnection("127.0.0.1", portal.port, timeout=2).request("GET", "/")


REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd/gravebox-hotspot.service"


def test_install_sh_puts_the_dns_answer_where_networkmanagers_dnsmasq_reads_it() -> None:
    from box.links.hotspot.network import dnsmasq_conf

    shipped = (REPO / "systemd/gravebox-dnsmasq-shared.conf").read_text()
    assert [line for line in shipped.splitlines() if not line.startswith("#")] == dnsmasq_conf().splitlines()
    assert "/etc/NetworkManager/dnsmasq-shared.d/gravebox.conf" in (REPO / "install.sh").read_text()
    rules = (REPO / "systemd/50-gravebox.rules").read_text()
    assert "org.freedesktop.NetworkManager.settings.modify.system" in rules and "wifi.share.protected" in rules


@pytest.mark.skipif(__import__("shutil").which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_the_hotspot_unit_is_hardened_and_holds_only_the_port_80_capability(tmp_path: Path) -> None:
    import re
    import subprocess

    from tests.test_systemd import exposure, unit_settings

    score, result = exposure(UNIT, most=1.5)
    assert score <= 1.5 and result.returncode == 0, result.stdout
    settings = unit_settings(UNIT)
    assert settings["CapabilityBoundingSet"] == ["CAP_NET_BIND_SERVICE"] and settings["User"] == ["gravebox"]
    assert "PrivateNetwork" not in settings and unit_settings(REPO / "systemd/gravebox.service")["PrivateNetwork"] == ["yes"]
    copy = tmp_path / UNIT.name
    copy.write_text(re.sub(r"(?m)^ExecStart=.*$", "ExecStart=/bin/true", UNIT.read_text()))
    checked = subprocess.run(["systemd-analyze", "verify", str(copy)], capture_output=True, text=True)
    assert checked.returncode == 0 and not re.search(r"Unknown|ignoring|Failed|Invalid", checked.stdout + checked.stderr)


def test_the_page_keeps_its_rules_on_the_boxs_own_wifi(tmp_path: Path) -> None:
    """Every name there is the box's address: the page still answers only to the box's own names and
    addresses (a rebinding name is refused), and writes still need this page's Origin."""
    from tests.test_web import Rig

    state = tmp_path / "state"
    state.mkdir()
    rig = Rig(state, tmp_path / "run")
    rig.box.start()
    try:
        with rig.client:
            assert rig.client.get("/box", headers={"Host": "10.42.0.1:8080"}).status_code == 200
            assert rig.client.get("/", headers={"Host": "connectivitycheck.gstatic.com"}).status_code == 400
            foreign = {"Host": "10.42.0.1:8080", "Origin": "http://captive.apple.com"}
            assert rig.client.post("/roster", data={"names": "Eve"}, headers=foreign).status_code == 403
    finally:
        rig.box.stop()
