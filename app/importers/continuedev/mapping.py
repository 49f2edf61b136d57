"""A Continue session's history as nodwyn records.

`history` is a list of items `{message, contextItems, promptLogs?, toolCallStates?,
conversationSummary?}`; `message.role` is `user` (a person's words, `content` a string or
parts), `assistant` (`content`, `toolCalls` in OpenAI's shape, `usage` where the provider
returned one), `thinking` (the reasoning shown before the next assistant message) or `tool`
(a call's result, by `toolCallId`). A call's state (`toolCallStates[].status`: done, errored,
canceled) says whether it failed. Continue writes no time on a message: every record is dated
by the session's creation (its index entry's `dateCreated`), and a turn's length is not known.
"""

from ...log import records as r
from .. import prices, turns
from ..agent import decoded

FAILED = ("errored", "canceled", "cancelled")
WRITES = ("create_new_file", "edit_existing_file", "single_find_and_replace", "multi_edit")


def text_of(content) -> str:
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else []
    return "\n".join(
        str(p.get("text") or "") for p in parts if isinstance(p, dict) and p.get("type") == "text"
    )  # noqa: E501


def is_prompt(item) -> bool:
    message = item.get("message") if isinstance(item, dict) else None
    return (
        isinstance(message, dict)
        and message.get("role") == "user"
        and bool(text_of(message.get("content")).strip())
    )


class Mapper:
    """Folds history items into records, all dated `at`."""

    def __init__(self, at: str, model: str):
        self.at, self.model = at, model
        self.out: list[r.Known] = []
        self.thinking: list[str] = []
        self.calls: dict[str, tuple[str, str, str]] = {}  # call id -> (tool, state, file)
        self.turn: dict | None = None
        self.given: set[str] = set()  # calls whose result is written

    def items(self, history: list, live: bool) -> None:
        for n, item in enumerate(history):
            message = item.get("message") if isinstance(item, dict) else None
            if isinstance(message, dict):
                self.item(n, item, message)
        if not live:
            self.end()

    def item(self, n: int, item: dict, message: dict) -> None:
        key = str(message.get("id") or n)
        role = message.get("role")
        if item.get("conversationSummary"):
            note = str(item["conversationSummary"])
            self.out.append(r.ContextCompact(at=self.at, src=r.Src(id=f"summary/{key}"), note=note))
        if is_prompt(item):
            self._prompt(key, item, message)
        elif role == "thinking":
            self.thinking.append(text_of(message.get("content")))
        elif role == "assistant":
            self._reply(key, item, message)
        elif role == "tool":
            self._result(str(message.get("toolCallId") or ""), text_of(message.get("content")))

    def _prompt(self, key: str, item: dict, message: dict) -> None:
        self.end()
        text = text_of(message.get("content"))
        names = [
            str(c.get("description") or c.get("name") or "")
            for c in _list(item.get("contextItems"))
            if isinstance(c, dict)
        ]  # noqa: E501
        command = text.split()[0] if text.startswith("/") else ""
        attachments = [r.Attachment(name=name) for name in names if name]
        self.out.append(
            r.Message(
                at=self.at, src=r.Src(id=key), text=text, attachments=attachments, command=command
            )
        )
        self.turn = {"key": key, "cost": 0.0, "unknown": False, "status": "completed"}

    def _reply(self, key: str, item: dict, message: dict) -> None:
        model = _model(item) or self.model
        usage = _usage(message.get("usage"))
        cost = prices.cost(model, usage, self.at) if usage else None
        if self.turn is not None and usage is not None:
            self.turn["unknown"] |= cost is None
            self.turn["cost"] += cost or 0.0
        states = {
            str(s.get("toolCallId")): s
            for s in _list(item.get("toolCallStates"))
            if isinstance(s, dict)
        }  # noqa: E501
        calls = []
        for n, call in enumerate(_list(message.get("toolCalls"))):
            function = call.get("function") if isinstance(call, dict) else None
            if not isinstance(function, dict) or not function.get("name"):
                continue
            cid = str(call.get("id") or f"{key}/{n}")
            data = decoded(function.get("arguments"))
            calls.append(r.Call(id=cid, tool=str(function["name"]), input=data))
            state = states.get(cid) or {}
            file = data.get("filepath") if isinstance(data, dict) else None
            self.calls[cid] = (
                str(function["name"]),
                str(state.get("status") or ""),
                file if isinstance(file, str) else "",
            )
            self.pending(cid, state)
        text, thinking = text_of(message.get("content")), "\n\n".join(t for t in self.thinking if t)
        self.thinking = []
        if text.strip() or thinking or calls or usage:
            said = (text, thinking, calls)
            self.out.append(turns.reply(self.at, r.Src(id=key), said, model, usage, cost))
        if any(s.get("status") in FAILED for s in states.values()) and self.turn is not None:
            self.turn["status"] = (
                "cancelled"
                if any(s.get("status") == "canceled" for s in states.values())
                else self.turn["status"]
            )  # noqa: E501

    def pending(self, cid: str, state: dict) -> None:
        """A call whose result no `tool` message will give (a canceled one): from its state."""
        output = state.get("output")
        if state.get("status") in FAILED and not output:
            self._result(cid, f"the call was {state['status']} (Continue kept no output)")

    def _result(self, cid: str, output: str) -> None:
        if not cid or cid in self.given:
            return
        self.given.add(cid)
        tool, status, file = self.calls.pop(cid, ("", "", ""))
        failed = status in FAILED
        written = [file] if file and tool in WRITES and not failed else []
        self.out.append(
            r.Result(
                at=self.at,
                src=r.Src(id=f"result/{cid}"),
                call=cid,
                tool=tool,
                output=output,
                error=failed,
                files=written,
            )
        )

    def end(self) -> None:
        turn, self.turn = self.turn, None
        if turn is None:
            return
        if self.thinking:
            thinking, self.thinking = "\n\n".join(self.thinking), []
            self.out.append(
                r.Reply(
                    at=self.at,
                    src=r.Src(id=f"thinking/{turn['key']}"),
                    thinking=thinking,
                    model=self.model,
                )
            )  # noqa: E501
        cost = None if turn["unknown"] or not turn["cost"] else round(turn["cost"], 8)
        self.out.append(
            r.TurnEnd(
                at=self.at, src=r.Src(id=f"end/{turn['key']}"), status=turn["status"], cost_usd=cost
            )
        )


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _model(item: dict) -> str:
    for log in _list(item.get("promptLogs")):
        if isinstance(log, dict):
            options = (
                log.get("completionOptions")
                if isinstance(log.get("completionOptions"), dict)
                else {}
            )  # noqa: E501
            return str(options.get("model") or log.get("modelTitle") or "")
    return ""


def _usage(usage) -> r.Usage | None:
    """Continue's usage (OpenAI's shape): prompt and completion tokens, the cache's in details."""
    if not isinstance(usage, dict):
        return None
    details = (
        usage.get("promptTokensDetails")
        if isinstance(usage.get("promptTokensDetails"), dict)
        else {}
    )  # noqa: E501
    number = lambda v: v if isinstance(v, int) else 0  # noqa: E731
    return r.Usage(
        input=number(usage.get("promptTokens")),
        output=number(usage.get("completionTokens")),  # noqa: E501
        cache_read=number(details.get("cachedTokens")),
        cache_write=number(details.get("cacheWriteTokens")),
    )  # noqa: E501
