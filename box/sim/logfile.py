"""The terminal simulator's log: a size-bounded file in its state folder, never a line in the drawing.

While the simulator draws, every log line (the box's, the phone page's server's, Python's warnings)
goes to `<state folder>/gravebox-sim.log`, kept under MAX_BYTES and rotated into BACKUPS older
files (`gravebox-sim.log.1`, ...), so a long session cannot fill the disk. Whatever else a thread
writes to stderr (a traceback) is logged there too.
"""

from __future__ import annotations

import contextlib
import logging
import sys
from collections.abc import Iterator
from logging.handlers import RotatingFileHandler
from pathlib import Path

from box.errors import FileProblem

LOG_FILE = "gravebox-sim.log"
MAX_BYTES = 1_000_000
BACKUPS = 2  # the log and two older ones: at most 3 MB
FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class StderrToLog:
    """A stand-in for sys.stderr that logs each whole line written to it (a thread's traceback)."""

    def __init__(self, logger: logging.Logger):
        self.logger = logger
        self.pending = ""
        self.writing = False  # a failing log handler reports on stderr: never loop on it

    def write(self, text: str) -> int:
        if self.writing:
            return len(text)
        self.pending += text
        *lines, self.pending = self.pending.split("\n")
        self.writing = True
        try:
            for line in lines:
                self.logger.warning("%s", line)
        finally:
            self.writing = False
        return len(text)

    def flush(self) -> None:
        if self.pending:
            self.write("\n")

    def isatty(self) -> bool:
        return False


def to_terminal(handler: logging.Handler) -> bool:
    """A handler that writes to the process's stderr or stdout (the terminal the simulator draws on)."""
    streams = (sys.stderr, sys.stdout, sys.__stderr__, sys.__stdout__)
    return (
        isinstance(handler, logging.StreamHandler)
        and not isinstance(handler, logging.FileHandler)
        and any(handler.stream is stream for stream in streams)
    )


@contextlib.contextmanager
def logging_to_file(state_dir: Path) -> Iterator[Path]:
    """Inside, every log line goes to `state_dir/gravebox-sim.log` and none to the terminal; after, as before.

    The folder must exist. A log that cannot be opened is a `FileProblem` (one line, before any drawing).
    """
    path = state_dir / LOG_FILE
    try:
        handler = RotatingFileHandler(path, maxBytes=MAX_BYTES, backupCount=BACKUPS, encoding="utf-8")
    except OSError as problem:
        raise FileProblem(path, f"cannot write the simulator's log: {problem.strerror or problem}") from None
    handler.setFormatter(logging.Formatter(FORMAT))
    root = logging.getLogger()
    loggers = [root, *(item for item in root.manager.loggerDict.values() if isinstance(item, logging.Logger))]
    moved = [(logger, old) for logger in loggers for old in list(logger.handlers) if to_terminal(old)]
    for logger, old in moved:
        logger.removeHandler(old)
        logger.addHandler(handler)  # a logger that does not propagate (uvicorn's) writes here instead
    root.addHandler(handler)  # once only: a logger keeps a handler once
    logging.captureWarnings(True)
    try:
        with contextlib.redirect_stderr(StderrToLog(logging.getLogger("gravebox.stderr"))):
            yield path
    finally:
        logging.captureWarnings(False)
        for logger in {id(logger): logger for logger in [root, *(logger for logger, _ in moved)]}.values():
            logger.removeHandler(handler)
        for logger, old in moved:
            logger.addHandler(old)
        handler.close()
