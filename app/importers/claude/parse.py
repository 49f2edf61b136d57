"""Claude Code transcripts (`~/.claude/projects/<slug>/<session>.jsonl`) as nodwyn records.

The parser is a fold over source lines: `Parser.feed(n, line, out)` turns source line n into
zero or more records, and everything it must remember between lines lives in `Carry`
(carry.py), a msgspec Struct saved beside the log. Feeding the first half of a file, saving
the carry and feeding the rest gives the same records as feeding the file at once. Records
come out in source-line order, which follows the `parentUuid` chain even where timestamps go
backwards.

What may still change is held back in the carry: the streamed parts of one response (merged
by `message.id`, usage counted once), a slash command until we know whether it ran locally,
a compaction boundary until its summary, and a final answer's turn end until the next
prompt. `finish(live=False)` writes them out; while the source is live (changed in the last
minutes) they wait for the next import. A prompt waits for the next line of the same import
only (its context lines, or a part of the answer before it showing the turn went on).
Versions that write no turn end get one derived from a final answer
(ADR 0003).

Only the fields read are declared, so unknown fields and record types are skipped. One
response's streamed parts become one reply in `replies`; what 2.1's `attachment` and
`queue-operation` lines hold for a person is chosen in `context`.
"""

import re
from collections.abc import Callable
from pathlib import Path

import msgspec

from ...log import records as r
from .. import names, problems
from . import context, replies
from .carry import Carry, Command
from .lines import Line, at_of, decode_agent, decode_line, split_prompt, text_of

ORIGIN = names.origin("claude")
_COMMAND = re.compile(r"<command-name>\s*(/?[^<\s]*)\s*</command-name>")
_ARGS = re.compile(r"<command-args>(.*?)</command-args>", re.DOTALL)
_LOCAL = ("<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>")
_INTERRUPTED = "[Request interrupted by user"


