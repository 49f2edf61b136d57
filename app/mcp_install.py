"""`nodwyn mcp install claude|codex`: the lines an agent's configuration needs to start
`nodwyn mcp`, printed, or added with `--write`.

Invariants: `--write` adds nodwyn's entry and changes nothing else a person wrote. Codex's
`config.toml` gets a table appended at its end (the file's own bytes stay as they were);
Claude Code's `.claude.json` gets one key under `mcpServers`, every other key kept with its
value and order. An entry already there is left alone and said so. A file that does not parse
is refused, never overwritten.
"""

import json
import os
import shutil
import sys
import tomllib
from pathlib import Path

from .conversation import claude_root, codex_root
from .errors import BadInput

NAME = "nodwyn"


def command(agent: str) -> list[str]:
    """The command line that starts nodwyn's MCP server for `agent`, with absolute paths."""
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
    raise BadInput(f"unknown agent {agent!r}: claude or codex")


def write(agent: str) -> str:
    """Add nodwyn's entry to the agent's configuration; a sentence saying what was done."""
    if agent == "codex":
        return _write_codex(codex_file(), codex_table(command(agent)))
    if agent == "claude":
        return _write_claude(claude_file(), claude_entry(command(agent)))
    raise BadInput(f"unknown agent {agent!r}: claude or codex")


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
    file.parent.mkdir(parents=True, exist_ok=True)
    tmp = file.with_name(f".{file.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(config, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    if file.exists():
        shutil.copymode(file, tmp)  # the file may be readable by its owner only; keep it so
    os.replace(tmp, file)
    return f"Added mcpServers.{NAME} to {file}."
