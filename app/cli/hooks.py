"""`nodwyn hooks install|remove|list` and `nodwyn hook`: the agents' hooks that tell nodwyn what
their live sessions do (live/install.py), and the command those hooks run (live/hook.py)."""

from .console import print_json


def add_hooks(sub) -> None:
    cmd = sub.add_parser("hooks", help="the agents' hooks that say what a live session does")
    verbs = cmd.add_subparsers(dest="verb")
    install = verbs.add_parser("install", help="print (or --write) an agent's hooks")
    install.add_argument("agent", help="claude, codex, gemini, copilot, opencode, cursor, aider")
    install.add_argument("--write", action="store_true", help="add them to its user settings")
    install.set_defaults(run=cmd_install)
    remove = verbs.add_parser("remove", help="take nodwyn's hooks out of an agent's settings")
    remove.add_argument("agent")
    remove.set_defaults(run=cmd_remove)
    listed = verbs.add_parser("list", help="which agents have nodwyn's hooks")
    listed.add_argument("--json", action="store_true", help="print JSON")
    listed.set_defaults(run=cmd_list)
    hook = sub.add_parser("hook", help="what an agent's hook runs (reads its event; exits 0)")
    hook.add_argument("words", nargs="*")
    hook.set_defaults(run=lambda a: hook_main(a.words, a.data_dir))


def hook_main(words: list[str], data_dir: str | None) -> int:
    from ..live import hook

    given = ["--data-dir", data_dir] if data_dir and "--data-dir" not in words else []
    return hook.main([*words, *given])


def cmd_install(args) -> None:
    from ..live import install

    install.file_of(args.agent)  # an unknown agent is said before anything else
    print(install.write(args.agent) if args.write else install.lines(args.agent))


def cmd_remove(args) -> None:
    from ..live import install

    print(install.remove(args.agent))


def cmd_list(args) -> None:
    from ..live import install

    found = install.hook_list()
    if args.json:
        print_json(found)
        return
    for hooked in found.agents:
        said = "installed" if hooked.installed else "not installed"
        print(f"{hooked.label:<12} {said:<14} {hooked.file}")
