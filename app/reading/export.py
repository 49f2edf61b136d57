"""A task, or one turn of it, as one Markdown file or one self-contained HTML file.

Both read the log through memory.readback's `plain` (redacted, as everywhere) and the HTML one
renders with the page's own trees (markdown.tree, edits.diff_of, ansi.runs) and the page's own
reading.css, inlined with a few base styles: no script, nothing fetched, readable offline in
any browser. A turn is its message and every event up to the next message of the person.
As a person reads it: times in this computer's time zone (the header names it), the agent by
its name ("Claude Code"), each call with its command, file or query beside the tool's name.
"""

import datetime as dt
import json
from html import escape

from .. import paths
from ..errors import BadInput
from ..log import logfile
from ..memory.cards.fold import cost_words
from ..memory.cards.headline import numbered
from ..memory.readback import plain, turn_cards
from . import ansi, edits, markdown
from .shown import dress

FORMATS = ("md", "html")
TEXT = 1_000_000  # characters of one string field an export keeps whole
# The input fields that say what a call did, in the order asked (the page's events.js callLine
# reads the same, with the other agents' spellings: Antigravity's CommandLine, OpenCode's ...)
LINE_KEYS = ("command", "cmd", "CommandLine", "file_path", "filePath", "path", "AbsolutePath",
             "TargetFile", "DirectoryPath", "pattern", "url", "Url", "query", "sql", "skill",
             "description", "Description", "intent", "prompt")  # fmt: skip  # a table
_BASE_CSS = """
:root { --bg: #fff; --fg: #1d2127; --muted: #5d6570; --line: #dde1e6; --bg-soft: #f0f2f5;
  --bg-code: #f4f5f7; --accent: #1f5fbf; --red: #b3261e;
  --font: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif;
  --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, "DejaVu Sans Mono", monospace; }
@media (prefers-color-scheme: dark) { :root { --bg: #17191d; --fg: #e3e6ea; --muted: #9aa3ad;
  --line: #343a42; --bg-soft: #23272d; --bg-code: #1f2328; --accent: #7eb0ff; --red: #ff8a80; } }
body { background: var(--bg); color: var(--fg); font: 14px/1.5 var(--font); max-width: 920px;
  margin: 24px auto; padding: 0 16px; }
code, pre { font-family: var(--mono); font-size: 12.5px; }
pre { background: var(--bg-code); padding: 6px 8px; border-radius: 5px; white-space: pre-wrap;
  overflow-wrap: anywhere; }
a { color: var(--accent); }
header.task { border-bottom: 1px solid var(--line); margin-bottom: 12px; }
.meta, .event-meta, .card { color: var(--muted); font-size: 12px; }
.turn { border-top: 1px solid var(--line); padding-top: 8px; margin-top: 16px; }
.event { margin: 8px 0; padding-left: 10px; border-left: 2px solid transparent; }
.event.message { border-left-color: var(--accent); }
.event.message .md { font-weight: 500; }
.call { margin: 4px 0; border: 1px solid var(--line); border-radius: 5px; padding: 3px 8px; }
.call > summary { cursor: pointer; }
.call-line { margin-left: 6px; overflow-wrap: anywhere; }
h1, .meta, .card, .md, .compaction, .summary { overflow-wrap: anywhere; }
.result.error, .error { color: var(--red); }
.compaction { color: var(--muted); text-align: center; font-style: italic; }
"""


def export(store, task: str, fmt: str, turn: int | None = None) -> str:
    """The task (or the turn starting at seq `turn`) as text in format `fmt` (md or html)."""
    if fmt not in FORMATS:
        raise BadInput(f"export formats are {', '.join(FORMATS)}, not {fmt!r}")
    info = store.get(task)
    events = _events(store, task, turn)
    every = turn_cards(store, task)
    cards = {
        card.first_seq: (number, f"{numbered(card.head, number, len(every))} · {cost_words(card)}")
        for number, card in enumerate(every, 1)
    }
    return (_markdown if fmt == "md" else _html)(info, events, cards)


