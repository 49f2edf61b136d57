"""One OpenCode session (`stores.Conv`) as nodwyn records.

- A user message's `text` parts (not `synthetic`, not `ignored`) are the prompt; `file` parts
  its attachments; one with neither (OpenCode's own "continue") goes on the turn under way.
  A user message carrying a `compaction` part is no prompt: the assistant message after it
  (`summary: true`) is the compaction's note.
- An assistant message's parts in order: `reasoning` is thinking, `text` a reply, a `tool`
  part a reply with its call and then the call's result (`state.error` and status `error` as
  an error, a shell's `metadata.exit` as the exit code), `step-finish` a usage-only reply with
  the step's tokens and cost (`cost` as OpenCode recorded it; when it recorded 0, the price
  table's, else none). A message's `error` is an error record (an abort ends the turn as
  cancelled).
- A `task` call's child session (`metadata.sessionId`, or a session whose `parentID` is this
  one) is folded in after the call's result, its records marked with the child's agent name.
- Each turn ends where its last assistant message finished: `completed` (reason `stop`),
  `cancelled` (aborted) or `failed` (an error), with the turn's cost.
- While the session is live an assistant message not yet completed, and all after it, are
  left for a later import, so no reply is written half-streamed.
Every record's `src.id` is the message or part id, so a re-read adds only what is new.
"""

import json

from ...log import records as r
from .. import agent as core
from .. import names, prices, turns
from ..times import at_ms, one_line
from .stores import Conv

ORIGIN = names.origin("opencode")
DEFAULT_TITLE = ("New session - ", "Child session - ")


def sessions(convs: list[Conv], source: str, now_ms: int) -> list[tuple[str, list]]:
    """(session id, records) of each top-level session of a store, its children folded in.

    `now_ms` is 0 for a store not live: every session is then finished."""
    by_id = {c.info.get("id"): c for c in convs}
    children: dict[str, list[Conv]] = {}
    for conv in convs:
        parent = conv.info.get("parentID")
        if parent and parent in by_id:
            children.setdefault(parent, []).append(conv)
    out = []
    for conv in convs:
        if conv.info.get("parentID") in by_id:
            continue  # imported inside its parent
        out.append(_session(conv, source, now_ms, children, by_id))
    return out


def _session(conv: Conv, source: str, now_ms: int, children, by_id) -> tuple[str, list]:
    info = conv.info
    sid = str(info.get("id") or "")
    time = info.get("time") if isinstance(info.get("time"), dict) else {}
    updated = max([time.get("updated") or 0, *(_touched(m) for m, _ in conv.messages)])
    live = bool(now_ms) and updated > now_ms - core.LIVE_FOR * 1000
    at = at_ms(time.get("created"), "")
    model = info.get("model") if isinstance(info.get("model"), dict) else {}
    start = r.SessionStart(
        at=at,
        src=r.Src(id=sid),
        project=str(info.get("directory") or ""),
        origin=r.Origin(tool=ORIGIN, path=source, id=sid, version=str(info.get("version") or "")),
        model=str(model.get("id") or model.get("modelID") or ""),
    )
    out: list = [start]
    title = str(info.get("title") or "")
    if title and not title.startswith(DEFAULT_TITLE):
        out.append(r.SessionTitle(at=at, src=r.Src(id=sid), title=one_line(title), actor="agent"))
    fold = _Fold(out, live, children, by_id)
    fold.conversation(conv, None)
    return sid, out


def _touched(message: dict) -> int:
    time = message.get("time") if isinstance(message.get("time"), dict) else {}
    return max(time.get("created") or 0, time.get("completed") or 0)


