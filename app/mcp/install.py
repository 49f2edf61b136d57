"""`nodwyn mcp install AGENT`: the lines an agent's configuration needs to start `nodwyn mcp`,
printed, or added with `--write` (ADR 0035, ADR 0043).

Invariants: `--write` adds nodwyn's entry and changes nothing else a person wrote, and the
file it leaves is read by the agent's own parser rules with nodwyn's entry in it. Codex's
`config.toml` gets a table appended at its end, or its entry put into the `mcp_servers`
table where that is written inline (codex_config.py); the JSON files (Claude Code's
`.claude.json`, Gemini CLI's, Copilot CLI's, OpenCode's, Cursor's, Cline's, Continue's) get
nodwyn's member inserted as text into the servers' object the parser keeps (`jsonc`), so
comments and order stay too. A servers' value that is no object is made one when it holds
nothing (null, an empty list or text), and refused, said why, when it holds something nodwyn
would lose. The file as it was is kept beside it (`<name>.before-nodwyn`, the first time).
An entry already there is left alone and said so, so a second `--write` changes nothing. A
file that does not parse is refused, never overwritten.
"""

import json
import os
import shlex
import shutil
import sys
import tomllib
from pathlib import Path

import msgspec

from ..errors import BadInput
from . import AGENTS, jsonc
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


def codex_entry(agent_command: list[str]) -> dict:
    entry = {"command": agent_command[0], "args": agent_command[1:]}
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


def qwen_file() -> Path:
    """Qwen Code's user settings, Gemini CLI's `settings.json` under `QWEN_HOME` (~/.qwen)."""
    from ..importers.agent import home_of

    return home_of("QWEN_HOME", ".qwen") / "settings.json"


def crush_file() -> Path:
    """Crush's global config: `crush.json` in `$CRUSH_GLOBAL_CONFIG`, else in `crush` below
    `$XDG_CONFIG_HOME` or `~/.config` (on Windows too)."""
    from ..importers.agent import home_of

    if os.environ.get("CRUSH_GLOBAL_CONFIG"):
        return Path(os.environ["CRUSH_GLOBAL_CONFIG"]) / "crush.json"
    return home_of("XDG_CONFIG_HOME", ".config") / "crush" / "crush.json"


def cline_file() -> Path:
    """Cline's MCP settings: `~/.cline/data/settings` (CLINE_DIR moves ~/.cline), which Cline 4
    shares between its CLI and editors, where that folder is; else the extension's own file in
    the first editor that has one; else the shared one."""
    from ..importers.agent import home_of
    from ..importers.cline.folders import user_dirs

    shared = home_of("CLINE_DIR", ".cline") / "data" / "settings" / "cline_mcp_settings.json"
    if shared.parent.parent.exists():
        return shared
    for user in user_dirs():
        own = user / "globalStorage" / "saoudrizwan.claude-dev" / "settings" / shared.name
        if own.exists():
            return own
    return shared


def continue_file() -> Path:
    """A file of its own in `~/.continue/mcpServers`, where Continue reads JSON MCP configs
    in the mcpServers shape beside its config.yaml (CONTINUE_GLOBAL_DIR moves ~/.continue)."""
    from ..importers.agent import home_of

    return home_of("CONTINUE_GLOBAL_DIR", ".continue") / "mcpServers" / "nodwyn.json"


def _env(key: str = "env") -> dict:
    env = environment()
    return {key: env} if env else {}


def json_target(agent: str) -> tuple[Path, tuple[str, ...], dict]:
    """The file, the path of its servers' object and nodwyn's entry, for the agents whose
    configuration is JSON (each schema as its agent documents it, ADR 0035)."""
    cmd = command(agent)
    if agent == "claude":
        return claude_file(), ("mcpServers",), claude_entry(cmd)
    if agent in ("gemini", "qwen"):
        file = gemini_file() if agent == "gemini" else qwen_file()
        return file, ("mcpServers",), {"command": cmd[0], "args": cmd[1:], **_env()}
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
    if agent == "crush":
        entry = {"type": "stdio", "command": cmd[0], "args": cmd[1:], **_env()}
        return crush_file(), ("mcp",), entry
    if agent == "cline":
        entry = {"command": cmd[0], "args": cmd[1:], **_env(), "disabled": False}
        return cline_file(), ("mcpServers",), entry
    if agent == "continue":
        entry = {"type": "stdio", "command": cmd[0], "args": cmd[1:], **_env()}
        return continue_file(), ("mcpServers",), entry
    raise BadInput(f"unknown agent {agent!r}: {', '.join(AGENTS)}")


# How each agent parses its JSON file (jsonc.DIALECTS; the sources are in ADR 0043, 0052, 0053)
DIALECTS = {
    "claude": "json",
    "copilot": "json",
    "gemini": "comments",
    "opencode": "jsonc",
    "cursor": "jsonc",
    "qwen": "comments",
    "crush": "json",
    "cline": "json",
    "continue": "json",
}
DIALECT_WORDS = {
    "json": "",
    "comments": " (comments allowed, no trailing comma)",
    "jsonc": " even with its comments and trailing commas",
}


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
        agent=agent,
        label=label,
        detected=detected(agent),
        connected=has_entry(agent),
        file=str(config_file(agent)),
        lines=lines(agent),
        said=said,
    )


def connections() -> Connections:
    return Connections([connection(agent) for agent in AGENTS])


def connect(agent: str) -> Connection:
    """Settings' "Connect": the same as `nodwyn mcp install AGENT --write`."""
    if agent not in AGENTS:
        raise BadInput(f"unknown agent {agent!r}: {', '.join(AGENTS)}")
    return connection(agent, said=write(agent))


