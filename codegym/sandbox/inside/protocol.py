"""Length-prefixed JSON frames between the host and a warm worker (stdlib only).

The channel is the worker's stdin/stdout pipes, which only the trusted worker holds: executed
programs never inherit them.
"""

import json
import struct

HEADER = struct.Struct(">I")
MAX_FRAME_BYTES = 256 * 1024 * 1024


class ProtocolError(Exception):
    """The peer sent something that is not a frame, or went away mid-frame."""


def _read_exact(stream, size):
    chunks = []
    remaining = size
    while remaining:
        chunk = stream.read(remaining)
        if not chunk:
            if remaining == size and not chunks:
                return None
            raise ProtocolError("peer closed the channel mid-frame")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)


def read_frame(stream):
    """Return the next decoded message, or None at a clean end of stream."""
    header = _read_exact(stream, HEADER.size)
    if header is None:
        return None
    (size,) = HEADER.unpack(header)
    if size > MAX_FRAME_BYTES:
        raise ProtocolError(f"frame of {size} bytes exceeds the limit")
    body = _read_exact(stream, size)
    if body is None:
        raise ProtocolError("peer closed the channel mid-frame")
    try:
        return json.loads(body.decode("utf-8"))
    except ValueError as exc:
        raise ProtocolError(f"frame is not JSON: {exc}") from exc


def write_frame(stream, message):
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    stream.write(HEADER.pack(len(body)) + body)
    stream.flush()
