"""Google Antigravity's `transcript.jsonl` as nodwyn records: a fold over its steps.

Each line is one step `{step_index, source, type, status, created_at, content?, thinking?,
tool_calls?, error?}` (FORMATS-AGENTS.md 6; there is no official schema, so only these
fields are read). The map (ADR 0021): a USER_INPUT is a prompt (the
text inside `<USER_REQUEST>`; the model named in `<USER_SETTINGS_CHANGE>` is the only place
the model is written); a PLANNER_RESPONSE a reply, its `thinking` the thinking and its
`tool_calls` the calls (with no ids of their own, so each gets `<step>/<n>`; the JSON-encoded
argument values of `transcript.jsonl` are decoded); each later MODEL step is the result of
the oldest call still open (steps are paired by order, as Antigravity gives nothing else),
with its error status and the exit code its text states; a CHECKPOINT is a compaction; an
ERROR_MESSAGE an error. System and ephemeral messages (reminders injected for the model) are
not events. Antigravity records no tokens or cost and no end of a turn: a turn ends at the
next prompt, or at the end of a transcript no longer written.
"""

import json
import re
from pathlib import PurePosixPath, PureWindowsPath
from typing import Any

import msgspec
from msgspec import Struct

from ...log import records as r
from .. import names, turns
from ..times import at_of

ORIGIN = names.origin("antigravity")
_REQUEST = re.compile(r"<USER_REQUEST>\s*(.*?)\s*</USER_REQUEST>", re.S)
_MODEL = re.compile(r"changed setting `Model Selection` from .*? to (.+?)\. ")
_HEADER = re.compile(r"\ACreated At: [^\n]*\n(?:Completed At: [^\n]*\n)?")
_EXIT = re.compile(r"exit code:? (-?\d+)", re.I)
WRITES = ("TargetFile", "TargetFilePath")
SKIPPED = {"SYSTEM_MESSAGE", "EPHEMERAL_MESSAGE", "CONVERSATION_HISTORY"}


class _Step(Struct):
    step_index: Any = None
    source: str = ""
    type: str = ""
    status: str = ""
    created_at: Any = None
    content: Any = None
    thinking: Any = None
    tool_calls: Any = None
    error: Any = None
    error_code: Any = None


_decode = msgspec.json.Decoder(_Step).decode


class Carry(turns.Carry, kw_only=True):
    turn: turns.Turn = msgspec.field(default_factory=turns.Turn)
    pending: list[r.Known] = []  # steps before the first that names the working folder
    open: list[list[str]] = []  # [call id, tool] of calls awaiting a result, oldest first


def request_text(content: str) -> str:
    """The person's words: inside `<USER_REQUEST>`, whose end a cut transcript may lack."""
    found = _REQUEST.search(content)
    if found:
        return found.group(1)
    text = content.strip().removeprefix("<USER_REQUEST>")
    return text.split("<ADDITIONAL_METADATA>")[0].strip()


def folder_of(step: _Step) -> str:
    """The working folder a planner step's calls name, or ""."""
    if step.type != "PLANNER_RESPONSE":
        return ""
    for call in step.tool_calls or ():
        args = arguments(call.get("args")) if isinstance(call, dict) else None
        if not isinstance(args, dict):
            continue
        if isinstance(args.get("Cwd"), str) and args["Cwd"]:
            return args["Cwd"]
        for key in ("TargetFile", "AbsolutePath", "DirectoryPath"):
            path = args.get(key)
            if isinstance(path, str) and path:
                folder = _folder(path, key == "DirectoryPath")
                if folder:
                    return folder
    return ""


def _folder(path: str, is_folder: bool) -> str:
    """A file's folder, unless it is Antigravity's own (a scratch project counts)."""
    path = (
        path.removeprefix("file:///") if path.startswith("file:///") and ":" in path[8:11] else path
    )
    path = path.removeprefix("file://")
    windows = "\\" in path or (len(path) > 1 and path[1] == ":")
    pure = PureWindowsPath(path) if windows else PurePosixPath(path)
    parts = [p.lower() for p in pure.parts]
    if ".gemini" in parts:
        at = parts.index(".gemini")
        if parts[at + 1 : at + 3] == ["antigravity", "scratch"] and len(parts) > at + 3:
            return str(pure.parents[len(parts) - at - 5]) if len(parts) > at + 4 else str(pure)
        return ""
    return str(pure if is_folder else pure.parent)