def _shell(words: list[str]) -> str:
    """A command line as this system's shell reads it back into the same words."""
    if os.name == "nt":
        import subprocess

        return subprocess.list2cmdline(words)
    return shlex.join(words)


def claude_command(cmd: list[str]) -> list[str]:
    """`claude mcp add` in the order Claude Code parses it: the name before `-e`, which takes
    every word up to `--` (anthropics/claude-code issues 23365, 46121, 62332: `-e` before the
    name takes the name as a variable and the command fails)."""
    env = [f"{key}={value}" for key, value in environment().items()]
    pairs = [word for pair in env for word in ("-e", pair)]
    return ["claude", "mcp", "add", "--scope", "user", NAME, *pairs, "--", *cmd]


def codex_command(cmd: list[str]) -> list[str]:
    """`codex mcp add NAME [--env K=V]... -- COMMAND...` (Codex's own usage line)."""
    pairs = [word for key, value in environment().items() for word in ("--env", f"{key}={value}")]
    return ["codex", "mcp", "add", NAME, *pairs, "--", *cmd]


def lines(agent: str) -> str:
    """What to add, and where, as a person reads it."""
    cmd = command(agent)
    if agent == "claude":
        entry = json.dumps({"mcpServers": {NAME: claude_entry(cmd)}}, indent=2)
        return f"Run:\n  {_shell(claude_command(cmd))}\nor add to {claude_file()}:\n{entry}\n"
    if agent == "codex":
        return (
            f"Run:\n  {_shell(codex_command(cmd))}\nor add to {codex_file()}:\n\n{codex_table(cmd)}"
        )
    file, path, entry = json_target(agent)
    shown: dict = {NAME: entry}
    for key in reversed(path):
        shown = {key: shown}
    where = ".".join(path)
    return f"Add to {file} (nodwyn's entry under {where!r}):\n{json.dumps(shown, indent=2)}\n"


def write(agent: str) -> str:
    """Add nodwyn's entry to the agent's configuration; a sentence saying what was done."""
    if agent == "codex":
        from . import codex_config  # tomlkit: imported only for this

        file, cmd = codex_file(), command(agent)
        text = file.read_text(encoding="utf-8") if file.exists() else ""
        new = codex_config.added(file, text, codex_entry(cmd), codex_table(cmd))
        if new is None:
            return f"{file} already has [mcp_servers.{NAME}]; left as it is."
        _replace(file, new)
        return f"Added [mcp_servers.{NAME}] to {file}" + _kept(file, text)
    file, path, entry = json_target(agent)
    return _write_json(file, path, entry, DIALECTS[agent])


def has_entry(agent: str) -> bool:
    """Whether the agent's configuration already starts nodwyn (a file that does not parse:
    no)."""
    try:
        if agent == "codex":
            file = codex_file()
            text = file.read_text(encoding="utf-8") if file.exists() else ""
            servers = tomllib.loads(text).get("mcp_servers")
            return isinstance(servers, dict) and NAME in servers
        file, path, _ = json_target(agent)
        if not file.exists():
            return False
        servers = _at(jsonc.loads(file.read_text(encoding="utf-8"), DIALECTS[agent]), path)[1]
        return isinstance(servers, dict) and NAME in servers
    except (OSError, ValueError, tomllib.TOMLDecodeError, UnicodeDecodeError):
        return False


_MISSING = object()


def _at(config, path: tuple[str, ...]) -> tuple[bool, object]:
    """Whether `path` is in the document, and its value there (parsers keep a key's last)."""
    for key in path:
        if not isinstance(config, dict) or key not in config:
            return False, _MISSING
        config = config[key]
    return True, config


def what(value) -> str:
    """A value's kind and a short look at it, for a refusal that says what is there."""
    kind = {list: "a list", str: "text", bool: "true or false", type(None): "null"}.get(
        type(value), "a number" if isinstance(value, int | float) else "an object"
    )
    if value is None:
        return kind
    shown = json.dumps(value, ensure_ascii=False)
    return f"{kind} ({shown[:60]}{'…' if len(shown) > 60 else ''})"


def replaceable(value) -> bool:
    """A servers' value that holds nothing nodwyn would lose by making it an object."""
    return value is None or value == [] or value == ""


def _write_json(file: Path, path: tuple[str, ...], entry: dict, dialect: str) -> str:
    text = file.read_text(encoding="utf-8") if file.exists() else ""
    try:
        config = jsonc.loads(text, dialect)
    except jsonc.Damaged as exc:
        raise BadInput(
            f"{file} is not valid JSON{DIALECT_WORDS[dialect]} ({exc}); nothing was changed"
        ) from None
    if config is not None and not isinstance(config, dict):
        raise BadInput(f"{file} holds {what(config)}, not a JSON object; nothing was changed")
    there, servers = _at(config, path)
    where = ".".join(path)
    if isinstance(servers, dict) and NAME in servers:
        return f"{file} already has {where}.{NAME}; left as it is."
    if there and not isinstance(servers, dict) and not replaceable(servers):
        raise BadInput(
            f"{file}: {where} is {what(servers)}, not an object of servers, and nodwyn would "
            f"lose what it holds; nothing was changed. Make {where} an object (its servers "
            "by name) and run this again."
        )
    _replace(file, jsonc.put(text, path, NAME, entry, dialect))
    made = there and not isinstance(servers, dict)
    was = f"; {where} was {what(servers)}, now an object of servers" if made else ""
    return f"Added {where}.{NAME} to {file}" + _kept(file, text, was)


def _kept(file: Path, text: str, more: str = "") -> str:
    return f" (it was kept as {_backup(file).name}{more})." if text else f"{more}."


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
