"""`gravebox hotspot`: the process that gives the box its own Wi-Fi (gravebox-hotspot.service).

Every `POLL` seconds it asks the box whether the owner wants its own Wi-Fi (the state dump's
`own_wifi.wanted`: the box menu's line, else the settings' `[hotspot] enabled`; the settings alone
while the box does not answer), looks at the network (`Network`), lets `Decider` say what to do,
does it, and tells the box (`hotspot-up` with the name, password and the page's address on it, or
`hotspot-down`). While its Wi-Fi is up it answers plain HTTP on port 80 of the box's address with
a redirect to the page (`Portal`), so a phone's "sign in to network" check opens the page.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Protocol

from box.errors import FileProblem
from box.links.hotspot.decide import Decider, Seen
from box.links.hotspot.network import ADDRESS, Network, NetworkError, WifiCredentials

log = logging.getLogger(__name__)

POLL = 10.0  # seconds between two looks at the network
SCAN_EVERY = 60.0  # seconds between two scans for a known Wi-Fi while the box's own is up
PORTAL_PORT = 80  # where a phone's captive-portal check knocks


class BoxLine(Protocol):
    """The box as this process reaches it (the control socket, or a test's fake)."""

    def wanted(self) -> bool | None: ...  # None: the box does not answer
    def tell(self, up: WifiCredentials | None, page: str) -> None: ...


class Hotspot:
    """One look and one decision per `tick`; `page` is the phone page's address on the box's own Wi-Fi."""

    def __init__(
        self,
        network: Network,
        box: BoxLine,
        credentials: Callable[[], WifiCredentials],
        after: float,
        enabled: bool,
        page: str,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.network, self.box, self.credentials, self.enabled, self.page = network, box, credentials, enabled, page
        self.clock = clock
        self.decider = Decider(after, clock())
        self.next_scan = 0.0
        self.said = ""  # the last problem logged, said once
        self.looked = False  # NetworkManager asked once since this start (a Wi-Fi of ours left up?)
        self.on: WifiCredentials | None = None  # the box's own Wi-Fi while up

    def tick(self) -> None:
        now = self.clock()
        told = self.box.wanted()
        wanted = self.enabled if told is None else told
        if not wanted and self.on is None and self.looked:  # off, and nothing of ours is up: NetworkManager
            self.box.tell(None, self.page)  # is not asked (a box without it, or without Wi-Fi, says nothing)
            return
        self.looked = True
        try:
            up = self.network.up()
            online = self.network.online()
            in_range = False
            if up and now >= self.next_scan:
                self.next_scan = now + SCAN_EVERY
                in_range = self.network.known_in_range()
            act = self.decider.decide(Seen(now, online, in_range, up, wanted))
            if act == "start":
                self.network.start(self.credentials())
                log.info("the box's own Wi-Fi is up: no network for %.0f s", self.decider.after)
                up = True
            elif act == "stop":
                self.network.stop()
                log.info("the box's own Wi-Fi is down: %s", "turned off" if not wanted else "a known network is back")
                up = False
            self.on = self.credentials() if up else None
            self.said = ""
        except (NetworkError, FileProblem) as problem:
            if str(problem) != self.said:  # an error only when the owner wants the Wi-Fi
                (log.error if wanted else log.info)("own Wi-Fi: %s", problem)
                self.said = str(problem)
            with contextlib.suppress(NetworkError):
                if not self.network.up():
                    self.on = None
        self.box.tell(self.on, self.page)


class Portal:
    """Plain HTTP on port 80 of the box's address while its own Wi-Fi is up: every request is sent on
    to the phone page (a 302), which a phone's captive-portal check then opens."""

    def __init__(self, page: str, address: str = ADDRESS, port: int = PORTAL_PORT):
        self.page, self.address, self.port = page, address, port
        self.server: ThreadingHTTPServer | None = None

    def follow(self, up: bool) -> None:
        """Serve while `up` (a bind that fails, the address not there yet, is tried at the next look)."""
        if up and self.server is None:
            try:
                self.server = ThreadingHTTPServer((self.address, self.port), redirect_to(self.page))
            except OSError as problem:
                log.warning("own Wi-Fi: no redirect on port %d yet: %s", self.port, problem)
                return
            threading.Thread(target=self.server.serve_forever, name="portal", daemon=True).start()
        elif not up and self.server is not None:
            self.server.shutdown()
            self.server.server_close()
            self.server = None


def redirect_to(page: str) -> type[BaseHTTPRequestHandler]:
    class Redirect(BaseHTTPRequestHandler):
        def answer(self) -> None:
            body = f'<!doctype html><title>Gravebox</title><a href="{page}">Gravebox</a>\n'.encode()
            self.send_response(302)
            self.send_header("Location", page)
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        do_GET = do_POST = do_HEAD = answer

        def log_message(self, format: str, *args: Any) -> None:  # quiet: phones knock often
            pass

    return Redirect


class SocketLine:
    """The box over its control socket (box/links/client.py)."""

    def __init__(self, path: Path):
        from box.links.client import ControlClient

        self.client = ControlClient(path)

    def wanted(self) -> bool | None:
        try:
            state = self.client.request("state").get("state") or {}
        except (OSError, ValueError):
            return None
        found = (state.get("own_wifi") or {}).get("wanted") if isinstance(state, dict) else None
        return found if isinstance(found, bool) else None

    def tell(self, up: WifiCredentials | None, page: str) -> None:
        with contextlib.suppress(OSError, ValueError):
            if up is None:
                self.client.request("hotspot-down")
            else:
                self.client.request("hotspot-up", ssid=up.ssid, password=up.password, page=page)


def page_on_own_wifi(listen: str | None) -> str:
    """The phone page's address on the box's own Wi-Fi: its address and the page's port.

    >>> page_on_own_wifi(None), page_on_own_wifi("0.0.0.0:80")
    ('http://10.42.0.1:8080/', 'http://10.42.0.1/')
    """
    port = (listen or "0.0.0.0:8080").rpartition(":")[2]
    return f"http://{ADDRESS}{'' if port == '80' else ':' + port}/"


def main(state_dir: Path, socket: Path, after: float, enabled: bool, listen: str | None,
         network: Network | None = None, stop: threading.Event | None = None) -> int:
    """Look every POLL seconds until stopped (SIGTERM); the Wi-Fi it started is left as it is (a
    restart of this process finds it up)."""
    import signal

    from box.links import sdnotify
    from box.links.hotspot.credentials import load_or_make
    from box.links.hotspot.network import Nmcli

    stop = stop or threading.Event()
    for number in (signal.SIGTERM, signal.SIGINT):
        signal.signal(number, lambda *_: stop.set())
    page = page_on_own_wifi(listen)
    hotspot = Hotspot(network or Nmcli(), SocketLine(socket), lambda: load_or_make(state_dir), after, enabled, page)
    portal = Portal(page)
    sdnotify.ready()
    while not stop.is_set():
        hotspot.tick()
        portal.follow(hotspot.on is not None)
        sdnotify.watchdog()
        stop.wait(POLL)
    portal.follow(False)
    return 0
