"""Cline's api_conversation_history.json (what the model was sent) as nodwyn records, for a
task whose ui_messages.json is gone.

Messages are Anthropic-style `{role, content: [blocks], ts?, modelInfo?, metrics?}`. An
assistant message is one request's reply: `text`, `thinking` and `tool_use` blocks (older
Cline wrote its calls as XML tags inside the text: `<read_file><path>a</path></read_file>`),
`metrics.tokens` its `prompt` (input without the cache), `completion` and `cached` tokens
(cache reads and writes together: the file does not split them, so all are counted as
reads), `modelInfo.modelId` its model. A user message carries the task (`<task>`), the
results of the calls before it (a text block `[read_file for 'a'] Result:` each, in the
calls' order, or `tool_result` blocks by id), a person's later words (`<feedback>`,
`<answer>`, `<user_message>`), and the environment details that name the working folder.
"""

import re

from ...log import records as r
from ..times import at_ms
from .turns import Turns, folder_in

_RESULT = re.compile(r"^\[(\w+)(?: for .*?)?\] Result:\s*", re.S)
_PERSON = re.compile(r"<(feedback|answer|user_message)>\n?(.*?)\n?</\1>", re.S)
_TASK = re.compile(r"<task>\n?(.*?)\n?</task>", re.S)
_FILES = re.compile(r'<file_content path="([^"]+)">')
_TOOLS = ("write_to_file", "replace_in_file", "read_file", "execute_command", "search_files",
          "list_files", "list_code_definition_names", "use_mcp_tool", "access_mcp_resource",
          "ask_followup_question", "attempt_completion", "plan_mode_respond", "new_task",
          "browser_action", "web_fetch", "apply_diff", "insert_content",
          "search_and_replace")  # fmt: skip  # a table
_XML = re.compile(r"<(" + "|".join(_TOOLS) + r")>(.*?)</\1>", re.S)
_PARAM = re.compile(r"<(\w+)>\n?(.*?)\n?</\1>", re.S)
_SAID = {"attempt_completion": "result", "plan_mode_respond": "response"}  # the answer's field
_EDITS = ("write_to_file", "replace_in_file", "apply_diff")
_EXIT = re.compile(r"(?:exit code|Exit code:)\s*(-?\d+)")
_FAILED = ("The tool execution failed", "<error>", "The user denied this operation")


def blocks(content) -> list[dict]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


