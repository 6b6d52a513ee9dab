"""The box's files and their one codec each: the journal, the tag map, the roster, the settings,
the pin map, the history, the backup (`backup`: all of them in one file), and the one way a file
is read or written (`files`).

They may import the games, the decks and the shared words; nothing of the Box, no port.
"""
