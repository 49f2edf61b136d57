"""What a source read again from its start gives that its log does not hold yet: the records
after the last one the log holds (matched by `src`), which sync.py appends when `.imp` is gone
or lags the log (docs/decisions/0015-import-that-cannot-double.md).

The records after the last match so far are held until the source ends, since a later one may
still match; past `BATCH` they wait in a temporary file, so reading a session of any size again
holds one batch of records and the log's keys, not the whole session.
"""

import tempfile
from collections.abc import Iterator
from pathlib import Path

import msgspec

from ..log import logfile
from ..log import records as r
from .state import BATCH, Key, State, key_of

_aside = msgspec.msgpack.Decoder(list[r.Known])  # records held aside, not yet numbered


class Remainder:
    """The records of a source read again, fed in order by `take`, past the log's last match."""

    def __init__(self, log: Path, state: State):
        self.keys: set[Key] = set()
        self.furthest = 0  # the last line of the source itself that the log holds a record of
        for _offset, _end, record in logfile.read(log):
            key = key_of(record)
            if key is not None:
                self.keys.add(key)
                if key[0] is None and key[1]:
                    self.furthest = max(self.furthest, key[1])
            if isinstance(record, r.ContextCompact):
                state.compact_from = record.seq + 1
        self.held: list[r.Known] = []
        self.aside = None  # a temporary file of batches held before `held` (msgpack, sized)
        self.put = 0  # batches in it

    def take(self, batch: list[r.Known]) -> None:
        for record in batch:
            if self._in_log(key_of(record)):
                self._forget()  # the log holds this one: none before it is missing
            else:
                self.held.append(record)
        if len(self.held) >= BATCH:
            self._put_aside()

    def _in_log(self, key: Key | None) -> bool:
        # (..., None, kind): a log imported before replies carried their response's id
        return key is not None and (key in self.keys or (key[0], key[1], None, key[3]) in self.keys)

    def past(self, lines: int) -> bool:
        """Whether the log holds lines past the source's end (`lines`): a shorter copy."""
        return self.furthest > lines

    def batches(self) -> Iterator[list[r.Known]]:
        """The records not in the log, in order, a batch at a time."""
        if self.aside is not None:
            self.aside.seek(0)
            for _ in range(self.put):
                yield _aside.decode(self.aside.read(int.from_bytes(self.aside.read(4), "big")))
        yield self.held

    def close(self) -> None:
        if self.aside is not None:
            self.aside.close()
            self.aside = None

    def __enter__(self) -> "Remainder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _forget(self) -> None:
        self.held = []
        if self.aside is not None:
            self.aside.seek(0)
            self.aside.truncate()
            self.put = 0

    def _put_aside(self) -> None:
        if self.aside is None:
            self.aside = tempfile.TemporaryFile()  # noqa: SIM115 (closed by close())
        data = msgspec.msgpack.encode(self.held)
        self.aside.write(len(data).to_bytes(4, "big") + data)
        self.put += 1
        self.held = []
