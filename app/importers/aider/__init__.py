"""Aider (Aider-AI/aider): `.aider.chat.history.md` in a repository, one task per run.

Each run the file records is a task (`ad-<hash of the file's path and the run's header line>`);
a file that is not aider's is refused with a one-line reason. The project
is the run's `Git working dir` (else `Cur working dir`), else the file's folder. Prompt times
come from `.aider.input.history` beside it (entries matched in order by their words), else
the run header; both are local times of the computer that ran aider, read as this one's.
The file only grows, so each record's `src.line` (where its block starts) is its identity.
"""

import hashlib
import os
import time
from functools import lru_cache
from pathlib import Path

from ...log import records as r
from ..agent import PROBE, Agent, Found, Session, blank_or_binary
from ..times import at_local
from ..turns import cost_of
from . import blocks as b
from . import mapping as m

NAME = ".aider.chat.history.md"
DEPTH = 3  # folders below the home folder where repositories are looked for
RESCAN = 300  # seconds between two searches of the home folder
PASSED = {"node_modules", "venv", "Library", "AppData", "site-packages", "__pycache__"}


class Aider(Agent):
    name = "aider"
    resume = "aider --restore-chat-history"  # the folder's own chat history
    prefix = "ad-"
    content = (".md",)  # a chat history kept under another name
    whole = True  # appended, but one file holds many runs: read whole, matched by line

    def roots(self) -> list[Path]:
        """aider writes into each repository, so its files are looked for where repositories
        are: the home folder and up to three folders down (hidden ones and dependency
        folders passed over), looked for again every 5 minutes; or the one file
        `AIDER_CHAT_HISTORY_FILE` names. None found: the home folder's file, not there."""
        chosen = os.environ.get("AIDER_CHAT_HISTORY_FILE")
        if chosen:
            return [Path(chosen)]
        home = Path.home()
        return list(_in_home(str(home), int(time.time() // RESCAN))) or [home / NAME]

    def sources(self, folder: Path):
        return (p for p in folder.rglob(f"*{NAME}") if p.is_file())

    def companions(self, path: Path) -> list[Path]:
        return [input_history(path)]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        found = read(path, live)
        if isinstance(found, str):
            return found
        return [Session(Found(self.prefix + key, key), records) for key, records in found]


@lru_cache(maxsize=2)
def _in_home(home: str, _period: int) -> tuple[Path, ...]:
    """The chat histories in the home folder and up to DEPTH folders below it."""
    found, level = [], [Path(home)]
    for _ in range(DEPTH + 1):
        below = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.name == NAME and entry.is_file():
                    found.append(Path(entry.path))
                elif entry.is_dir(follow_symlinks=False) and not _passed(entry.name):
                    below.append(Path(entry.path))
        level = below
    return tuple(sorted(found))


def _passed(name: str) -> bool:
    return name.startswith(".") or name in PASSED


def recognise(opening: bytes) -> str:
    """Why a file's opening is not an aider chat history ("" when it is one)."""
    reason = blank_or_binary(opening)
    if reason:
        return reason
    for line in opening.decode("utf-8", "replace").split("\n")[:8]:
        if b.HEADER.match(line.rstrip("\r")):
            return ""
    return "not an aider chat history (no '# aider chat started at' line at its start)"


def input_history(path: Path) -> Path:
    return path.with_name(path.name.replace("chat.history.md", "input.history"))


def read(path: Path, live: bool) -> list[tuple[str, list]] | str:
    """(key, records) of each run of the file in which a person asked something."""
    data = path.read_bytes()
    reason = recognise(data[:PROBE])
    if reason:
        return reason
    try:
        entries = b.inputs(input_history(path).read_text("utf-8", "replace"))
    except OSError:
        entries = []
    runs = b.runs(data.decode("utf-8", "replace"))
    clock = _Clock(entries)
    out = []
    for index, run in enumerate(runs):
        key, records = _session(path, run, clock, live and index == len(runs) - 1)
        if any(isinstance(x, r.Message) and x.agent is None for x in records):
            out.append((key, records))  # a run in which nobody asked anything is no task
    return out or "no conversation in it (aider runs without a prompt)"


class _Clock:
    """Prompt times from the input history: each prompt takes the next entry with its words."""

    def __init__(self, entries):
        self.entries, self.at = entries, 0

    def time_of(self, words: str, after):
        for i in range(self.at, min(self.at + 50, len(self.entries))):
            stamp, said = self.entries[i]
            if said.strip() == words.strip() and stamp >= after:
                self.at = i + 1
                return stamp
        return None


def _session(path: Path, run: b.Run, clock: _Clock, live: bool) -> tuple[str, list]:
    facts = m.Facts(run)
    digest = hashlib.blake2b(f"{path.resolve()}\n{run.header}".encode(), digest_size=10)
    at = at_local(run.started)
    start = r.SessionStart(
        at=at,
        src=r.Src(line=run.line),
        project=facts.folder or str(path.resolve().parent),
        origin=r.Origin(tool=m.ORIGIN, path=str(path), id=run.header[2:], version=facts.version),
        model=facts.model,
    )
    fold = _Fold(facts, clock, run.started, at)
    shown = _settled(run.blocks) if live else run.blocks
    for i, block in enumerate(shown):
        fold.block(block, shown[i + 1] if i + 1 < len(shown) else None)
    fold.end(live)
    return digest.hexdigest(), [start, *fold.out]


def _settled(blocks: list[b.Block]) -> list[b.Block]:
    """A live run but its last reply and aider's notes after it, which may still grow (the
    edits applied, the tokens); a prompt typed after them shows they are whole."""
    for i in range(len(blocks) - 1, -1, -1):
        if blocks[i].kind == "user":
            return blocks
        if blocks[i].kind == "reply":
            return blocks[:i]
    return blocks


class _Fold:
    def __init__(self, facts: m.Facts, clock: _Clock, started, at: str):
        self.facts, self.clock, self.out = facts, clock, []
        self.stamp, self.at = started, at
        self.turn: dict | None = None  # the open turn: its prompt's line, reply seen, cost
        self.last_reply = ""
        self.editing = False  # the editor model's part of an architect turn
        self.asked = ""  # the words of a `/ask words` prompt, logged once more by aider
        self.pending: list[tuple[str, dict, r.Src]] = []  # edit calls waiting for results

    def block(self, block: b.Block, after: b.Block | None) -> None:
        if block.kind == "user":
            self._user(block)
        elif block.kind == "reply":
            notes = after if after is not None and after.kind == "tool" else None
            self._reply(block, m.applied_in(notes) if notes else [])
        else:
            self._notes(block)

    def _user(self, block: b.Block) -> None:
        words = "\n".join(block.lines).strip()
        if words == "<blank>" or m.is_confirmation(words):
            return
        if self.last_reply and words == self.last_reply.strip() and self.facts.editor:
            self.editing = True  # the architect hands its plan to the editor model
            self.out.append(
                r.Message(at=self.at, src=r.Src(line=block.line), agent="editor", text=words)
            )
            return
        if self.asked and words == self.asked:
            self.asked = ""  # `/ask words` logs the words again as it sends them
            return
        command, rest = m.command_of(words)
        stamp = self.clock.time_of(words, self.stamp)
        if command and command not in m.CLEARS and (command not in m.ASKS or not rest):
            return  # ran inside aider: no prompt
        self.end(False)
        if stamp is not None:
            self.stamp, self.at = stamp, at_local(stamp)
        if command in m.CLEARS:
            self.out.append(
                r.ContextCompact(
                    at=self.at, src=r.Src(line=block.line), note=f"Chat history cleared ({command})"
                )
            )
            return
        self.out.append(
            r.Message(at=self.at, src=r.Src(line=block.line), text=rest, command=command)
        )
        self.turn = {"line": block.line, "replied": False, "cost": 0.0, "unknown": False}
        self.editing, self.last_reply, self.asked = False, "", rest if command else ""

    def _reply(self, block: b.Block, applied: list[tuple[int, str]]) -> None:
        text, thinking = m.thinking_of(block.text)
        agent = "editor" if self.editing else None
        model = (self.facts.editor if self.editing else "") or self.facts.model
        calls = []
        for n, (path, given) in enumerate(m.edits(text)):
            if "search" not in given and not any(m.same_path(p, path) for _, p in applied):
                continue  # a whole file shown, not written
            call = r.Call(id=f"L{block.line}.{n}", tool="edit", input=given)
            calls.append(call)
            self.pending.append((path, call.id, agent))
        self.out.append(
            r.Reply(
                at=self.at,
                src=r.Src(line=block.line),
                agent=agent,
                text=text,
                thinking=thinking,
                calls=calls,
                model=model,
            )
        )
        self.last_reply = block.text
        if self.turn is not None:
            self.turn["replied"] = True

    def _notes(self, block: b.Block) -> None:
        for i, line in enumerate(block.lines):
            found = m.usage_of(line)
            if found:
                self._usage(block.line + i, *found)
        self._results(block)
        for line, text in m.errors_in(block):
            self.out.append(r.Error(at=self.at, src=r.Src(line=line), text=text))
        if m.interrupted(block) and self.turn is not None and not self.turn["replied"]:
            self._close("cancelled", block.line)

    def _usage(self, line: int, usage: r.Usage, cost: float | None) -> None:
        model = (self.facts.editor if self.editing else "") or self.facts.model
        if cost is None:
            cost = m.prices.cost(m.price_name(model), usage, self.at)
        if self.turn is not None:
            self.turn["cost"] += cost or 0.0
            self.turn["unknown"] = self.turn["unknown"] or cost is None
        self.out.append(
            r.Reply(
                at=self.at,
                src=r.Src(line=line),
                model=model,
                usage=usage,
                cost_usd=cost,
                agent="editor" if self.editing else None,
            )
        )

    def _results(self, block: b.Block) -> None:
        """The notes after a reply with edits: each edit applied, or failed with the notes."""
        if not self.pending:
            return
        applied = m.applied_in(block)
        pending, self.pending = self.pending, []
        for path, call, agent in pending:
            hit = next((n for n, done in applied if m.same_path(done, path)), None)
            if hit is not None:
                output, error, files, at = f"Applied edit to {path}", False, [path], r.Src(line=hit)
            else:
                output, error, files = "\n".join(block.lines), True, []
                at = r.Src(line=block.line, id=call)
            self.out.append(
                r.Result(
                    at=self.at,
                    src=at,
                    agent=agent,
                    call=call,
                    tool="edit",
                    output=output,
                    error=error,
                    files=files,
                )
            )

    def _close(self, status: str, line: int) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        self.out.append(
            r.TurnEnd(
                at=self.at,
                src=r.Src(line=turn["line"], id="end"),
                status=status,
                cost_usd=cost_of(turn),
            )
        )

    def end(self, live: bool) -> None:
        """The open turn ends: completed if the model answered (not while the file is live)."""
        self.pending = []
        if self.turn is not None and self.turn["replied"] and not live:
            self._close("completed", self.turn["line"])
        elif not live:
            self.turn = None


AGENT = Aider()
