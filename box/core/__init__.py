"""The running box: the Box (the stack of screens, the one door, undo, its events), the one loop
that owns all state, the composition root, the hardware it opens, its fault screen, the journal's
full check after READY, and the USB stick's worker.

It may import every folder below it (parts, screens, base, links, storage, ports, games, decks, files).
"""
