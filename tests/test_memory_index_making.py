"""The word index is made anew by one maker at a time, in threads and in processes alike."""

import subprocess
import sys
import threading

from nodwyn.memory import index
from nodwyn.store import Store


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
    script = "import sys; from pathlib import Path; from nodwyn.memory import index; " \
        "print(index.current(Path(sys.argv[1])).id)"  # fmt: skip
    runs = [
        subprocess.Popen([sys.executable, "-c", script, str(root)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(4)
    ]  # fmt: skip
    answers = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0] * 4, [err for _, err in answers]
    assert len({out.strip() for out, _ in answers}) == 1
