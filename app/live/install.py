"""`nodwyn hooks install AGENT [--write]` and `nodwyn hooks remove AGENT`: nodwyn's hook command
put into an agent's user settings, and taken out again (ADR 0046).

With the care of `nodwyn mcp install --write` (ADR 0043): user scope only, never a
repository's files; the person's own hooks, comments and order kept byte for byte (entries are
added and taken as text: jsonedit.py, tomlkit for Codex's notify); ours are known by the
module they run (MARK), so remove takes only ours, and a list or object the install made is
taken out whole once empty; a second install changes nothing. A file that does not parse is
refused, never overwritten, and the file as it was is kept beside it the first time
(`<name>.before-nodwyn`). Copilot CLI and OpenCode get a file of our own; Aider's
notifications command is a line of its `.aider.conf.yml`.
"""

import json
from pathlib import Path

import msgspec

from ..errors import BadInput
from ..importers.agent import home_of
from ..mcp import install as mcp
from ..mcp import jsonc
from . import jsonedit
from .commands import MARK, command, ours, shell

AGENTS = ("claude", "codex", "gemini", "copilot", "opencode", "cursor", "aider")
# the events each agent's hooks are installed for (what each gives: ADR 0046)
EVENTS = {
    "claude": ("PermissionRequest", "Elicitation", "Notification", "UserPromptSubmit",
               "PostToolUse", "Stop", "StopFailure", "SessionEnd"),
    "codex": ("PermissionRequest", "UserPromptSubmit", "PostToolUse", "Stop", "StopFailure"),
    "gemini": ("Notification", "BeforeAgent", "AfterTool", "AfterAgent", "SessionEnd"),
    "copilot": ("notification", "userPromptSubmitted", "postToolUse", "agentStop", "sessionEnd"),
    "cursor": ("beforeSubmitPrompt", "stop"),
}  # fmt: skip  # a table
DIALECT = {"claude": "json", "codex": "json", "gemini": "comments", "cursor": "jsonc"}


class Hooked(msgspec.Struct, frozen=True, kw_only=True):
    """An agent's hooks as Settings > Agents shows them."""

    agent: str
    label: str
    file: str  # where they go
    installed: bool
    detected: bool  # the agent's folder is on this computer
    said: str = ""  # what the last install or remove did


class HookList(msgspec.Struct, frozen=True):
    agents: list[Hooked]


def file_of(agent: str) -> Path:
    """The user-scope file the agent's hooks go into."""
    if agent == "claude":
        return mcp.claude_root() / "settings.json"
    if agent == "codex":
        return mcp.codex_root() / "hooks.json"
    if agent == "gemini":
        return mcp.gemini_file()
    if agent == "copilot":
        return mcp.copilot_root() / "hooks" / "nodwyn.json"
    if agent == "opencode":
        return home_of("XDG_CONFIG_HOME", ".config") / "opencode" / "plugins" / "nodwyn-live.js"
    if agent == "cursor":
        return Path.home() / ".cursor" / "hooks.json"
    if agent == "aider":
        return Path.home() / ".aider.conf.yml"
    raise BadInput(f"nodwyn installs hooks for {', '.join(AGENTS)}, not {agent!r}")


def group(agent: str, event: str) -> dict:
    """One event's entry as the agent's file holds it."""
    cmd = shell(command(agent))
    if agent == "cursor":
        return {"command": cmd}
    # Gemini CLI counts a hook's timeout in milliseconds, Claude Code and Codex in seconds
    hook = {"type": "command", "command": cmd, "timeout": 5000 if agent == "gemini" else 10}
    if agent == "claude":
        hook["async"] = True  # the agent never waits for it
    return {"hooks": [hook]}


def lines(agent: str) -> str:
    """What install --write would add, and where, as a person reads it."""
    file = file_of(agent)
    if agent in DIALECT:
        shown = {"hooks": {event: [group(agent, event)] for event in EVENTS[agent]}}
        text = f'Add to {file} (nodwyn\'s entries under "hooks"):\n{json.dumps(shown, indent=2)}\n'
        if agent == "codex":
            from . import codex_notify

            text += codex_notify.lines()
        return text
    return f"Write {file}:\n{own_file(agent)}"


def installed(agent: str) -> bool:
    file = file_of(agent)
    try:
        text = file.read_text(encoding="utf-8")
    except OSError:
        return False
    return ours(text)