def arguments(args: Any) -> Any:
    """A call's arguments; `transcript.jsonl` writes every value JSON-encoded as a string."""
    if not isinstance(args, dict) or not args or not all(isinstance(v, str) for v in args.values()):
        return args
    decoded = {}
    for key, value in args.items():
        try:
            decoded[key] = json.loads(value)
        except ValueError:
            return args  # a plain value: `transcript_full.jsonl`, decoded already
    return decoded


class Parser(turns.Fold):
    """The fold of one transcript. No field holds the working folder, so the session's start
    waits for the first call that names one (a command's `Cwd`, a file outside `~/.gemini`),
    or for the end of a transcript no longer written; the steps before it wait with it."""

    Carry, decode = Carry, _decode

    def __init__(self, source: str, session: str, carry: Carry | None = None, title: str = ""):
        super().__init__(source, carry)
        self.carry.session = self.carry.session or session
        self.title = " ".join(title.split())[:120]  # Antigravity's own, kept apart

    def line(self, n: int, step: _Step, out: list) -> None:
        c = self.carry
        at = c.last_at = at_of(step.created_at, c.last_at)
        src = r.Src(line=n, id=str(step.step_index) if step.step_index is not None else None)
        made: list = []
        self._step(step, at, src, made)
        if c.started:
            out.extend(made)
            return
        c.pending.extend(made)
        folder = folder_of(step)
        if folder:
            self._start(folder, out)

    def _start(self, folder: str, out: list) -> None:
        c = self.carry
        c.started = True
        first = c.pending[0] if c.pending else None
        out.append(
            r.SessionStart(
                at=first.at if first else c.last_at,
                src=first.src if first else None,
                project=folder,
                origin=r.Origin(tool=ORIGIN, path=self.source, id=c.session),
            )
        )
        self.kept_title(self.title, "agyhub_summaries", out)
        out.extend(c.pending)
        c.pending = []

    def _step(self, step: _Step, at: str, src: r.Src, out: list) -> None:
        kind, content = step.type, step.content if isinstance(step.content, str) else ""
        if kind == "USER_INPUT":
            self._prompt(content, at, src, out)
        elif kind == "PLANNER_RESPONSE":
            self._reply(step, content, at, src, out)
        elif kind == "CHECKPOINT":
            out.append(r.ContextCompact(at=at, src=src, note=content))
        elif kind == "ERROR_MESSAGE":
            text = step.error if isinstance(step.error, str) else content
            code = f" ({step.error_code})" if isinstance(step.error_code, int) else ""
            out.append(r.Error(at=at, src=src, text=text + code))
        elif step.source == "MODEL" and kind not in SKIPPED:
            self._result(step, content, at, src, out)

    def finish(self, live: bool, out: list) -> None:
        if self.carry.started:
            self.kept_title(self.title, "agyhub_summaries", out)  # renamed in Antigravity since
        if live:
            return
        if not self.carry.started and self.carry.pending:
            self._start("", out)
        c = self.carry
        c.turn.end(c.last_at, "completed", c.pending if not c.started else out)

    def _prompt(self, content: str, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        model = _MODEL.search(content)
        if model:
            c.model = model.group(1).strip()
        c.turn.end(at, "completed", out)
        c.turn.start(at, src.id or str(src.line))
        out.append(r.Message(at=at, src=src, text=request_text(content)))

    def _reply(self, step: _Step, content: str, at: str, src: r.Src, out: list) -> None:
        c, calls = self.carry, []
        for number, call in enumerate(step.tool_calls or ()):
            if not isinstance(call, dict) or not isinstance(call.get("name"), str):
                continue
            key, args = f"{step.step_index}/{number}", arguments(call.get("args"))
            calls.append(r.Call(id=key, tool=call["name"], input=args))
            c.open.append([key, call["name"]])
            target = next(
                (
                    args[k]
                    for k in WRITES
                    if isinstance(args, dict) and isinstance(args.get(k), str)
                ),
                "",
            )
            if target:
                c.files[key] = [target]
        thinking = step.thinking if isinstance(step.thinking, str) else ""
        out.append(
            r.Reply(at=at, src=src, text=content, thinking=thinking, calls=calls, model=c.model)
        )

    def _result(self, step: _Step, content: str, at: str, src: r.Src, out: list) -> None:
        c = self.carry
        call, tool = c.open.pop(0) if c.open else ("", step.type.lower())
        output = _HEADER.sub("", content, count=1)
        found = _EXIT.search(output[:400])
        code = int(found.group(1)) if found else None
        error = step.status == "ERROR" or code not in (None, 0)
        out.append(self.result(at, src, call, output, error, code, tool=tool))
