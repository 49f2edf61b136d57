"""`nodwyn mcp`, `mcp install`, `settings` and `app`: the
commands that serve agents or start the desktop app."""

import os
import sys

from ..errors import NodwynError
from ..mcp import AGENTS as MCP_AGENTS
from .console import print_json, store


def add_agents(sub) -> None:
    add_agent_commands(sub)
    add_app_command(sub)


def add_agent_commands(sub) -> None:
    """`nodwyn mcp`, `nodwyn mcp install` and `nodwyn settings`."""
    cmd = sub.add_parser("mcp", help="serve nodwyn's tools to an agent over MCP (stdio)")
    cmd.add_argument("--agent", choices=MCP_AGENTS, help="the agent that starts it")
    cmd.add_argument("--folder", help="the folder the agent works in (default: where it starts)")
    cmd.add_argument("--schema-size", action="store_true", help="print the tools' schema bytes")
    cmd.set_defaults(run=cmd_mcp)
    install = cmd.add_subparsers(title="mcp commands", metavar="COMMAND")
    each = install.add_parser("install", help="the lines an agent's configuration needs")
    each.add_argument("agent", choices=MCP_AGENTS)
    each.add_argument("--write", action="store_true", help="add them to the agent's config")
    each.set_defaults(run=cmd_mcp_install)

    cmd = sub.add_parser("settings", help="show settings, or change one")
    cmd.set_defaults(run=lambda a: print_json(settings_shown(a)))
    change = cmd.add_subparsers(title="settings", metavar="SETTING")
    each = change.add_parser("earlier-tasks", help="let agents search a project's earlier tasks")
    each.add_argument("project", help="the project's folder")
    each.add_argument("switch", choices=("on", "off"))
    each.set_defaults(run=cmd_earlier_tasks)
    each = change.add_parser("search-mode", help="rank search by words, meaning or both")
    each.add_argument("mode", choices=("words", "meaning", "both"))
    each.set_defaults(run=cmd_search_mode)
    each = change.add_parser("embeddings", help="vectors from the built-in model or a provider")
    each.add_argument("kind", choices=("builtin", "ollama", "openai", "voyage"))
    each.add_argument("url", nargs="?", default="", help="the provider's address (Voyage: its own)")
    each.add_argument("model", nargs="?", default="", help="the provider's model name")
    each.set_defaults(run=cmd_embeddings)
    each = change.add_parser("terminal", help="the terminal 'Open in terminal' starts")
    each.add_argument("command", nargs="?", default="", help="e.g. kitty; none: automatic")
    each.set_defaults(run=cmd_terminal)
    from .summaries import add_summaries_setting

    add_summaries_setting(change)


def cmd_search_mode(args) -> int:
    from .. import settings

    settings.update(store(args).root, search_mode=args.mode)
    print(f"Search now ranks by {'words and meaning' if args.mode == 'both' else args.mode}.")
    return 0


def cmd_embeddings(args) -> int:
    from .. import settings
    from ..memory.meaning import cost
    from ..memory.meaning.providers import VOYAGE, Provider

    if args.kind == "voyage" and not args.url.startswith(("http://", "https://")):
        args.url, args.model = VOYAGE, args.model or args.url  # `voyage MODEL`: its own address
    if args.kind != "builtin":
        Provider(args.kind, args.url, args.model)  # refuses a bad address or no model
    chosen = {"embeddings_url": args.url, "embeddings_model": args.model}
    data = store(args)
    settings.update(data.root, embeddings=args.kind, **chosen)
    if args.kind == "builtin":
        print("Vectors come from the built-in model; nothing is sent anywhere.")
    else:
        print(
            f"Vectors now come from {args.url} ({args.model}): the text of every turn's card "
            "and compaction note, and every search, will be sent there."
        )
        found = cost.estimate(data, args.kind, args.model, args.url)
        print(f"Your {found.texts} cards and notes are about {found.tokens} tokens: {found.price}.")
        if args.kind == "voyage" and not settings.embeddings_key(data.root):
            print(
                "Voyage AI needs an API key: set it in Settings > Search, or in "
                "NODWYN_EMBEDDINGS_KEY."
            )
    return 0


def cmd_terminal(args) -> int:
    from .. import settings
    from ..reading.terminal import checked

    settings.update(store(args).root, terminal=checked(args.command))
    if args.command:
        print(f"Open in terminal now starts {args.command}.")
    else:
        print("Open in terminal starts $TERMINAL, else this desktop's own terminal.")
    return 0


def settings_shown(args) -> dict:
    from msgspec import to_builtins

    from .. import settings

    root = store(args).root
    return {
        **to_builtins(settings.load(root)),
        "summaries_key_set": settings.key_path(root, "summaries").exists(),
    }


def cmd_mcp(args) -> int:
    from ..mcp import (
        server as mcp_server,  # the MCP SDK takes most of a second to import: only here
    )

    if args.schema_size:
        mcp_server.print_sizes()
        return 0
    mcp_server.serve(store(args), agent=args.agent, cwd=mcp_server.folder_given(args.folder))
    return 0


def cmd_mcp_install(args) -> int:
    from ..mcp import install as mcp_install

    print(mcp_install.write(args.agent) if args.write else mcp_install.lines(args.agent))
    return 0


def cmd_earlier_tasks(args) -> int:
    from .. import settings
    from ..tasks.store import project_of

    root, project = store(args).root, project_of(args.project)
    allowed = dict(settings.load(root).earlier_tasks)
    allowed.pop(project, None)
    if args.switch == "on":
        allowed[project] = True
    settings.update(root, earlier_tasks=allowed)
    verb = "may now" if args.switch == "on" else "may no longer"
    print(f"Agents {verb} search earlier tasks of {project} (nodwyn mcp).")
    return 0


def add_app_command(sub) -> None:
    """`nodwyn app`: the window, the tray and the worker; `nodwyn-app` runs it."""
    import argparse

    cmd = sub.add_parser("app", help="open the app: a window, a tray icon, agents followed")
    cmd.add_argument("--demo", action="store_true", help="use a data directory of demo tasks")
    cmd.add_argument("--search", action="store_true", help="open with the search box focused")
    cmd.add_argument("--self-check", help=argparse.SUPPRESS)  # the window test's report file
    cmd.set_defaults(run=cmd_app)


def cmd_app(args) -> int:
    from pathlib import Path

    from .. import wire

    wire.defer_tls()  # the app loads OpenSSL with its first HTTPS request, not before
    from .. import settings
    from ..background import instance
    from ..tasks import demo

    data = demo.make_demo(demo.demo_dir(args.data_dir)) if args.demo else store(args)
    if args.demo and not settings.path(data.root).exists():
        # The demo shows its own tasks: it does not pull the person's sessions into them.
        from ..importers import registry

        others = {name: False for name in registry.agent_keys() if name not in ("claude", "codex")}
        settings.update(data.root, follow_claude=False, follow_codex=False, follow=others)
    claim = instance.claim(data.root)
    if claim is None:  # checked before the window's libraries load: a second launch is quick
        instance.ask(data.root, "search" if args.search else "show")
        print(f"nodwyn is already running for {data.root}; its window was brought forward.")
        return 0
    try:
        if sys.platform.startswith("linux") and not any(
            os.environ.get(name) for name in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")
        ):
            raise NodwynError(
                "no display to open a window on: `nodwyn serve --open` shows the console "
                "in a browser"
            )
        from ..desktop import app as desktop

        check = Path(args.self_check) if args.self_check else None
        return desktop.run(data, claim, self_check=check, search=args.search)
    finally:
        claim.close()
