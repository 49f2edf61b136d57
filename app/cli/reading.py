"""`nodwyn export`, `resume-command`, `star` and `starred`: taking a task out of
nodwyn, back to its agent, and the turns a person starred."""

import sys
from pathlib import Path

from .console import store


def add_reading(sub) -> None:
    cmd = sub.add_parser("export", help="save a task, or one turn, as Markdown or HTML")
    cmd.add_argument("id", help="the task")
    cmd.add_argument("--turn", type=int, metavar="SEQ", help="only the turn that starts at SEQ")
    cmd.add_argument("--format", choices=("md", "html"), default="md", help="default: md")
    cmd.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
    cmd.set_defaults(run=cmd_export)

    cmd = sub.add_parser("resume-command", help="print the agent's command that resumes a task")
    cmd.add_argument("id")
    cmd.set_defaults(run=cmd_resume_command)

    cmd = sub.add_parser("star", help="star a turn (the one that starts at SEQ), with a note")
    cmd.add_argument("id")
    cmd.add_argument("seq", type=int)
    cmd.add_argument("--note", default="", help="a few words of your own, found by search")
    cmd.add_argument("--off", action="store_true", help="unstar it")
    cmd.set_defaults(run=cmd_star)

    cmd = sub.add_parser("starred", help="list the starred turns, newest first")
    cmd.set_defaults(run=cmd_starred)


def cmd_export(args) -> int:
    from ..reading.export import export

    text = export(store(args), args.id, args.format, args.turn)
    if not args.output:
        sys.stdout.write(text)
        return 0
    Path(args.output).write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text.encode())} bytes)", file=sys.stderr)
    return 0


def cmd_resume_command(args) -> int:
    from ..reading.resume import command

    found = command(store(args), args.id)
    if not found.command:
        print(f"nodwyn: no resume command for {args.id}: {found.reason}", file=sys.stderr)
        return 1
    print(found.command)
    return 0


def cmd_star(args) -> None:
    marked = store(args).star(args.id, args.seq, args.note, starred=not args.off)
    print(f"{'starred' if marked.starred else 'unstarred'} turn {marked.turn} of {marked.task}")


def cmd_starred(args) -> None:
    from ..tasks import starred

    turns = starred.listing(store(args))
    if not turns:
        print("No starred turns yet: nodwyn star TASK SEQ [--note WORDS]")
    for t in turns:
        note = f"  — {t.note}" if t.note else ""
        print(f"{t.task}  turn {t.turn}  {t.title}{note}")