class Parser:
    """The fold of one transcript; `agent` is set for a sub-agent's own file."""

    def __init__(
        self,
        source: str,
        carry: Carry | None = None,
        agent: str | None = None,
        file: str | None = None,
        subagents: Callable[..., tuple[str, list[bytes]] | None] | None = None,
        alone: bool = False,  # a sub-agent's file without its session's: its lines are main
    ):
        self.alone = alone
        self.others: dict[str, bool] = {}  # another session's id -> whether its file is beside
        self.source = source
        self.carry = carry or Carry()
        self.agent = agent
        self.file = file
        self.subagents = subagents

    # -- the fold ------------------------------------------------------------------------
    def feed(self, n: int, raw: bytes, out: list) -> None:
        try:
            line = decode_line(raw)
        except msgspec.MsgspecError as exc:
            raise problems.unreadable(exc) from None  # counted and skipped; the rest goes on
        c = self.carry
        at = at_of(line.timestamp, c.last_at)
        if line.timestamp:
            c.last_at = at
        kind = line.type
        if kind in ("summary", "ai-title", "custom-title"):
            self._title(n, line, at, out)
            return
        if kind == "attachment":
            self._attachment(n, line, at, out)
            return
        if kind == "queue-operation":
            self._queue(n, line, at, out)
            return
        if kind not in ("user", "assistant", "system"):
            return  # snapshots, progress, permission-mode, last-prompt: not events
        if not c.started and self.agent is None:
            self._start(n, line, at, out)
        if kind != "assistant":
            self._flush_group(out)
        if c.command is not None and not (kind == "user" and line.isMeta):
            self._resolve_command(line, out)
        if c.held is not None:
            self._release(line, out)
        if c.boundary is not None and not (kind == "user" and line.isCompactSummary):
            self._emit(out, c.boundary)
            c.boundary = None
        agent = self._agent_of(line)
        if kind == "assistant":
            self._assistant(n, line, at, agent, out)
        elif kind == "user":
            self._user(n, line, at, agent, out)
        else:
            self._system(n, line, at, agent, out)

    def finish(self, live: bool, out: list) -> None:
        """End of the source for now: write out what was held back unless the source is live."""
        if live:  # a person's prompt is shown (and searchable) while the agent works on it
            self._release(None, out)
            return
        c = self.carry
        self._flush_group(out)
        if c.command is not None:
            self._prompt_from_command(None, out)
        self._release(None, out)
        if c.boundary is not None:
            self._emit(out, c.boundary)
            c.boundary = None
        self._end_answered(out)

    # -- pieces --------------------------------------------------------------------------
    def _src(self, n: int) -> r.Src:
        return r.Src(line=n, file=self.file)

    def _emit(self, out: list, record: r.Known) -> None:
        if self.carry.started or self.agent is not None:
            out.append(record)
        else:
            self.carry.pending.append(record)

    def _start(self, n: int, line: Line, at: str, out: list) -> None:
        c = self.carry
        c.session = line.sessionId or c.session
        c.started = True
        entry = line.entrypoint or ""
        out.append(
            r.SessionStart(
                at=at,
                src=r.Src(line=n),
                project=line.cwd or "",
                origin=r.Origin(
                    tool=ORIGIN, path=self.source, id=c.session, version=line.version or ""
                ),
                branch=line.gitBranch or "",
                machine=entry.startswith("sdk"),
            )
        )
        for record in c.pending:
            out.append(msgspec.structs.replace(record, at=record.at or at))
        c.pending = []

    def _title(self, n: int, line: Line, at: str, out: list) -> None:
        if self.agent is not None:
            return  # a sub-agent's file does not name the task
        if line.type == "summary":
            title, actor = line.summary, "agent"
        elif line.type == "ai-title":
            title, actor = line.aiTitle, "agent"
        else:
            title, actor = line.customTitle, "person"
        if not isinstance(title, str) or not title.strip():
            return
        title = " ".join(title.split())[:120]
        named = r.SessionTitle(at=at, src=self._src(n), title=title, actor=actor)
        if self.carry.held is not None:  # in source order, after the prompt before it
            self.carry.titles.append(named)
            return
        self._emit(out, named)

    def _agent_of(self, line: Line) -> str | None:
        if self.agent is not None:
            return self.agent
        if not line.isSidechain or self.alone:
            return None
        c = self.carry
        name = c.side.get(line.parentUuid or "")
        if name is None:  # a sidechain's root: its prompt names the call that started it
            prompt = text_of(line.message.content if line.message else None)
            name = c.prompts.pop(prompt, None) or "sub-agent"
        if line.uuid:
            c.side[line.uuid] = name
        return name

    def _assistant(self, n: int, line: Line, at: str, agent: str | None, out: list) -> None:
        c, message = self.carry, line.message
        if message is None:
            return
        if message.usage is not None and self._copied(line.sessionId):
            message = msgspec.structs.replace(message, usage=None)  # counted in its own file
        if line.isApiErrorMessage or message.model == "<synthetic>":
            self._flush_group(out)
            if agent is None:
                c.answered = 0  # the agent asked the API again: the turn went on
            text = text_of(message.content) or str(line.error or "API error")
            self._emit(out, r.Error(at=at, src=self._src(n), agent=agent, text=text))
            return
        if replies.opens(c.group, message, agent):
            self._flush_group(out)
            c.group = replies.new_group(message, n, at, agent)
            c.group.request = line.requestId or ""
        if agent is None:
            c.answered = 0  # the main agent speaks again: the turn goes on
        replies.add_part(c.group, message, self._src(n), at, c)

    def _copied(self, session: str | None) -> bool:
        """Whether a line is another session's, copied here (a resumed or forked file holds
        the lines it goes on from, with their own session id) while that session's file lies
        beside this one: its usage is counted there, once (ccusage counts it once too)."""
        if self.agent is not None or self.alone or not session:
            return False
        own = Path(self.source)
        if session == own.stem:
            return False
        if session not in self.others:
            self.others[session] = _beside(own.parent, session)
        return self.others[session]

    def _flush_group(self, out: list) -> None:
        c, group = self.carry, self.carry.group
        if group is None:
            return
        c.group = None
        reply = replies.reply_of(group, c, self.file)
        self._emit(out, reply)
        for plan in group.plans:
            self._emit(out, plan)
        if group.agent is None and self.agent is None:
            final = replies.final(group, reply)
            c.answered, c.answered_at = (group.end_line, group.end_at) if final else (0, "")
            c.answered_id = group.id

    def _user(self, n: int, line: Line, at: str, agent: str | None, out: list) -> None:
        c = self.carry
        content = line.message.content if line.message else None
        if isinstance(content, list) and any(b.type == "tool_result" for b in content):
            self._results(n, line, content, at, agent, out)
            return
        if line.isMeta and c.command is not None and agent is None:
            expansion = text_of(content)
            if not expansion.startswith(("Caveat:", "<local-command-caveat>")):
                self._prompt_from_command(expansion, out)  # the command's expanded prompt
            return
        if agent is not None or line.isMeta:
            return  # a sub-agent's prompt repeats its call; meta records are not prompts
        if line.isCompactSummary:
            c.boundary = None
            self._emit(out, r.ContextCompact(at=at, src=self._src(n), note=text_of(content)))
            return
        text, attachments = split_prompt(content)
        if text.startswith(_INTERRUPTED):
            self._end_turn(n, at, "cancelled", None, out)
            return
        if text.startswith(_LOCAL):
            return
        found = _COMMAND.search(text) if "<command-name>" in text else None
        if found:
            args = _ARGS.search(text)
            c.command = Command(
                line=n, at=at, name=found.group(1), args=args.group(1).strip() if args else ""
            )
            return
        if not text and not attachments:
            return
        self._message(r.Message(at=at, src=self._src(n), text=text, attachments=attachments), out)

    def _message(self, message: r.Message, out: list) -> None:
        """A prompt waits for the next line: a person may type while a response streams, and
        a part of that response after the prompt shows it was no final answer."""
        if self.carry.held is not None:
            self._release(None, out)
        self.carry.held = message

    def _release(self, line: Line | None, out: list) -> None:
        c = self.carry
        message, c.held = c.held, None
        if message is None:
            return
        going_on = line is not None and line.type == "assistant" and not line.isSidechain
        if going_on and line.message is not None and line.message.id == c.answered_id:
            c.answered = 0  # the answer went on after the prompt: the turn did not end there
        self._end_answered(out)
        c.turn_open, c.turn_cost, c.turn_unknown = True, 0.0, False
        extra = context.deliver(c.queued, message)
        if extra:
            message = msgspec.structs.replace(message, attachments=[*message.attachments, *extra])
        self._emit(out, message)
        titles, c.titles = c.titles, []
        for named in titles:
            self._emit(out, named)

    def _attachment(self, n: int, line: Line, at: str, out: list) -> None:
        """A prompt typed while the agent worked, or context sent with the prompt held."""
        c = self.carry
        if self.agent is not None or line.isSidechain:
            return  # a sub-agent's context is its call's input, already kept
        words = context.queued_prompt(line.attachment)
        if words is not None:
            self._flush_group(out)
            self._queued_prompt(n, at, words, out)
            return
        found = context.attachment_of(line.attachment)
        if found is not None and c.held is not None:
            c.held = msgspec.structs.replace(c.held, attachments=[*c.held.attachments, found])

    def _queue(self, n: int, line: Line, at: str, out: list) -> None:
        c = self.carry
        if self.agent is not None or not isinstance(line.operation, str):
            return
        if line.operation == "enqueue":
            context.enqueue(c.queued, n, at, line.content)
            return
        absorbed = context.dequeue(c.queued, n, line.operation, line.reason, line.content)
        if absorbed is not None:  # read by the agent mid-turn
            self._queued_prompt(n, at, absorbed.text, out)

    def _queued_prompt(self, n: int, at: str, words: str, out: list) -> None:
        """A prompt the agent read mid-turn (once, though two lines may say so)."""
        held = self.carry.held
        if held is not None and context.holds(held, words):
            return
        text, attachments = split_prompt(words)
        self._message(r.Message(at=at, src=self._src(n), text=text, attachments=attachments), out)

    def _resolve_command(self, line: Line, out: list) -> None:
        """A slash command followed by local output ran locally: no prompt; else it is one."""
        content = line.message.content if line.message else None
        text = text_of(content).lstrip() if line.type == "user" else ""
        if text.startswith(_LOCAL):
            self.carry.command = None
            return
        self._prompt_from_command(None, out)

    def _prompt_from_command(self, expansion: str | None, out: list) -> None:
        command, self.carry.command = self.carry.command, None
        attachments = [r.Attachment(name="command", text=expansion)] if expansion else []
        message = r.Message(
            at=command.at,
            src=self._src(command.line),
            text=command.args,
            attachments=attachments,
            command=command.name,
        )
        self._message(message, out)

    def _results(self, n, line: Line, content: list, at, agent, out: list) -> None:
        c = self.carry
        for block in content:
            if block.type != "tool_result":
                if block.type == "text" and str(block.text or "").startswith(_INTERRUPTED):
                    self._end_turn(n, at, "cancelled", None, out)
                continue
            call = block.tool_use_id or ""
            tool = c.calls.pop(call, "")
            files = c.files.pop(call, [])
            prompt = c.asked.pop(call, "")
            c.prompts.pop(prompt, None)  # its sub-agent, if inline, has been met by now
            if tool in replies.AGENT_TOOLS and self.subagents is not None:
                self._subagent(line, prompt, agent, out)
            self._emit(
                out,
                r.Result(
                    at=at,
                    src=self._src(n),
                    agent=agent,
                    call=call,
                    tool=tool,
                    output=text_of(block.content),
                    error=bool(block.is_error),
                    files=[] if block.is_error else files,
                ),
            )

    def _subagent(self, line: Line, prompt: str, agent: str | None, out: list) -> None:
        """A sub-agent's own file, placed after the call that started it."""
        agent_id = None
        if bytes(line.toolUseResult) != b"null":
            try:
                agent_id = decode_agent(line.toolUseResult).agentId
            except msgspec.MsgspecError:
                agent_id = None
        self._nested(self.subagents(agent_id, prompt), agent_id, out)

    def _nested(self, found: tuple[str, list[bytes]] | None, agent_id: str | None, out: list):
        """A sub-agent's file (`found`: its name and lines) folded in here, once."""
        if found is None or found[0] in self.carry.agents_done:
            return
        name, lines = found
        self.carry.agents_done.append(name)
        nested = Parser(self.source, agent=agent_id or name, file=name)
        nested.carry.started = True
        sub: list = []
        for number, raw in enumerate(lines, 1):
            problems.feed(nested, number, raw, sub, None)  # its bad lines skipped
        nested.finish(False, sub)
        c = self.carry
        c.turn_cost += nested.carry.turn_cost
        c.turn_unknown = c.turn_unknown or nested.carry.turn_unknown
        for record in sub:
            if not isinstance(record, r.TurnEnd):
                self._emit(out, record)

    def _system(self, n: int, line: Line, at: str, agent: str | None, out: list) -> None:
        kind = line.subtype
        if kind == "turn_duration" and agent is None:
            duration = int(line.durationMs) if line.durationMs is not None else None
            self._end_turn(n, at, "completed", duration, out)
        elif kind == "compact_boundary":
            meta = line.compactMetadata if isinstance(line.compactMetadata, dict) else {}
            note = f"Context compacted ({meta.get('trigger', 'auto')}"
            if meta.get("preTokens"):
                note += f", {meta['preTokens']} tokens before"
            self.carry.boundary = r.ContextCompact(at=at, src=self._src(n), note=note + ")")
            if agent is None and self.subagents is not None and line.logicalParentUuid:
                # the compaction's own sub-agent: its tokens are the session's (0038)
                found = self.subagents(None, "", parent=line.logicalParentUuid, until=at,
                                       done=self.carry.agents_done)  # fmt: skip
                self._nested(found, Path(found[0]).stem[6:] if found else None, out)
        elif kind == "api_error" or line.level == "error":
            error = line.error if line.error is not None else line.content
            text = error if isinstance(error, str) else msgspec.json.encode(error).decode()
            self._emit(out, r.Error(at=at, src=self._src(n), agent=agent, text=text))

    def _end_answered(self, out: list) -> None:
        """A turn whose last word was a final answer ends there (1.0/2.0 write no turn end)."""
        c = self.carry
        if c.answered:
            self._end_turn(c.answered, c.answered_at, "completed", None, out)

    def _end_turn(self, n: int, at: str, status: str, duration: int | None, out: list) -> None:
        c = self.carry
        c.answered, c.answered_at = 0, ""
        if not c.turn_open:
            return
        cost = None if c.turn_unknown or not c.turn_cost else round(c.turn_cost, 8)
        c.turn_open = False
        self._emit(
            out,
            r.TurnEnd(at=at, src=self._src(n), status=status, duration_ms=duration, cost_usd=cost),
        )


def _beside(folder: Path, session: str) -> bool:
    """Whether `session`'s own file lies in `folder`; a session id no file could have (a
    separator, a name too long: a damaged or foreign line) names none."""
    if len(session) > 200 or "/" in session or "\\" in session or session in (".", ".."):
        return False
    try:
        return (folder / f"{session}.jsonl").is_file()
    except OSError:  # a name the file system refuses
        return False
