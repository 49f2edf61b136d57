"""The sentence model in a process of its own, for the app and `nodwyn serve`.

Loaded in the app's process, onnxruntime and all-MiniLM-L6-v2 added about 61 MB to it for as
long as it ran; dropping the session gave back only 26 MB (the library stays mapped). So a
long-running process keeps the model in a child, started on the first text to encode, which
ends once no text came for `keep_alive` seconds (NODWYN_MODEL_KEEP_ALIVE, default 300, as
Ollama's keep_alive; 0 ends it after each request, a negative value keeps it while the app
runs) and is started again on the next. A one-shot CLI process keeps encoding in itself.

The two talk over the child's stdin and stdout, in frames (pipes.py): the parent sends a lane
(b"q" a query, b"c" cards), what it wants (b"f" the rows as float32, b"h" as float16, as a
.vec keeps them, both of the texts that follow as a JSON list; b"s" a search ranked, the
msgpack stack.Asked that follows); the child first says {"id", "dims"} (or {"error"} when
the model cannot be loaded here), then answers each request with its lane, b"V" and the
rows' bytes (a search: the msgpack stack.Ranked), or b"E" and a message. A query is
answered at once beside the cards under way (a search never queues behind the background's
encoding). The numeric work is the child's: the parent handles rows as bytes, lets the
child hold the stack of every task's vectors and multiply (stack.py), and so imports no
numpy to encode, to keep the vectors (vectors.py) or to search by meaning.
The child ends at the end of its stdin, so it never outlives the app, and the app ends it on
exit. A child that cannot start or dies
mid-request raises Unavailable (search falls back to words and says so); the next text starts
another.
"""

import atexit
import contextlib
import json
import os
import queue
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import NodwynError
from ..pipes import STOP_WAIT, Kept, close, command, receive, send
from .models import Unavailable

if TYPE_CHECKING:  # numpy is imported only where rows are wanted as arrays
    import numpy as np

KEEP_ALIVE = 300.0  # seconds, unless NODWYN_MODEL_KEEP_ALIVE says otherwise


class NotLoadable(NodwynError):
    """The child started but cannot load the sentence model (onnxruntime or the graph)."""


class Gone(Unavailable):
    """The child could not be started, or ended before it answered (search falls back to
    words, as for any Unavailable)."""


def keep_alive() -> float:
    """Seconds the child stays after its last request (NODWYN_MODEL_KEEP_ALIVE, else 300)."""
    said = os.environ.get("NODWYN_MODEL_KEEP_ALIVE", "").strip()
    try:
        return float(said) if said else KEEP_ALIVE
    except ValueError:
        return KEEP_ALIVE


QUERY, CARDS = b"q", b"c"  # the two lanes: a query's text, and the background's cards
SINGLE, HALF = b"f", b"h"  # the rows' form: float32, or float16 as a .vec keeps them
SEARCH = b"s"  # a search by meaning ranked in the child (stack.Asked, answered stack.Ranked)