def file_name(store, task: str, fmt: str, turn: int | None = None) -> str:
    """A file name for the export: the task's title, made safe, and its id."""
    title = "".join(c if c.isalnum() or c in "-_ " else " " for c in store.get(task).title)
    stem = "-".join(title.split())[:60] or task
    return f"{stem}{f'-turn-{turn}' if turn else ''}.{fmt}"


def _events(store, task: str, turn: int | None) -> list[dict]:
    log = store.log_path(task)
    start = 0
    if turn is not None:
        table = logfile.offsets(log)
        if not 1 <= turn <= len(table):
            raise BadInput(f"task {task} has events 1 to {len(table)}, not {turn}")
        start = table[turn - 1]
    out: list[dict] = []
    for _, _, record in logfile.read(log, start):
        event = plain(record, TEXT)
        if turn is not None:
            if record.seq == turn and event.get("kind") != "message":
                raise BadInput(f"event {turn} of task {task} is no prompt: a turn starts at one")
            if record.seq > turn and event.get("kind") == "message" and not event.get("agent"):
                break
        out.append(event)
    return out


def _markdown(info, events: list[dict], cards: dict) -> str:
    lines = [f"# {info.title}", "", _heading(info), ""]
    for event in events:
        lines += _md_event(event, cards)
    return "\n".join(lines).rstrip() + "\n"


def _md_event(event: dict, cards: dict) -> list[str]:
    kind, who = event.get("kind"), f" ({event['agent']})" if event.get("agent") else ""
    if kind == "message":
        number, said = cards.get(event.get("seq"), (0, ""))
        title = f"Turn {number} of {len(cards)}" if number else "Message"
        head = [f"## {title}{who}", ""] + ([f"*{said}*", ""] if said else [])
        return head + ["**Asked:**", "", event.get("text", ""), ""]
    if kind == "reply":
        out = [f"**Reply{who}:**", "", event["text"], ""] if event.get("text") else []
        for call in event.get("calls") or []:
            diff = edits.diff_of(str(call.get("tool", "")), call.get("input"))
            line = call_line(call, diff)
            out += [
                f"**{call.get('tool')}**" + (f" `{line}`" if line and "`" not in line else ""),
                "",
                _fence(_input_text(call, diff), "diff" if diff else ""),
                "",
            ]
        return out
    if kind == "result":
        label = f"Result{' (error)' if event.get('error') else ''}"
        exit_ = f", exit {event['exit']}" if event.get("exit") is not None else ""
        return [f"{label}{exit_}:", "", _fence(ansi.plain(event.get("output", ""))), ""]
    if kind == "context.compact":
        return [
            f"> **Compaction** of events {event.get('first_seq')}–{event.get('last_seq')}",
            ">",
            *[f"> {line}" for line in event.get("note", "").splitlines()],
            "",
        ]
    if kind == "error":
        return [f"**Error:** {event.get('text', '')}", ""]
    if kind == "memory.summary":
        return [
            f"> **{_summary_label(event)}**",
            ">",
            *[f"> {line}" for line in event.get("text", "").splitlines()],
            "",
        ]
    return []


def _summary_label(event: dict) -> str:
    """ "Digest of seqs 1-40, by claude (agent)" (ADR 0033)."""
    level = "Digest" if event.get("level", "digest") == "digest" else "Close summary"
    by = event.get("by", "agent")
    who = (
        f"{event.get('provider', '')} {event.get('model', '')}".strip()
        if by == "provider"
        else (f"{event.get('model') or 'the agent'} (agent)" if by == "agent" else by)
    )
    return f"{level} of seqs {event.get('first_seq')}–{event.get('last_seq')}, by {who}"


def _input_text(call: dict, diff: dict | None = None) -> str:
    """A call's input as text: its diff in unified form where it is an edit (`diff`, made
    once by the caller), else the input as sent."""
    if diff:
        return "\n".join(_unified(file) for file in diff["files"])
    data = call.get("input")
    return data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False)


def _unified(file: dict) -> str:
    out = [f"--- {file['path']}", f"+++ {file['path']}"]
    for hunk in file["hunks"]:
        out.append(f"@@ {hunk['head']}".rstrip())
        out += [mark + text for mark, text, _old, _new in hunk["lines"]]
    return "\n".join(out)


