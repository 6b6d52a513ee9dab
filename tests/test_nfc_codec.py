"""The PN532 frame codec: exact bytes, round trips, chunking, garbage and damaged frames.

What the decoder guarantees, tested below:

1. Soundness: every frame it yields is literally in the input, start code to postamble (to
   the marker for an ACK or a NACK), with both checksums right and a D4 or D5 TFI. A frame
   with a wrong LCS, DCS or postamble is never yielded.
2. Any chunking of a stream gives the same frames; frames survive any padding and any garbage
   that holds no start code ``00 00 FF``.
3. A frame damaged in one byte is never yielded. Nothing else is yielded in its place and the
   frames after it are all found, unless the damaged bytes still hold a well-formed header: a
   start code inside them (in its payload, or made by the damage), or a 2-byte marker that
   still reads as a header (the damage hit the marker of an ACK, a NACK or an extended frame).
   In those cases what comes out is still covered by 1: bytes on the line that are a frame.
4. ``bytes_wanted()`` never asks for more bytes than the next frame still needs, so a read of
   that many bytes never waits for bytes that a real chip will not send.
"""

from __future__ import annotations

from hypothesis import assume, given
from hypothesis import strategies as st

from box.ports.nfc.codec import (
    ACK,
    ERROR_FRAME,
    MAX_LENGTH,
    NACK,
    START_CODE,
    Ack,
    ErrorFrame,
    Frame,
    FrameDecoder,
    Nack,
    Response,
    encode_command,
    encode_frame,
)


def wire(frame: Frame) -> bytes:
    """The bytes a sender puts on the line for a frame (postamble included)."""
    match frame:
        case Ack():
            return ACK
        case Nack():
            return NACK
        case ErrorFrame():
            return ERROR_FRAME
        case Response(tfi=tfi, payload=payload):
            return encode_frame(tfi, payload)
    raise AssertionError(frame)


def forms_on_line(frame: Frame) -> list[bytes]:
    """Every byte sequence, start code to postamble, that decodes to this frame."""
    match frame:
        case Ack():
            return [ACK[:5]]
        case Nack():
            return [NACK[:5]]
    body = b"\x7f" if isinstance(frame, ErrorFrame) else bytes([frame.tfi]) + frame.payload
    dcs = bytes([-sum(body) & 0xFF, 0x00])  # the DCS and the postamble
    extended = (
        START_CODE + b"\xff\xff" + len(body).to_bytes(2, "big") + bytes([-sum(len(body).to_bytes(2, "big")) & 0xFF])
    )
    forms = [extended + body + dcs]
    if len(body) <= 255:
        forms.append(START_CODE + bytes([len(body), -len(body) & 0xFF]) + body + dcs)
    return forms


def decode_all(data: bytes) -> list[Frame]:
    return FrameDecoder().feed(data)


responses = st.builds(Response, tfi=st.sampled_from([0xD4, 0xD5]), payload=st.binary(max_size=MAX_LENGTH - 1))
frames = st.one_of(st.just(Ack()), st.just(Nack()), st.just(ErrorFrame()), responses)
padding = st.integers(0, 4).map(bytes)
no_start_code = st.binary(max_size=40).filter(lambda data: START_CODE not in data)


@st.composite
def padded_streams(draw: st.DrawFn) -> tuple[list[Frame], bytes]:
    """Frames with random 00 padding between them, and the bytes on the line."""
    sent = draw(st.lists(frames, max_size=6))
    return sent, b"".join(draw(padding) + wire(frame) for frame in sent) + draw(padding)


# --- exact bytes ----------------------------------------------------------------------------


def test_commands_have_the_bytes_known_from_the_datasheet_and_libnfc() -> None:
    assert encode_command(0x02) == bytes.fromhex("0000ff02fed4022a00")
    assert encode_command(0x14, b"\x01") == bytes.fromhex("0000ff03fdd414011700")


def test_extended_frames_carry_long_data() -> None:
    frame = encode_frame(0xD5, bytes(range(256)) + bytes(8))
    assert frame[:8] == bytes.fromhex("0000ffffff0109f6")
    assert decode_all(frame) == [Response(0xD5, bytes(range(256)) + bytes(8))]


def test_too_long_data_and_bad_command_codes_are_refused_clearly() -> None:
    try:
        encode_frame(0xD4, bytes(MAX_LENGTH))
    except ValueError as error:
        assert "at most 264 data bytes" in str(error)
    else:
        raise AssertionError("265 data bytes were encoded")
    try:
        encode_command(0x100)
    except ValueError as error:
        assert "one byte" in str(error)
    else:
        raise AssertionError("command 0x100 was encoded")


