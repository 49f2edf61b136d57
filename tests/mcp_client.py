"""A real MCP client (the SDK's stdio client) talking to `nodwyn mcp` run as a subprocess.

Shared by the MCP tests: `Session` starts the server once and runs calls one after another, so
a test can change a setting between two calls of one connection.
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import anyio
import mcp_types
from mcp import ClientSession, StdioServerParameters, stdio_client

ROOT = Path(__file__).resolve().parents[1]


def server(cwd: Path, env: dict[str, str], agent: str | None = "claude") -> StdioServerParameters:
    """`nodwyn mcp` in folder `cwd`; the environment is the test's, as an agent's would be."""
    keep = {"NODWYN_DATA_DIR", "HOME", "PATH", "CLAUDE_CONFIG_DIR", "CODEX_HOME"}
    keep |= {"GEMINI_CLI_HOME", "COPILOT_HOME", "XDG_DATA_HOME", "CURSOR_USER_DIR"}  # conftest
    base = {key: value for key, value in os.environ.items() if key in keep}
    args = ["-m", "nodwyn.cli", "mcp"] + (["--agent", agent] if agent else [])
    return StdioServerParameters(command=sys.executable, args=args, env=base | env, cwd=cwd)


def talk(params: StdioServerParameters, script, client: str = "nodwyn-tests") -> object:
    """Run `await script(session)` against a fresh server; its return value comes back.
    `client` is the name the client gives itself (Claude Code says "claude-code")."""
    info = mcp_types.Implementation(name=client, version="1")

    async def main():
        with open(os.devnull, "w") as quiet:
            async with (
                stdio_client(params, errlog=quiet) as (read, write),
                ClientSession(read, write, client_info=info) as session,
            ):
                await session.initialize()
                return await script(session)

    # A thread of its own: Playwright's sync API (the browser tests) keeps an asyncio loop
    # running in the main thread for the whole session, and anyio refuses to nest in it.
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(anyio.run, main).result()


async def call(session: ClientSession, name: str, meta: dict | None = None, **arguments):
    """A tool's answer as (is_error, text)."""
    result = await session.call_tool(name, arguments, meta=meta)
    return result.is_error, "".join(block.text for block in result.content)