def _fence(text: str, lang: str = "") -> str:
    ticks = "```"
    while ticks in text:
        ticks += "`"
    return f"{ticks}{lang}\n{text}\n{ticks}"


def _html(info, events: list[dict], cards: dict) -> str:
    css = (paths.frontend_dir() / "reading.css").read_text(encoding="utf-8")
    meta = _heading(info)
    body = [["header", {"class": "task"}, ["h1", {}, info.title], ["p", {"class": "meta"}, meta]]]
    body += [_html_event(dress(event), cards) for event in events]
    title = escape(info.title)
    return (
        "<!doctype html><html lang=en><head><meta charset=utf-8>"
        '<meta name=viewport content="width=device-width, initial-scale=1">'
        f'<meta name=color-scheme content="light dark"><title>{title}</title>'
        f"<style>{_BASE_CSS}{css}</style></head><body>{_nodes(body)}</body></html>\n"
    )


def _html_event(event: dict, cards: dict) -> list:
    """One event as a node tree (the tree markdown.py makes, and the same few tags)."""
    kind, seq = event.get("kind"), event.get("seq")
    meta = ["div", {"class": "event-meta"}, f"#{seq} · {local(event.get('at', ''))}"]
    if event.get("agent"):
        meta.append(f" · {event['agent']}")
    if kind in ("message", "reply"):
        node = [
            "div",
            {"class": f"event {kind}"},
            meta,
            ["div", {"class": "md"}, *event.get("md", [])],
        ]
        node += [_html_call(call) for call in event.get("calls") or []]
        found = cards.get(seq) if kind == "message" and not event.get("agent") else None
        if found is None:
            return node
        said = found[1]
        return ["section", {"class": "turn"}, ["p", {"class": "card"}, said], node]
    if kind == "result":
        runs = event.get("ansi") or [["", event.get("output", "")]]
        text = [["span", {"class": cls}, part] if cls else part for cls, part in runs]
        status = f"result of {event.get('tool', '')}{' · error' if event.get('error') else ''}"
        if event.get("exit") is not None:
            status += f" · exit {event['exit']}"
        cls = "event result error" if event.get("error") else "event result"
        return [
            "div",
            {"class": cls},
            meta,
            ["details", {}, ["summary", {}, status], ["pre", {}, *text]],
        ]
    if kind == "context.compact":
        return ["div", {"class": "compaction"}, "compaction · ", *event.get("md", [])]
    if kind == "error":
        return ["div", {"class": "event error"}, meta, event.get("text", "")]
    if kind == "memory.summary":
        return ["div", {"class": "summary"}, f"{_summary_label(event)} · ", *event.get("md", [])]
    return ["span", {}]


def _html_call(call: dict) -> list:
    tool = ["strong", {}, str(call.get("tool", ""))]
    if call.get("diff"):
        return ["div", {"class": "call"}, tool, _html_diff(call["diff"])]
    line = call_line(call)
    said = [tool, ["code", {"class": "call-line"}, line]] if line else [tool]
    return ["details", {"class": "call"}, ["summary", {}, *said], ["pre", {}, _input_text(call)]]


def call_line(call: dict, diff: dict | None = None) -> str:
    """What a call did, in a line: an edit's files, else its command, file, pattern, address
    or query (the first of LINE_KEYS it has), else a text input's first line; "" if none."""
    diff = diff or call.get("diff")
    if diff:
        return ", ".join(file["path"] for file in diff["files"])
    data = call.get("input")
    if isinstance(data, str):
        return _first_line(_command_in(data) or data)
    if not isinstance(data, dict):
        return ""
    for key in LINE_KEYS:
        value = data.get(key)
        if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
            value = " ".join(value)  # Codex's ["bash", "-lc", "go test ./..."]
        if isinstance(value, str) and value.strip():
            path = data.get("path")
            if key == "command" and isinstance(path, str) and " " not in value.strip():
                return f"{value.strip()} {path}"  # Copilot's {"command": "view", "path": ...}
            return _first_line(value)
    return ""


