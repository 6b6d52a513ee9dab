"""The simulator: the box on fakes, played in a terminal or driven by a script.

The top of the in-process stack beside the phone page: it assembles the real Box (box.core) on
the libraries' own fakes and may import everything below it.
"""
