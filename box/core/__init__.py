"""The running box: the Box (the stack of screens, the one door, undo, its events), the one loop
that owns all state, the composition root, the hardware it opens, its fault screen, sd_notify.

It may import every folder below it (links, parts, screens, base, storage, ports, games, decks).
"""
