"""`nodwyn mcp install cline|continue`: the entry lands where each reads its MCP servers
(Cline's cline_mcp_settings.json, Continue's ~/.continue/mcpServers folder), printed as it is
written, and the written entry starts a server that lists nodwyn's tools."""

import json
import os

import pytest
from mcp import StdioServerParameters
from mcp_client import talk
from nodwyn import cli
from nodwyn.mcp import install as mcp_install


def run(capsys, *argv) -> str:
    capsys.readouterr()
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def test_cline_s_entry_goes_to_the_shared_settings_where_cline_4_keeps_them(agents_home):
    assert mcp_install.cline_file().parent.parent == agents_home / ".cline" / "data"


def test_an_older_cline_s_own_settings_file_is_used_where_it_is(agents_home):
    own = agents_home / "Code" / "Code" / "User" / "globalStorage" / "saoudrizwan.claude-dev"
    own = own / "settings" / "cline_mcp_settings.json"
    own.parent.mkdir(parents=True)
    own.write_text(json.dumps({"mcpServers": {"github": {"command": "gh"}}}))
    assert mcp_install.cline_file() == own
    mcp_install.write("cline")
    servers = json.loads(own.read_text())["mcpServers"]
    assert servers["github"] == {"command": "gh"} and servers["nodwyn"]["disabled"] is False


@pytest.mark.parametrize("agent", ["cline", "continue"])
def test_the_printed_lines_are_what_write_puts_in_the_file(agents_home, capsys, agent):
    printed = run(capsys, "mcp", "install", agent)
    head, _, body = printed.partition("\n")
    file = mcp_install.config_file(agent)
    assert head.startswith(f"Add to {file} ") and not file.exists()
    run(capsys, "mcp", "install", agent, "--write")
    assert json.loads(file.read_text()) == json.loads(body)
    assert "already has" in run(capsys, "mcp", "install", agent, "--write")


@pytest.mark.parametrize("agent", ["cline", "continue"])
def test_the_written_entry_starts_a_server_that_lists_the_tools(
    agents_home, capsys, agent, tmp_path
):
    run(capsys, "mcp", "install", agent, "--write")
    entry = json.loads(mcp_install.config_file(agent).read_text())["mcpServers"]["nodwyn"]
    assert entry["args"][entry["args"].index("--agent") + 1] == agent
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME")}
    params = StdioServerParameters(command=entry["command"], args=entry["args"],
                                   env=keep | entry.get("env", {}), cwd=tmp_path)  # fmt: skip

    async def script(session):
        return [tool.name for tool in (await session.list_tools()).tools]

    assert talk(params, script)[:3] == ["index-search", "recall", "name-task"]
