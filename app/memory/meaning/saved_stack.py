"""The stack of every task's vectors, saved for the next process: `<data>/vectors.stack` is the
line STACK_MAGIC, a u32 length, a msgpack StackHeader (encoder, each task's log size and mtime
when its rows were made, and their rows), then four parts, each starting at a multiple of 64
bytes (zeros between): the rows as int8 codes, the float32 scale of each row and the float32 sum
of its |codes| (compact.py), and the rows as float16 (the .vec's values, for the exact scores).
A new process maps the rows it can use instead of reading every .vec. Format 1 (float32 rows
alone, 4 times the codes' bytes) is passed over: the next search saves format 2 in its place.

Split from vectors.py (ADR 0045), which reads these names back for its callers.
"""

import contextlib
import os
import struct
import threading
from pathlib import Path

import msgspec
from msgspec import Struct

STACK_MAGIC = b"nodwyn-stack 2\n"
_length = struct.Struct("<I")


class StackEntry(Struct, array_like=True, frozen=True):
    task: str
    size: int
    mtime_ns: int
    start: int  # its rows: start..end
    end: int


class StackHeader(Struct, kw_only=True):
    model: str
    dims: int
    entries: list[StackEntry]
    turns: bytes  # int64, one per row


class Rows(msgspec.Struct, frozen=True):
    """Rows of vectors as compact.py scores them: int8 codes (rows x dims), the float32 scale
    and sum of |codes| of each row, and the float16 rows themselves (numpy arrays, or maps of
    a saved stack)."""

    codes: object
    scales: object
    sums: object
    exact: object

    def __len__(self) -> int:
        return len(self.scales)


_header_encoder = msgspec.msgpack.Encoder()
_header_decoder = msgspec.msgpack.Decoder(StackHeader)


def stack_path(root: Path) -> Path:
    return root / "vectors.stack"


def _aligned(at: int) -> int:
    return at + (-at) % 64


def _layout(header_length: int, rows: int, dims: int) -> tuple[int, int, int, int, int]:
    """Where the codes, scales, sums and float16 rows start, and where the file ends."""
    codes = _aligned(len(STACK_MAGIC) + _length.size + header_length)
    scales = _aligned(codes + rows * dims)
    sums = _aligned(scales + 4 * rows)
    exact = _aligned(sums + 4 * rows)
    return codes, scales, sums, exact, exact + 2 * rows * dims


def save_stack(root: Path, model: str, entries: list[StackEntry], turns, rows: Rows) -> None:
    """Save a stack for other processes (written aside, renamed into place; a file another
    process has mapped, which Windows will not replace, is left as it is)."""
    import numpy as np

    codes = np.ascontiguousarray(rows.codes, dtype=np.int8)
    header = _header_encoder.encode(
        StackHeader(
            model=model,
            dims=codes.shape[1],
            entries=entries,
            turns=np.asarray(turns, np.int64).tobytes(),
        )
    )
    parts = zip(
        _layout(len(header), *codes.shape)[:4],
        (codes, rows.scales, rows.sums, rows.exact),
        (np.int8, np.float32, np.float32, np.float16),
        strict=True,
    )
    file = stack_path(root)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.write(STACK_MAGIC + _length.pack(len(header)) + header)
            for at, part, dtype in parts:
                handle.write(bytes(at - handle.tell()))
                np.ascontiguousarray(part, dtype=dtype).tofile(handle)
        os.replace(tmp, file)
    except OSError:
        tmp.unlink(missing_ok=True)


def load_stack(root: Path, model: str):
    """(entries by task, turns, Rows mapped read-only) of the saved stack of this encoder,
    or None when there is none, it is damaged, of another format or made by another encoder."""
    import numpy as np  # here: removing a stale stack (drop_stale_stack) needs none

    file = stack_path(root)
    try:
        with open(file, "rb") as handle:
            if handle.read(len(STACK_MAGIC)) != STACK_MAGIC:
                return None
            (length,) = _length.unpack(handle.read(_length.size))
            header = _header_decoder.decode(handle.read(length))
            size = os.fstat(handle.fileno()).st_size
            rows, dims = len(header.turns) // 8, header.dims
            codes, scales, sums, exact, end = _layout(length, rows, dims)
            if header.model != model or not rows or size != end:
                return None
            # mapped through the handle the header was read from: a stack another process
            # renamed into place meanwhile is a new file, whose rows are not this header's
            mapped = np.memmap(handle, dtype=np.uint8, mode="r", offset=codes, shape=(end - codes,))
    except (OSError, ValueError, struct.error, msgspec.DecodeError, msgspec.ValidationError):
        return None
    mapped = np.asarray(mapped)  # a plain array over the map: memmap's slicing is slow
    found = Rows(
        codes=mapped[: rows * dims].view(np.int8).reshape(rows, dims),
        scales=mapped[scales - codes : scales - codes + 4 * rows].view(np.float32),
        sums=mapped[sums - codes : sums - codes + 4 * rows].view(np.float32),
        exact=mapped[exact - codes :].view(np.float16).reshape(rows, dims),
    )
    turns = np.frombuffer(header.turns, dtype=np.int64)
    return {entry.task: entry for entry in header.entries}, turns, found


def drop_stale_stack(root: Path, present) -> None:
    """Remove the saved stack when it holds the vectors of a task not `present` (deleted):
    like its .vec, they go with the task (the next search saves the stack anew). A stack of
    an earlier format, never read again, is removed too."""
    try:
        with open(stack_path(root), "rb") as handle:
            magic = handle.read(len(STACK_MAGIC))
            if magic == STACK_MAGIC:
                (length,) = _length.unpack(handle.read(_length.size))
                header = _header_decoder.decode(handle.read(length))
    except (OSError, struct.error, msgspec.DecodeError, msgspec.ValidationError):
        return
    if magic != STACK_MAGIC and not magic.startswith(b"nodwyn-stack "):
        return  # not a stack of ours
    if magic != STACK_MAGIC or any(entry.task not in present for entry in header.entries):
        with contextlib.suppress(OSError):  # Windows: mapped by a process; it is dropped later
            stack_path(root).unlink(missing_ok=True)
