"""Lighthouse (npm's, mobile, Debian's chromium) over every page at the box's own name, not localhost:
each category scores at least 95, leaving out only what HTTPS alone gives (docs/web.md says why and
what an owner may do about it).

The name is this machine's hostname where it resolves to a loopback address (as a box's does: Debian
maps it to 127.0.1.1); the page listens on that address. scripts/lighthouse.sh installs Lighthouse
into ~/.cache/gravebox/lighthouse ($GRAVEBOX_LIGHTHOUSE), outside the repository.
"""

from __future__ import annotations

import ipaddress
import json
import os
import shutil
import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.simulated_page import CHROMIUM, PAGES, box_with_a_season

LIGHTHOUSE = (
    Path(os.environ.get("GRAVEBOX_LIGHTHOUSE") or Path.home() / ".cache/gravebox/lighthouse")
    / "node_modules/.bin/lighthouse"
)
GOAL = 0.95
HTTPS_ONLY = {"is-on-https", "redirects-http"}  # a page on plain HTTP fails these whatever it does
FLAGS = "--headless=new --no-sandbox --disable-gpu --disable-background-networking --no-first-run"


def own_name() -> tuple[str, str] | None:
    """This machine's hostname and the loopback address it resolves to, else None."""
    name = socket.gethostname()
    try:
        address = socket.gethostbyname(name)
    except OSError:
        return None
    return (name, address) if name != "localhost" and ipaddress.ip_address(address).is_loopback else None


pytestmark = [
    pytest.mark.skipif(not CHROMIUM.exists(), reason="no /usr/bin/chromium: scripts/chromium.sh installs it"),
    pytest.mark.skipif(shutil.which("npm") is None, reason="no npm: Lighthouse cannot be installed"),
    pytest.mark.skipif(not LIGHTHOUSE.exists(), reason="no Lighthouse: scripts/lighthouse.sh installs it"),
    pytest.mark.skipif(own_name() is None, reason="this machine's hostname does not resolve to a loopback address"),
]


@pytest.fixture
def box_url(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    named = own_name()
    assert named is not None
    name, address = named
    with box_with_a_season(tmp_path, monkeypatch, address) as url:
        yield url.replace(address, name, 1)


def score(report: dict[str, Any], category: str) -> float:
    """A category's score as Lighthouse weighs it, without the audits only HTTPS passes."""
    refs = [
        ref
        for ref in report["categories"][category]["auditRefs"]
        if ref["weight"] > 0 and ref["id"] not in HTTPS_ONLY and report["audits"][ref["id"]]["score"] is not None
    ]
    return sum(ref["weight"] * report["audits"][ref["id"]]["score"] for ref in refs) / sum(
        ref["weight"] for ref in refs
    )


def failing(report: dict[str, Any], category: str) -> list[str]:
    """The audits of a category that did not pass (HTTPS's left out), for the failure's message."""
    audits = report["audits"]
    return [
        f"{ref['id']} {audits[ref['id']].get('displayValue', '')}".strip()
        for ref in report["categories"][category]["auditRefs"]
        if ref["weight"] > 0
        and ref["id"] not in HTTPS_ONLY
        and (audits[ref["id"]]["score"] is not None)
        and audits[ref["id"]]["score"] < 1
    ]


def test_every_page_scores_95_at_the_box_name(box_url: str, tmp_path: Path) -> None:
    assert not box_url.startswith(("http://localhost", "http://127."))
    environment = {**os.environ, "CHROME_PATH": str(CHROMIUM)}
    below: list[str] = []
    for path in PAGES:
        out = tmp_path / f"lighthouse{path.replace('/', '-')}.json"
        subprocess.run(
            [
                str(LIGHTHOUSE),
                box_url.rstrip("/") + path,
                "--quiet",
                "--output=json",
                f"--output-path={out}",
                f"--chrome-flags={FLAGS}",
                "--form-factor=mobile",
            ],
            env=environment,
            check=True,
            timeout=60,
            capture_output=True,  # about 12 s a page
        )
        report = json.loads(out.read_text())
        assert not report.get("runtimeError"), report.get("runtimeError")
        for category in report["categories"]:
            if score(report, category) < GOAL:
                below.append(f"{path} {category} {score(report, category):.2f}: {failing(report, category)}")
    assert not below, below