def test_the_special_frames_decode_to_their_kinds() -> None:
    assert decode_all(ACK + NACK + ERROR_FRAME) == [Ack(), Nack(), ErrorFrame()]


def test_a_bad_checksum_is_dropped_and_the_frame_behind_it_found() -> None:
    good = encode_frame(0xD5, b"\x4b\x00")
    bad_dcs = good[:-2] + bytes([good[-2] ^ 1]) + b"\x00"
    bad_lcs = good[:4] + bytes([good[4] ^ 1]) + good[5:]
    assert decode_all(bad_dcs + bad_lcs + good) == [Response(0xD5, b"\x4b\x00")]


def test_a_frame_hidden_inside_a_bad_candidate_is_found() -> None:
    """The search restarts one byte after a bad start code, not after the length it claimed."""
    bogus_header = START_CODE + b"\x20\xe0"  # claims 32 bytes that never come
    assert decode_all(bogus_header + ACK + bytes(40)) == [Ack()]


def test_an_impossible_extended_length_is_rejected_at_once() -> None:
    too_long = START_CODE + b"\xff\xff\xff\xf0\x11"
    assert decode_all(too_long + ACK) == [Ack()]


def test_documented_exception_damaged_extended_marker_reads_as_nack() -> None:
    """Guarantee 3's exception: FF FF -> FF 00 is a NACK on the line, and it is yielded as one."""
    extended = bytearray(encode_frame(0xD5, bytes(260)))
    extended[4] = 0x00
    assert decode_all(bytes(extended))[0] == Nack()


def test_documented_exception_frame_embedded_in_a_damaged_payload() -> None:
    carrier = bytearray(encode_frame(0xD5, b"\x41" + ACK))
    carrier[5] ^= 0xFF
    assert decode_all(bytes(carrier)) == [Ack()]


# --- published frames: nfcpy's PN53x tests and libnfc's pn532_uart driver --------------------
# The byte vectors only (as data): what those drivers send, accept and reject.

NFCPY_EXT_DATA = b"456" + bytes(256)


def test_published_frames_decode_as_those_drivers_read_them() -> None:
    # nfcpy tests/test_clf_pn53x.py: test_command_with_standard_frame, ..._with_extended_frame
    assert encode_frame(0xD4, b"\x00123") == bytes.fromhex("0000ff05fbd4003132339600")
    assert decode_all(bytes.fromhex("0000ff05fbd5013435368b00")) == [Response(0xD5, b"\x01456")]
    extended = bytes.fromhex("0000ffffff0105fad501") + NFCPY_EXT_DATA + bytes.fromhex("8b00")
    assert decode_all(extended) == [Response(0xD5, b"\x01" + NFCPY_EXT_DATA)]
    assert encode_frame(0xD5, b"\x01" + NFCPY_EXT_DATA) == extended
    # libnfc pn53x.c / nfcpy: the ACK frame and the error frame
    assert decode_all(bytes.fromhex("0000ff00ff00") + bytes.fromhex("0000ff01ff7f8100")) == [Ack(), ErrorFrame()]
    # libnfc pn532_uart_wakeup's preamble (55 55, then zeros) before a GetFirmwareVersion answer: padding
    wakeup = bytes.fromhex("5555") + bytes(14)
    assert decode_all(wakeup + bytes.fromhex("0000ff06fad50332010607e800")) == [Response(0xD5, b"\x032\x01\x06\x07")]


def test_published_bad_frames_are_rejected_as_those_drivers_reject_them() -> None:
    rejected = {
        # nfcpy: test_command_std_frame_length_check_error (LCS does not match LEN)
        "std-length-check": bytes.fromhex("0000ff04fbd5013435368b00"),
        # nfcpy: test_command_std_frame_length_value_error (LEN one more than the data)
        "std-length-value": bytes.fromhex("0000ff05fbd50134358b00"),
        # nfcpy: test_command_ext_frame_length_check_error
        "ext-length-check": bytes.fromhex("0000ffffff0104fad501") + NFCPY_EXT_DATA + bytes.fromhex("8b00"),
        # nfcpy: test_command_ext_frame_length_value_error: LEN one too long, its LCS right; the
        # DCS would pass as data and the postamble as the DCS (libnfc: "Frame postamble mismatch")
        "ext-length-value": bytes.fromhex("0000ffffff0105fad501") + b"456" + bytes(255) + bytes.fromhex("8b00"),
        # nfcpy: test_command_with_rsp_invalid_sof, ..._rsp_data_check_error, ..._rsp_frame_id_error
        "invalid-sof": bytes.fromhex("00000005fbd5013435368b00"),
        "data-check": bytes.fromhex("0000ff05fbd5013435368a00"),
        "frame-id": bytes.fromhex("0000ff05fbd6013435368a00"),
        # libnfc: a frame whose postamble is not 00
        "postamble": bytes.fromhex("0000ff05fbd5013435368b55"),
    }
    for name, frame in rejected.items():
        assert decode_all(frame) == [], name
        assert decode_all(frame + b"\x55" + ACK) == [Ack()], f"{name}: the frame after it was lost"


