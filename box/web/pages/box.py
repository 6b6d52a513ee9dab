"""Box (`/box`): running or not, the version, the readers, the last self-test, the storage; a paired
phone downloads the whole box in one file (`/box/backup`, box/storage/backup.py)."""

from __future__ import annotations

import json
import logging
import os
import shutil
from pathlib import Path
from typing import Any

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from box.base.wallclock import SAID
from box.errors import FileProblem
from box.storage.roster import ROSTER_FILE
from box.storage.tags import TAGS_FILE
from box.web.journal_view import JOURNAL_FILE
from box.web.site import Refused, Site

log = logging.getLogger(__name__)


class BoxPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/box", self.show),
            Route("/box/backup", self.backup, methods=["POST"]),
            Route("/clock", self.phone_time, methods=["POST"]),
        ]

    async def show(self, request: Request) -> Response:
        state, online = await self.site.current()
        clock = SAID.get(str(state.get("clock"))) if online else None
        context = {"state": state if online else None, "clock": clock, **storage(self.site.state_dir)}
        return self.site.page(request, "box.html", context)

    async def phone_time(self, request: Request) -> Response:
        """A paired phone's clock (static/clock.js, sent while the box's own is not synchronised)."""
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return PlainTextResponse(str(problem), status_code=problem.status)
        ms = str(form.get("ms", ""))
        if not ms.isdigit() or len(ms) > 16:
            return PlainTextResponse("ms: a whole number of milliseconds", status_code=400)
        if unheard := await self.site.tell_box("phone-time", ms=int(ms)):
            return PlainTextResponse(unheard, status_code=503)
        return PlainTextResponse("the box has this phone's time")

    async def backup(self, request: Request) -> Response:
        """The whole box as `gravebox backup` writes it, for a paired phone (the form's token and
        Origin checked): written beside the state, sent, then removed."""
        try:
            await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        try:
            path, name = await run_in_threadpool(write_download, self.site)
        except (FileProblem, OSError) as problem:
            log.warning("backup for the phone not written: %s", problem)
            return self.site.message(request, f"No backup: {problem}", 503)
        disposition = f'attachment; filename="{name}"'
        return FileResponse(path, media_type="application/x-tar", headers={"Content-Disposition": disposition},
                            background=BackgroundTask(path.unlink, missing_ok=True))


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


def write_download(site: Site) -> tuple[Path, str]:
    """A backup of the box in a new file of the state folder, and the name a phone saves it as."""
    import tempfile
    import time

    from box import __version__
    from box.storage.backup import Places, write_backup

    settings = site.settings
    places = Places(site.state_dir, settings.settings_file, settings.decks_dir)
    descriptor, name = tempfile.mkstemp(prefix=".gravebox-download-", suffix=".tar", dir=site.state_dir)
    os.close(descriptor)
    try:
        write_backup(places, Path(name), __version__)
    except BaseException:
        Path(name).unlink(missing_ok=True)
        raise
    return Path(name), f"gravebox-backup-{time.strftime('%Y%m%d-%H%M')}.tar"
