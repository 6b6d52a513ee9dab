"""Errors that carry where a bad file went wrong, for one-line messages."""

from __future__ import annotations


class FileProblem(Exception):
    """A data or configuration file that cannot be used.

    The message names the file, the line, the field and what is wrong, so the
    box can print one line and exit with status 2 instead of a traceback.

    >>> str(FileProblem("decks/dead-set.csv", "age is not a whole number: 'old'", line=7, field="age"))
    "decks/dead-set.csv:7: age: age is not a whole number: 'old'"
    """

    def __init__(
        self,
        path: object,
        message: str,
        line: int | None = None,
        field: str | None = None,
        storage_fault: bool = False,
    ):
        self.path = one_line(str(path))
        self.line = line
        self.field = field
        self.message = one_line(message)
        self.storage_fault = storage_fault
        """The storage refused to read it (an I/O error, permissions): the file itself may be fine."""
        super().__init__(str(self))

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


def one_line(text: str) -> str:
    """`text` without line breaks or other control characters (a file name from a phone may hold them).

    >>> one_line("tags\\n.csv")
    'tags\\\\n.csv'
    """
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


class DeckError(FileProblem):
    """A card deck CSV file with a bad row or header."""


class ConfigError(FileProblem):
    """A pin map, board or settings file that cannot be used."""


class PinUnavailable(RuntimeError):
    """A pin from the pin map that the GPIO library refuses (in use, invalid, no GPIO access)."""
