"""Pairing a phone, its session, CSRF tokens and rate limits.

Every write on the page needs a paired phone. The box shows a six-digit code
on its OLED (the page asks it to over the control socket); the phone types it
and gets a session cookie (HttpOnly, SameSite=Strict). The code is compared in
constant time, expires, and dies after a few wrong tries; tries are limited per
client and in all. Sessions are kept in the state directory as hashes, so a
restart of the page does not unpair the phones and a copy of the file pairs no
one.

>>> pairing = Pairing(clock=lambda: 0.0)
>>> code = pairing.new_code()
>>> pairing.attempt("000000" if code != "000000" else "111111", "phone")
'wrong'
>>> pairing.attempt(code, "phone")
'ok'
>>> pairing.attempt(code, "phone")  # a code pairs one phone
'none'
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import json
import logging
import secrets
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable
from pathlib import Path
from urllib.parse import urlsplit

from box.storage.roster import write_atomically

log = logging.getLogger(__name__)

CODE_SECONDS = 120.0
CODE_TRIES = 5  # wrong codes before the code is thrown away
CLIENT_TRIES = (5, 60.0)  # at most 5 tries a minute from one client
ALL_TRIES = (20, 60.0)  # and 20 a minute in all
CODE_REQUESTS = (3, 60.0)  # codes shown on the OLED, a minute
SESSION_DAYS = 90
SESSIONS_FILE = "web-sessions.json"
COOKIE = "gravebox_session"


class RateLimit:
    """At most `count` events in any `seconds` window, per key.

    >>> limit = RateLimit(2, 60.0, clock=iter([0, 1, 2, 61]).__next__)
    >>> [limit.allow("a") for _ in range(4)]
    [True, True, False, True]
    """

    def __init__(self, count: int, seconds: float, clock: Callable[[], float] = time.monotonic):
        self.count, self.seconds, self.clock = count, seconds, clock
        self.events: dict[str, deque[float]] = {}

    def allow(self, key: str) -> bool:
        now = self.clock()
        events = self.events.setdefault(key, deque())
        while events and events[0] <= now - self.seconds:
            events.popleft()
        if len(events) >= self.count:
            return False
        events.append(now)
        if len(self.events) > 1000:  # forget idle clients
            self.events = {k: v for k, v in self.events.items() if v}
        return True


class Pairing:
    """The code shown on the box and the tries against it."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self.clock = clock
        self.code: str | None = None
        self.expires = 0.0
        self.wrong = 0
        self.per_client = RateLimit(*CLIENT_TRIES, clock=clock)
        self.overall = RateLimit(*ALL_TRIES, clock=clock)
        self.requests = RateLimit(*CODE_REQUESTS, clock=clock)

    def new_code(self) -> str:
        self.code = f"{secrets.randbelow(1_000_000):06d}"
        self.expires = self.clock() + CODE_SECONDS
        self.wrong = 0
        return self.code

    def attempt(self, typed: str, client: str) -> str:
        """'ok', 'wrong', 'none' (no code to match: ask for one), or 'limited' (too many tries)."""
        if not (self.per_client.allow(client) and self.overall.allow("*")):
            return "limited"
        if self.code is None or self.clock() >= self.expires:
            self.code = None
            return "none"
        typed = "".join(typed.split())
        if hmac.compare_digest(typed.encode(), self.code.encode()):
            self.code = None
            return "ok"
        self.wrong += 1
        if self.wrong >= CODE_TRIES:
            self.code = None
        return "wrong"


class Sessions:
    """Paired phones: sha256 of each session token -> when it expires (wall clock)."""

    def __init__(self, path: Path | None, clock: Callable[[], float] = time.time):
        self.path = path
        self.clock = clock
        self.known: dict[str, float] = {}
        if path is not None and path.exists():
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self.known = {str(k): float(v) for k, v in data.items()}
            except (OSError, ValueError, AttributeError) as problem:
                log.warning("paired phones forgotten: %s: %s", path, problem)

    @staticmethod
    def digest(token: str) -> str:
        return hashlib.sha256(token.encode()).hexdigest()

    def create(self) -> str:
        token = secrets.token_urlsafe(32)
        now = self.clock()
        self.known = {k: v for k, v in self.known.items() if v > now}
        self.known[self.digest(token)] = now + SESSION_DAYS * 86400
        self.save()
        return token

    def valid(self, token: str | None) -> bool:
        if not token or len(token) > 100:
            return False
        expires = self.known.get(self.digest(token))
        return expires is not None and expires > self.clock()

    def drop(self, token: str | None) -> None:
        if token and self.known.pop(self.digest(token), None) is not None:
            self.save()

    def save(self) -> None:
        if self.path is None:
            return
        try:
            write_atomically(self.path, json.dumps(self.known))
        except OSError as problem:
            log.error("cannot keep the paired phones in %s: %s", self.path, problem)


def csrf_token(session: str) -> str:
    """The token a paired page puts in its forms: bound to the session, useless without it."""
    return hmac.new(session.encode(), b"gravebox-csrf", hashlib.sha256).hexdigest()


def csrf_ok(session: str | None, token: str | None) -> bool:
    if not session or not token:
        return False
    return hmac.compare_digest(csrf_token(session), token)


def same_origin(origin: str | None, referer: str | None, scheme: str, host: str | None) -> bool:
    """A write must come from a page of this server: its Origin (or, lacking one, its Referer).

    >>> same_origin("http://box.local:8080", None, "http", "box.local:8080")
    True
    >>> same_origin("http://evil.example", None, "http", "box.local:8080")
    False
    >>> same_origin(None, None, "http", "box.local:8080")
    False
    """
    if not host:
        return False
    expected = f"{scheme}://{host}"
    if origin:
        return origin == expected
    if referer:
        return referer == expected or referer.startswith(expected + "/")
    return False


def own_names() -> tuple[str, ...]:
    """The names this machine answers to on the local network: localhost, its hostname and hostname.local."""
    name = socket.gethostname().lower()
    return ("localhost", name, f"{name}.local")


def host_allowed(host: str | None, names: Iterable[str]) -> bool:
    """Whether a request's Host is this box: an address (no DNS name to rebind) or one of `names`.

    A page on another site whose name an attacker points at the box (DNS rebinding) sends its own
    name as the Host, never one of the box's.

    >>> names = ("localhost", "gravebox", "gravebox.local")
    >>> [host_allowed(h, names) for h in ("gravebox.local:8080", "192.168.1.20:8080", "[fe80::1]:8080")]
    [True, True, True]
    >>> [host_allowed(h, names) for h in ("evil.example:8080", "gravebox.local.evil.example", None)]
    [False, False, False]
    """
    if not host:
        return False
    name = ""
    try:
        name = urlsplit(f"//{host}").hostname or ""  # the port and an IPv6 address's brackets taken off
        ipaddress.ip_address(name)
    except ValueError:  # a name (or a Host that is neither): it must be one of the box's
        return name.rstrip(".") in names
    return True
