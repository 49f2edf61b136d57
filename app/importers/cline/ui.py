"""Cline's ui_messages.json (what its panel shows) as nodwyn records.

Each message is `{ts, type: say|ask, say|ask: kind, text, ...}`, `ts` in epoch milliseconds.
The first `text` before any request is the task a person wrote; `user_feedback` is a person's
later words (an answer, feedback on a result, a resumed task's new instructions). Each
`api_req_started` opens one request's reply: its `text` is JSON with `tokensIn`, `tokensOut`,
`cacheReads`, `cacheWrites` and `cost` (Cline's own), and the request it sent, whose
environment details name the working folder. `reasoning` and `text` fill the reply; `tool`
(JSON: `{tool: readFile|newFileCreated|editedExistingFile|...}`), `command`, `use_mcp_server`,
`followup` are its calls under the model's own tool names; `command_output`,
`mcp_server_response` their results; `task_progress` the plan; `error`, `api_req_failed`,
`mistake_limit_reached` errors. Checkpoints, hooks and approvals' prompts add nothing.
"""

import json
import re

from ...log import records as r
from ..agent import decoded
from ..times import at_ms
from .turns import Turns, folder_in

# ui_messages' tool kinds -> the tool the model called (Cline's and Roo Code's names)
_TOOLS = {
    "newFileCreated": "write_to_file",
    "editedExistingFile": "replace_in_file",
    "appliedDiff": "apply_diff",  # Roo Code
    "fileDeleted": "delete_file",
    "readFile": "read_file",
    "listFilesTopLevel": "list_files",
    "listFilesRecursive": "list_files",
    "listCodeDefinitionNames": "list_code_definition_names",
    "searchFiles": "search_files",
    "codebaseSearch": "codebase_search",  # Roo Code
    "webFetch": "web_fetch",
    "webSearch": "web_search",
    "summarizeTask": "summarize_task",
    "useSkill": "use_skill",
    "newTask": "new_task",  # Roo Code: a sub-task, its own task folder
    "switchMode": "switch_mode",
    "finishTask": "attempt_completion",  # Roo Code: a sub-task handing back
    "readCommandOutput": "read_command_output",
    "updateTodoList": "update_todo_list",
    "runSlashCommand": "run_slash_command",
    "generateImage": "generate_image",
}
CHANGES = "HAS_CHANGES"  # Cline's mark on a result after which files changed (its button)
_BLOCK = re.compile(r"^(?:-{3,} SEARCH|<{3,} SEARCH)", re.M)
_EDITS = {"write_to_file", "replace_in_file", "apply_diff"}
_ERRORS = {
    "error",
    "diff_error",
    "clineignore_error",
    "api_req_failed",
    "mistake_limit_reached",
    "command_permission_denied",
    "rooignore_error",
    "condense_context_error",
}
# asks that wait for the person -> the tool they are about where no call names it
_APPROVALS = {
    "tool": "tool",
    "command": "execute_command",
    "use_mcp_server": "use_mcp_tool",
    "browser_action_launch": "browser_action",
    "followup": "ask_followup_question",
    "use_subagents": "use_subagents",
}
_ANSWERS = {"plan_mode_respond", "act_mode_respond", "completion_result", "plan_completion_result"}


def _json(text) -> dict:
    try:
        value = json.loads(text) if isinstance(text, str) else None
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


