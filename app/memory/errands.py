"""Errands: work a search hands to a thread kept for that while it goes on with its own (the
query's vector, or the whole ranking by meaning where the model's process ranks; fusion.py).
The model works outside the GIL (in its own process, or in onnxruntime), so its time and the
search's overlap on two cores instead of adding up; a kept thread, because starting one per
search would slow it."""

import threading


class Ahead:
    """What `work()` makes (the query's vector, or the ranking by meaning), made by a kept
    thread while the search that asked goes on."""

    def __init__(self, work):
        self.work = work
        self.made, self.error = None, None
        self.done = threading.Lock()
        self.done.acquire()  # released once the work is done
        _start(self)

    def make(self) -> None:
        try:
            self.made = self.work()
        except BaseException as exc:  # noqa: BLE001  raised again where it is waited for
            self.error = exc
        self.work = None  # not kept with its search's state

    def is_alive(self) -> bool:
        """Whether the work is still under way."""
        return self.done.locked()

    def result(self):
        """What the work made, once made; what it raised, raised here."""
        with self.done:
            pass
        error, self.error = self.error, None  # no cycle of it and its frames, which would
        if error is None:  # keep a provider's socket until a collection
            return self.made
        try:
            raise error
        finally:
            del error


_idle: list = []  # the queues of kept threads waiting for work
_starting = threading.Lock()


def _start(asked: Ahead) -> None:
    """A kept thread does the work; a new one when all are busy (searches at once)."""
    with _starting:
        waiting = _idle.pop() if _idle else None
    if waiting is None:
        import queue

        waiting = queue.SimpleQueue()
        threading.Thread(
            target=_make_each, args=(waiting,), name="nodwyn-query", daemon=True
        ).start()
    waiting.put(asked)


def _make_each(waiting) -> None:
    while True:
        asked = waiting.get()
        asked.make()
        with _starting:
            _idle.append(waiting)  # before the search goes on: its next query finds it idle
        asked.done.release()
        asked = None  # not kept until the next query
