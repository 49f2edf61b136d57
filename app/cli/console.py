"""What every command of the command line uses: the store its `--data-dir` names (scrubbed
first when the redaction rules changed), a task's one-line form, JSON on stdout, and msgspec
imported the fast way.

The command groups' modules (tasks.py, memory.py, agents.py...) import these from here, and the
package's face (__init__.py) imports the groups only when a command needs one, so no module
of the command line imports another that imports it back (ADR 0045).
"""

import sys


def import_msgspec() -> None:
    """Import msgspec without typing_extensions, for the commands that must start fast (a
    search or recall in this process): msgspec takes from it only get_type_hints, Required
    and NotRequired, which on Python 3.11 and later are typing's own but for ReadOnly (3.13,
    which no record uses), and falls back to typing's when it cannot be imported; importing
    it (with inspect, ast, dis and tokenize) was most of msgspec's import. A later import of
    typing_extensions in this process (a library needing it) loads it as ever."""
    if "msgspec" in sys.modules or "typing_extensions" in sys.modules:
        return
    sys.modules["typing_extensions"] = None  # import refused: msgspec takes typing's
    try:
        import msgspec  # noqa: F401
    finally:
        del sys.modules["typing_extensions"]


def store(args):
    """The data directory's store, its logs scrubbed first if the redaction rules changed
    (scrub.py, which imports logging, imported only then)."""
    from ..log.redact_rules import RULES, scrubbed_rules
    from ..tasks.store import Store

    found = Store(args.data_dir)
    if scrubbed_rules(found.root) >= RULES:
        return found
    from ..background import scrub

    done = scrub.scrub_if_due(found)
    if done is not None and (done.logs or done.busy):
        print(f"nodwyn: {scrub.said(done)}", file=sys.stderr)
    return found


def show(task) -> None:
    print(f"{task.id}  {task.title}  ({task.state}{', archived' if task.archived else ''})")


def print_json(data) -> None:
    import json

    print(json.dumps(data, ensure_ascii=False, indent=None))
