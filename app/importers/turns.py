"""What the append-only folds (Codex, Copilot CLI, Antigravity, Pi, Qwen Code) share: the carry
every one keeps, a person's turn from its start to the `turn.end` that closes it, and the
counting of a line that is not of the format (passed over; the rest goes on).

A turn's cost is the sum of its replies' costs; None when a reply of it had no price, or when
none had tokens at all ("no usage in the log"), never a made-up 0.
"""

from collections.abc import Callable

import msgspec
from msgspec import Struct

from ..log import records as r
from . import problems
from .times import ms_between


class Turn(Struct, kw_only=True):
    """A person's turn: where it started, what its replies cost."""

    open: bool = False
    at: str = ""
    key: str = ""  # the `src` of the prompt that started it
    cost: float = 0.0
    priced: bool = False  # a reply of it had tokens and a price
    unpriced: bool = False  # a reply of it had tokens and no price

    def start(self, at: str, key: str) -> None:
        self.open, self.at, self.key = True, at, key
        self.cost, self.priced, self.unpriced = 0.0, False, False

    def spend(self, cost: float | None) -> None:
        """One reply's cost (None: it had tokens but no price)."""
        if cost is None:
            self.unpriced = True
        else:
            self.cost, self.priced = self.cost + cost, True

    def end(self, at: str, status: str, out: list) -> None:
        """Close the turn, if one is open, with a `turn.end` at `at`."""
        if not self.open:
            return
        self.open = False
        cost = round(self.cost, 8) if self.priced and not self.unpriced else None
        out.append(
            r.TurnEnd(
                at=at,
                src=r.Src(id=f"end/{self.key}"),
                status=status,
                duration_ms=ms_between(self.at, at),
                cost_usd=cost,
            )
        )


def cost_of(turn: dict) -> float | None:
    """The cost of a turn a whole-file mapping keeps as a dict ({cost, unknown}): None when a
    reply of it had no price, or none had a cost."""
    return None if turn["unknown"] or not turn["cost"] else round(turn["cost"], 8)


def ended(turn: dict, key: str, cost: float | None = None) -> r.TurnEnd:
    """The `turn.end` of a turn a whole-file mapping keeps as a dict ({at, last, status}): at
    its last event, `key` naming the prompt that started it."""
    last = turn["last"]
    took = ms_between(turn["at"], last)
    src = r.Src(id=f"end/{key}")
    return r.TurnEnd(at=last, src=src, status=turn["status"], duration_ms=took, cost_usd=cost)


def reply(at: str, src: r.Src, said: tuple[str, str, list], model: str, usage, cost, agent=None):
    """A reply of (text, thinking, calls), with its model, tokens and cost: how the mappings
    that meet all of these at once write one."""
    text, thinking, calls = said
    spent = {"model": model, "usage": usage, "cost_usd": cost}
    return r.Reply(at=at, src=src, agent=agent, text=text, thinking=thinking, calls=calls, **spent)


def result(at: str, src: r.Src, call: str, tool: str, ran: tuple, files: list, agent=None):
    """A call's result from what it ran to, (output, error, exit code); the files the call wrote
    count only when it did not fail."""
    output, error, code = ran
    kept = [] if error else files
    ended = {"output": output, "error": error, "exit": code, "files": kept}
    return r.Result(at=at, src=src, agent=agent, call=call, tool=tool, **ended)


class Carry(Struct, kw_only=True):
    """What every fold remembers between two reads of its file (each agent's adds its own)."""

    session: str = ""
    started: bool = False  # the session's start is written
    last_at: str = ""  # the latest time a line gave (a line without one takes it)
    model: str = ""
    calls: dict[str, str] = {}  # call id -> tool
    files: dict[str, list[str]] = {}  # call id -> the files it writes
    title: str = ""  # the title its agent keeps apart from the file, as last given out


class Fold:
    """A fold's base: its source and carry; `feed` decodes a line with `decode` and hands it to
    `line`; one that does not decode is counted among the file's bad lines."""

    Carry: type = Carry
    decode: Callable

    def __init__(self, source: str, carry=None):
        self.source = source
        self.carry = carry or self.Carry()

    def feed(self, n: int, raw: bytes, out: list) -> None:
        try:
            line = self.decode(raw)
        except msgspec.MsgspecError as exc:
            raise problems.unreadable(exc) from None  # counted and passed over
        self.line(n, line, out)

    def line(self, n: int, line, out: list) -> None:
        raise NotImplementedError

    def result(self, at: str, src: r.Src, call: str, output: str, error: bool, code=None, **more):
        """A call's result, its tool and files as the carry knows them (`more`: its `tool` when
        the carry knows none, its `agent`)."""
        c = self.carry
        fallback = more.pop("tool", "")
        tool = c.calls.pop(call, "") or fallback
        return result(at, src, call, tool, (output, error, code), c.files.pop(call, []), **more)

    def kept_title(self, title: str, where: str, out: list) -> None:
        """The title its agent keeps apart from the file (an index, a workspace.yaml), given out
        whenever it changed since it was last."""
        c = self.carry
        if title and title != c.title:
            c.title = title
            out.append(
                r.SessionTitle(at=c.last_at, src=r.Src(id=where), title=title, actor="agent")
            )
