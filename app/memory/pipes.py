"""Frames over a child process's pipes: a 4-byte little-endian length, then that many bytes.
What the fold helper (sidecar.py) and the sentence model's process (model_process.py) speak
with their parents."""

import struct

LENGTH = struct.Struct("<I")


def send(stream, payload: bytes) -> None:
    stream.write(LENGTH.pack(len(payload)) + payload)
    stream.flush()


def receive(stream) -> bytes | None:
    """The next frame, or None at the end of the stream (or in the middle of a frame)."""
    head = stream.read(LENGTH.size)
    if len(head) < LENGTH.size:
        return None
    (size,) = LENGTH.unpack(head)
    payload = stream.read(size)
    return payload if len(payload) == size else None
