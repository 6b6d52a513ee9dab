"""What the Box, its parts and screens stand on: the owner's settings as the Box reads them, a game
as a fold of its rules over the journal (`session`), the shot timer, the screen's care, the wall
clock (`wallclock`: the date games are given, and which clock it came from).

Pure objects on explicit times; they may import storage, games, decks and the shared words.
"""
