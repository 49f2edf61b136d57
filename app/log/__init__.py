"""Task logs: the truth everything else is derived from (STYLE 3).

records.py (the record kinds, one tagged union) <- logfile.py (one task's log on disk, read,
with its seq index) <- writer.py (its one appender, holding the lock of locks.py) <- the
store, memory and importers. Every record is redacted (redact.py, by redact_rules.py) before
it is written; journal.py notes which logs changed, so readers (the word index) look at those
only; faults.py lets the crash tests stop a write.

May import: the top modules only (errors, paths, settings): the bottom floor of
docs/ARCHITECTURE.md.
"""