class Mapper:
    """Folds api messages into `Turns`; `folder` is the first working folder the task names."""

    def __init__(self, turns: Turns, first_at: str):
        self.turns = turns
        self.folder = ""
        self.last_at = first_at
        self.waiting: list[tuple[str, str]] = []  # (call id, tool) of calls with no result yet

    def messages(self, messages: list) -> None:
        for n, m in enumerate(messages):
            if isinstance(m, dict):
                at = self.last_at = at_ms(m.get("ts"), self.last_at)
                key = f"api/{m.get('ts') or n}"
                if m.get("role") == "assistant":
                    self._assistant(key, at, m)
                else:
                    self._user(key, at, m)

    def _assistant(self, key: str, at: str, m: dict) -> None:
        info = m.get("modelInfo") if isinstance(m.get("modelInfo"), dict) else {}
        tokens = (
            (m.get("metrics") or {}).get("tokens") if isinstance(m.get("metrics"), dict) else None
        )
        usage = None
        if isinstance(tokens, dict):
            n = {k: v if isinstance(v, int) else 0 for k, v in tokens.items()}
            usage = r.Usage(
                input=n.get("prompt", 0),
                output=n.get("completion", 0),
                cache_read=n.get("cached", 0),
            )
        self.turns.reply(key, at, usage, None, str(info.get("modelId") or ""))
        for n, block in enumerate(blocks(m.get("content"))):
            kind = block.get("type")
            if kind == "thinking":
                self.turns.thinking(at, str(block.get("thinking") or ""))
            elif kind == "text":
                self._text(f"{key}/{n}", at, str(block.get("text") or ""))
            elif kind == "tool_use" and block.get("name"):
                self._call(
                    at, str(block.get("id") or f"{key}/{n}"), str(block["name"]), block.get("input")
                )

    def _text(self, key: str, at: str, text: str) -> None:
        calls = list(_XML.finditer(text))
        self.turns.text(at, _XML.sub("", text).strip() if calls else text)
        for n, found in enumerate(calls):
            params = {p.group(1): p.group(2) for p in _PARAM.finditer(found.group(2))}
            self._call(at, f"{key}/{n}", found.group(1), params)

    def _call(self, at: str, key: str, tool: str, data) -> None:
        said = _SAID.get(tool)
        if said and isinstance(data, dict) and isinstance(data.get(said), str):
            self.turns.text(at, data[said])  # the answer people read, kept on the call too
        self.turns.call(at, key, tool, data)
        self.waiting.append((key, tool))
        if isinstance(data, dict) and isinstance(data.get("task_progress"), str):
            self.turns.progress(at, f"plan/{key}", data["task_progress"])

    def _user(self, key: str, at: str, m: dict) -> None:
        said: list[str] = []
        for n, block in enumerate(blocks(m.get("content"))):
            if block.get("type") == "tool_result":
                output = _content(block)
                self._result(at, str(block.get("tool_use_id") or ""), output, block.get("is_error"))
                continue
            text = str(block.get("text") or "") if block.get("type") == "text" else ""
            self.folder = self.folder or folder_in(text)
            if text.lstrip().startswith("<environment_details>"):
                continue
            task = _TASK.search(text)
            if task:
                self._prompt(f"{key}/{n}", at, task.group(1), m)
                continue
            head = _RESULT.match(text)
            if head:
                self._result(at, self._waiting_for(head.group(1)), text[head.end() :])
            elif text.startswith("[ERROR]"):
                self.turns.error(at, f"{key}/{n}", text)
            said += [p.group(2) for p in _PERSON.finditer(text)]
        for n, words in enumerate(w for w in said if w.strip()):
            self.turns.prompt(f"{key}/said/{n}", at, words)

    def _prompt(self, key: str, at: str, text: str, m: dict) -> None:
        content = blocks(m.get("content"))
        names = [f.group(1) for b in content for f in _FILES.finditer(str(b.get("text") or ""))]
        names += [
            f"image {n + 1}" for n, b in enumerate(b for b in content if b.get("type") == "image")
        ]  # noqa: E501
        self.turns.prompt(key, at, text, [r.Attachment(name=x) for x in names])

    def _waiting_for(self, tool: str) -> str:
        """The first call without a result of this tool (Cline's words name the tool), else
        the first call without one."""
        for n, (_key, name) in enumerate(self.waiting):
            if name == tool or (tool == "subagents" and name == "use_subagents"):
                return self.waiting.pop(n)[0]
        return self.waiting.pop(0)[0] if self.waiting else ""

    def _result(self, at: str, key: str, output: str, error=None) -> None:
        if not key:
            return
        self.waiting = [w for w in self.waiting if w[0] != key]
        code = _EXIT.search(output[:400])
        failed = (
            bool(error) or output.lstrip().startswith(_FAILED) or (code and code.group(1) != "0")
        )
        files = _written(self.turns, key) if self.turns.calls.get(key) in _EDITS else []
        self.turns.result(
            at,
            key,
            output,
            error=bool(failed),
            files=files,
            exit=int(code.group(1)) if code else None,
        )


def _written(turns: Turns, key: str) -> list[str]:
    reply = turns.open
    calls = reply["calls"] if reply else []
    for call in calls:
        data = call.input if call.id == key and isinstance(call.input, dict) else {}
        path = data.get("path") or data.get("absolutePath")
        if isinstance(path, str) and path:
            return [path]
    return []


def _content(block: dict) -> str:
    value = block.get("content")
    if isinstance(value, str):
        return value
    return "\n".join(str(b.get("text") or "") for b in blocks(value) if b.get("type") == "text")
