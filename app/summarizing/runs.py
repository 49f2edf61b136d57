"""The app's one summaries run at a time (ADR 0033): started on its own thread once the
estimate's token is confirmed, read by the page's progress requests, cancelled from there."""

import threading

import msgspec

from ..errors import BadInput
from ..tasks.store import Store
from . import estimate as estimating
from .job import Job, Progress, summarizer_of


class Runs:
    def __init__(self, store: Store, poke):
        self.store, self.poke = store, poke  # poke: the change feed, so pages hear of each task
        self._job: Job | None = None
        self._lock = threading.Lock()

    def estimate(self, tasks: list[str], project: str) -> estimating.Estimate:
        return estimating.estimate(self.store, summarizer_of(self.store.root), tasks, project)

    def start(self, tasks: list[str], project: str, token: str) -> Progress:
        with self._lock:
            if self._job is not None and self._job.progress.state == "running":
                raise BadInput("summaries are being written already: wait, or cancel that run")
            job = Job(self.store, summarizer_of(self.store.root))
            plan = job.confirm(tasks, project, token)  # Unconfirmed: nothing is sent
            job.progress = Progress(state="running", tasks=plan.tasks, requests=len(plan.requests))
            self._job = job
        progress = job.progress  # as it started, copied: the run changes its own as it goes
        started = msgspec.structs.replace(progress, finished=list(progress.finished))
        threading.Thread(
            target=self._run, args=(job, plan), name="nodwyn-summaries", daemon=True
        ).start()
        return started

    def _run(self, job: Job, plan) -> None:
        job.run(plan, each_task=lambda request, progress: self.poke())
        self.poke()

    def progress(self) -> Progress:
        return self._job.progress if self._job is not None else Progress()

    def cancel(self) -> Progress:
        if self._job is not None:
            self._job.cancel()
        return self.progress()
