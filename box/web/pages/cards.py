"""Cards (`/cards`): each deck and its tags, enrolment from the phone, the tag map's backup, deck uploads.

The checks of uploaded files are box/web/cards.py's.
"""

from __future__ import annotations

import logging
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from box.errors import FileProblem
from box.games import GAMES, TITLES
from box.storage.journal.errors import storage_reason
from box.storage.roster import ROSTER_FILE, load_roster
from box.storage.tags import TAGS_FILE, TagMap
from box.web.cards import check_deck_upload, check_tags_upload, deck_rows
from box.web.site import NOT_RUNNING, Refused, Site, cards_signature

log = logging.getLogger(__name__)

PLAYER = "player"  # the tag map's game of a player token


class CardsPage:
    def __init__(self, site: Site):
        self.site = site

    def routes(self) -> list[Route]:
        return [
            Route("/cards", self.show),
            Route("/cards/tags.csv", self.tags_csv),
            Route("/cards/enrol", self.enrol, methods=["POST"]),
            Route("/cards/enrol-stop", self.enrol_stop, methods=["POST"]),
            Route("/cards/restore", self.restore, methods=["POST"]),
            Route("/cards/deck", self.deck_upload, methods=["POST"]),
        ]

    async def context(self, message: str = "", ok: bool = True, deck: str = "") -> dict[str, Any]:
        """The page's parts; the card list shown is `deck`'s, else the deck being enrolled's (only one, so
        the page stays light on a phone: the others list theirs when asked)."""
        state, online = await self.site.current()
        state_dir = self.site.state_dir
        try:
            tags = TagMap.load(state_dir / TAGS_FILE)
            problem = ""
        except FileProblem as bad:
            tags, problem = TagMap(), str(bad)
        decks: dict[str, Any] = {}
        for game in GAMES:
            try:
                decks[game] = deck_rows(self.site.view.card_list(game), tags)
            except FileProblem as bad:
                decks[game] = None
                problem = problem or str(bad)
        try:
            names = load_roster(state_dir / ROSTER_FILE).names
        except FileProblem:
            names = ()
        tokens = {card: uid.hex() for uid, (game, card) in tags.cards.items() if game == PLAYER}
        seen = {reader: self.seen_as(tags, uid) for reader, uid in ((state or {}).get("last_tags") or {}).items()}
        enrolling = ((state or {}).get("enrolment") or {}).get("game") if online else None
        return {
            "decks": decks,
            "shown": deck if deck in GAMES else enrolling,
            "signature": cards_signature(state),
            "state": state if online else None,
            "names": names,
            "tokens": tokens,
            "seen": seen,
            "message": message or problem,
            "ok": ok and not problem,
        }

    def seen_as(self, tags: TagMap, seen: object) -> tuple[str, str]:
        """A tag a reader saw, as the box published it, and its UID: the card it is ("Marie Curie
        (Deadlines)", the box's word first: a card's own record names it on any box), else the tag
        map's, else "unknown tag"; a card the game keeps secret stays "a face-down card"."""
        entry = seen if isinstance(seen, dict) else {"uid": seen}  # an older box published the UID alone
        if entry.get("hidden"):
            return "a face-down card", ""
        uid = str(entry.get("uid") or "")[:64]
        card = entry.get("card")
        if not (isinstance(card, list) and len(card) == 2 and all(isinstance(part, str) for part in card)):
            try:
                card = tags.lookup(bytes.fromhex(uid))
            except ValueError:
                card = None
        if card is None:
            return "unknown tag", uid
        game, card_id = card
        if game == PLAYER:
            return f"{card_id}'s player token", uid
        return f"{self.site.card_name(game, card_id)} ({TITLES.get(game, game)})", uid

    async def answer(self, request: Request, message: str, status: int = 200, deck: str = "") -> Response:
        """The Cards page with `message` (a problem when `status` is not 200), `deck`'s cards listed."""
        context = await self.context(message, ok=status == 200, deck=deck)
        return self.site.page(request, "cards.html", context, status)

    async def show(self, request: Request) -> Response:
        return self.site.page(request, "cards.html", await self.context(deck=request.query_params.get("deck", "")))

    async def tags_csv(self, request: Request) -> Response:
        if self.site.closed_to(request):
            return PlainTextResponse("pair this phone first", status_code=403)
        path = self.site.state_dir / TAGS_FILE
        body = path.read_bytes() if path.exists() else b"uid,game,card\n"
        disposition = 'attachment; filename="gravebox-tags.csv"'
        return Response(body, media_type="text/csv", headers={"Content-Disposition": disposition})

    async def enrol(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        game, card = str(form.get("game", "")), str(form.get("card", ""))
        if game == PLAYER:
            try:
                names = load_roster(self.site.state_dir / ROSTER_FILE).names
            except FileProblem as problem:
                return await self.answer(request, str(problem), 400)
            if card not in names:
                return await self.answer(request, f"{card!r} is not in the roster", 400)
            command, args, label = "enrol-player", {"name": card}, f"player {card}"
        else:
            if game not in GAMES or card not in self.site.view.card_list(game):
                return await self.answer(request, f"No card {card!r} in {game!r}", 400)
            command, args, label = "enrol", {"game": game, "card": card}, self.site.card_name(game, card)
        if unheard := await self.site.tell_box(command, **args):
            return await self.answer(request, unheard, 503, deck=game)
        return await self.answer(request, f"Tap the tag for {label} on any reader", deck=game)

    async def enrol_stop(self, request: Request) -> Response:
        try:
            await self.site.guard(request)
        except Refused as problem:
            return self.site.refused(request, problem)
        await self.site.tell_box("enrol-stop")
        return await self.answer(request, "Enrolment stopped")

    async def restore(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request, upload=True)
        except Refused as problem:
            return self.site.refused(request, problem)
        upload = form.get("file")
        if upload is None or isinstance(upload, str):
            return await self.answer(request, "Choose a tag map file", 400)
        data = await upload.read(self.site.settings.max_upload + 1)
        try:
            tags = check_tags_upload(data, upload.filename or "upload.csv", self.site.view.card_list)
        except FileProblem as problem:
            return await self.answer(request, f"Not restored: {problem}", 400)
        if failed := await self.site.write(tags.save, self.site.state_dir / TAGS_FILE):
            return await self.answer(request, f"Not restored: {failed}", 409)
        unheard = await self.site.tell_box("tags-changed")
        later = " (the box reads them when it starts)" if unheard == NOT_RUNNING else f" ({unheard})" if unheard else ""
        return await self.answer(request, f"Restored {len(tags.cards)} tags{later}")

    async def deck_upload(self, request: Request) -> Response:
        try:
            form = await self.site.guard(request, upload=True)
        except Refused as problem:
            return self.site.refused(request, problem)
        game, upload = str(form.get("game", "")), form.get("file")
        if game not in GAMES or upload is None or isinstance(upload, str):
            return await self.answer(request, "Choose a game and a deck file", 400)
        data = await upload.read(self.site.settings.max_upload + 1)
        name = upload.filename or f"{game}.csv"
        try:
            deck = await run_in_threadpool(check_deck_upload, game, data, name, self.site.state_dir)
        except FileProblem as problem:
            return await self.answer(request, f"Not used: {problem}", 400)
        except OSError as problem:  # the deck was good, its write was not (a full disk): said as every write says it
            log.error("an uploaded deck was not written: %s", problem)
            return await self.answer(request, f"Not saved: {storage_reason(problem) or 'Storage failing'}", 409)
        self.site.view.forget_decks()
        told = not await self.site.tell_box("decks-changed")
        return await self.answer(
            request, f"{TITLES[game]}: {len(deck)} cards" + (", used from the next game" if told else "")
        )
