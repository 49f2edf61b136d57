"""The word index is made anew by one maker at a time, in threads and in processes alike."""

import subprocess
import sys
import threading

from nodwyn.memory.words import index
from nodwyn.tasks.store import Store


def test_threads_that_find_no_index_make_one_together_without_tripping(data_dir):
    root = Store().root
    made, failed = [], []
    go = threading.Barrier(6)

    def first_search():
        go.wait()
        try:
            made.append(index.current(root).id)
        except Exception as exc:  # noqa: BLE001 (the test reports whatever broke)
            failed.append(repr(exc))

    threads = [threading.Thread(target=first_search) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failed == []
    assert len(set(made)) == 1, "one index was made; the others found it made"
    assert index.load_state(root).id == made[0]


def test_processes_that_find_no_index_make_one_together_without_tripping(data_dir):
    root = Store().root
    script = "import sys; from pathlib import Path; from nodwyn.memory.words import index; " \
        "print(index.current(Path(sys.argv[1])).id)"  # fmt: skip
    runs = [
        subprocess.Popen([sys.executable, "-c", script, str(root)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]  # fmt: skip
    answers = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0] * 4, [err for _, err in answers]
    assert len({out.strip() for out, _ in answers}) == 1


def test_a_crash_after_the_index_commit_but_before_its_state_is_saved_adds_nothing_twice(
    data_dir,
):
    from memory_logs import turn, write
    from nodwyn.memory.words.search import hits

    store = Store()
    write(store, "old", turn("an older task about the pager"))
    index.refresh(store)
    state_file = index.folder(store.root) / index.STATE
    saved = state_file.read_bytes()
    write(store, "new", turn("the zebrafish aquarium heater"))
    mem_file = store.log_path("new").with_suffix(".mem")
    index.refresh(store)  # commits "new", writes its .mem and the state ...
    state_file.write_bytes(saved)  # ... as if the process died before either was written
    mem_file.unlink()
    state = index.refresh(store)  # folds "new" again from the start
    found = hits(store, state, "zebrafish", None, 20)
    assert [(hit.task, hit.seq) for hit in found] == [("new", 2)]  # the prompt, once
