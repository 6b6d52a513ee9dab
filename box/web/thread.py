"""The page served from a thread of another process: the simulator's `--web`, and the browser tests."""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from box.web.app import WebSettings, create_app
from box.web.server import UVICORN_OPTIONS

if TYPE_CHECKING:  # imported where they are used: the simulator without --web loads none of them
    import tempfile

    import uvicorn

    from box.links.control import ControlServer


class PageThread:
    """uvicorn on a daemon thread; `start` returns once it listens, `stop` ends it."""

    def __init__(self, settings: WebSettings, host: str, port: int):
        self.settings, self.host, self.port = settings, host, port
        self.server: uvicorn.Server | None = None
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self, timeout: float = 10.0) -> None:
        import uvicorn

        app = create_app(self.settings)
        config = uvicorn.Config(app, host=self.host, port=self.port, **UVICORN_OPTIONS, timeout_graceful_shutdown=1)
        self.server = server = uvicorn.Server(config)
        self.thread = thread = threading.Thread(target=server.run, name="web", daemon=True)
        thread.start()
        deadline = time.monotonic() + timeout
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the page could not listen on {self.host}:{self.port}")
            time.sleep(0.02)
        if self.port == 0:
            self.port = server.servers[0].sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(5)


class Beside:
    """`gravebox sim --web HOST:PORT`: the simulator's control socket and the page, in this process.

    The socket lives in a private temporary folder; the page reads the simulator's state folder.
    """

    def __init__(self, host: str, port: int):
        self.host, self.port = host, port
        self.control: ControlServer | None = None
        self.page: PageThread | None = None
        self.scratch: tempfile.TemporaryDirectory[str] | None = None

    @classmethod
    def parse(cls, listen: str) -> Beside:
        from box.web.server import parse_listen

        return cls(*parse_listen(listen))

    @property
    def url(self) -> str:
        return self.page.url if self.page is not None else f"http://{self.host}:{self.port}/"

    def start(self, state_dir: Path, decks_dir: Path | None) -> ControlServer:
        import tempfile

        from box.links.control import ControlServer

        self.scratch = scratch = tempfile.TemporaryDirectory(prefix="gravebox-sim-run-")
        self.control = control = ControlServer(Path(scratch.name) / "control.sock", lambda command: None)
        control.start()  # the simulated box takes its commands once it boots
        settings = WebSettings(Path(state_dir), control.path, decks_dir=decks_dir)
        self.page = page = PageThread(settings, self.host, self.port)
        page.start()
        print(f"gravebox: the phone page is on {page.url}; the control socket is {control.path}", file=sys.stderr)
        return control

    def wait(self, message: str) -> None:
        """Keep serving until Ctrl-C (only with a terminal to press it in)."""
        if not sys.stdin.isatty():
            return
        print(f"gravebox: {message}; Ctrl-C ends", file=sys.stderr)
        with contextlib.suppress(KeyboardInterrupt):
            while True:
                time.sleep(3600)

    def stop(self) -> None:
        if self.page is not None:
            self.page.stop()
        if self.control is not None:
            self.control.stop()
        if self.scratch is not None:
            self.scratch.cleanup()