def _command_in(text: str) -> str:
    """The command a script of calls runs, where the input is one (Codex's code mode:
    `const r = await tools.exec_command({"cmd": "pwd && rg --files", ...})`), else ""."""
    import re

    found = re.search(r'"(?:cmd|command)"\s*:\s*("(?:[^"\\]|\\.)*")', text)
    if not found:
        return ""
    try:
        return json.loads(found.group(1))
    except ValueError:
        return ""


def _first_line(text: str, room: int = 200) -> str:
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= room else line[: room - 1] + "…"


def _heading(info) -> str:
    """The task's folder, agent by name and start in local time, with the zone the times are
    in: "/home/ana/pager · Claude Code · 2026-12-02 09:14 (times in UTC+01:00)"."""
    from ..importers import registry

    agent = registry.by_origin(info.origin)
    name = agent.label if agent else info.origin
    start = _parsed(info.created)
    zone = start.astimezone().strftime("%z") if start else ""
    said = f" (times in UTC{zone[:3]}:{zone[3:]})" if zone else ""
    return f"{info.project or 'No folder'} · {name} · {local(info.created)}{said}"


def local(at: str) -> str:
    """An ISO time as this computer's local date and time to the minute (else as it was)."""
    when = _parsed(at)
    return when.astimezone().strftime("%Y-%m-%d %H:%M") if when else at


def _parsed(at: str) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(at.replace("Z", "+00:00"))
    except (ValueError, AttributeError):
        return None
    return when if when.tzinfo else when.replace(tzinfo=dt.UTC)


def _html_diff(diff: dict) -> list:
    parts = []
    for file in diff["files"]:
        rows = []
        for i, hunk in enumerate(file["hunks"]):
            if i or hunk["head"]:
                rows.append(
                    ["tr", {"class": "diff-hunk"}, ["td", {"colspan": 3}, f"@@ {hunk['head']}"]]
                )
            for mark, text, old, new in hunk["lines"]:
                kind = {"+": "add", "-": "del"}.get(mark, "same")
                rows.append(
                    [
                        "tr",
                        {"class": f"diff-{kind}"},
                        ["td", {"class": "diff-no"}, str(old or "")],
                        ["td", {"class": "diff-no"}, str(new or "")],
                        [
                            "td",
                            {"class": "diff-text"},
                            ["span", {"class": "diff-mark"}, mark],
                            text,
                        ],
                    ]
                )
        head = [
            "div",
            {"class": "diff-file"},
            ["code", {"class": "diff-path"}, file["path"]],
            " ",
            ["span", {"class": "diff-added"}, f"+{file['added']}"],
            " ",
            ["span", {"class": "diff-removed"}, f"−{file['removed']}"],
        ]
        table = ["table", {"class": "diff-lines"}, ["tbody", {}, *rows]]
        parts.append(["div", {"class": "diff-part"}, head, table])
    return ["div", {"class": "diff"}, *parts]


# The export's own tags beside markdown.TAGS (the page builds these in JS instead)
_TAGS = markdown.TAGS | {"div", "section", "header", "h1", "details", "summary"}
_ATTRS = {
    "class",
    "href",
    "rel",
    "target",
    "start",
    "data-lang",
    "type",
    "checked",
    "disabled",
    "colspan",
}
_VOID = {"br", "hr", "input"}


def _nodes(nodes: list) -> str:
    """A node tree as HTML: known tags and attributes only, every text escaped."""
    out = []
    for node in nodes:
        if isinstance(node, str):
            out.append(escape(node, quote=False))
            continue
        tag, attrs, *children = node
        if tag not in _TAGS:
            out.append(escape(markdown.plain(children), quote=False))
            continue
        shown = "".join(
            f" {name}" if value is True else f' {name}="{escape(str(value))}"'
            for name, value in attrs.items()
            if name in _ATTRS and value is not False
        )
        out.append(f"<{tag}{shown}>" + ("" if tag in _VOID else f"{_nodes(children)}</{tag}>"))
    return "".join(out)
