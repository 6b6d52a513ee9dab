"""A random but sensible Deck of Death player for a ``SimulatedBox``: presses, rolls and taps that move the game on.

Each input is chosen from what the current phase takes (docs/games/deck-of-death.md): OK or ROLL in the
draw phase, ROLL to throw, OK/BACK for challenges, UP/DOWN/OK for a failed card's consequences, a
tapped card or OK in the card phase, UP/DOWN/OK in duels; now and then a white card, a long UP or DOWN list, or a stray press the game
refuses. Inputs go through the simulated hardware: gpiozero mock pins and the simulated PN532s.
Long OK ("enough chaos") is never pressed, so the session never ends.
"""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

BUTTONS = ("up", "down", "ok", "back", "roll")
LONG_HOLD = 1.2  # seconds: past the 1 s long press

BY_PHASE: dict[str, tuple[str, ...]] = {
    "draw": ("ok", "roll"),
    "roll": ("roll", "roll", "roll", "ok"),
    "force": ("ok", "back"),
    "challenge": ("ok", "ok", "back", "tap-space"),
    "react": ("back", "tap", "tap"),
    "reflected": ("ok", "back"),
    "failed": ("up", "down", "ok", "ok"),  # a failed card that moves tokens: go on, cast inside, or move a token
    "card": ("tap", "tap", "tap", "ok"),
    "duel-style": ("up", "down", "ok", "ok"),
    "duel-roll": ("roll", "roll", "roll", "back"),
    "duel-winner": ("up", "down", "ok"),
}
BY_OVERLAY: dict[str, tuple[str, ...]] = {
    "immunity": ("up", "down", "ok", "back"),
    "rule-creator": ("up", "down", "ok", "ok", "back"),
    "rules": ("up", "down", "ok"),
    "scores": ("up", "down", "ok"),
    "chaos": ("back",),
    "menu": ("up", "down", "ok", "back", "back"),  # the table menu (move a token, reshuffle): mostly left
    "move": ("up", "down", "ok", "back"),
}


class Player:
    """Plays one Deck of Death session on ``world`` (a started game) with a seeded random source."""

    def __init__(self, world: Any, seed: int):
        self.world = world
        self.rng = random.Random(seed)
        deck = world.decks["deck-of-death"]
        self.white = [card for card in deck.cards if deck[card].color == "white"]
        self.coloured = [card for card in deck.cards if deck[card].color != "white"]
        self.inputs: Counter[str] = Counter()

    def choose(self) -> str:
        """The next input's name: a button, "long-up"/"long-down", "tap", "tap-space" or "tap-white"."""
        box = self.world.box
        if box.overlay is not None:
            return "back"
        state = box.session.state
        roll = self.rng.random()
        if state.overlay is not None:
            return self.rng.choice(BY_OVERLAY[state.overlay.kind])
        if roll < 0.03:
            return "tap-white"
        if roll < 0.05:
            return self.rng.choice(("long-up", "long-down"))
        if roll < 0.08:
            return self.rng.choice(BUTTONS)  # a stray press, usually refused
        return self.rng.choice(BY_PHASE[state.phase])

    def step(self) -> str:
        """Play one input; answer its name."""
        world, name = self.world, self.choose()
        if name in BUTTONS:
            world.press(name)
        elif name.startswith("long-"):
            world.press(name.split("-", 1)[1], LONG_HOLD)
        else:
            if name == "tap-white":
                card = self.rng.choice(self.white)
            elif name == "tap-space":
                state = world.box.session.state
                placed = state.spaces[state.slot]
                card = placed.card if placed is not None else self.rng.choice(self.coloured)
            else:
                card = self.rng.choice(self.coloured)
            reader = self.rng.choice(tuple(world.parts.readers))
            world.put(reader, world.box.tags.uid_of("deck-of-death", card))
            world.lift(reader)
            name = "tap"
        self.inputs[name if name in ("tap", "roll") else "press"] += 1
        return name

    def play(self, count: int) -> Counter[str]:
        """Play ``count`` inputs; answer how many of each kind (press, roll, tap)."""
        for _ in range(count):
            self.step()
        return self.inputs


def start(state_dir: Any, seed: int, players: int = 6) -> Any:
    """A ``SimulatedBox`` in ``state_dir`` with a Deck of Death game started."""
    from box.sim.world import SimulatedBox

    world = SimulatedBox(state_dir=state_dir, seed=seed)
    world.box.lobby.start_game("deck-of-death", world.now, players=players)
    world.advance(0.0)
    return world
