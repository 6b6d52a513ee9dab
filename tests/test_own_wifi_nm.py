"""The box's own Wi-Fi against a real NetworkManager: Debian Trixie booted under its own systemd
(tests/booted.py, the booted container of issue 34) with network-manager and dnsmasq-base.

- NetworkManager takes the access point profile exactly as `gravebox hotspot` adds it
  (box/links/hotspot/network.py's `profile_args`, run through nmcli there), keeps every setting,
  and bringing it up without Wi-Fi hardware fails with the one line the process logs.
- The same IPv4 `shared` profile on a virtual wired device (a veth pair: the container has no Wi-Fi)
  makes NetworkManager start its dnsmasq with install.sh's file in dnsmasq-shared.d, and that
  dnsmasq answers any name with the box's address; the process's own nmcli adapter sees its Wi-Fi up
  and no other network.
- With the network gone, `gravebox hotspot`'s loop (its `main`, on the veth) brings the profile up,
  and a "phone" on the veth's other end (a network namespace whose resolver is the box's dnsmasq)
  follows its captive-portal check to the phone page: the project installed in a venv from the
  root's wheelhouse (tests/pi_os.py: the container has no PyPI) and `gravebox web` served as its
  unit would, the page's host rules holding on that network.

Runs once per `./run-tests` (GRAVEBOX_SECOND_PASS on the second Python's pass: the container runs
its own Python); about a minute and a half with the roots cached (~/.cache/gravebox/boot), a few
more the first time.
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from box.links.hotspot.network import ADDRESS, PROFILE, WifiCredentials, profile_args
from tests.booted import CannotBoot, Container, derived_root
from tests.pi_os import copy_checkout, pi_os_root

REPO = Path(__file__).resolve().parent.parent
PACKAGES = ("network-manager", "dnsmasq-base", "bind9-dnsutils", "iproute2")
KEY = WifiCredentials("Gravebox-3f2a", "k7pq-m2xd-94tz")
CONF = "/etc/NetworkManager/dnsmasq-shared.d/gravebox.conf"
IN_BOX = "cd /repo && PYTHONPATH=/repo PYTHONDONTWRITEBYTECODE=1 python3 -c {}"  # the checkout's own code, in there


DNSMASQ = r"""for f in /proc/[0-9]*/cmdline; do tr '\0' ' ' < "$f" 2>/dev/null; echo; done | grep '^[^ ]*dnsmasq ' || true"""
"""The command lines of the dnsmasq processes running (the root has no ps)."""


def python(code: str) -> str:
    return IN_BOX.format(shlex.quote(code))


@pytest.fixture(scope="module")
def nm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Container]:
    if os.environ.get("GRAVEBOX_SECOND_PASS"):
        pytest.skip("the booted-container tests ran in the first pass of ./run-tests")
    try:
        image = derived_root(pi_os_root("trixie"), "nm", packages=PACKAGES)
        container = Container(image, tmp_path_factory.mktemp("nm") / "trixie", binds=[f"{REPO}:/repo"], name="gravebox-nm")
        container.__enter__()
    except CannotBoot as reason:
        pytest.skip(f"no booted container on this machine: {reason}")
    try:
        container.run("systemctl is-active --wait NetworkManager || systemctl start NetworkManager")
        container.run("nmcli general status")  # NetworkManager answers on the bus
        container.run(f"install -D -m 0644 /repo/systemd/gravebox-dnsmasq-shared.conf {CONF}")  # as install.sh does
        yield container
    finally:
        container.close()


def nmcli(box: Container, args: list[str], check: bool = True):
    return box.run(" ".join(shlex.quote(a) for a in ["nmcli", *args]), check=check)


def test_networkmanager_takes_the_access_point_profile_as_the_process_adds_it(nm: Container) -> None:
    nmcli(nm, profile_args(KEY))
    fields = "802-11-wireless.ssid,802-11-wireless.mode,802-11-wireless-security.key-mgmt,802-11-wireless-security.proto," \
             "802-11-wireless-security.psk,ipv4.method,ipv4.addresses,connection.autoconnect"
    shown = nmcli(nm, ["--show-secrets", "-g", fields, "connection", "show", PROFILE]).stdout.splitlines()
    assert shown == [KEY.ssid, "ap", "wpa-psk", "rsn", KEY.password, "shared", f"{ADDRESS}/24", "no"]
    keyfile = nm.run(f"cat /etc/NetworkManager/system-connections/{PROFILE}.nmconnection").stdout
    assert "mode=ap" in keyfile and "method=shared" in keyfile
    # no Wi-Fi chip here: up is refused, in the one line the process logs (box/links/hotspot/network.py)
    up = nm.run(python(
        "from box.links.hotspot.network import NetworkError, Nmcli, WifiCredentials\n"
        "try:\n"
        f"    Nmcli().start(WifiCredentials({KEY.ssid!r}, {KEY.password!r}))\n"
        "except NetworkError as problem:\n"
        "    print('refused:', problem)\n"
    )).stdout
    assert up.startswith("refused: nmcli connection up:") and "\n" not in up.strip(), up
    assert nmcli(nm, ["-t", "-f", "NAME", "connection", "show"]).stdout.splitlines().count(PROFILE) == 1, "made anew, once"
    nmcli(nm, ["connection", "delete", PROFILE])


def test_the_shared_profiles_dnsmasq_answers_every_name_with_the_box(nm: Container) -> None:
    nm.run("ip link add gbx0 type veth peer name gbx1 && ip link set gbx1 up")
    nmcli(nm, ["device", "set", "gbx0", "managed", "yes"])
    nmcli(nm, profile_args(KEY, kind="ethernet", device="gbx0"))
    nmcli(nm, ["--wait", "30", "connection", "up", PROFILE])
    dnsmasq = nm.run(DNSMASQ).stdout
    assert "--conf-dir=/etc/NetworkManager/dnsmasq-shared.d" in dnsmasq and f"--listen-address={ADDRESS}" in dnsmasq, dnsmasq
    for name in ("connectivitycheck.gstatic.com", "captive.apple.com", "anything.example", "gravebox"):
        answer = nm.run(f"dig +short +time=2 +tries=3 @{ADDRESS} {name} A").stdout.split()
        assert answer == [ADDRESS], (name, answer)
    seen = nm.run(python("from box.links.hotspot.network import Nmcli; n = Nmcli(); print(n.up(), n.online())")).stdout
    assert seen.split() == ["True", "False"], "its own network up, and no other: the owner's is not back"
    nmcli(nm, ["connection", "down", PROFILE])
    assert nm.run(DNSMASQ).stdout.strip() == "", "down: its dnsmasq goes too"


WITHOUT_A_NETWORK = '''
import http.client
from box.links.hotspot.network import PROFILE, Nmcli, WifiCredentials, profile_args
from box.links.hotspot.service import Hotspot, Portal

class Wired(Nmcli):
    """NetworkManager for real; only the device is the veth, a container having no Wi-Fi chip."""
    def start(self, credentials):
        if PROFILE in self.run(["-g", "NAME", "connection", "show"]).split():
            self.run(["connection", "delete", PROFILE])
        self.run(profile_args(credentials, kind="ethernet", device="gbx0"))
        self.run(["connection", "up", PROFILE])

class Box:
    told = []
    def wanted(self): return True
    def tell(self, up, page): self.told.append(up is not None)

now = [0.0]
box, network = Box(), Wired()
hotspot = Hotspot(network, box, lambda: WifiCredentials("Gravebox-3f2a", "k7pq-m2xd-94tz"), 120.0, False,
                  "http://10.42.0.1:8080/", clock=lambda: now[0])
hotspot.tick()
print("at 0 s:", network.up(), box.told[-1])
now[0] = 120.0
hotspot.tick()
print("at 120 s:", network.up(), box.told[-1])
portal = Portal(hotspot.page)
portal.follow(True)
connection = http.client.HTTPConnection("10.42.0.1", 80, timeout=5)
connection.request("GET", "/generate_204", headers={"Host": "connectivitycheck.gstatic.com"})
answer = connection.getresponse()
print("portal:", answer.status, answer.getheader("Location"))
portal.follow(False)
'''


def test_with_the_network_gone_the_process_brings_its_profile_up_and_down_again_when_home_is_back(nm: Container) -> None:
    """`Hotspot` and its nmcli adapter on the real NetworkManager, on a fake clock: nothing at first,
    the profile up after `after` seconds with no network (and the captive-portal redirect answering
    on the box's address), then down once a network of the owner's is up again."""
    said = nm.run(python(WITHOUT_A_NETWORK)).stdout.splitlines()
    assert said == ["at 0 s: False False", "at 120 s: True True", "portal: 302 http://10.42.0.1:8080/"], said
    nmcli(nm, ["device", "set", "gbx1", "managed", "yes"])
    nmcli(nm, ["connection", "add", "type", "ethernet", "con-name", "home", "ifname", "gbx1",
               "ipv4.method", "manual", "ipv4.addresses", "192.168.5.2/24", "ipv6.method", "disabled"])
    nmcli(nm, ["--wait", "30", "connection", "up", "home"])
    back = nm.run(python(WITHOUT_A_NETWORK.split("now = [0.0]")[0] + (
        "network = Wired()\n"
        "hotspot = Hotspot(network, Box(), lambda: None, 120.0, False, 'p', clock=lambda: 500.0)\n"
        "print('online:', network.online(), network.up())\n"
        "hotspot.tick()\n"
        "print('after:', network.up(), Box.told[-1])\n"
    ))).stdout.splitlines()
    assert back == ["online: True True", "after: False False"], back


HOTSPOT_ON_THE_VETH = WITHOUT_A_NETWORK.split("class Box:")[0].replace('device="gbx0"', 'device="gbw0"') + """
from pathlib import Path
from box.links.hotspot.service import main
main(Path("/var/lib/gravebox"), Path("/run/gravebox/control.sock"), 1.0, True, "0.0.0.0:8080", network=Wired())
"""
"""`gravebox hotspot` as its unit runs it (no box answering: the setting decides), on the veth."""

PHONE = """
import http.client, socket, urllib.request
print("resolved:", socket.gethostbyname("connectivitycheck.gstatic.com"))
answer = urllib.request.urlopen("http://connectivitycheck.gstatic.com/generate_204", timeout=10)
page = answer.read().decode()
print("opened:", answer.status, answer.geturl(), "The box is not running" in page)
for host in ("10.42.0.1:8080", "connectivitycheck.gstatic.com", "gravebox.example"):
    connection = http.client.HTTPConnection("10.42.0.1", 8080, timeout=10)
    connection.request("GET", "/", headers={"Host": host})
    print(host, connection.getresponse().status)
"""
"""A phone on the box's own Wi-Fi: its captive-portal check, followed as a browser does, then the page by other names."""


def until(box: Container, condition: str, seconds: int = 60) -> None:
    """Until the shell `condition` holds in the container, or fail with what it says."""
    box.run(f"for i in $(seq {seconds * 2}); do {condition} && exit 0; sleep 0.5; done; {condition} ||"
            " { journalctl --no-pager -o cat -u gravebox-hotspot -u gravebox-web; exit 1; }")


def test_with_the_network_gone_the_phone_page_answers_on_the_boxs_own_wifi(nm: Container) -> None:
    """The project installed from the checkout, `gravebox web` and the hotspot's loop as units; the
    owner's network gone; a phone on the other end of the veth opens the page through the portal."""
    copy_checkout(nm.files / "opt/gravebox-src")
    nm.run("python3 -m venv --system-site-packages /opt/gravebox/venv && /opt/gravebox/venv/bin/pip install --quiet"
           " --disable-pip-version-check '/opt/gravebox-src[web]'", timeout=300)
    nm.run("mkdir -p /var/lib/gravebox && systemd-run --unit=gravebox-web /opt/gravebox/venv/bin/gravebox web"
           " --state-dir /var/lib/gravebox --listen 0.0.0.0:8080")
    for name in [line.split(":")[0] for line in nmcli(nm, ["-t", "-f", "NAME,TYPE", "connection", "show", "--active"]).stdout.splitlines()]:
        if name not in ("lo", PROFILE):
            nmcli(nm, ["connection", "down", name])  # the owner's network, gone
    nm.run("ip link add gbw0 type veth peer name gbw1 && ip netns add phone && ip link set gbw1 netns phone"
           " && ip -n phone link set gbw1 up && ip -n phone addr add 10.42.0.50/24 dev gbw1"
           " && mkdir -p /etc/netns/phone && echo 'nameserver 10.42.0.1' >/etc/netns/phone/resolv.conf")
    nmcli(nm, ["device", "set", "gbw0", "managed", "yes"])
    nm.run(f"systemd-run --unit=gravebox-hotspot --working-directory=/opt/gravebox /opt/gravebox/venv/bin/python"
           f" -c {shlex.quote(HOTSPOT_ON_THE_VETH)}")
    until(nm, f"nmcli -t -f NAME connection show --active | grep -qx {PROFILE}")
    for port in (80, 8080):  # the portal (once the profile is up) and the page listen
        until(nm, f"bash -c 'echo >/dev/tcp/{ADDRESS}/{port}' 2>/dev/null")
    said = nm.run(f"ip netns exec phone /usr/bin/python3 -c {shlex.quote(PHONE)}").stdout.splitlines()
    assert said == ["resolved: 10.42.0.1", "opened: 200 http://10.42.0.1:8080/ True", "10.42.0.1:8080 200",
                    "connectivitycheck.gstatic.com 400", "gravebox.example 400"], said
    nm.run("systemctl stop gravebox-hotspot gravebox-web")
