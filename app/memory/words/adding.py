"""Adding one log's documents to the word index, in the process that holds its writer.

Past a log's mark (its `.mem`'s, see mem.py), the index may already hold documents of that log:
a build killed between committing the index and writing the marks left them. They are the
log's own documents (a log is only ever appended to, and one log's documents go into one
commit, so they run from the mark to some seq without a gap), so they are kept and folding
adds only what follows them. Deleting and adding them again would leave deleted documents in
their segments, which BM25's statistics count (document frequencies, mean lengths) until
tantivy merges those segments, so a search after the crash would rank otherwise than a clean
build does. Documents past the mark that are not the log's own (the line at
their offset holds another seq) are deleted, as a log made anew needs.
"""

import tantivy

from ...errors import TaskNotFound
from ...log import records
from .documents import Job, Row, Taken, rows, start


def document(task: str, row: Row) -> tantivy.Document:
    text, compounds, seq, turn, turn_at, offset, head = row
    doc = tantivy.Document()
    doc.add_text("words", text)
    doc.add_text("parts", compounds)
    doc.add_text("task", task)
    doc.add_unsigned("seq", seq)
    doc.add_unsigned("turn", turn)
    doc.add_unsigned("turn_at", turn_at)
    doc.add_unsigned("offset", offset)
    doc.add_text("heading", head)
    return doc


def past(schema, task: str, seq: int):
    """The query of the task's documents past `seq` (all of them for 0)."""
    mine = tantivy.Query.term_query(schema, "task", task)
    if seq == 0:
        return mine
    later = tantivy.Query.range_query(
        schema, "seq", tantivy.FieldType.Unsigned, seq + 1, None, use_inverted_index=True
    )
    return tantivy.Query.boolean_query([(tantivy.Occur.Must, mine), (tantivy.Occur.Must, later)])


class Adding:
    """The index's writer, and a searcher of what it had committed when this refresh began
    (None when it held no document: a first build, with nothing to find past any mark)."""

    def __init__(self, index: tantivy.Index, writer, schema):
        self.writer, self.schema = writer, schema
        index.reload()
        searcher = index.searcher()
        self.searcher = searcher if searcher.num_docs else None

    def take(self, job: Job) -> tuple[Taken | None, int]:
        """Bring one log's .mem fold and its index documents up to date in this process: what
        folding it gave (None: the log went away) and the documents added."""
        try:
            taken = start(job)
            kept = self.kept(job.task, job.log, taken.drop)
            added = 0
            for row in rows(job, taken):
                if kept == taken.drop or row[2] > kept:
                    self.writer.add_document(document(job.task, row))
                    added += 1
        except (OSError, TaskNotFound):
            return None, 0  # deleted while we looked: the next refresh drops it
        return taken, added

    def put(self, taken: Taken, log: str) -> int:
        """Add what the helper process folded; the documents added. The rows are let go of
        then: the writer has them, and `taken` waits for its commit with its .mem state alone."""
        rows, taken.rows = taken.rows, []
        try:
            kept = self.kept(taken.task, log, taken.drop)
        except (OSError, TaskNotFound):
            return 0
        added = 0
        for row in rows:
            if kept == taken.drop or row[2] > kept:
                self.writer.add_document(document(taken.task, row))
                added += 1
        return added

    def kept(self, task: str, log: str, mark: int) -> int:
        """The last seq of the task's documents the index holds past `mark` that are kept
        (`mark` itself when none are); those past it that are not the log's are deleted."""
        if mark < 0 or self.searcher is None:
            return mark
        found = self.searcher.search(past(self.schema, task, mark), 1, order_by_field="seq")
        if not found.hits:
            return mark
        keys = self.searcher.doc(found.hits[0][1]).to_dict()
        seq, offset = keys["seq"][0], keys["offset"][0]
        if _seq_at(log, offset) == seq:
            return seq
        self.writer.delete_documents_by_query(past(self.schema, task, mark))
        return mark


def _seq_at(log: str, offset: int) -> int | None:
    """The seq of the record whose line starts at `offset`, if one does."""
    with open(log, "rb") as handle:
        handle.seek(offset)
        line = handle.readline()
    try:
        return records.decode(line.rstrip(b"\n")).seq if line.endswith(b"\n") else None
    except records.Damaged:
        return None
