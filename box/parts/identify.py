"""Which card a tag is, before any screen sees it: a card of a deck, a player's token, or unknown.

One part of the Box (box/core/service.py). The tag's own record wins over the tag map (a card
written on any box is known here); the map is the fallback for tags without one. A record
naming a card this box's decks do not have is an unknown card, saying which. A card left
lying on a reader when it (re)connected was tapped before a power cut, not now: refused.
Screens that take raw tags (the self-test, enrolment) get every tag as it is.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from textwrap import wrap
from typing import TYPE_CHECKING

from box.games import GAMES, TITLES
from box.games.base import View
from box.parts.notices import NOTICE_SECONDS
from box.screens.protocol import Card, Host, Screen
from box.storage.roster import PLAYER

if TYPE_CHECKING:
    from box.decks.codec import Deck
    from box.storage.tags import TagMap

log = logging.getLogger(__name__)


class CardIdentifier:
    """Names each tag laid on a reader and hands it on: to the screen on top, or a token to the seats."""

    def __init__(
        self,
        tags: TagMap,
        deck: Callable[[str], Deck],
        player_joins: Callable[[str, float], None],
        host: Host,
        flash: Callable[[View, float], None],
    ):
        self.tags, self.deck, self.player_joins, self.host, self.flash = tags, deck, player_joins, host, flash

    def placed(self, top: Screen, reader: str, uid: bytes, now: float, lying: bool, record: Card | None) -> None:
        """A tag laid on `reader` while `top` is the screen on top."""
        card = self.tags.lookup(uid) if record is None else record
        if not top.raw_tags:
            missing = self.not_in_decks(record) if record is not None else ""
            if lying:  # there before the reader (re)connected: tapped before a power cut or an unplug, not now
                self.host.reject(f"Card left on reader {reader}: lift it, tap again", now)
                return
            if missing or card is None:
                self.unknown(uid, now, missing)
                return
            if card[0] == PLAYER:
                self.player_joins(card[1], now)
                return
        top.tag(reader, uid, card, now)

    def not_in_decks(self, card: Card) -> str:
        """Why a card a tag's record names is not one of this box's (empty when it is)."""
        game, card_id = card
        if game == PLAYER:
            return ""  # a player's token: any name joins
        if game not in GAMES:
            return f"its game {game!r} is not on this box"
        try:
            deck = self.deck(game)
        except Exception as problem:  # a deck file that will not load: say so, keep the box usable
            log.error("deck %s: %s", game, problem)
            return f"the {game} deck will not load"
        return "" if card_id in deck else f"{game} {card_id} is not in this box's deck"

    def unknown(self, uid: bytes, now: float, why: str = "") -> None:
        """A tag the box cannot name: `why` when its record names a card that is not here."""
        self.host.reject(f"Unknown card {uid.hex()}" + (f": {why}" if why else ""), now)
        lines = (uid.hex(), "Its record:", *wrap(why, 21)) if why else (
            uid.hex(), "This tag is in no", "deck of this box.", "Enrol it: gravebox", "enroll GAME"
        )
        self.flash(View("Unknown card", tuple(lines[:5])), now + NOTICE_SECONDS)

    def refusal(self, card: Card | None, game: str | None) -> str:
        """Why a known card cannot go to the screen on top, with `game` in play (None: none)."""
        kind = card[0] if card is not None else ""
        title = TITLES.get(kind, kind)
        if game is None:
            return f"No game running ({title} card)"
        if kind != game:
            return f"That card is from {title}"
        return "Finish this screen first"
