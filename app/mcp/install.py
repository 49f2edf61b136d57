"""`nodwyn mcp install AGENT`: the lines an agent's configuration needs to start `nodwyn mcp`,
printed, or added with `--write` (docs/decisions/0035-mcp-for-every-agent.md).

Invariants: `--write` adds nodwyn's entry and changes nothing else a person wrote. Codex's
`config.toml` gets a table appended at its end (the file's own bytes stay as they were);
Claude Code's `.claude.json` gets one key under `mcpServers`, every other key kept with its
value and order; the JSON files of Gemini CLI, Copilot CLI, OpenCode and Cursor get nodwyn's
member inserted as text into their servers' object (`jsonc`), so comments stay too. The file
as it was is kept beside it (`<name>.before-nodwyn`, the first time). An entry already there
is left alone and said so. A file that does not parse is refused, never overwritten.
"""

import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

import msgspec

from ..errors import BadInput
from . import jsonc
from .live_sessions import claude_root, codex_root, copilot_root, gemini_root

NAME = "nodwyn"


def command(agent: str) -> list[str]:
    """The command line that starts nodwyn's MCP server for `agent`, with absolute paths: the
    packaged app's own launcher (`--nodwyn-cli`) in the packaged app, else the `nodwyn` script."""
    if getattr(sys, "frozen", False):
        return [sys.executable, "--nodwyn-cli", "mcp", "--agent", agent]
    script = sys.argv[0] if Path(sys.argv[0]).name == "nodwyn" else shutil.which("nodwyn")
    base = [os.path.abspath(script)] if script else [sys.executable, "-m", "nodwyn.cli"]
    return [*base, "mcp", "--agent", agent]


def environment() -> dict[str, str]:
    """The environment the server needs: the data directory when it is not the default."""
    data = os.environ.get("NODWYN_DATA_DIR")
    return {"NODWYN_DATA_DIR": str(Path(data).expanduser().resolve())} if data else {}


def claude_file() -> Path:
    """Claude Code's user-scope settings: `.claude.json` in CLAUDE_CONFIG_DIR, else home."""
    if os.environ.get("CLAUDE_CONFIG_DIR"):
        return claude_root() / ".claude.json"
    return Path.home() / ".claude.json"


def codex_file() -> Path:
    return codex_root() / "config.toml"


def claude_entry(agent_command: list[str]) -> dict:
    entry = {"type": "stdio", "command": agent_command[0], "args": agent_command[1:]}
    env = environment()
    if env:
        entry["env"] = env
    return entry


def codex_table(agent_command: list[str]) -> str:
    lines = [
        f"[mcp_servers.{NAME}]",
        f"command = {json.dumps(agent_command[0])}",
        f"args = {json.dumps(agent_command[1:])}",
    ]
    env = environment()
    if env:
        pairs = ", ".join(f"{key} = {json.dumps(value)}" for key, value in env.items())
        lines.append(f"env = {{ {pairs} }}")
    return "\n".join(lines) + "\n"


def gemini_file() -> Path:
    """Gemini CLI's user settings (`GEMINI_CLI_HOME` moves the home folder it is under)."""
    return gemini_root() / "settings.json"


def copilot_file() -> Path:
    return copilot_root() / "mcp-config.json"


def opencode_file() -> Path:
    """OpenCode's global config: `opencode.jsonc` when the person keeps that one, else `.json`."""
    from ..importers.agent import home_of

    folder = home_of("XDG_CONFIG_HOME", ".config") / "opencode"
    jsonc_file = folder / "opencode.jsonc"
    return jsonc_file if jsonc_file.exists() else folder / "opencode.json"


def cursor_file() -> Path:
    return Path.home() / ".cursor" / "mcp.json"


def _env(key: str = "env") -> dict:
    env = environment()
    return {key: env} if env else {}


def json_target(agent: str) -> tuple[Path, tuple[str, ...], dict]:
    """The file, the path of its servers' object and nodwyn's entry, for the agents whose
    configuration is JSON (each schema as its agent documents it, ADR 0035)."""
    cmd = command(agent)
    if agent == "claude":
        return claude_file(), ("mcpServers",), claude_entry(cmd)
    if agent == "gemini":
        return gemini_file(), ("mcpServers",), {"command": cmd[0], "args": cmd[1:], **_env()}
    if agent == "copilot":
        entry = {"type": "local", "command": cmd[0], "args": cmd[1:], **_env(), "tools": ["*"]}
        return copilot_file(), ("mcpServers",), entry
    if agent == "opencode":
        entry = {"type": "local", "command": cmd, "enabled": True, **_env("environment")}
        return opencode_file(), ("mcp",), entry
    if agent == "cursor":
        # Cursor starts a server of ~/.cursor/mcp.json in the home folder; it fills in
        # ${workspaceFolder} in args with the folder open in the window
        args = [*cmd[1:], "--folder", "${workspaceFolder}"]
        return cursor_file(), ("mcpServers",), {"command": cmd[0], "args": args, **_env()}
    raise BadInput(f"unknown agent {agent!r}: {', '.join(AGENTS)}")


AGENTS = ("claude", "codex", "gemini", "copilot", "opencode", "cursor")


class Connection(msgspec.Struct, frozen=True, kw_only=True):
    """One agent as Settings > Agents' memory shows it (GET /api/mcp)."""

    agent: str
    label: str
    detected: bool  # its own folder is on this computer
    connected: bool  # its configuration already starts nodwyn's server
    file: str  # the configuration file `--write` adds the entry to
    lines: str  # what `nodwyn mcp install AGENT` prints
    said: str = ""  # after Connect: what was done


class Connections(msgspec.Struct, frozen=True):
    agents: list[Connection]


def config_file(agent: str) -> Path:
    return codex_file() if agent == "codex" else json_target(agent)[0]


