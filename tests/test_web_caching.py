"""What Lighthouse asks of every page, over HTTP: compressed text, static files kept by a versioned
address, pages without a secret kept for back/forward, a description on each, an installable manifest."""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

from starlette.testclient import TestClient

from box.web.app import WebSettings, create_app

PAGES = ("/", "/history", "/stats", "/roster", "/cards", "/box", "/pair")


def client(tmp_path: Path) -> TestClient:
    return TestClient(
        create_app(WebSettings(tmp_path / "state", tmp_path / "nobody.sock", hosts=("testserver",))),
        base_url="http://testserver",
    )


def test_pages_are_compressed_described_and_kept_for_back_and_forward(tmp_path: Path) -> None:
    with client(tmp_path) as web:
        for path in PAGES:
            reply = web.get(path, headers={"Accept-Encoding": "gzip"})
            assert reply.status_code == 200, path
            assert reply.headers.get("content-encoding") == "gzip", path
            assert reply.headers["cache-control"] == "no-cache", path  # an unpaired page holds no secret
            assert re.search(r'<meta name="description" content="[^"]{20,}">', reply.text), path
            for address in re.findall(r'(?:src|href)="(/static/[^"]+)"', reply.text):
                assert re.search(r"\?v=[0-9a-f]{12}$", address), address


def test_static_files_are_kept_a_year_by_their_versioned_address(tmp_path: Path) -> None:
    with client(tmp_path) as web:
        address = re.findall(r'href="(/static/style\.css\?v=[^"]+)"', web.get("/").text)[0]
        kept = web.get(address, headers={"Accept-Encoding": "gzip"})
        assert kept.headers["cache-control"] == "public, max-age=31536000, immutable"
        assert kept.headers.get("content-encoding") == "gzip"
        assert web.get("/static/style.css").headers["cache-control"] == "no-cache"  # unversioned: asked again
        assert web.get("/static/style.css?v=0123456789ab").headers["cache-control"] == "no-cache"  # an old version


def test_the_manifest_has_an_id_and_a_maskable_icon(tmp_path: Path) -> None:
    with client(tmp_path) as web:
        manifest = web.get("/manifest.webmanifest").json()
        assert manifest["id"] == "/"
        maskable = [icon for icon in manifest["icons"] if icon["purpose"] == "maskable"]
        assert maskable and all(web.get(icon["src"]).status_code == 200 for icon in maskable)


def test_the_event_stream_is_never_compressed(tmp_path: Path) -> None:
    """A compressed stream would hold each event back until enough followed it: the page would lag."""
    app = create_app(WebSettings(tmp_path / "state", tmp_path / "nobody.sock", hosts=("testserver",)))
    sent: list[dict[str, Any]] = []
    first_body = asyncio.Event()
    never = asyncio.Event()

    async def receive() -> dict[str, Any]:
        await never.wait()  # the phone keeps listening
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message.get("body"):
            first_body.set()

    async def listen() -> None:
        headers = [(b"host", b"testserver"), (b"accept-encoding", b"gzip")]
        scope = {
            "type": "http",
            "method": "GET",
            "path": "/events",
            "raw_path": b"/events",
            "query_string": b"",
            "headers": headers,
            "scheme": "http",
            "server": ("testserver", 80),
            "client": ("127.0.0.1", 1),
            "http_version": "1.1",
            "root_path": "",
            "asgi": {"version": "3.0"},
        }
        task = asyncio.create_task(app(scope, receive, send))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(first_body.wait(), 2.0)  # the stream's first event, as it is sent
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(listen())
    start = next(message for message in sent if message["type"] == "http.response.start")
    headers = dict(start["headers"])
    assert headers[b"content-type"].startswith(b"text/event-stream") and b"content-encoding" not in headers
    assert next(message["body"] for message in sent if message.get("body")).startswith(b"data: ")