def write(agent: str) -> str:
    """Install the agent's hooks; a sentence saying what was done."""
    return _change(agent, True)


def remove(agent: str) -> str:
    """Take nodwyn's hooks out of the agent's settings; a sentence saying what was done."""
    return _change(agent, False)


def _change(agent: str, wanted: bool) -> str:
    file = file_of(agent)
    if agent not in DIALECT:
        return (_write_own if wanted else _remove_own)(agent, file)
    said = (_write_json if wanted else _remove_json)(agent, file)
    if agent == "codex":
        from . import codex_notify

        said += " " + (codex_notify.write() if wanted else codex_notify.remove())
        if wanted:
            said += " Codex asks you to approve new hooks once, in /hooks."
    return said


def _read(file: Path, dialect: str) -> tuple[str, object]:
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        config = jsonc.loads(text, dialect)
    except jsonc.Damaged as exc:
        raise BadInput(f"{file} is not valid JSON ({exc}); nothing was changed") from None
    if config is not None and not isinstance(config, dict):
        raise BadInput(f"{file} holds {mcp.what(config)}, not a JSON object; nothing was changed")
    return text, config or {}


def _write_json(agent: str, file: Path) -> str:
    dialect = DIALECT[agent]
    text, config = _read(file, dialect)
    hooks = config.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise BadInput(f"{file}: hooks is {mcp.what(hooks)}, not an object; nothing was changed")
    new = text
    if agent == "cursor" and "version" not in config:
        new = jsonc.put(new, (), "version", 1, dialect)
    for event in reversed(EVENTS[agent]):  # each put first in "hooks": read in their order
        now = (hooks or {}).get(event)
        if now is not None and not isinstance(now, list):
            raise BadInput(
                f"{file}: hooks.{event} is {mcp.what(now)}, not a list; nothing was changed"
            )
        if now and any(ours(entry) for entry in now):
            continue
        if now is None:
            new = jsonc.put(new, ("hooks",), event, [group(agent, event)], dialect)
        else:
            new = jsonedit.append(new, ("hooks", event), group(agent, event), dialect)
        hooks = jsonc.loads(new, dialect).get("hooks")
    if new == text:
        return f"{file} already has nodwyn's hooks; left as it is."
    mcp._replace(file, new)  # noqa: SLF001 (the same atomic write and first backup)
    return f"Added nodwyn's hooks ({', '.join(EVENTS[agent])}) to {file}" + mcp._kept(file, text)  # noqa: SLF001


def _remove_json(agent: str, file: Path) -> str:
    dialect = DIALECT[agent]
    if not file.exists():
        return f"{file} does not exist; nothing to remove."
    text, config = _read(file, dialect)
    new = text
    hooks = config.get("hooks")
    had = _before(file, dialect).get("hooks")  # what the person had before nodwyn's first write
    had = had if isinstance(had, dict) else {}
    if isinstance(hooks, dict):
        for event, entries in hooks.items():
            if isinstance(entries, list) and any(ours(entry) for entry in entries):
                new = jsonedit.remove(new, ("hooks", event), ours, dialect)
                if jsonedit.empty_at(new, ("hooks", event), dialect) and event not in had:
                    new = jsonedit.remove(new, ("hooks",), lambda kv, e=event: kv[0] == e, dialect)
        if new != text and jsonedit.empty_at(new, ("hooks",), dialect) and not had:
            new = jsonedit.remove(new, (), lambda kv: kv[0] == "hooks", dialect)
            if agent == "cursor" and set(jsonc.loads(new, dialect)) == {"version"}:
                new = ""
    if new == text:
        return f"{file} holds no hook of nodwyn's; left as it is."
    new = _as_before(file, new, dialect)
    if not new.strip() or jsonc.loads(new, dialect) == {}:
        file.unlink()
        return f"Removed nodwyn's hooks: {file} held nothing else and is gone."
    mcp._replace(file, new)  # noqa: SLF001
    return f"Removed nodwyn's hooks from {file}; the rest is as it was."


def _before(file: Path, dialect: str) -> dict:
    """The file as nodwyn first found it (its `.before-nodwyn` copy), parsed; {} if none."""
    try:
        found = jsonc.loads(_backup(file).read_text(encoding="utf-8"), dialect)
    except (OSError, UnicodeDecodeError, jsonc.Damaged):
        return {}
    return found if isinstance(found, dict) else {}