class _Fold:
    """Walks the messages of a session (and its children) in order, writing records."""

    def __init__(self, out: list, live: bool, children, by_id):
        self.out, self.live = out, live
        self.children, self.by_id = children, by_id
        self.folded: set[str] = set()

    def conversation(self, conv: Conv, agent: str | None) -> None:
        self.folded.add(str(conv.info.get("id")))
        turn: dict | None = None
        compacting = False
        for info, parts in conv.messages:
            role = info.get("role")
            if role == "user" and (_typed(parts) or _compaction_of(parts)):
                self._end(turn, agent)
                compacting = _compaction_of(parts)
                turn = None if compacting else self._prompt(info, parts, agent)
            elif role == "assistant":
                if self.live and not (info.get("time") or {}).get("completed"):
                    return  # still streaming: the rest waits for a later import
                if compacting or info.get("summary") is True:
                    self._compaction(info, parts, agent)
                    compacting = False
                    continue
                self._assistant(info, parts, agent, turn)
        if not self.live:
            self._end(turn, agent)
        for child in self.children.get(str(conv.info.get("id")), []):
            if str(child.info.get("id")) not in self.folded:
                self.conversation(child, _agent_of(child))

    def _prompt(self, info: dict, parts: list[dict], agent: str | None) -> dict:
        at = at_ms((info.get("time") or {}).get("created"), "")
        words = [
            p["text"]
            for p in parts
            if p.get("type") == "text"
            and isinstance(p.get("text"), str)
            and not p.get("synthetic")
            and not p.get("ignored")
        ]
        files = [
            r.Attachment(name=str(p.get("filename") or p.get("url") or "file"))
            for p in parts
            if p.get("type") == "file"
        ]
        src = r.Src(id=str(info.get("id")))
        self.out.append(
            r.Message(at=at, src=src, agent=agent, text="\n\n".join(words), attachments=files)
        )
        return {
            "id": str(info.get("id")),
            "at": at,
            "ms": (info.get("time") or {}).get("created"),
            "cost": 0.0,
            "unknown": False,
            "last": None,
        }

    def _compaction(self, info: dict, parts: list[dict], agent: str | None) -> None:
        text = "\n".join(p["text"] for p in parts if p.get("type") == "text" and p.get("text"))
        at = at_ms((info.get("time") or {}).get("created"), "")
        note = text or "Context compacted by OpenCode"
        self.out.append(
            r.ContextCompact(at=at, src=r.Src(id=str(info.get("id"))), agent=agent, note=note)
        )

    def _assistant(self, info: dict, parts: list[dict], agent, turn: dict | None) -> None:
        model = str(info.get("modelID") or "")
        times = info.get("time") or {}
        at = at_ms(times.get("created"), "")
        steps = any(p.get("type") == "step-finish" for p in parts)
        for part in parts:
            self._part(part, model, at, agent, turn)
        if not steps and isinstance(info.get("tokens"), dict):
            self._usage(str(info.get("id")), info, model, at, agent, turn)
        error = info["error"]
        if error["name"] and error["name"] != "MessageAbortedError":
            text = f"{error['name']}: {error['data']['message']}".strip(": ")
            src = r.Src(id=f"{info.get('id')}:error")
            self.out.append(
                r.Error(at=at_ms(times.get("completed"), at), src=src, agent=agent, text=text)
            )
        if turn is not None:
            turn["last"] = info

    def _part(self, part: dict, model: str, at: str, agent, turn) -> None:
        kind, src = part.get("type"), r.Src(id=str(part.get("id")))
        times = part.get("time") if isinstance(part.get("time"), dict) else {}
        at = at_ms(times.get("start"), at)
        if kind == "text" and part.get("text") and not part.get("synthetic"):
            self.out.append(r.Reply(at=at, src=src, agent=agent, text=part["text"], model=model))
        elif kind == "reasoning" and part.get("text"):
            self.out.append(
                r.Reply(at=at, src=src, agent=agent, thinking=part["text"], model=model)
            )
        elif kind == "tool":
            self._tool(part, model, at, agent)
        elif kind == "step-finish":
            self._usage(str(part.get("id")), part, model, at, agent, turn)

    def _tool(self, part: dict, model: str, at: str, agent) -> None:
        state = part.get("state") if isinstance(part.get("state"), dict) else {}
        call, tool = str(part.get("callID") or part.get("id")), str(part.get("tool") or "")
        src = r.Src(id=str(part.get("id")))
        times = state.get("time") if isinstance(state.get("time"), dict) else {}
        at = at_ms(times.get("start"), at)
        self.out.append(
            r.Reply(
                at=at,
                src=src,
                agent=agent,
                model=model,
                calls=[r.Call(id=call, tool=tool, input=state.get("input"))],
            )
        )
        status = state.get("status")
        if status not in ("completed", "error"):
            return  # pending or running: no result was recorded
        meta = state.get("metadata") if isinstance(state.get("metadata"), dict) else {}
        code = meta.get("exit") if isinstance(meta.get("exit"), int) else None
        error = status == "error" or code not in (None, 0)
        output = state.get("output") if status == "completed" else state.get("error")
        if not isinstance(output, str):
            output = "" if output is None else json.dumps(output, ensure_ascii=False)
        ended, ran = at_ms(times.get("end"), at), (output, error, code)
        self.out.append(turns.result(ended, src, call, tool, ran, [], agent))
        child = meta.get("sessionId")
        folds = tool == "task" and isinstance(child, str) and child in self.by_id
        if folds and child not in self.folded:
            self.conversation(self.by_id[child], _agent_of(self.by_id[child], state))

    def _usage(self, sid: str, holder: dict, model: str, at: str, agent, turn) -> None:
        tokens = holder.get("tokens") if isinstance(holder.get("tokens"), dict) else {}
        cache = tokens.get("cache") if isinstance(tokens.get("cache"), dict) else {}
        usage = r.Usage(
            input=_int(tokens.get("input")),
            output=_int(tokens.get("output")) + _int(tokens.get("reasoning")),
            cache_read=_int(cache.get("read")),
            cache_write=_int(cache.get("write")),
        )
        if usage == r.Usage():
            return
        recorded = holder.get("cost")
        cost = recorded if isinstance(recorded, int | float) and recorded > 0 else None
        if cost is None:
            cost = prices.cost(model, usage, at)
        if turn is not None:
            turn["cost"] += cost or 0.0
            turn["unknown"] = turn["unknown"] or cost is None
        self.out.append(
            r.Reply(
                at=at,
                src=r.Src(id=sid),
                agent=agent,
                model=model,
                usage=usage,
                cost_usd=None if cost is None else round(float(cost), 8),
            )
        )

    def _end(self, turn: dict | None, agent) -> None:
        last = turn and turn["last"]
        if not last or agent is not None:
            return  # a sub-agent's turn is part of its parent's
        error = last["error"] if last["error"]["name"] else None
        times = last.get("time") or {}
        if error is not None:
            status = "cancelled" if error.get("name") == "MessageAbortedError" else "failed"
        elif last.get("finish") in ("stop", "end_turn", "length") and times.get("completed"):
            status = "completed"
        else:
            return
        end, begun = times.get("completed") or times.get("created"), turn["ms"]
        duration = end - begun if isinstance(end, int) and isinstance(begun, int) else None
        cost = None if turn["unknown"] or not turn["cost"] else round(turn["cost"], 8)
        self.out.append(
            r.TurnEnd(
                at=at_ms(end, turn["at"]),
                src=r.Src(id=f"{turn['id']}:end"),
                agent=agent,
                status=status,
                duration_ms=duration,
                cost_usd=cost,
            )
        )


def _typed(parts: list[dict]) -> bool:
    """Whether a user message holds a person's words or files (OpenCode also writes user
    messages of its own, all `synthetic` text: "continue" after a compaction): those go on
    the turn under way."""
    return any(
        (p["type"] == "text" and p["text"] and not p.get("synthetic") and not p.get("ignored"))
        or p["type"] == "file"
        for p in parts
    )


def _compaction_of(parts: list[dict]) -> bool:
    return any(p["type"] == "compaction" for p in parts)


def _agent_of(child: Conv, state: dict | None = None) -> str:
    given = (state or {}).get("input") if isinstance((state or {}).get("input"), dict) else {}
    name = given.get("subagent_type") or child.info.get("agent")
    return str(name or "subagent")


def _int(value) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