class Mapper:
    """Folds ui messages into `Turns`; `folder` is the first working folder a request names."""

    def __init__(self, turns: Turns):
        self.turns = turns
        self.folder = ""
        self.asked = False  # a request was made: later `text` is the model's
        self.last_call = ""  # the call a command's output or an MCP response belongs to
        self.last_at = ""
        self.output: list[str] = []  # a command's output so far
        self.keys: set[str] = set()
        self.asking = ""  # the ask Cline waits on, until the next message
        self.asked_kind = ""

    def messages(self, messages: list) -> None:
        for n, m in enumerate(messages):
            if isinstance(m, dict):
                self.message(n, m)
        if self.output:
            self.ran()

    def ran(self) -> None:
        """The command's output, whole, as its result."""
        output, self.output = "\n".join(self.output), []
        self.turns.result(self.last_at, self.last_call, output)
        self.last_call = ""

    def message(self, n: int, m: dict) -> None:
        kind = m.get("say") if m.get("type") == "say" else m.get("ask")
        kind = kind if isinstance(kind, str) else ""
        if self.output and kind != "command_output":
            self.ran()
        at = self.last_at = at_ms(m.get("ts"), self.last_at)
        key = f"ui/{m.get('ts', n)}"
        key = f"{key}/{n}" if key in self.keys else key  # two messages of one millisecond
        self.keys.add(key)
        text = m.get("text") if isinstance(m.get("text"), str) else ""
        if self.asking:
            self._answered(kind, at)
        if kind in ("task", "user_feedback", "user_feedback_diff") or (
            kind == "text" and not self.asked
        ):
            self.turns.prompt(key, at, text, _attachments(m))
        elif kind == "api_req_started":
            self._request(key, at, _json(text))
        elif kind == "api_req_finished":  # Claude Dev's (Cline before 2.0): the tokens came last
            self._finished(_json(text))
        elif kind == "reasoning":
            self.turns.thinking(at, text)
        elif kind == "text" or (kind in _ANSWERS and m.get("type") == "say"):
            self.turns.text(at, text.removesuffix(CHANGES))
        elif kind in ("plan_mode_respond", "act_mode_respond"):
            self.turns.text(at, str(_json(text).get("response") or ""))
        elif kind in _ERRORS:
            self.turns.error(at, key, text or kind.replace("_", " "))
        elif kind == "task_progress":
            self.turns.progress(at, key, text)
        elif kind == "condense_context" and isinstance(m.get("contextCondense"), dict):
            note = str(m["contextCondense"].get("summary") or "Context condensed")
            self.turns.flush()
            self.turns.out.append(r.ContextCompact(at=at, src=r.Src(id=key), note=note))
        elif kind == "subtask_result" and text.strip():  # Roo Code: a sub-task's answer
            self.turns.flush()
            self.turns.out.append(r.Reply(at=at, src=r.Src(id=key), agent="sub-task", text=text))
        else:
            self._tool(kind, key, at, text, m)
        if m.get("type") == "ask" and kind in _APPROVALS:
            self._asked(key, at, kind)

    def _asked(self, key: str, at: str, kind: str) -> None:
        """Cline waits for the person: an approval of a call, or an answer to a question."""
        calls = self.turns.open["calls"] if self.turns.open else []
        call = next((c for c in calls if c.id == key), None)
        tool = call.tool if call else _APPROVALS[kind]
        ask = r.ApprovalAsk(
            at=at,
            src=r.Src(id=f"ask/{key}"),
            call=key,
            tool=tool,
            input=call.input if call else None,
        )
        self.turns.after(ask)
        self.asking, self.asked_kind = key, kind

    def _answered(self, kind: str, at: str) -> None:
        """The person answered the ask before: words of theirs deny a call (Cline tells the
        model "The user denied this operation"), anything else goes on with it."""
        key, self.asking = self.asking, ""
        question = self.asked_kind == "followup"  # answered, not allowed or denied
        allowed = question or kind not in ("user_feedback", "user_feedback_diff")
        answer = r.ApprovalAnswer(at=at, src=r.Src(id=f"answer/{key}"), call=key, allowed=allowed)
        self.turns.after(answer)

    def _request(self, key: str, at: str, info: dict) -> None:
        self.asked = True
        self.folder = self.folder or folder_in(str(info.get("request") or ""))
        self.turns.reply(key, at, *_usage(info))
        if info.get("cancelReason"):
            self.turns.cancelled()

    def _finished(self, info: dict) -> None:
        reply = self.turns.open
        if reply is not None and reply["usage"] is None:
            reply["usage"], reply["cost"] = _usage(info)

    def _tool(self, kind, key: str, at: str, text: str, m: dict) -> None:
        if kind == "tool":
            self._file_tool(key, at, _json(text))
        elif kind == "command":
            self.turns.call(at, key, "execute_command", {"command": text})
            self.last_call = key
        elif kind == "command_output" and self.last_call:
            self.output.append(text)  # Cline streams a command's output in several messages
        elif kind in ("use_mcp_server", "use_subagents", "followup", "new_task"):
            self._other_call(kind, key, at, text)
        elif kind in ("subagent", "subagent_usage"):
            self._subagents(kind, key, at, _json(text))
        elif kind == "mcp_server_response" and self.last_call:
            failed = text.startswith("Error:")
            said = text.removeprefix("Error:").lstrip() if failed else text  # "Error:\nError: …"
            self.turns.result(at, self.last_call, said, error=failed)
            self.last_call = ""
        elif kind in ("condense", "compaction", "summarize_task") and text.strip():
            note = _compaction(text) if kind == "compaction" else text
            if note:
                self.turns.flush()
                self.turns.out.append(r.ContextCompact(at=at, src=r.Src(id=key), note=note))

    def _subagents(self, kind: str, key: str, at: str, data: dict) -> None:
        """Cline's sub-agents: their status (kept in place until they end) is the result of the
        use_subagents call, each one's answer a reply of its own under the turn; their usage,
        summed by Cline, a reply of the sub-agents'."""
        if kind == "subagent_usage":
            usage = r.Usage(
                input=_int(data, "tokensIn"),
                output=_int(data, "tokensOut"),
                cache_read=_int(data, "cacheReads"),
                cache_write=_int(data, "cacheWrites"),
            )
            cost = data.get("cost") if isinstance(data.get("cost"), int | float) else None
            self.turns.flush()
            self.turns.reply(key, at, usage, cost)
            self.turns.open["agent"] = "sub-agents"  # type: ignore[index]
            return
        if data.get("status") not in ("completed", "failed") or not self.last_call:
            return
        items = [i for i in _list(data.get("items")) if isinstance(i, dict)]
        for n, item in enumerate(items):  # before the call's result, so they nest under it
            said = str(item.get("result") or item.get("error") or "")
            if said:
                agent = str(item.get("index", n + 1))
                self.turns.after(r.Reply(at=at, src=r.Src(id=f"{key}/{n}"), agent=agent, text=said))
        lines = [_said(n, item) for n, item in enumerate(items)]
        self.turns.result(at, self.last_call, "\n\n".join(lines), error=data["status"] == "failed")
        self.last_call = ""

    def _file_tool(self, key: str, at: str, data: dict) -> None:
        kind = str(data.get("tool") or "")
        tool = _TOOLS.get(kind, kind or "tool")
        path = str(data.get("path") or "")
        body = data.get("content") if isinstance(data.get("content"), str) else ""
        diff = data.get("diff") if isinstance(data.get("diff"), str) else ""
        args: dict = {"path": path} if path else {}
        if tool in ("replace_in_file", "apply_diff"):
            blocks = next((t for t in (diff, body) if _BLOCK.search(t)), "")
            if not blocks and body:
                tool = "write_to_file"  # a whole file written (Roo Code adds its unified diff)
            args["diff"] = blocks or diff
        if tool == "write_to_file":
            args = {**args, "content": body}
            args.pop("diff", None)
        elif tool == "search_files":
            args.update({k: data[k] for k in ("regex", "filePattern") if data.get(k)})
        elif kind == "listFilesRecursive":
            args["recursive"] = True
        self.turns.call(at, key, tool, args)
        shown = "" if tool in _EDITS or tool == "read_file" else body
        self.turns.result(at, key, shown, files=[path] if tool in _EDITS and path else [])

    def _other_call(self, kind: str, key: str, at: str, text: str) -> None:
        data = _json(text)
        if kind == "use_mcp_server":
            tool = str(data.get("type") or "use_mcp_tool")
            args = {
                "server_name": data.get("serverName"),
                "tool_name": data.get("toolName"),
                "arguments": decoded(data.get("arguments")),  # JSON text in Cline's file
                "uri": data.get("uri"),
            }
            data = {k: v for k, v in args.items() if v}
        else:
            tool = {"followup": "ask_followup_question"}.get(kind, kind)
            data = data or {"text": text}
        self.turns.call(at, key, tool, data)
        self.last_call = key if kind in ("use_mcp_server", "use_subagents") else ""
        if not self.last_call:
            self.turns.calls.pop(key, None)  # answered by a person's next words, not a result


