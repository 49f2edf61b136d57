"""A run of the summaries the person confirmed (ADR 0033): the estimate's requests sent one by
one, each answer recorded at once as a close summary of its seqs (by="provider"), so a run is
resumable (the next estimate leaves out what is recorded) and never summarizes a turn twice (a
request whose first seq a provider's summary covers by now is passed over).

Confirmed means the estimate's token: a run whose token is not the token of the requests as
they are now is refused before any request, so nothing is sent that the person did not see.
Cancelling stops before the next request (the one under way is awaited; its summary is kept).
"""

import threading

import msgspec

from .. import settings
from ..errors import BadInput
from ..tasks.store import Store
from . import estimate as estimating
from . import recording
from .providers import Summarizer


class Unconfirmed(BadInput):
    """The run's token is not the estimate's for the tasks as they are now."""


class Progress(msgspec.Struct, kw_only=True):
    state: str = "idle"  # idle / running / done / cancelled / failed
    tasks: int = 0
    requests: int = 0
    done: int = 0  # requests answered and recorded
    passed: int = 0  # requests passed over (covered meanwhile)
    task: str = ""  # the task of the request under way
    title: str = ""
    error: str = ""
    finished: list[str] = []  # tasks whose every request is done, in order


def summarizer_of(root) -> Summarizer:
    chosen = settings.load(root)
    if chosen.summaries == "off":
        raise BadInput("summaries are off: choose a provider in Settings > Summaries first")
    key = settings.embeddings_key(root, "summaries")
    return Summarizer(chosen.summaries, chosen.summaries_url, chosen.summaries_model, key)


class Job:
    """One run; `progress` is read by other threads while `run` works."""

    def __init__(self, store: Store, summarizer: Summarizer):
        self.store, self.summarizer = store, summarizer
        self.progress = Progress()
        self._cancel = threading.Event()

    def cancel(self) -> None:
        self._cancel.set()

    def confirm(self, tasks: list[str], project: str, token: str) -> estimating.Estimate:
        """The estimate as it is now, when `token` is its token; else Unconfirmed."""
        now = estimating.estimate(self.store, self.summarizer, tasks, project)
        if not token or token != now.token:
            raise Unconfirmed(
                "the summaries were not confirmed for the tasks as they are now: "
                "ask for the estimate again and confirm it"
            )
        return now

    def run(self, plan: estimating.Estimate, each_task=None) -> Progress:
        p = self.progress = Progress(state="running", tasks=plan.tasks, requests=len(plan.requests))
        try:
            for at, request in enumerate(plan.requests):
                if self._cancel.is_set():
                    p.state = "cancelled"
                    return p
                p.task, p.title = request.task, request.title
                self._one(request)
                if at + 1 == len(plan.requests) or plan.requests[at + 1].task != request.task:
                    p.finished.append(request.task)
                    if each_task is not None:
                        each_task(request, p)
        except Exception as exc:  # a provider's or a log's failure ends the run, said
            p.state, p.error = "failed", str(exc) or exc.__class__.__name__
            return p
        p.state, p.task, p.title = "done", "", ""
        return p

    def _one(self, request: estimating.Request) -> None:
        p = self.progress
        done = estimating.covered(self.store, request.task)
        if any(a <= request.first_seq <= b for a, b in done):
            p.passed += 1
            return
        answer = self.summarizer.summarize(request.prompt, estimating.MAX_TOKENS)
        seqs = (request.first_seq, request.last_seq, request.turns)
        recording.record(
            self.store,
            request.task,
            "close",
            answer.text,
            by="provider",
            model=self.summarizer.model,
            provider=self.summarizer.kind,
            seqs=seqs,
        )
        p.done += 1
