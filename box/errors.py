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


MAX_FIELD = 128 * 1024  # the csv module's field limit: no line of a box file is longer
MAX_SETTINGS_BYTES = 1024 * 1024
"""A deck, a board, the settings, a pin map: the largest built-in deck is under 20 kB."""


def read_text(
    path: object, error: type[FileProblem] = FileProblem, what: str = "file", limit: int = MAX_SETTINGS_BYTES
) -> str:
    """The text of a data or settings file, or `error` with one line saying what is wrong.

    Read by `box.files.read_bounded`: a missing file, a link, a folder, a FIFO or a device, a file
    over `limit` bytes, a file this user may not read, bytes that are not UTF-8 (with the line
    they are on) and a line over 128 KiB are refused; a UTF-8 byte-order mark (a spreadsheet's
    "CSV UTF-8") is dropped.

    >>> import tempfile, pathlib; folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a.csv").write_bytes(b"\\xef\\xbb\\xbfid,name\\n")
    >>> read_text(folder / "a.csv")
    'id,name\\n'
    >>> read_text(folder)
    Traceback (most recent call last):
    box.errors.FileProblem: ...: a folder, not a file
    """
    from box.files import read_bounded

    return decode_text(read_bounded(str(path), limit, error, what), path, error)


def decode_text(data: bytes, path: object, error: type[FileProblem] = FileProblem) -> str:
    """`data` as UTF-8 text without a byte-order mark; `error` names the line of a bad byte or a
    line over 128 KiB.

    >>> decode_text(b"a\\nb\\xff\\n", "x.csv")
    Traceback (most recent call last):
    box.errors.FileProblem: x.csv:2: not UTF-8 text (byte 0xff)
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        bad_line = data.count(b"\n", 0, problem.start) + 1
        raise error(path, f"not UTF-8 text (byte {problem.object[problem.start]:#04x})", line=bad_line) from None
    if len(text) > MAX_FIELD:
        for number, line in enumerate(text.splitlines(), start=1):
            if len(line) > MAX_FIELD:
                raise error(path, f"a line of {len(line)} characters; at most {MAX_FIELD}", line=number)
    return text.removeprefix("\ufeff")


def parse_toml(text: str, path: object, error: type[FileProblem] = FileProblem) -> dict:
    """`text` as TOML, or `error` with the line of the mistake; nesting deep enough to exhaust the
    parser is refused too (tomllib recurses).

    >>> parse_toml("a = " + "[" * 5000, "x.toml")
    Traceback (most recent call last):
    box.errors.FileProblem: x.toml: not valid TOML: nested too deep
    >>> parse_toml("a = 1\\nb = ?\\n", "x.toml")
    Traceback (most recent call last):
    box.errors.FileProblem: x.toml:2: not valid TOML: Invalid value
    """
    import re
    import tomllib

    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as problem:
        found = re.search(r"line (\d+)", str(problem))
        message = re.sub(r"\s*\(at line \d+, column \d+\)|\s*\(at end of document\)", "", str(problem))
        raise error(path, f"not valid TOML: {message}", line=int(found.group(1)) if found else None) from None
    except RecursionError:
        raise error(path, "not valid TOML: nested too deep") from None
