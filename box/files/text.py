"""Text and TOML from a file outside the box, judged before use: UTF-8 only, lines bounded, a
byte-order mark dropped, the TOML's mistakes told with their line.
"""

from __future__ import annotations

from box.errors import FileProblem
from box.files.bounded import read_bounded

MAX_FIELD = 128 * 1024  # the csv module's field limit: no line of a box file is longer
MAX_SETTINGS_BYTES = 1024 * 1024
"""A deck, a board, the settings, a pin map: the largest built-in deck is under 20 kB."""


def read_text(
    path: object, error: type[FileProblem] = FileProblem, what: str = "file", limit: int = MAX_SETTINGS_BYTES
) -> str:
    """The text of a data or settings file, or `error` with one line saying what is wrong.

    Read by `box.files.bounded.read_bounded`: a missing file, a link, a folder, a FIFO or a device, a file
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
