"""The box's links to the outside: the control socket and its client, whom the socket trusts,
and `gravebox mqtt`, the process that follows the socket for the home.

It may import the base, storage, games and the shared words; nothing of the Box or its screens.
"""
