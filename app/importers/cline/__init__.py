"""Cline, Roo Code and Kilo Code's older releases: one task folder each, in their editor's
globalStorage: `<User>/globalStorage/<extension>/tasks/<task id>/`.

A task folder holds `ui_messages.json` (what the panel showed: prompts, replies, calls,
each request's tokens and cost), `api_conversation_history.json` (what the model was sent)
and `task_metadata.json` (files in context, models, Cline's version), any of which may be
missing; all are rewritten whole. The panel's file is read when it is there (`ui`), the
model's when it is alone (`api`). The folder the task worked in is the one the extension
recorded (Roo Code's `history_item.json` `workspace`, Cline's `state/taskHistory.json`
`cwdOnTaskInitialization`), else the "Current Working Directory" of the environment details
Cline adds to its requests. Neither keeps a title apart from the task's first words, which
are what the task is called anyway. `<User>` is each VS Code-family editor's user folder
(`folders`), and Cline's own `~/.cline/data/tasks` (its CLI and JetBrains plugin).
Docs: ADR 0052.
"""

import hashlib
import json
import re
from pathlib import Path

import msgspec

from ...log import records as r
from ..agent import Agent, Found, Session, home_of, torn
from .folders import user_dirs

UI, API, META = "ui_messages.json", "api_conversation_history.json", "task_metadata.json"
ITEM = "history_item.json"  # Roo Code's per-task history entry
KEPT = ("context_history.json", "settings.json")  # the extension's own, nothing to read
BIGGEST = 512 * 1024 * 1024  # a task file past this is refused, not read into memory
_ID = re.compile(r"\d{10,16}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_MODEL = re.compile(rb'"modelId":\s*"([^"\\]+)"')
_any = msgspec.json.Decoder().decode


class Tasks(Agent):
    """A VS Code extension that keeps Cline's task folders; subclasses name the extension."""

    extension = ""
    whole = True
    content = (".json",)

    def roots(self) -> list[Path]:
        """The tasks folder in each editor on this computer (its User folder is there), or
        VS Code's when there is none, so the page can say where nodwyn looked."""
        users = user_dirs()
        there = [user for user in users if user.is_dir()] or users[:1]
        return [user / "globalStorage" / self.extension / "tasks" for user in there]

    def sources(self, folder: Path):
        for path in sorted(folder.rglob(UI)):
            yield path
        for path in sorted(folder.rglob(API)):
            if not (path.parent / UI).exists():
                yield path

    def companions(self, path: Path) -> list[Path]:
        """The task folder's other files: read with it (its metadata, Roo Code's history
        entry, the model's side) or kept by the extension for itself (its context record,
        its settings, its focus chain's todo list)."""
        if path.name not in (UI, API):
            return []
        others = [path.parent / name for name in (API, META, ITEM, *KEPT) if name != path.name]
        return others + [path.parent / f"focus_chain_taskid_{path.parent.name}.md"]

    def peek(self, path: Path) -> list[Found] | None:
        """The task id from the folder's name (or the file's first bytes, for a copy), so an
        unchanged task is passed over unread."""
        with open(path, "rb") as handle:
            opening = handle.read(8192)
        session = task_of(path, opening)
        return [Found(self.task_id(session), session)]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        if path.name == API and (path.parent / UI).is_file():
            return f"the model's side of the task whose {UI} beside it is read instead"
        size = path.stat().st_size
        if size > BIGGEST:
            return f"too big to read whole ({size >> 20} MB; nodwyn reads task files up to {BIGGEST >> 20} MB)"  # noqa: E501
        data = path.read_bytes()
        try:
            messages = _any(data)
        except msgspec.DecodeError as exc:
            return torn(exc, live)
        kind = kind_of(messages)
        if kind not in ("ui", "api"):
            return kind
        session = task_of(path, data)
        if kind == "api" and path.name != API and _panel_beside(path, session):
            return (
                f"the model's side of task {session}, whose ui_messages beside it is read instead"
            )
        records = self.records(path, kind, messages, session, live)
        if len(records) < 2:
            return "no conversation in it yet"
        return [Session(Found(self.task_id(session), session), records)]

    def records(self, path: Path, kind: str, messages: list, session: str, live: bool):
        # the parser is loaded by the first task it reads: listing the agents loads none
        from . import api, ui
        from .turns import Turns

        meta = _json(path.parent / META)
        model = _model(messages, meta, path)
        turns = Turns(model)
        first = _first_at(messages, session)
        mapper = ui.Mapper(turns) if kind == "ui" else api.Mapper(turns, first)
        mapper.messages(messages)
        out = turns.finish(live, settled=bool(getattr(mapper, "asking", "")))
        first_at = next((x.at for x in out if x.at), first)
        environment = (meta.get("environment_history") or [{}])[-1] if meta else {}
        start = r.SessionStart(
            at=first_at,
            src=r.Src(id="session"),
            project=self.folder(path, session) or mapper.folder,
            origin=r.Origin(
                tool=self.origin,
                path=str(path),
                id=session,
                version=str((environment or {}).get("cline_version") or ""),
            ),
            model=model,
        )
        return [start, *out]

    def folder(self, path: Path, session: str) -> str:
        """The folder the extension recorded for the task: Roo Code's history_item.json, or
        Cline's task history beside the tasks folder."""
        item = _json(path.parent / ITEM)
        if isinstance(item.get("workspace"), str) and item["workspace"]:
            return item["workspace"]
        history = _json(path.parent.parent.parent / "state" / "taskHistory.json", list)
        for entry in history if isinstance(history, list) else ():
            if isinstance(entry, dict) and entry.get("id") == session:
                return str(entry.get("cwdOnTaskInitialization") or "")
        return ""


def kind_of(value) -> str:
    """ "ui" or "api" for a task's messages, else why the JSON is not one (the other files an
    extension keeps beside them are named, so a person sees what was passed over)."""
    if isinstance(value, list) and value and all(isinstance(x, dict) for x in value[:50]):
        head = value[:50]
        if _most(x.get("type") in ("say", "ask") and "ts" in x for x in head):
            return "ui"
        if _most(x.get("role") in ("user", "assistant") and "content" in x for x in head):
            return "api"
        if all({"id", "ts", "task"} <= x.keys() for x in head):
            return "the extension's task history (each task's first words and folder), read with each task"  # noqa: E501
    if isinstance(value, list) and not value:
        return "an empty list: no conversation in it yet"
    if isinstance(value, dict):
        if "files_in_context" in value or "model_usage" in value:
            return "a task's metadata (files in context, models, versions), read with its messages"
        if {"id", "ts", "task"} <= value.keys():
            return "a task's history entry (its folder), read with its messages"
        if "mcpServers" in value:
            return "the extension's MCP settings, not a task"
        if "entries" in value and "version" in value:
            return "the extension's index of tasks, not a task"
    return "not a Cline task's messages (neither ui_messages nor api_conversation_history)"


def _most(marks) -> bool:
    """Most of a file's first messages have the shape (one odd message does not refuse it)."""
    marks = list(marks)
    return sum(marks) >= max(1, len(marks) * 0.8)


def task_of(path: Path, data: bytes) -> str:
    """The task id: its folder's name; else, for a copy kept under another name, the id that
    name carries (`<id>__ui_messages.json`), else a hash of the first message, so a copy and
    the original are one task."""
    if _ID.fullmatch(path.parent.name):
        return path.parent.name
    named = _ID.search(path.name)
    if named:
        return named.group(0)
    head = data.lstrip()[:4096]
    return "h" + hashlib.blake2b(head, digest_size=8).hexdigest()


def _panel_beside(path: Path, session: str) -> bool:
    """Whether a copy of the same task's ui_messages is in the folder (copies named by id)."""
    return any(
        p != path and session in p.name and p.name.endswith(UI) for p in path.parent.iterdir()
    )


def _first_at(messages: list, session: str) -> str:
    """When a task with no times of its own began: Cline's task id is its start in ms."""
    from ..times import at_ms

    return at_ms(int(session), "") if session.isdigit() else ""


def _model(messages: list, meta: dict, path: Path) -> str:
    for m in messages[:200]:
        info = m.get("modelInfo") if isinstance(m, dict) else None
        if isinstance(info, dict) and info.get("modelId"):
            return str(info["modelId"])
    used = meta.get("model_usage") if isinstance(meta.get("model_usage"), list) else []
    if used and isinstance(used[-1], dict) and used[-1].get("model_id"):
        return str(used[-1]["model_id"])
    try:
        with open(path.parent / API, "rb") as handle:
            found = _MODEL.search(handle.read(256 * 1024))
    except OSError:
        return ""
    return found.group(1).decode(errors="replace") if found else ""


def _json(path: Path, kind=dict):
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, UnicodeDecodeError):
        return kind()
    return value if isinstance(value, kind) else kind()


class Cline(Tasks):
    name = "cline"
    prefix = "cl-"
    extension = "saoudrizwan.claude-dev"
    no_resume = (
        "Cline reopens a task from its history in the editor; it has no command that resumes one"  # noqa: E501
    )

    def roots(self) -> list[Path]:
        # Cline's CLI and JetBrains plugin keep their tasks in ~/.cline/data (CLINE_DIR moves it)
        return [*super().roots(), home_of("CLINE_DIR", ".cline") / "data" / "tasks"]


class Roo(Tasks):
    name = "roo"
    prefix = "roo-"
    extension = "rooveterinaryinc.roo-cline"
    no_resume = (
        "Roo Code reopens a task from its history in the editor; it has no command that resumes one"  # noqa: E501
    )


class Kilo(Tasks):
    name = "kilo"
    prefix = "kilo-"
    extension = "kilocode.kilo-code"
    no_resume = "Kilo Code reopens a task from its history in the editor; it has no command that resumes one"  # noqa: E501


AGENT, ROO, KILO = Cline(), Roo(), Kilo()
