"""A first build of the word index, timed as bench_corpus.py and bench_build.py report it.

Wall time and CPU time: this process's (the fold, and tantivy's indexing thread beside it) plus
its children's (the fold helper process, from their rusage once reaped), so events per
CPU-second say what the build costs whatever else the shared cores are doing. "One core" turns
the fold helper off, as a machine with one core gets it; else the helper folds on the other
core, as the app builds. The task list (the catalogue) is brought up to date first and timed
apart: it is the list's own first read of every log, which the app makes when it shows the
tasks after an import, and which the build would otherwise make inside its first commit.
"""

import os
import resource
import shutil
import time
from pathlib import Path


def remove_derived(data: Path) -> None:
    """The index, the vectors and every `.mem` and `.vec` removed: the next refresh is a
    first build. The logs, the catalogue and the journal stay."""
    shutil.rmtree(data / "index", ignore_errors=True)
    (data / "vectors.stack").unlink(missing_ok=True)
    for derived in [*(data / "sessions").glob("*.mem"), *(data / "sessions").glob("*.vec")]:
        derived.unlink()


def drop_cached_logs(data: Path) -> None:
    """Ask the kernel to forget the logs' cached pages (theirs only: the machine is shared),
    so that the build reads them from the disk, as the first build after a restart does."""
    for log in (data / "sessions").glob("*.jsonl"):
        fd = os.open(log, os.O_RDONLY)
        try:
            os.fdatasync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _children_cpu() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(data: Path, one_core: bool, cold: bool = False) -> dict:
    """A first build of the index of `data`: wall s, CPU s (with the helper's), the logs
    the helper folded, and the catalogue's own time before it."""
    from nodwyn.memory.words import index as wordindex
    from nodwyn.tasks.store import Store

    remove_derived(data)
    store = Store(data)
    began = time.perf_counter()
    store.list(archived=None)
    catalogue = time.perf_counter() - began
    if cold:
        drop_cached_logs(data)
    if one_core:
        wordindex.HELP_FROM = 1 << 62
    children, cpu, began = _children_cpu(), time.process_time(), time.perf_counter()
    wordindex.refresh(store)
    wall = time.perf_counter() - began
    cpu = time.process_time() - cpu + _children_cpu() - children
    return {"wall": wall, "cpu": cpu, "helped": wordindex.last_build["helped"],
            "catalogue": catalogue}  # fmt: skip
