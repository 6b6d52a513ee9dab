"""Box (`/box`): running or not, the version, the readers, the last self-test, the storage; a paired
phone downloads the whole box in one file (`/box/backup`, box/storage/backup.py) and restores one
(`/box/restore`: uploaded into the state folder and checked as `gravebox restore` checks it, a
question, then the box's own `restore` command: box/storage/backup_upload.py)."""

from __future__ import annotations

import json
import logging
import os
import secrets
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
from box.storage.backup import MAX_BACKUP, NotABackup
from box.storage.backup_upload import check_upload, is_upload_name, remove_stale, upload_name
from box.storage.journal.errors import storage_reason
from box.storage.roster import ROSTER_FILE
from box.storage.tags import TAGS_FILE
from box.web import security
from box.web.journal_view import JOURNAL_FILE
from box.web.site import FOREIGN, NOT_RUNNING, PENDING, Refused, Site, from_this_page
from box.web.upload import OVERHEAD, UploadRefused, receive_file
from box.words import digits_value

log = logging.getLogger(__name__)

UPLOAD_SECONDS = 600.0  # the whole upload of a backup, however slow the phone's Wi-Fi
RESTORED = "Restored: the box has the backup's games, roster, tags and history, and resumes its game"


class BoxPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/box", self.show),
            Route("/box/backup", self.backup, methods=["POST"]),
            Route("/box/restore", self.upload, methods=["POST"]),
            Route("/box/restore/confirm", self.confirm, methods=["POST"]),
            Route("/box/restore/cancel", self.cancel, methods=["POST"]),
            Route("/clock", self.phone_time, methods=["POST"]),
        ]

    async def upload(self, request: Request) -> Response:
        """A backup from a paired phone: streamed into the state folder (bounded in size and time),
        checked whole by the restore's own reader, then the question; nothing of the box changes."""
        length = digits_value(request.headers.get("content-length"))
        session = self.site.session_of(request)
        if not from_this_page(request):
            return self.site.message(request, FOREIGN, 403)
        if length is None:
            return self.site.message(request, "Refused: the request must say its length", 411)
        if length > MAX_BACKUP + OVERHEAD:
            return self.site.message(request, f"Refused: larger than {MAX_BACKUP // 2**20} MB: not a Gravebox backup", 413)
        if session is None:
            return self.site.message(request, "Pair this phone first (Pair, then the code on the box's screen)", 403)
        token = secrets.token_hex(16)
        target = self.site.state_dir / upload_name(token)
        await run_in_threadpool(remove_stale, self.site.state_dir)
        try:
            await receive_file(request, "backup", target, MAX_BACKUP, UPLOAD_SECONDS,
                               lambda fields: security.csrf_ok(session, fields.get("csrf")))
            manifest = await run_in_threadpool(check_upload, target)
        except UploadRefused as problem:
            return self.site.message(request, str(problem), problem.status)
        except NotABackup as problem:
            target.unlink(missing_ok=True)
            return self.site.message(request, f"Not restored: {problem.message}", 400)
        except OSError as problem:
            target.unlink(missing_ok=True)
            log.error("a backup from the phone was not kept: %s", problem)
            return self.site.message(request, f"Not saved: {storage_reason(problem) or 'Storage failing'}", 409)
        await run_in_threadpool(remove_stale, self.site.state_dir, float("inf"), target.name)  # one question at a time
        size = sum(size for size, _ in manifest.parts.values())
        context = {"token": token, "made": manifest.made, "made_by": manifest.box, "kb": max(1, round(size / 1000)),
                   "games": "journal.db" in manifest.parts}
        return self.site.page(request, "restore.html", context)

    async def confirm(self, request: Request) -> Response:
        """The owner said yes: the box restores the upload itself (its `restore` command) and resumes
        the restored game; its verdict is the answer."""
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        name = upload_name(str(form.get("token", "")))
        if not is_upload_name(name) or not (self.site.state_dir / name).is_file():
            return self.site.message(request, "That backup is gone (answered already, or too old): send it again", 410)
        unheard = await self.site.tell_box("restore", file=name)
        if unheard == PENDING:
            return self.site.message(request, unheard, 202)
        if unheard:
            (self.site.state_dir / name).unlink(missing_ok=True)
            status = 503 if unheard == NOT_RUNNING else 409
            return self.site.message(request, f"{unheard}: nothing restored", status)
        await run_in_threadpool(self.site.view.forget)
        return self.site.page(request, "message.html", {"message": RESTORED, "ok": True})

    async def cancel(self, request: Request) -> Response:
        """The owner said no: the upload goes, the box stays as it is."""
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        name = upload_name(str(form.get("token", "")))
        if is_upload_name(name):
            (self.site.state_dir / name).unlink(missing_ok=True)
        return self.site.page(request, "message.html", {"message": "Nothing restored: the box is as it was", "ok": True})

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
        text = str(form.get("ms", ""))
        ms = digits_value(text)
        if ms is None or len(text) > 16:
            return PlainTextResponse("ms: a whole number of milliseconds", status_code=400)
        if unheard := await self.site.tell_box("phone-time", ms=ms):
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