def _backup(file: Path) -> Path:
    return file.with_name(file.name + ".before-nodwyn")


def _as_before(file: Path, new: str, dialect: str) -> str:
    """The file as it was before nodwyn first wrote it, byte for byte, where it says exactly
    what `new` says (the entries taken as text can leave a line break the person had not)."""
    try:
        before = _backup(file).read_text(encoding="utf-8")
        same = _bare(jsonc.loads(before, dialect)) == _bare(jsonc.loads(new, dialect))
    except (OSError, UnicodeDecodeError, jsonc.Damaged):
        return new
    return before if same else new


def _bare(config):
    """A settings document without a "hooks" that holds nothing (null, empty): the install
    makes such a value an object, and remove takes that object out whole."""
    if isinstance(config, dict) and config.get("hooks") in (None, [], "", {}):
        return {key: value for key, value in config.items() if key != "hooks"}
    return config


def own_file(agent: str) -> str:
    """The text of a file that is all nodwyn's (Copilot CLI's hooks, OpenCode's plugin, and
    Aider's two lines)."""
    if agent == "copilot":
        hooks = {}
        for event in EVENTS["copilot"]:
            cmd = shell(command("copilot", event))
            hooks[event] = [{"type": "command", "bash": cmd, "powershell": cmd, "timeoutSec": 10}]
        return json.dumps({"version": 1, "hooks": hooks}, indent=2) + "\n"
    if agent == "opencode":
        template = (Path(__file__).with_name("opencode_plugin.js")).read_text(encoding="utf-8")
        return template.replace("__COMMAND__", json.dumps(command("opencode")))
    said = json.dumps(shell(command("aider")))
    return f"notifications: true  # {MARK}\nnotifications-command: {said}\n"


def _write_own(agent: str, file: Path) -> str:
    want = own_file(agent)
    if agent == "aider":
        text = file.read_text(encoding="utf-8") if file.exists() else ""
        if ours(text):
            return f"{file} already has nodwyn's notifications command; left as it is."
        if any(line.startswith("notifications") for line in text.splitlines()):
            raise BadInput(
                f"{file} already sets aider's notifications; it runs one command only, so "
                "nodwyn's was not added (nothing was changed)"
            )
        gap = "" if not text or text.endswith("\n") else "\n"
        mcp._replace(file, text + gap + want)  # noqa: SLF001
        return f"Added aider's notifications command to {file}" + mcp._kept(file, text)  # noqa: SLF001
    if file.exists() and file.read_text(encoding="utf-8") == want:
        return f"{file} is nodwyn's already; left as it is."
    if file.exists() and not ours(file.read_text(encoding="utf-8")):
        raise BadInput(f"{file} is someone else's file; nothing was changed")
    mcp._replace(file, want)  # noqa: SLF001
    return f"Wrote {file}."


def _remove_own(agent: str, file: Path) -> str:
    if not file.exists() or not ours(file.read_text(encoding="utf-8")):
        return f"{file} holds nothing of nodwyn's; left as it is."
    if agent != "aider":
        file.unlink()
        return f"Removed {file}."
    text = file.read_text(encoding="utf-8")
    kept = "".join(line for line in text.splitlines(keepends=True) if not _ours_line(line))
    if kept.strip():
        mcp._replace(file, kept)  # noqa: SLF001
        return f"Removed aider's notifications lines of nodwyn's from {file}."
    file.unlink()
    return f"Removed {file}: it held nothing else."


def _ours_line(line: str) -> bool:
    return (line.startswith("notifications: true") and MARK in line) or (
        line.startswith("notifications-command:") and ours(line)
    )


def hook_list(said: dict[str, str] | None = None) -> HookList:
    """Every agent's hooks for Settings > Agents."""
    from ..importers import registry
    from ..importers.agents import shown

    said = said or {}
    return HookList(
        [
            Hooked(
                agent=name,
                label=registry.get(name).label,
                file=shown(file_of(name)),
                installed=installed(name),
                detected=_detected(name),
                said=said.get(name, ""),
            )
            for name in AGENTS
        ]
    )


def _detected(agent: str) -> bool:
    """Whether the agent seems to be on this computer: its settings' folder is there."""
    file = file_of(agent)
    if agent in ("copilot", "opencode"):
        return file.parent.parent.exists()
    return file.exists() if agent == "aider" else file.parent.exists()
