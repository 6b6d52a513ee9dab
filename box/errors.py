"""Errors that carry where a bad file went wrong, for one-line messages."""

from __future__ import annotations


class FileProblem(Exception):
    """A data or configuration file that cannot be used.

    The message names the file, the line, the field and what is wrong, so the
    box can print one line and exit with status 2 instead of a traceback.

    >>> str(FileProblem("decks/dead-set.csv", "age is not a whole number: 'old'", line=7, field="age"))
    "decks/dead-set.csv:7: age: age is not a whole number: 'old'"
    """

    def __init__(self, path: object, message: str, line: int | None = None, field: str | None = None):
        self.path = str(path)
        self.line = line
        self.field = field
        self.message = message
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


class DeckError(FileProblem):
    """A card deck CSV file with a bad row or header."""


class ConfigError(FileProblem):
    """A pin map, board or settings file that cannot be used."""
