"""A large upload (a whole box's backup) streamed into a file of the state folder, bounded in size
and in time, its form token checked before any byte of the file is kept.

Starlette's own form parser keeps a file in the temporary folder, which on a Pi is memory (a tmpfs):
a backup of many megabytes goes to the state folder instead, chunk by chunk, with python-multipart's
streaming parser (the one Starlette uses).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO

from python_multipart.multipart import MultipartParser, parse_options_header
from starlette.requests import Request

MAX_FIELD = 1024  # a small field's largest value (the form token)
OVERHEAD = 16 * 1024  # the multipart's own bytes beside the file: boundaries, headers, small fields


class UploadRefused(Exception):
    """Why the upload was not taken: the status and the one line to show."""

    def __init__(self, status: int, message: str):
        self.status = status
        super().__init__(message)


class FilePart:
    """The parser's callbacks: small fields kept in memory, the one file part (`name`) written to `target`
    once `allowed(fields)` says the fields before it are good."""

    def __init__(self, name: str, target: Path, limit: int, allowed: Callable[[dict[str, str]], bool]):
        self.name, self.target, self.limit, self.allowed = name, target, limit, allowed
        self.fields: dict[str, str] = {}
        self.header_field, self.header_value = bytearray(), bytearray()
        self.part: str | None = None
        self.is_file = False
        self.value = bytearray()
        self.out: IO[bytes] | None = None
        self.written = 0
        self.got_file = False
        self.problem: UploadRefused | None = None

    def callbacks(self) -> dict[str, Callable[..., None]]:
        return {
            "on_part_begin": self.begin, "on_part_data": self.data, "on_part_end": self.end,
            "on_header_field": lambda data, start, end: self.header_field.extend(data[start:end]),
            "on_header_value": lambda data, start, end: self.header_value.extend(data[start:end]),
            "on_header_end": self.header_end, "on_headers_finished": self.headers_finished,
        }

    def begin(self) -> None:
        self.part, self.is_file, self.value = None, False, bytearray()

    def header_end(self) -> None:
        if bytes(self.header_field).lower() == b"content-disposition":
            _, options = parse_options_header(bytes(self.header_value))
            self.part = options.get(b"name", b"").decode("utf-8", "replace")
            self.is_file = b"filename" in options
        self.header_field, self.header_value = bytearray(), bytearray()

    def headers_finished(self) -> None:
        if not self.is_file or self.problem is not None:
            return
        if self.part != self.name or self.out is not None:
            self.problem = UploadRefused(400, "Refused: one backup file, nothing else")
        elif not self.allowed(self.fields):  # the form token comes before the file: checked first
            self.problem = UploadRefused(403, "Refused: the form is stale; reload the page")
        else:
            self.out = open(self.target, "xb")  # noqa: SIM115  # closed by `close`, after the last chunk

    def data(self, data: bytes, start: int, end: int) -> None:
        if self.problem is not None:
            return
        if not self.is_file:
            self.value.extend(data[start:end])
            if len(self.value) > MAX_FIELD:
                self.problem = UploadRefused(413, "Refused: a field of the form is too long")
            return
        assert self.out is not None  # opened when its headers ended
        self.written += end - start
        if self.written > self.limit:
            self.problem = UploadRefused(413, f"Refused: larger than {self.limit // (1024 * 1024)} MB: not a Gravebox backup")
            return
        self.out.write(data[start:end])

    def end(self) -> None:
        if self.is_file and self.out is not None:
            self.got_file = True
        elif not self.is_file and self.part is not None:
            self.fields[self.part] = self.value.decode("utf-8", "replace")

    def close(self) -> None:
        if self.out is not None:
            self.out.flush()
            os.fsync(self.out.fileno())
            self.out.close()


async def receive_file(
    request: Request, name: str, target: Path, limit: int, seconds: float, allowed: Callable[[dict[str, str]], bool]
) -> dict[str, str]:
    """Stream the multipart form's file part `name` into the new file `target` (at most `limit`
    bytes, the whole request within `seconds`) and return the small fields; UploadRefused says
    why not (the file is then removed). OSError (a full disk) is the caller's, the file removed too."""
    _, options = parse_options_header(request.headers.get("content-type", ""))
    boundary = options.get(b"boundary")
    if not boundary:
        raise UploadRefused(400, "Refused: send the backup from the page's form")
    part = FilePart(name, target, limit, allowed)
    parser = MultipartParser(boundary, part.callbacks(), max_size=limit + OVERHEAD)  # type: ignore[arg-type]
    try:
        try:
            async with asyncio.timeout(seconds):
                async for chunk in request.stream():
                    parser.write(chunk)
                    if part.problem is not None:
                        raise part.problem
            parser.finalize()
        except TimeoutError:
            raise UploadRefused(408, f"Refused: the upload took longer than {seconds:.0f} s") from None
        except ValueError as problem:  # the parser's own errors (malformed, over max_size) are ValueErrors
            raise UploadRefused(400, f"Refused: not a form upload ({str(problem)[:80]})") from None
        finally:
            part.close()
        if part.problem is not None:
            raise part.problem
        if not part.got_file:
            raise UploadRefused(400, "Refused: no backup file was sent")
    except BaseException:
        target.unlink(missing_ok=True)
        raise
    return part.fields