class Child(Kept):
    """An encoder like Sentence whose model runs in a child process: `id`, `dims`,
    `encode(texts)` (the cards' lane) and `encode_query(text)` (the query's lane, answered
    beside any cards under way); safe to call from several threads at once (one
    request at a time in each lane)."""

    KEEPER = "nodwyn-model-keeper"

    def __init__(self, folder: Path, wait: float | None = None):
        self.folder, self.wait = folder, keep_alive() if wait is None else wait
        self.process: subprocess.Popen | None = None
        self.lock = threading.Lock()  # the child's start and end, and `busy`
        self.lanes = {QUERY: threading.Lock(), CARDS: threading.Lock()}
        self.writing = threading.Lock()
        self.answers: dict = {}  # lane -> the queue of the running child's answers
        self.reader: threading.Thread | None = None
        self.busy = 0  # requests under way
        self.used = 0.0  # time.monotonic() of the last request
        self.keeper: threading.Thread | None = None  # ends the child once unused for `wait`
        self.changed = threading.Condition(self.lock)  # a request ended, or the child stops
        self.id, self.dims = "", 0
        self.starts = 0  # children started so far
        self.start()  # raises NotLoadable or Gone
        atexit.register(self.stop)

    def start(self) -> None:
        """Start the child, read its greeting, and hand its answers to their lanes from a
        thread of their own (the lock held, or before any thread)."""
        command = [*child_command(), str(self.folder)]
        self.starts += 1
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
        except OSError as exc:
            self.process = None
            raise Gone(f"the sentence model's process could not be started: {exc}") from exc
        said = receive(self.process.stdout)
        if said is None:
            self.end()
            raise Gone("the sentence model's process ended as it started")
        hello = json.loads(said)
        if "error" in hello:
            self.end()
            raise NotLoadable(hello["error"])
        self.id, self.dims = hello["id"], hello["dims"]
        self.answers = {QUERY: queue.SimpleQueue(), CARDS: queue.SimpleQueue()}
        self.reader = threading.Thread(
            target=_read_answers,
            args=(self.process, self.answers),
            name="nodwyn-model-answers",
            daemon=True,
        )
        self.reader.start()

    def encode(self, texts: list[str], lane: bytes = CARDS) -> "np.ndarray":
        """(len(texts), dims) float32 rows of length 1 (0 for an empty text), made in the
        child (started again if it had ended); raises Gone if it cannot answer."""
        import numpy as np

        made = self.rows(texts, lane, SINGLE)
        return np.frombuffer(made, dtype=np.float32).reshape(len(texts), self.dims).copy()

    def encode_half(self, texts: list[str]) -> bytes:
        """The cards' rows as float16 bytes, one row after another (a .vec's `vectors`),
        turned so by the child: this process needs no numpy for them."""
        return self.rows(texts, CARDS, HALF)

    def encode_query(self, text: str) -> "np.ndarray":
        """The vector of a query, by its own lane: never behind the cards being encoded."""
        return self.encode([text], QUERY)[0]

    def rows(self, texts: list[str], lane: bytes, form: bytes) -> bytes:
        """The bytes of the texts' rows in `form` (SINGLE or HALF) by `lane`, from the child
        (started again if it had ended); raises Gone if it cannot answer."""
        if not texts:
            return b""
        return self._request(lane, form + json.dumps(texts).encode("utf-8"))

    def ranking(self, root, state, tasks, text: str, depth: int, floor: float) -> tuple:
        """([((task, turn), cosine)] best first, tasks without vectors yet) of a search by
        meaning, ranked by the child over the tasks' vectors (stack.py) by the query's lane;
        raises Gone if it cannot answer."""
        from .stack import asking, ranking_of

        asked = asking(root, state, tasks, text, depth, floor)
        return ranking_of(self._request(QUERY, SEARCH + asked))

    def ready(self) -> None:
        """Start the child now if none runs (a search about to ask it: its start overlaps the
        search's own work); raises Gone if it cannot be started."""
        with self.lock:
            if self.process is None or self.process.poll() is not None:
                self.end()
                self._start_the_same()
            self.used = time.monotonic()
            self._arm()

    def _request(self, lane: bytes, request: bytes) -> bytes:
        """The child's answer to a request by `lane` (the child started again if it had
        ended); raises Gone if it cannot answer."""
        with self.lanes[lane]:
            with self.lock:
                if self.process is None or self.process.poll() is not None:
                    self.end()
                    self._start_the_same()
                process, answers = self.process, self.answers
                self.busy += 1
            try:
                said = self._ask(process, answers[lane], lane + request)
            finally:
                with self.lock:
                    self.busy -= 1
                    self.used = time.monotonic()
                    self._arm()
        if said[:1] == b"E":
            raise Gone(said[1:].decode("utf-8", "replace"))
        return said[1:]

    def _ask(self, process, answers, request: bytes) -> bytes:
        try:
            with self.writing:
                send(process.stdin, request)
            said = answers.get()
        except (OSError, ValueError):  # a broken pipe: it died
            said = None
        if said is None:
            with self.lock:
                if self.process is process:
                    self.end()
            raise Gone("the sentence model's process ended in the middle of a request")
        return said

    def _start_the_same(self) -> None:
        known = self.id
        try:
            self.start()
        except NotLoadable as exc:
            raise Gone(str(exc)) from exc
        if self.id != known:  # the model changed on disk: vectors of one id are not another's
            self.id = known
            self.end()
            raise Gone("the sentence model changed on disk: restart the app to use it")

    def end(self) -> None:
        """Close the child's stdin (it ends there), and kill it if it does not (lock held);
        a request waiting for it hears its end (Gone)."""
        process, self.process = self.process, None
        if process is None:
            return
        close(process, STOP_WAIT)
        if self.reader is not None and self.reader is not threading.current_thread():
            self.reader.join(STOP_WAIT)
        with contextlib.suppress(OSError):
            process.stdout.close()


