"""Box (`/box`): running or not, the version, the readers, the last self-test, the storage."""

from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from box.storage.roster import ROSTER_FILE
from box.storage.tags import TAGS_FILE
from box.web.journal_view import JOURNAL_FILE
from box.web.site import Site

log = logging.getLogger(__name__)


class BoxPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [Route("/box", self.show)]

    async def show(self, request: Request) -> Response:
        state, online = await self.site.current()
        return self.site.page(request, "box.html", {"state": state if online else None, **storage(self.site.state_dir)})


def storage(state_dir: Path) -> dict[str, Any]:
    """The Box page's storage figures and version."""
    from box import __version__

    files = {name: state_dir / name for name in (JOURNAL_FILE, f"{JOURNAL_FILE}-wal", TAGS_FILE, ROSTER_FILE)}
    sizes = {name: path.stat().st_size for name, path in files.items() if path.exists()}
    free: int | None = None
    total: int | None = None
    try:
        usage = shutil.disk_usage(state_dir)
        free, total = usage.free, usage.total
    except OSError as problem:  # the page shows no free space
        log.warning("free space of %s unknown: %s", state_dir, problem)
    selftest = state_dir / "selftest.json"
    try:
        report = json.loads(selftest.read_text(encoding="utf-8")) if selftest.exists() else None
    except (OSError, ValueError):
        report = None
    return {"sizes": sizes, "free": free, "total": total, "version": __version__, "selftest": report}
