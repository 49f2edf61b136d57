"""The runs of an aider chat history as nodwyn's records, one task per run (see the package).

Each block of a run (a prompt, a reply, aider's notes) becomes records placed by the line it
starts on; prompt times come from the input history, matched in order by their words.
"""

import hashlib
from pathlib import Path

from ...log import records as r
from ..agent import PROBE, blank_or_binary
from ..times import at_local
from ..turns import cost_of
from . import blocks as b
from . import mapping as m


def recognise(opening: bytes) -> str:
    """Why a file's opening is not an aider chat history ("" when it is one)."""
    reason = blank_or_binary(opening)
    if reason:
        return reason
    for line in opening.decode("utf-8", "replace").split("\n")[:8]:
        if b.HEADER.match(line.rstrip("\r")):
            return ""
    return "not an aider chat history (no '# aider chat started at' line at its start)"


def read(path: Path, inputs: Path, live: bool) -> list[tuple[str, list]] | str:
    """(key, records) of each run of the file in which a person asked something; `inputs`
    is aider's input history beside it (`.aider.input.history`)."""
    data = path.read_bytes()
    reason = recognise(data[:PROBE])
    if reason:
        return reason
    try:
        entries = b.inputs(inputs.read_text("utf-8", "replace"))
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
