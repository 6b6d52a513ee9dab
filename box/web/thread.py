"""The page served from a thread of another process: the simulator's `--web`, and the browser tests."""

from __future__ import annotations

import threading
import time

from box.web.app import WebSettings, create_app


class PageThread:
    """uvicorn on a daemon thread; `start` returns once it listens, `stop` ends it."""

    def __init__(self, settings: WebSettings, host: str, port: int):
        self.settings, self.host, self.port = settings, host, port
        self.server = None
        self.thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}/"

    def start(self, timeout: float = 10.0) -> None:
        import uvicorn

        config = uvicorn.Config(
            create_app(self.settings),
            host=self.host,
            port=self.port,
            http="h11",
            loop="asyncio",
            ws="none",
            lifespan="on",
            access_log=False,
            log_level="warning",
            timeout_graceful_shutdown=1,
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, name="web", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise OSError(f"the page could not listen on {self.host}:{self.port}")
            time.sleep(0.02)
        if self.port == 0:
            self.port = self.server.servers[0].sockets[0].getsockname()[1]

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(5)