def _usage(info: dict) -> tuple[r.Usage | None, float | None]:
    """A request's tokens and Cline's own cost of it, where its record gives them."""
    numbers = {k: v if isinstance(v, int) else 0 for k, v in info.items()}
    counted = any(k in info for k in ("tokensIn", "tokensOut", "cacheReads", "cacheWrites"))
    usage = (
        r.Usage(
            input=numbers.get("tokensIn", 0),
            output=numbers.get("tokensOut", 0),
            cache_read=numbers.get("cacheReads", 0),
            cache_write=numbers.get("cacheWrites", 0),
        )
        if counted
        else None
    )
    cost = info.get("cost") if isinstance(info.get("cost"), int | float) else None
    return usage, cost


def _said(n: int, item: dict) -> str:
    """One sub-agent's end as Cline words it: `[1] COMPLETED - prompt` and its answer."""
    head = f"[{item.get('index', n + 1)}] {str(item.get('status', '')).upper()}"
    return f"{head} - {item.get('prompt', '')}\n{item.get('result') or item.get('error') or ''}"


def _list(value) -> list:
    return value if isinstance(value, list) else []


def _int(data: dict, name: str) -> int:
    value = data.get(name)
    return value if isinstance(value, int) else 0


def _compaction(text: str) -> str:
    """Cline's compaction divider (JSON, rewritten in place until it ends) in words, once done."""
    info = _json(text)
    if not info:
        return text
    if info.get("status") != "completed":
        return ""
    before, after = info.get("tokensBefore"), info.get("tokensAfter")
    sizes = (
        f": {before:,} tokens to {after:,}"
        if isinstance(before, int) and isinstance(after, int)
        else ""
    )  # noqa: E501
    return f"Context compacted ({info.get('mode', 'auto')}){sizes}"


def _attachments(m: dict) -> list[r.Attachment]:
    """The files and images a person added to a message, by name."""
    files = [f for f in _list(m.get("files")) if isinstance(f, str)]
    images = [f"image {n + 1}" for n in range(len(_list(m.get("images"))))]
    return [r.Attachment(name=name) for name in files + images]