# --- properties -----------------------------------------------------------------------------


@given(padded_streams())
def test_round_trip_through_padding(stream: tuple[list[Frame], bytes]) -> None:
    sent, data = stream
    assert decode_all(data) == sent


@given(padded_streams(), st.data())
def test_any_chunking_gives_the_same_frames(stream: tuple[list[Frame], bytes], data: st.DataObject) -> None:
    sent, line = stream
    cuts = sorted(data.draw(st.lists(st.integers(0, len(line)), max_size=20)))
    decoder = FrameDecoder()
    got: list[Frame] = []
    for start, end in zip([0, *cuts], [*cuts, len(line)], strict=True):
        got += decoder.feed(line[start:end])
    assert got == sent


@given(st.lists(st.tuples(no_start_code, frames), max_size=6), no_start_code)
def test_garbage_between_frames_adds_nothing_and_loses_nothing(pieces: list[tuple[bytes, Frame]], tail: bytes) -> None:
    line = b"".join(garbage + wire(frame) for garbage, frame in pieces) + tail
    assert decode_all(line) == [frame for _, frame in pieces]


line_pieces = st.one_of(
    st.binary(max_size=12),
    st.just(START_CODE),
    frames.map(wire),
    st.tuples(frames.map(wire), st.integers(1, 12)).map(lambda cut: cut[0][: -cut[1]]),
    st.tuples(st.integers(0, 255), st.integers(1, 20)).map(lambda h: START_CODE + bytes([h[1], -h[1] & 0xFF])),
)


@given(st.lists(line_pieces, max_size=12).map(b"".join))
def test_every_frame_yielded_is_literally_on_the_line(line: bytes) -> None:
    for frame in decode_all(line):
        assert any(form in line for form in forms_on_line(frame)), frame


def start_codes_in(data: bytes) -> set[int]:
    found, at = set(), data.find(START_CODE)
    while at >= 0:
        found.add(at)
        at = data.find(START_CODE, at + 1)
    return found


@given(st.lists(frames, min_size=1, max_size=5), st.data())
def test_one_damaged_byte_drops_exactly_that_frame(sent: list[Frame], data: st.DataObject) -> None:
    encoded = [wire(frame) for frame in sent]
    victim = data.draw(st.integers(0, len(sent) - 1), label="victim")
    # An information frame's postamble is checked; an ACK's or a NACK's is not part of it.
    frame_end = len(encoded[victim]) - (1 if isinstance(sent[victim], (Ack, Nack)) else 0)
    position = data.draw(st.integers(0, frame_end - 1), label="position")
    change = data.draw(st.integers(1, 255), label="change")
    damaged = bytearray(encoded[victim])
    damaged[position] = (damaged[position] + change) & 0xFF
    line = b"".join(encoded[:victim]) + bytes(damaged) + b"".join(encoded[victim + 1 :])

    for frame in decode_all(line):
        assert any(form in line for form in forms_on_line(frame))

    offsets = {sum(len(chunk) for chunk in encoded[:index]) for index in range(len(encoded))}
    marker = bytes(damaged[3:5])
    assume(start_codes_in(line) <= offsets)
    if position in (3, 4):
        assume(marker not in (b"\x00\xff", b"\xff\x00", b"\xff\xff") and sum(marker) & 0xFF != 0)
    assert decode_all(line) == sent[:victim] + sent[victim + 1 :]


@given(padded_streams())
def test_bytes_wanted_never_asks_past_the_next_frame(stream: tuple[list[Frame], bytes]) -> None:
    sent, line = stream
    frame_ends, at = [], 0
    for frame in sent:
        at = line.index(wire(frame), at) + len(wire(frame)) - (1 if isinstance(frame, (Ack, Nack)) else 0)
        frame_ends.append(at)
    decoder, position, got = FrameDecoder(), 0, []
    while position < len(line):
        wanted = decoder.bytes_wanted()
        assert wanted >= 1
        next_end = next((end for end in frame_ends if end > position), None)
        assert next_end is None or position + wanted <= next_end
        got += decoder.feed(line[position : position + wanted])
        position += wanted
    assert got == sent
