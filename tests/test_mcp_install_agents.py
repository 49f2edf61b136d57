"""`nodwyn mcp install gemini|copilot|opencode|cursor [--write]` on copies of the agents' real
configuration files' shapes (tests/data/agent_configs: comments, trailing commas, the
person's own servers), each result checked against the agent's documented schema
(schemas.json), and the server started from the written entry as the agent would start it."""

import json
import os
import shutil
from pathlib import Path

import jsonschema
import pytest
from mcp import StdioServerParameters
from mcp_client import talk
from nodwyn import cli
from nodwyn.cli.agents import MCP_AGENTS
from nodwyn.mcp import install as mcp_install
from nodwyn.mcp import jsonc
from nodwyn.mcp.conversation import AGENTS

CONFIGS = Path(__file__).parent / "data" / "agent_configs"
SCHEMAS = json.loads((CONFIGS / "schemas.json").read_text())
SHAPES = {
    "gemini": "gemini-settings.json",
    "copilot": "copilot-mcp-config.json",
    "opencode": "opencode.jsonc",
    "cursor": "cursor-mcp.json",
}
OTHERS = {
    "gemini": "github",
    "copilot": "playwright",
    "opencode": "everything",
    "cursor": "context7",
}


@pytest.fixture
def homes(tmp_path, agents_home, monkeypatch):
    """HOME (Cursor's ~/.cursor) and XDG_CONFIG_HOME (OpenCode's) moved into tmp_path too."""
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "person" / ".config"))
    return tmp_path


def where(agent: str) -> Path:
    """Where the agent reads its configuration, as the agents' docs place it."""
    home = Path.home()
    return {
        "gemini": Path(os.environ["GEMINI_CLI_HOME"]) / ".gemini" / "settings.json",
        "copilot": Path(os.environ["COPILOT_HOME"]) / "mcp-config.json",
        "opencode": home / ".config" / "opencode" / "opencode.jsonc",
        "cursor": home / ".cursor" / "mcp.json",
    }[agent]


def schema_check(agent: str, config) -> None:
    schema = {k: v for k, v in SCHEMAS[agent].items() if not k.startswith("_")}
    jsonschema.validate(config, schema)


def one_block_added(before: str, after: str) -> bool:
    """Whether `after` is `before` with one run of text put in somewhere."""
    head = next(
        (i for i, (a, b) in enumerate(zip(before, after, strict=False)) if a != b), len(before)
    )
    return len(after) > len(before) and after.endswith(before[head:])


def run(capsys, *argv) -> str:
    capsys.readouterr()
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("agent", list(SHAPES))
def test_write_adds_one_entry_the_agent_reads_and_keeps_the_persons_file(homes, capsys, agent):
    file = where(agent)
    file.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CONFIGS / SHAPES[agent], file)
    before = file.read_text()
    said = run(capsys, "mcp", "install", agent, "--write")
    assert str(file) in said and "before-nodwyn" in said
    after = file.read_text()
    config = jsonc.loads(after)
    schema_check(agent, config)
    servers = config["mcp" if agent == "opencode" else "mcpServers"]
    assert (
        servers[OTHERS[agent]]
        == jsonc.loads(before)["mcp" if agent == "opencode" else "mcpServers"][OTHERS[agent]]
    )
    assert {k: v for k, v in config.items() if k not in ("mcp", "mcpServers")} == {
        k: v for k, v in jsonc.loads(before).items() if k not in ("mcp", "mcpServers")
    }
    assert one_block_added(before, after)  # every byte of the person's file, comments too
    assert file.with_name(file.name + ".before-nodwyn").read_text() == before
    assert "already has" in run(capsys, "mcp", "install", agent, "--write")
    assert file.read_text() == after  # nothing written twice


@pytest.mark.parametrize("agent", list(SHAPES))
def test_write_makes_a_missing_file_and_the_printed_lines_match_it(homes, capsys, agent):
    printed = run(capsys, "mcp", "install", agent)
    head, _, body = printed.partition("\n")
    file = where(agent) if agent != "opencode" else where(agent).with_suffix(".json")
    assert head.startswith(f"Add to {file} ")
    schema_check(agent, json.loads(body))
    assert not file.exists()
    run(capsys, "mcp", "install", agent, "--write")
    assert json.loads(file.read_text()) == json.loads(body)
    assert not file.with_name(file.name + ".before-nodwyn").exists()  # nothing was there


@pytest.mark.parametrize("agent", ["gemini", "opencode"])
def test_a_file_that_is_not_json_even_with_comments_is_refused_and_kept(homes, capsys, agent):
    file = where(agent)
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text('{ "mcpServers": { "a": } // cut\n')
    assert cli.main(["mcp", "install", agent, "--write"]) == 1
    assert "not valid JSON" in capsys.readouterr().err
    assert file.read_text() == '{ "mcpServers": { "a": } // cut\n'


@pytest.mark.parametrize("agent", list(SHAPES))
def test_the_written_entry_starts_a_server_that_lists_the_tools(homes, capsys, agent, tmp_path):
    run(capsys, "mcp", "install", agent, "--write")
    file = where(agent) if agent != "opencode" else where(agent).with_suffix(".json")
    entry = jsonc.loads(file.read_text())["mcp" if agent == "opencode" else "mcpServers"]["nodwyn"]
    if agent == "opencode":
        command, args, env = entry["command"][0], entry["command"][1:], entry["environment"]
    else:
        command, args, env = entry["command"], entry["args"], entry.get("env", {})
    args = [arg.replace("${workspaceFolder}", str(tmp_path)) for arg in args]  # as Cursor does
    assert args[args.index("--agent") + 1] == agent
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    params = StdioServerParameters(command=command, args=args, env=keep | env, cwd=tmp_path)

    async def script(session):
        return [tool.name for tool in (await session.list_tools()).tools]

    assert talk(params, script)[:3] == ["index-search", "recall", "name-task"]


def test_the_commands_agents_are_those_the_server_knows():
    assert MCP_AGENTS == AGENTS == mcp_install.AGENTS