def _read_answers(process: subprocess.Popen, answers: dict) -> None:
    """Each answer of the child to the queue of its lane; at its end, None to every lane."""
    try:
        while (said := receive(process.stdout)) is not None and said[:1] in answers:
            answers[said[:1]].put(said[1:])
    except (OSError, ValueError):
        pass
    for waiting in answers.values():
        waiting.put(None)


def serve(folder: Path) -> None:
    """The child: load the model, say so, then answer each request until stdin ends:
    the cards' lane in a thread of its own, a query's at once beside it (one
    onnxruntime session runs from two threads at once), each answer tagged by its lane."""
    import numpy  # noqa: F401  before the thread below: two threads importing it at once fail

    from . import stack
    from .models import Sentence

    given, answer = sys.stdin.buffer, sys.stdout.buffer
    threading.Thread(target=stack.ready, name="imports", daemon=True).start()
    try:
        model = Sentence(folder)
    except Exception as exc:  # noqa: BLE001  onnxruntime's errors have no common base
        why = f"{type(exc).__name__}: {exc}".splitlines()[0][:200]
        send(answer, json.dumps({"error": why}).encode("utf-8"))
        return
    send(answer, json.dumps({"id": model.id, "dims": model.dims}).encode())
    writing, cards = threading.Lock(), queue.SimpleQueue()

    def encoded(asked: bytes) -> None:
        said = _answered(model, asked[1:])
        with writing:
            send(answer, asked[:1] + said)

    def the_cards() -> None:
        while (asked := cards.get()) is not None:
            encoded(asked)

    worker = threading.Thread(target=the_cards, name="cards", daemon=True)
    worker.start()
    while (asked := receive(given)) is not None:
        if asked[:1] == QUERY:
            encoded(asked)
        else:
            cards.put(asked)
    cards.put(None)
    worker.join()


def _answered(model, asked: bytes) -> bytes:
    """The child's answer to one request (its form, then its texts or search): b"V" and the
    rows' bytes or the ranking, or b"E" and why (one bad request does not end the model)."""
    import numpy as np

    from . import stack

    form = asked[:1]
    try:
        if form == SEARCH:
            return b"V" + stack.answer(model, asked[1:])
        rows = np.ascontiguousarray(model.encode(json.loads(asked[1:])), np.float32)
        return b"V" + (rows.astype(np.float16) if form == HALF else rows).tobytes()
    except Exception as exc:  # noqa: BLE001  onnxruntime's and numpy's errors have no common base
        return b"E" + f"{type(exc).__name__}: {exc}"[:500].encode("utf-8")


def child_command() -> list[str]:
    """How the app starts the child: the bundle's launcher with `--nodwyn-model` (a frozen
    app has no `python -m`), else this module."""
    return command("--nodwyn-model", "nodwyn.memory.meaning.model_process")


def main() -> None:
    """The child: `python -m nodwyn.memory.meaning.model_process FOLDER`, or the bundle's
    launcher."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C ends the app, which ends this
    serve(Path(sys.argv[1]))


if __name__ == "__main__":
    main()
