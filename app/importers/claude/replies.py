"""One Claude Code response as one nodwyn reply: its streamed parts, calls, usage and cost.

Claude Code writes one API response as several `assistant` lines (one per content block),
each repeating the response's `message.id` and its whole `usage`. A `Group` gathers the parts
of one response; `reply_of` turns it into a `reply` whose usage is counted once per message
(its id and request id) at its last streamed line's usage (a response split in two replies
counts what it grew by on the second, ADR 0038) and priced from the shipped
prices (None when the model is unknown, never zero). Calls are noted in the parser's carry as
they come: which tool each open call runs, the files it writes, a sub-agent call's prompt.

`final` says whether a response is a final answer (text, no call, not cut): what ends a turn
in versions that write no turn end (ADR 0003).
"""

from typing import TYPE_CHECKING

from msgspec import Struct

from ...log import records as r
from .. import prices
from .lines import Block, Message

if TYPE_CHECKING:  # the carry is the parser's; only its call fields are touched here
    from .carry import Carry

FILE_TOOLS = {"Edit": "file_path", "Write": "file_path", "MultiEdit": "file_path"}
AGENT_TOOLS = ("Task", "Agent")
# A text-only response ends the agent's loop unless it was cut (max_tokens) or paused; older
# versions write most parts with no stop_reason at all (None: the part was written mid-stream).
FINAL_STOPS = ("", "end_turn", "stop_sequence")


class Group(Struct, kw_only=True):
    """The streamed parts of one response, merged into one reply."""

    id: str
    line: int
    at: str
    agent: str | None = None
    model: str = ""
    text: list[str] = []
    thinking: list[str] = []
    calls: list[r.Call] = []
    plans: list[r.Plan] = []
    usage: r.Usage | None = None
    end_line: int = 0  # the line of its last part, and that part's time
    end_at: str = ""
    stop: str = ""  # the API's stop_reason, where a part carries one
    named: bool = False  # whether `id` is the source's message id
    request: str = ""  # the API request id (`requestId`) where the lines give one


def opens(group: Group | None, message: Message, agent: str | None) -> bool:
    """Whether this part starts another response than the group's."""
    return group is None or group.id != (message.id or "") or group.agent != agent


def new_group(message: Message, n: int, at: str, agent: str | None) -> Group:
    return Group(id=message.id or f"line{n}", line=n, at=at, agent=agent, named=bool(message.id))


def add_part(group: Group, message: Message, src: r.Src, at: str, carry: "Carry") -> None:
    """One streamed part (source line `src.line`) into its response."""
    group.model = message.model or group.model
    group.end_line, group.end_at = src.line or 0, at
    group.stop = message.stop_reason or group.stop
    if message.usage is not None:
        u = message.usage
        group.usage = r.Usage(
            input=u.input_tokens or 0,
            output=u.output_tokens or 0,
            cache_read=u.cache_read_input_tokens or 0,
            cache_write=u.cache_creation_input_tokens or 0,
        )
    blocks = message.content
    if isinstance(blocks, str):
        group.text.append(blocks)
        return
    for block in blocks or ():
        if block.type == "text" and isinstance(block.text, str):
            group.text.append(block.text)
        elif block.type == "thinking" and isinstance(block.thinking, str):
            if block.thinking:
                group.thinking.append(block.thinking)
        elif block.type in ("tool_use", "server_tool_use"):
            _call(group, block, src, at, carry)


def _call(group: Group, block: Block, src: r.Src, at: str, carry: "Carry") -> None:
    call_id, tool, args = block.id or "", block.name or "", block.input
    group.calls.append(r.Call(id=call_id, tool=tool, input=args))
    carry.calls[call_id] = tool
    if not isinstance(args, dict):
        return
    path = args.get(FILE_TOOLS.get(tool, "")) or (
        args.get("notebook_path") if tool == "NotebookEdit" else None
    )
    if isinstance(path, str):
        carry.files[call_id] = [path]
    if tool == "TodoWrite" and isinstance(args.get("todos"), list):
        items = [
            r.PlanItem(text=str(todo.get("content", "")), status=str(todo.get("status", "")))
            for todo in args["todos"]
            if isinstance(todo, dict)
        ]
        group.plans.append(r.Plan(at=at, src=src, agent=group.agent, items=items))
    if tool in AGENT_TOOLS and isinstance(args.get("prompt"), str):
        name = args.get("subagent_type") or args.get("description") or "sub-agent"
        carry.prompts[args["prompt"]] = str(name)
        carry.asked[call_id] = args["prompt"]


def reply_of(group: Group, carry: "Carry", file: str | None) -> r.Reply:
    """The reply of a response; its usage and cost count once per message, and the turn's."""
    usage, before = counted_usage(group, carry)
    when = group.end_at or group.at  # the prices in force when it was answered
    cost = prices.cost(group.model, usage, when)
    if usage is not None and before is not None and cost is not None:
        # what the message's cost grew by: its rate (long-context or not) is the whole message's
        cost = prices.cost(group.model, _sum(before, usage), when) - prices.cost(
            group.model, before, when
        )
    if usage is not None:
        if cost is None:
            carry.turn_unknown = True
        else:
            carry.turn_cost += cost
    return r.Reply(
        at=group.at,
        # the response's id: parts of one response split by an import stay recognisable
        src=r.Src(line=group.line, file=file, id=group.id if group.named else None),
        agent=group.agent,
        text="\n\n".join(group.text),
        thinking="\n\n".join(group.thinking),
        calls=group.calls,
        model=group.model,
        usage=usage,
        cost_usd=cost,
    )


def counted_usage(group: Group, carry: "Carry") -> tuple[r.Usage | None, r.Usage | None]:
    """What a response adds to the count: each message (its id and request id) once, at its
    last streamed line's usage. A message met again (its parts split by other lines, or copied
    later in the file) adds only what its usage grew by since, so its replies sum to that last
    usage (its output grows as it streams; the other fields stay); None when it adds nothing.
    Also the usage counted for the message before (None the first time)."""
    if group.usage is None or not group.named:
        return group.usage, None
    key = f"{group.id}:{group.request}"
    before = carry.usages.pop(key, None)  # put back last: the dict keeps the newest KEPT
    carry.usages[key] = group.usage if before is None else _most(before, group.usage)
    if len(carry.usages) > KEPT:  # the `.imp` is written on every import of a live session
        del carry.usages[next(iter(carry.usages))]
    if before is None:
        return group.usage, None
    grown = r.Usage(**{f: getattr(carry.usages[key], f) - getattr(before, f) for f in FIELDS})
    return (grown if any(getattr(grown, f) for f in FIELDS) else None), before


FIELDS = ("input", "output", "cache_read", "cache_write")
KEPT = 500  # messages whose usage is kept (in the corpus one came back 2 messages later at most)


def _most(a: r.Usage, b: r.Usage) -> r.Usage:
    return r.Usage(**{f: max(getattr(a, f), getattr(b, f)) for f in FIELDS})


def _sum(a: r.Usage, b: r.Usage) -> r.Usage:
    return r.Usage(**{f: getattr(a, f) + getattr(b, f) for f in FIELDS})


def final(group: Group, reply: r.Reply) -> bool:
    """Whether a response is a final answer: text, no call, not cut at max_tokens."""
    return bool(reply.text.strip()) and not reply.calls and group.stop in FINAL_STOPS
