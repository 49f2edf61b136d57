"""A log's summaries and digests (`memory.summary` records, ADR 0033), as memory reads them.

A log holds few of them among many other lines, so a read looks for the kind's name in each
raw line before decoding it, and a process keeps what it found per log with the offset it
read to: a log only grows, so the next read goes on from there (a log that is shorter than
then, or whose line before that offset changed, is read again from its start).

What is shown: the digest is the latest one, except that a digest the person wrote stays
shown over an agent's or a provider's until the person writes another (catalogue.DIGEST_RANK);
a turn's close summary is the latest close summary whose seqs cover the turn's first seq.
Text is redacted again on its way out, as every record's is.
"""

import zlib
from pathlib import Path

import msgspec

from ...errors import TaskNotFound
from ...log import logfile, records
from ...log.redact import redact

_NEEDLE = b'"memory.summary"'
TAIL = 64  # bytes before the offset read to whose crc says the log is still the one read

# log -> (offset read to, crc of the TAIL bytes before it, summaries found)
_seen: dict[Path, tuple[int, int, list[records.Summary]]] = {}
SEEN = 4096


def _tail_crc(handle, end: int) -> int:
    handle.seek(max(0, end - TAIL))
    return zlib.crc32(handle.read(min(end, TAIL)))


def of_log(log: Path) -> list[records.Summary]:
    """Every summary of a log in log order, as written (not redacted again)."""
    try:
        size = log.stat().st_size
    except FileNotFoundError:
        raise TaskNotFound(f"no task {log.stem}") from None
    known = _seen.get(log)
    start, found = 0, []
    if known is not None and known[0] <= size:
        with open(log, "rb") as handle:
            if _tail_crc(handle, known[0]) == known[1]:
                start, found = known[0], list(known[2])
    end = start
    for offset, line, ended in logfile.lines(log, start):
        if not ended:
            break
        end = offset + len(line) + 1
        if _NEEDLE not in line:
            continue
        try:
            record = records.decode(line)
        except records.Damaged:
            continue
        if isinstance(record, records.Summary):
            found.append(record)
    with open(log, "rb") as handle:
        crc = _tail_crc(handle, end)
    if len(_seen) >= SEEN:
        _seen.clear()
    _seen[log] = (end, crc, found)
    return list(found)


def rank(record: records.Summary) -> int:
    return 2 if record.by == "person" else 1


def digest(summaries: list[records.Summary]) -> records.Summary | None:
    """The digest shown: the latest, unless the person's outranks it (see the module)."""
    shown = None
    for record in summaries:
        if record.level == "digest" and (shown is None or rank(record) >= rank(shown)):
            shown = record
    return shown


def covering(summaries: list[records.Summary], seq: int) -> records.Summary | None:
    """The latest close summary whose seqs hold `seq`."""
    shown = None
    for record in summaries:
        if record.level == "close" and record.first_seq <= seq <= record.last_seq:
            shown = record
    return shown


def covered(summaries: list[records.Summary]) -> int:
    """The last seq any close summary covers (0: none), where a new one starts after."""
    return max((s.last_seq for s in summaries if s.level == "close"), default=0)


def redacted(record: records.Summary) -> records.Summary:
    return msgspec.structs.replace(record, text=redact(record.text))


def who(record: records.Summary) -> str:
    """Who wrote a summary, in a few words: "claude (agent)", "ollama llama3.2", "person"."""
    if record.by == "provider":
        return f"{record.provider} {record.model}".strip()
    if record.by == "agent":
        return f"{record.model or 'the agent'} (agent)"
    return record.by
