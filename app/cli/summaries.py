"""`nodwyn summarize TASK...|--project DIR [--estimate] [--texts] [--yes]` (ADR 0033): past tasks
summarized by the provider chosen in Settings. It prints the estimate and what would be sent
where (--texts: the exact text of each request), and sends only with --yes or a "y" typed at
the question; one line per task done; Ctrl+C stops before the next request (each summary
already answered stays recorded, and a later run goes on from there)."""

import sys

from .console import store


def add_summaries(sub) -> None:
    cmd = sub.add_parser("summarize", help="summarize past tasks with the provider chosen")
    cmd.add_argument("tasks", nargs="*", metavar="TASK", help="task ids")
    cmd.add_argument("--project", default="", metavar="DIR", help="every task of a folder")
    cmd.add_argument("--estimate", action="store_true", help="the estimate only; send nothing")
    cmd.add_argument("--yes", action="store_true", help="send without asking")
    cmd.add_argument("--texts", action="store_true", help="print the exact text of each request")
    cmd.set_defaults(run=cmd_summarize)


def cmd_summarize(args) -> int:
    from ..summarizing.estimate import estimate
    from ..summarizing.job import Job, summarizer_of

    found = store(args)
    job = Job(found, summarizer_of(found.root))
    plan = estimate(found, job.summarizer, args.tasks, args.project)
    print(estimate_text(plan))
    for request in plan.requests if args.texts else ():
        print(f"\n--- to {plan.address}, {request.task} seqs {request.first_seq}-"
              f"{request.last_seq}:\n{request.prompt}")  # fmt: skip
    if not plan.requests or args.estimate:
        return 0
    if not (args.yes or _asked()):
        print("nothing was sent (--yes sends them)")
        return 0
    try:
        done = job.run(plan, each_task=_said)
    except KeyboardInterrupt:
        job.cancel()
        print(f"cancelled: {job.progress.done} of {len(plan.requests)} summaries recorded; "
              "run it again to go on", file=sys.stderr)  # fmt: skip
        return 130
    if done.state == "failed":
        print(f"nodwyn: {done.error} ({done.done} summaries recorded before)", file=sys.stderr)
        return 1
    print(f"done: {done.done} summaries recorded for {len(done.finished)} task(s)")
    return 0


def estimate_text(plan) -> str:
    if not plan.requests:
        return "nothing to summarize: every turn of these tasks has a provider's summary"
    minutes = f"{plan.seconds // 60} min {plan.seconds % 60} s" if plan.seconds >= 60 else (
        f"{plan.seconds} s")  # fmt: skip
    return "\n".join((
        f"{plan.tasks} task(s), {plan.turns} turn(s), {len(plan.requests)} request(s)",
        f"about {plan.input_tokens:,} input tokens, at most {plan.output_tokens:,} output tokens",
        f"cost: {plan.price}; time: about {minutes}",
        plan.sentence,
    ))  # fmt: skip


def _asked() -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input("send them? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _said(request, progress) -> None:
    print(f"summarized {request.task} ({request.title}): {progress.done} of "
          f"{progress.requests} requests done", flush=True)  # fmt: skip