def detected(agent: str) -> bool:
    """Whether the agent is on this computer: its configuration's folder or one of its
    sessions' folders exists."""
    from ..importers import registry

    folders = [config_file(agent).parent, *registry.get(agent).roots()]
    # Claude Code's file sits in the home folder itself, which says nothing
    return any(folder.exists() for folder in folders if folder != Path.home())


def connection(agent: str, said: str = "") -> Connection:
    from ..importers import registry

    label = registry.get(agent).label
    return Connection(
        agent=agent, label=label, detected=detected(agent), connected=has_entry(agent),
        file=str(config_file(agent)), lines=lines(agent), said=said,
    )  # fmt: skip


def connections() -> Connections:
    return Connections([connection(agent) for agent in AGENTS])


def connect(agent: str) -> Connection:
    """Settings' "Connect": the same as `nodwyn mcp install AGENT --write`."""
    if agent not in AGENTS:
        raise BadInput(f"unknown agent {agent!r}: {', '.join(AGENTS)}")
    return connection(agent, said=write(agent))


def lines(agent: str) -> str:
    """What to add, and where, as a person reads it."""
    cmd = command(agent)
    if agent == "claude":
        entry = json.dumps({"mcpServers": {NAME: claude_entry(cmd)}}, indent=2)
        env = "".join(f" -e {key}={value}" for key, value in environment().items())
        return (
            f"Run:\n  claude mcp add --scope user{env} {NAME} -- {' '.join(cmd)}\n"
            f"or add to {claude_file()}:\n{entry}\n"
        )
    if agent == "codex":
        return f"Add to {codex_file()}:\n\n{codex_table(cmd)}"
    file, path, entry = json_target(agent)
    shown: dict = {NAME: entry}
    for key in reversed(path):
        shown = {key: shown}
    where = ".".join(path)
    return f"Add to {file} (nodwyn's entry under {where!r}):\n{json.dumps(shown, indent=2)}\n"


def write(agent: str) -> str:
    """Add nodwyn's entry to the agent's configuration; a sentence saying what was done."""
    if agent == "codex":
        return _write_codex(codex_file(), codex_table(command(agent)))
    if agent == "claude":
        return _write_claude(claude_file(), claude_entry(command(agent)))
    return _write_jsonc(*json_target(agent))


def has_entry(agent: str) -> bool:
    """Whether the agent's configuration already starts nodwyn (a file that does not parse:
    no)."""
    try:
        if agent == "codex":
            file = codex_file()
            text = file.read_text(encoding="utf-8") if file.exists() else ""
            return NAME in tomllib.loads(text).get("mcp_servers", {})
        file, path, _ = json_target(agent)
        return file.exists() and _servers(jsonc.loads(file.read_text(encoding="utf-8")), path)[1]
    except (OSError, ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


def _servers(config, path: tuple[str, ...]) -> tuple[object, bool]:
    """The servers' object at `path` (None where missing) and whether it names nodwyn."""
    for key in path:
        config = config.get(key) if isinstance(config, dict) else None
    return config, isinstance(config, dict) and NAME in config


def _write_jsonc(file: Path, path: tuple[str, ...], entry: dict) -> str:
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        config = jsonc.loads(text)
    except jsonc.Damaged as exc:
        raise BadInput(f"{file} is not valid JSON ({exc}); nothing was changed") from None
    servers, there = _servers(config, path)
    where = ".".join(path)
    if there:
        return f"{file} already has {where}.{NAME}; left as it is."
    if not isinstance(config, dict) or (servers is not None and not isinstance(servers, dict)):
        raise BadInput(f"{file}: {where} is not a JSON object; nothing was changed")
    _replace(file, jsonc.add_member(text, path, NAME, entry))
    return f"Added {where}.{NAME} to {file}" + (
        f" (it was kept as {_backup(file).name})." if text else "."
    )


def _backup(file: Path) -> Path:
    return file.with_name(file.name + ".before-nodwyn")


def _replace(file: Path, text: str) -> None:
    """Write `file` anew atomically, its first version kept as `<name>.before-nodwyn`."""
    file.parent.mkdir(parents=True, exist_ok=True)
    if file.exists() and not _backup(file).exists():
        shutil.copy2(file, _backup(file))
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    if file.exists():
        shutil.copymode(file, tmp)  # the file may be readable by its owner only; keep it so
    os.replace(tmp, file)


def _write_codex(file: Path, table: str) -> str:
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise BadInput(f"{file} is not valid TOML ({exc}); nothing was changed") from None
    if NAME in config.get("mcp_servers", {}):
        return f"{file} already has [mcp_servers.{NAME}]; left as it is."
    gap = "" if not text else ("\n" if text.endswith("\n") else "\n\n")
    file.parent.mkdir(parents=True, exist_ok=True)
    if text and not _backup(file).exists():
        shutil.copy2(file, _backup(file))
    with open(file, "a", encoding="utf-8") as handle:
        handle.write(gap + table)
    return f"Added [mcp_servers.{NAME}] to {file}."


def _write_claude(file: Path, entry: dict) -> str:
    try:
        config = json.loads(file.read_text(encoding="utf-8")) if file.exists() else {}
    except ValueError as exc:
        raise BadInput(f"{file} is not valid JSON ({exc}); nothing was changed") from None
    if not isinstance(config, dict):
        raise BadInput(f"{file} does not hold a JSON object; nothing was changed")
    servers = config.setdefault("mcpServers", {})
    if NAME in servers:
        return f"{file} already has mcpServers.{NAME}; left as it is."
    servers[NAME] = entry
    _replace(file, json.dumps(config, indent=2, ensure_ascii=False) + "\n")
    return f"Added mcpServers.{NAME} to {file}."
