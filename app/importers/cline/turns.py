"""What Cline's two files share once read: a reply put together piece by piece, the results
that follow it, turns that end at the next prompt, and the words of Cline's own wrappers.

Both mappings (`ui` for ui_messages.json, `api` for api_conversation_history.json) feed a
`Turns`: `prompt` starts a turn, `reply` opens the next request's reply, `text`/`thinking`/
`call`/`result` fill it, `flush` writes it; a reply is written before its calls' results, as
the model read them. A turn ends at the next prompt, or at the end of a task no longer being
written, completed unless Cline says the request was cancelled.
"""

import re

from ...log import records as r
from .. import prices
from ..turns import cost_of, ended

# Cline's environment details name the folder it works in: "# Current Working Directory (x) Files"
_FOLDER = re.compile(r"Current Working Directory \((.+?)\) Files")
_MARK = re.compile(r"^\s*[-*]\s+\[( |x|X|-|~)\]\s+(.+)$", re.M)


def folder_in(text: str) -> str:
    """The working folder a request's environment details name, or ""."""
    found = _FOLDER.search(text) if isinstance(text, str) else None
    return found.group(1).strip() if found else ""


def plan_of(text: str) -> list[r.PlanItem]:
    """Cline's task progress (a markdown checklist) as plan items with their marks."""
    status = {" ": "pending", "x": "completed", "X": "completed", "-": "in_progress"}
    return [
        r.PlanItem(text=m.group(2).strip(), status=status.get(m.group(1), "in_progress"))
        for m in _MARK.finditer(text or "")
    ]


class Turns:
    """Records in the order Cline made them, for one task (see the module docstring)."""

    def __init__(self, model: str = ""):
        self.out: list[r.Known] = []
        self.model = model
        self.open: dict | None = None  # the reply being put together
        self.turn: dict | None = None  # {"at", "last", "cost", "unknown", "status", "key"}
        self.plan: list[r.PlanItem] = []
        self.calls: dict[str, str] = {}  # call id -> tool, of calls with no result yet

    def prompt(self, key: str, at: str, text: str, attachments=(), command: str = "") -> None:
        self.flush()
        self.end()
        self.out.append(
            r.Message(
                at=at, src=r.Src(id=key), text=text, attachments=list(attachments), command=command
            )
        )
        self.turn = {
            "at": at,
            "last": at,
            "cost": 0.0,
            "unknown": False,
            "status": "completed",
            "key": key,
        }

    def reply(self, key: str, at: str, usage: r.Usage | None = None, cost=None, model="") -> None:
        """Opens the reply of one request; its usage and the agent's own cost where given."""
        self.flush()
        self.model = model or self.model
        self.open = {
            "key": key,
            "at": at,
            "text": [],
            "thinking": [],
            "calls": [],
            "results": [],
            "usage": usage,
            "cost": cost,
        }
        self.seen(at)

    def seen(self, at: str) -> None:
        if self.turn is not None and at:
            self.turn["last"] = max(self.turn["last"], at)

    def _reply(self, at: str) -> dict:
        if self.open is None:
            self.reply(f"reply/{at}", at)
        return self.open  # type: ignore[return-value]

    def text(self, at: str, text: str) -> None:
        if isinstance(text, str) and text.strip():
            self._reply(at)["text"].append(text)
            self.seen(at)

    def thinking(self, at: str, text: str) -> None:
        if isinstance(text, str) and text.strip():
            self._reply(at)["thinking"].append(text)

    def call(self, at: str, key: str, tool: str, data) -> None:
        self._reply(at)["calls"].append(r.Call(id=key, tool=tool, input=data))
        self.calls[key] = tool
        self.seen(at)

    def result(self, at: str, key: str, output: str, error=False, files=(), exit=None) -> None:
        tool = self.calls.pop(key, "")
        record = r.Result(
            at=at,
            src=r.Src(id=f"result/{key}"),
            call=key,
            tool=tool,
            output=output or "",
            error=error,
            exit=exit,
            files=[] if error else list(files),
        )
        if self.open is not None:
            self.open["results"].append(record)
        else:
            self.out.append(record)
        self.seen(at)

    def progress(self, at: str, key: str, text: str) -> None:
        items = plan_of(text)
        if items and items != self.plan:
            self.plan = items
            self.after(r.Plan(at=at, src=r.Src(id=key), items=items))

    def after(self, record: r.Known) -> None:
        """A record that follows the reply being put together (after its results so far)."""
        (self.open["results"] if self.open is not None else self.out).append(record)

    def error(self, at: str, key: str, text: str) -> None:
        self.flush()
        self.out.append(r.Error(at=at, src=r.Src(id=key), text=text))
        self.seen(at)

    def cancelled(self) -> None:
        if self.turn is not None:
            self.turn["status"] = "cancelled"

    def flush(self) -> None:
        """Writes the open reply, then its calls' results."""
        reply, self.open = self.open, None
        if reply is None:
            return
        usage, cost = reply["usage"], reply["cost"]
        if usage is not None and cost is None:
            cost = prices.cost(self.model, usage, reply["at"])
        if self.turn is not None and usage is not None:
            self.turn["unknown"] |= cost is None
            self.turn["cost"] += cost or 0.0
        if reply["text"] or reply["thinking"] or reply["calls"] or usage is not None:
            self.out.append(
                r.Reply(
                    at=reply["at"],
                    src=r.Src(id=reply["key"]),
                    agent=reply.get("agent"),
                    text="\n\n".join(reply["text"]),
                    thinking="\n\n".join(reply["thinking"]),
                    calls=reply["calls"],
                    model=self.model,
                    usage=usage,
                    cost_usd=cost,
                )
            )
        self.out.extend(reply["results"])

    def end(self) -> None:
        """Ends the open turn at its last event."""
        turn, self.turn = self.turn, None
        if turn is None:
            return
        self.out.append(ended(turn, turn["key"], cost_of(turn)))

    def finish(self, live: bool, settled: bool = False) -> list[r.Known]:
        """The records; while Cline may still be writing, the last reply and turn stay open,
        but for a reply `settled` (Cline asks the person: its request is done), written."""
        if not live or settled:
            self.flush()
        if not live:
            self.end()
        return self.out
