"""Appending a `memory.summary` to a task's log, by the rules every writer of one keeps.

- A summary has words (at most LIMIT characters, whitespace at its ends dropped), and is
  redacted before it is written (the writer does that for every record) and when read.
- Nothing new, nothing recorded: a summary of a level is refused while no reply, result or
  prompt came after the last one of that level.
- The person's word wins: while the digest shown is one the person wrote, an agent's or a
  provider's digest is refused (the person's stays shown; see memory/cards/summaries.py).
- What it covers: a digest the whole task (seq 1 on), a close summary the seqs after the last
  close summary; up to the last record before it. A provider's summary names its own seqs.
Checked and appended under the log's lock, so two writers cannot both pass the checks.
"""

import msgspec

from ..errors import BadInput, TaskBusy
from ..log import logfile, records
from ..tasks.store import Store

LEVELS = ("close", "digest")
LIMIT = 4000  # characters of one summary
WORK = (records.Message, records.Reply, records.Result, records.ContextCompact)


class NothingNew(BadInput):
    """Nothing happened in the task since its last summary of that level."""


class PersonsDigest(BadInput):
    """The person wrote the task's digest: it stays shown."""


class Since(msgspec.Struct, kw_only=True):
    """What the log holds after its last summary of one level."""

    last_seq: int = 0  # the log's last seq
    previous: records.Summary | None = None  # the last summary of this level
    persons_digest: bool = False  # the digest shown is the person's
    work: bool = False  # a prompt, reply, result or compaction after `previous`
    prompts: int = 0  # the person's prompts after `previous`


def since(log, level: str) -> Since:
    """Read the log back to its last summary of `level` (and of the person's digest)."""
    found = Since()
    for _, record in logfile.read_back(log):
        found.last_seq = found.last_seq or record.seq
        if isinstance(record, records.Summary) and record.level == level:
            found.previous = record
            found.persons_digest = level == "digest" and record.by == "person"
            break
        if isinstance(record, WORK):
            found.work = True
        if isinstance(record, records.Message) and record.agent is None:
            found.prompts += 1
    return found


def tidy(text) -> str:
    if not isinstance(text, str):
        raise BadInput("a summary is text")
    text = text.strip()
    if not text:
        raise BadInput("the summary is empty: say in a few lines what the turns came to")
    return text[:LIMIT].rstrip()


def record(
    store: Store,
    task: str,
    level: str,
    text: str,
    by: str = "agent",
    model: str = "",
    provider: str = "",
    seqs: tuple[int, int, int] | None = None,
) -> records.Summary:
    """Append one summary (see the module's rules); `seqs` (first, last, turns) for a provider
    that summarized given turns. Returns the record as written (before redaction)."""
    if level not in LEVELS:
        raise BadInput(f"a summary's level is close or digest, not {level!r}")
    text, log = tidy(text), store.log_path(task)
    store.get(task)  # TaskNotFound for no such task
    try:
        with store.writer(task) as writer:
            found = since(log, level)
            _check(found, level, by, seqs is not None)
            if seqs is None:
                first = (
                    1 if level == "digest" or found.previous is None else (found.previous.seq + 1)
                )
                turns = store.get(task).turns if first == 1 else found.prompts
                seqs = (first, found.last_seq, turns)
            summary = records.Summary(
                text=text,
                level=level,
                first_seq=seqs[0],
                last_seq=seqs[1],
                turns=seqs[2],
                by=by,
                model=model,
                provider=provider,
            )
            writer.append([summary])
    except TaskBusy:
        raise TaskBusy(f"task {task}'s log is busy in another process; try again soon") from None
    return summary


def _check(found: Since, level: str, by: str, given: bool) -> None:
    if found.persons_digest and by != "person":
        raise PersonsDigest(
            "the person wrote this task's digest; it stays shown and nothing was recorded"
        )
    if found.previous is not None and not found.work and not given and by != "person":
        what = "digest" if level == "digest" else "close summary"
        raise NothingNew(
            f"nothing new happened since this task's last {what}; nothing was recorded"
        )
