"""Scrubbing: logs written under older redaction rules are redacted again, once per new rules.

Redaction runs on every record before it is written, so a secret that the rules of the time
missed stays in the log. When the rules change (redact.RULES goes up), every log is run
through the new rules once: each line redacted again, the log swapped whole under its writer's
lock (writer.rewrite: every line and seq kept, only the secrets' characters changed), and what
was derived from it made again: its `.idx`, `.mem`, `.heads` and `.vec` removed, the word
index and the vectors' stack removed (tantivy keeps a deleted document's words until segments
merge, so only a new index forgets them), the catalogue removed. Each is rebuilt from the logs
when next used.

`<data>/redaction.json` holds the rules the logs were last scrubbed with. A data directory
without one (new, or from before scrubbing existed) is scrubbed once, which finds nothing in
logs written under the current rules. A log held by another writer is left for the next time
(the file is written only when every log was done), and redacting again changes nothing, so a
scrub cut short is simply run again.
"""

import logging
import os
from pathlib import Path

import msgspec

from ..errors import TaskBusy, TaskNotFound
from ..log import journal
from ..log.redact import RULES, redact, redacted_count
from ..log.redact_rules import SCRUBBED, scrubbed_rules  # noqa: F401 (scrub.scrubbed_rules)
from ..log.writer import rewrite
from ..tasks import listing

FILE = SCRUBBED
DERIVED = (".idx", ".mem", ".heads", ".vec")  # beside a log; `.imp` holds no text of the log
log = logging.getLogger("nodwyn.scrub")


class Done(msgspec.Struct, frozen=True):
    rules: int
    logs: int = 0  # logs rewritten
    values: int = 0  # values redacted in them
    busy: list[str] = []  # tasks another writer held: scrubbed next time


def due(root: Path) -> bool:
    return scrubbed_rules(root) < RULES


def scrub_if_due(store) -> Done | None:
    """Scrub every log when the rules changed since the last scrub; None when they did not."""
    return scrub(store) if due(store.root) else None


def scrub(store) -> Done:
    """Redact every log again with the current rules; how many logs and values changed."""
    logs = values = 0
    busy = []
    for path in sorted(store.sessions.glob("*.jsonl")):
        try:
            found = scrub_log(path, store.root)
        except TaskBusy:
            busy.append(path.stem)
            continue
        except TaskNotFound:
            continue  # deleted meanwhile
        if found:
            logs, values = logs + 1, values + found
    if logs:
        forget_derived(store.root)
    if not busy:
        _save(store.root)
    done = Done(rules=RULES, logs=logs, values=values, busy=busy)
    if logs or busy:
        log.info("%s", said(done))
    return done


def scrub_log(path: Path, root: Path) -> int:
    """Redact one log again; the values redacted (0: the log is left as it was)."""
    counted = [0]

    def change(line: bytes) -> bytes:
        text = line.decode("utf-8", "surrogateescape")
        again = redact(text)
        if again == text:
            return line
        counted[0] += redacted_count(text, again)
        return again.encode("utf-8", "surrogateescape")

    if rewrite(path, change):
        for suffix in DERIVED:
            path.with_suffix(suffix).unlink(missing_ok=True)
        journal.note(root, path.stem)
    return counted[0]


def forget_derived(root: Path) -> None:
    """Remove what spans every log (the word index, the vectors' stack, the catalogue): each
    is made again from the logs when next used."""
    from ..memory.meaning import vectors  # tantivy and numpy: only when there is work
    from ..memory.words import index

    index.remove(root)
    vectors.stack_path(root).unlink(missing_ok=True)
    catalogue = root / listing.FILE
    for file in (catalogue, catalogue.with_suffix(".fold")):
        file.unlink(missing_ok=True)


def _save(root: Path) -> None:
    file = root / FILE
    tmp = file.with_name(f".{FILE}.{os.getpid()}.tmp")
    tmp.write_text(f"{RULES}\n", encoding="ascii")
    os.replace(tmp, file)


def said(done: Done) -> str:
    """The one line that tells the person what a scrub did."""
    text = (
        f"redaction rules {done.rules}: {done.values} secret value"
        f"{'' if done.values == 1 else 's'} redacted in {done.logs} existing log"
        f"{'' if done.logs == 1 else 's'}"
    )
    if done.busy:
        text += f" ({len(done.busy)} open elsewhere, scrubbed next time)"
    return text
