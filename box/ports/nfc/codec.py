"""PN532 frames: encode host commands, decode a byte stream into frames.

Pure code: bytes in, frames out, no serial port. A frame on the line is
``00 00 FF LEN LCS TFI PD... DCS 00`` (or the extended form
``00 00 FF FF FF LENM LENL LCS TFI PD... DCS 00``), with
``LEN + LCS == 0`` and ``TFI + sum(PD) + DCS == 0`` modulo 256.

>>> encode_command(0x02).hex(" ")
'00 00 ff 02 fe d4 02 2a 00'
>>> FrameDecoder().feed(ACK + bytes.fromhex("0000ff06fad50332010607e800"))
[Ack(), Response(tfi=213, payload=b'\\x032\\x01\\x06\\x07')]
"""

from __future__ import annotations

from dataclasses import dataclass

START_CODE = b"\x00\x00\xff"
HOST_TO_CHIP = 0xD4
CHIP_TO_HOST = 0xD5
ERROR_TFI = 0x7F
POSTAMBLE = 0x00
ACK = b"\x00\x00\xff\x00\xff\x00"
NACK = b"\x00\x00\xff\xff\x00\x00"
ERROR_FRAME = b"\x00\x00\xff\x01\xff\x7f\x81\x00"
MAX_NORMAL_LENGTH = 255
"""Most bytes (TFI included) a normal frame carries; longer data needs an extended frame."""
MAX_LENGTH = 265
"""Most bytes (TFI included) the PN532 firmware handles in one frame."""


@dataclass(frozen=True)
class Ack:
    """The chip took the command (or, sent by the host, aborts the running one)."""


@dataclass(frozen=True)
class Nack:
    """A request to send the last response again."""


@dataclass(frozen=True)
class ErrorFrame:
    """The chip's application-level error (for example an unknown command)."""


@dataclass(frozen=True)
class Response:
    """An information frame: ``tfi`` (D5 from the chip, D4 from the host) and the bytes after it.

    The first payload byte is the command code (the response code is the command code + 1).
    """

    tfi: int
    payload: bytes


Frame = Ack | Nack | ErrorFrame | Response


def _checksum(data: bytes) -> int:
    """The byte that makes ``data`` plus itself sum to zero modulo 256."""
    return -sum(data) & 0xFF


def encode_frame(tfi: int, payload: bytes) -> bytes:
    """Encode one information frame, extended when the data does not fit a normal one.

    >>> encode_frame(0xD5, b"\\x15").hex(" ")
    '00 00 ff 02 fe d5 15 16 00'
    >>> encode_frame(0xD4, bytes(260))[:9].hex(" ")
    '00 00 ff ff ff 01 05 fa d4'
    """
    length = len(payload) + 1
    if length > MAX_LENGTH:
        raise ValueError(f"a PN532 frame carries at most {MAX_LENGTH - 1} data bytes, not {len(payload)}")
    if length <= MAX_NORMAL_LENGTH:
        header = bytes([length, _checksum(bytes([length]))])
    else:
        size = length.to_bytes(2, "big")
        header = b"\xff\xff" + size + bytes([_checksum(size)])
    body = bytes([tfi]) + payload
    return START_CODE + header + body + bytes([_checksum(body), 0x00])


def encode_command(command: int, params: bytes = b"") -> bytes:
    """Encode a host-to-chip command frame (TFI D4).

    >>> encode_command(0x4A, b"\\x01\\x00").hex(" ")
    '00 00 ff 04 fc d4 4a 01 00 e1 00'
    """
    if not 0 <= command <= 0xFF:
        raise ValueError(f"a PN532 command code is one byte, not {command!r}")
    return encode_frame(HOST_TO_CHIP, bytes([command]) + params)


class FrameDecoder:
    """Incremental, resynchronising decoder: feed it bytes as they come, get whole frames.

    Padding and garbage are skipped up to the next ``00 00 FF``. A candidate frame whose
    LCS or DCS is wrong, whose postamble is not ``00``, whose TFI is neither D4 nor D5 (or
    whose length is impossible) is dropped, and the search starts again one byte after its
    start code, so a valid frame hidden behind it is still found. As in libnfc's
    ``pn532_uart_receive``, the DCS and the postamble must follow the LEN bytes: a frame
    whose LEN is one too long (its LCS matching) is never taken.

    >>> decoder = FrameDecoder()
    >>> decoder.feed(b"\\x42\\x00\\x00\\xff\\x00")
    []
    >>> decoder.feed(b"\\xff\\x00")
    [Ack()]
    """

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        """Take more bytes from the line and return the frames they complete."""
        self._buffer += data
        frames: list[Frame] = []
        while True:
            start = self._buffer.find(START_CODE)
            if start < 0:
                del self._buffer[: max(0, len(self._buffer) - len(START_CODE) + 1)]
                return frames
            del self._buffer[:start]
            frame, used = self._parse_frame()
            if not used:
                return frames
            if frame is not None:
                frames.append(frame)
            del self._buffer[:used]

    def bytes_wanted(self) -> int:
        """The fewest further bytes that could complete a frame (so a read can ask for that many)."""
        if not self._buffer.startswith(START_CODE):
            return 5 - len(self._buffer)
        return max(1, self._frame_length() - len(self._buffer))

    def _frame_length(self) -> int:
        """Bytes (start code to postamble) the frame at the start of the buffer needs, as far as known."""
        buffer = self._buffer
        if len(buffer) < 5 or buffer[3:5] in (b"\x00\xff", b"\xff\x00"):
            return 5
        if buffer[3:5] == b"\xff\xff":
            return 8 + int.from_bytes(buffer[5:7], "big") + 2 if len(buffer) >= 7 else 8
        return 5 + buffer[3] + 2

    def _parse_frame(self) -> tuple[Frame | None, int]:
        """Parse the frame at the buffer start into (frame, bytes used).

        (None, 0) means more bytes are needed; (None, 1) means the candidate is bad and only
        its first byte is dropped.
        """
        buffer = self._buffer
        if len(buffer) < 5:
            return None, 0
        marker = bytes(buffer[3:5])
        if marker == b"\x00\xff":
            return Ack(), 5
        if marker == b"\xff\x00":
            return Nack(), 5
        if marker == b"\xff\xff":
            if len(buffer) < 8:
                return None, 0
            length, header = int.from_bytes(buffer[5:7], "big"), 8
            length_is_valid = (buffer[5] + buffer[6] + buffer[7]) & 0xFF == 0
        else:
            length, header = buffer[3], 5
            length_is_valid = (buffer[3] + buffer[4]) & 0xFF == 0
        if not length_is_valid or not 1 <= length <= MAX_LENGTH:
            return None, 1
        end = header + length + 2  # the data, its DCS and the postamble
        if len(buffer) < end:
            return None, 0
        body = bytes(buffer[header : end - 2])
        if _checksum(body) != buffer[end - 2] or buffer[end - 1] != POSTAMBLE:
            return None, 1  # a LEN one too long makes the DCS data and the postamble the DCS: caught here
        if body == bytes([ERROR_TFI]):
            return ErrorFrame(), end
        if body[0] not in (HOST_TO_CHIP, CHIP_TO_HOST):
            return None, 1
        return Response(tfi=body[0], payload=body[1:]), end
