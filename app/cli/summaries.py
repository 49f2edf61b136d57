"""`nodwyn summarize TASK...|--project DIR [--estimate] [--texts] [--yes]` (ADR 0033): past tasks
summarized by the provider chosen in Settings. It prints the estimate and what would be sent
where (--texts: the exact text of each request), and sends only with --yes or a "y" typed at
the question; one line per task done. Ctrl+C stops after the request under way: its answer,
already paid for, is awaited and recorded (a second Ctrl+C stops at once); each summary
recorded stays, and a later run goes on from there.

Also `nodwyn settings summaries PROVIDER [ADDRESS] [MODEL] [--key]`: the provider, as
Settings > Summaries chooses it (add_summaries_setting, under `nodwyn settings`)."""

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
        print(
            f"\n--- to {plan.address}, {request.task} seqs {request.first_seq}-"
            f"{request.last_seq}:\n{request.prompt}"
        )
    if not plan.requests or args.estimate:
        return 0
    if not (args.yes or _asked()):
        print("nothing was sent (--yes sends them)")
        return 0
    done = _run_until_stopped(job, plan)
    if done.state == "cancelled":
        print(
            f"cancelled: {done.done} of {len(plan.requests)} summaries recorded; "
            "run it again to go on",
            file=sys.stderr,
        )
        return 130
    if done.state == "failed":
        print(f"nodwyn: {done.error} ({done.done} summaries recorded before)", file=sys.stderr)
        return 1
    print(f"done: {done.done} summaries recorded for {len(done.finished)} task(s)")
    return 0


def _run_until_stopped(job, plan):
    """The run on a thread of its own, Ctrl+C heard here, so that it does not cut the request
    under way: the first press asks the run to stop after it (its answer is paid for), a
    second stops at once."""
    import signal
    import threading

    finished: list = []
    wake = threading.Event()  # the run ended, or Ctrl+C was pressed twice
    presses: list[int] = []

    def work() -> None:
        try:
            finished.append(job.run(plan, each_task=_said))
        finally:
            wake.set()

    def pressed(signum, frame) -> None:
        presses.append(signum)
        if len(presses) == 1:
            job.cancel()
            print(
                "stopping after the summary under way (Ctrl+C again stops at once)",
                file=sys.stderr,
                flush=True,
            )
        else:
            wake.set()

    before = signal.signal(signal.SIGINT, pressed)
    try:
        threading.Thread(target=work, name="nodwyn-summaries", daemon=True).start()
        while not wake.wait(timeout=0.5):  # a timeout: Windows hears Ctrl+C only between waits
            pass
    finally:
        signal.signal(signal.SIGINT, before)
    if finished:
        return finished[0]
    job.progress.state = "cancelled"  # the answer under way is not waited for
    return job.progress


def estimate_text(plan) -> str:
    if not plan.requests:
        return "nothing to summarize: every turn of these tasks has a provider's summary"
    minutes = (
        f"{plan.seconds // 60} min {plan.seconds % 60} s"
        if plan.seconds >= 60
        else (f"{plan.seconds} s")
    )
    return "\n".join(
        (
            f"{plan.tasks} task(s), {plan.turns} turn(s), {len(plan.requests)} request(s)",
            f"about {plan.input_tokens:,} input tokens, "
            f"at most {plan.output_tokens:,} output tokens",
            f"cost: {plan.price}; time: about {minutes}",
            plan.sentence,
        )
    )


def _asked() -> bool:
    if not sys.stdin.isatty():
        return False
    try:
        return input("send them? [y/N] ").strip().lower() in ("y", "yes")
    except EOFError:
        return False


def _said(request, progress) -> None:
    print(
        f"summarized {request.task} ({request.title}): {progress.done} of "
        f"{progress.requests} requests done",
        flush=True,
    )


ASK = "\0ask"  # `--key` without a value: the key is asked for


def add_summaries_setting(change) -> None:
    """`nodwyn settings summaries PROVIDER [ADDRESS] [MODEL] [--key [KEY]]`: what Settings >
    Summaries chooses (the address and model may come in either order: an address starts
    with http)."""
    each = change.add_parser("summaries", help="the model that summarizes past tasks")
    each.add_argument("provider", choices=("off", "ollama", "openai", "anthropic"))
    each.add_argument(
        "given",
        nargs="*",
        metavar="ADDRESS|MODEL",
        help="the server's address (default: the provider's own) and the model's name",
    )
    each.add_argument("--url", help="the server's address (as ADDRESS)")
    each.add_argument("--model", help="the model's name (as MODEL)")
    each.add_argument(
        "--key",
        nargs="?",
        const=ASK,
        metavar="KEY",
        help="the API key: asked for without echo (or one line of standard input "
        "when that is no terminal); a KEY typed here stays in your shell's "
        "history",
    )
    each.add_argument("--forget-key", action="store_true", help="forget the API key kept")
    each.set_defaults(run=cmd_summaries_setting)


def cmd_summaries_setting(args) -> int:
    import msgspec

    from .. import settings
    from ..errors import BadInput
    from ..summarizing.providers import Summarizer, keep_key

    url, model = _address_and_model(args)
    root = store(args).root
    before = settings.load(root)
    chosen = {"summaries": args.provider}
    if args.provider != "off":
        chosen |= {"summaries_url": url, "summaries_model": model}
    after = msgspec.structs.replace(before, **chosen)
    if args.forget_key and args.key is not None:
        raise BadInput("--key and --forget-key: one or the other")
    key = "" if args.forget_key else _read_key(args.key)
    keep_key(root, before, after, key)  # refuses a provider that could not work, first
    settings.update(root, **chosen)
    if args.provider == "off":
        print("Summaries are off: nothing is sent anywhere.")
        return 0
    kept = "set" if settings.key_path(root, "summaries").exists() else "not set"
    where = Summarizer(args.provider, url, model).address
    print(
        f"Summaries now come from {model} at {where}; nothing is sent until you confirm an "
        f"estimate (`nodwyn summarize`). API key: {kept}."
    )
    return 0


def _address_and_model(args) -> tuple[str, str]:
    from ..errors import BadInput

    if len(args.given) > 2:
        raise BadInput("give the address and the model, no more")
    urls = [word for word in args.given if "://" in word]
    names = [word for word in args.given if "://" not in word]
    url = args.url if args.url is not None else (urls[0] if urls else "")
    model = args.model if args.model is not None else (names[0] if names else "")
    if len(urls) > 1 or len(names) > 1 or (urls and args.url) or (names and args.model):
        raise BadInput("give one address (http...) and one model name")
    if args.provider != "off" and not model:
        raise BadInput(
            f"{args.provider} summaries need a model name, e.g. {EXAMPLE_MODELS[args.provider]}"
        )
    return url, model


EXAMPLE_MODELS = {"ollama": "llama3.2", "openai": "gpt-5-mini", "anthropic": "claude-haiku-4-5"}


def _read_key(given: str | None) -> str | None:
    """The key given, asked for, or read from standard input; None: the key stays as it is."""
    from ..errors import BadInput

    if given != ASK:
        return given
    if sys.stdin.isatty():
        import getpass

        key = getpass.getpass("API key (not shown): ").strip()
    else:
        key = sys.stdin.readline().strip()
    if not key:
        raise BadInput("no key was given; nothing was changed (--forget-key forgets the one kept)")
    return key
