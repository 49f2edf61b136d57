"""`nodwyn mcp`: nodwyn's tools offered to agents over MCP on stdio (the official `mcp` SDK).

Five tools: index-search, recall and who-wrote (read-only), name-task and record-summary;
what they do lives in toolbox.py. The tools' schemas are sent with every request an agent
makes, so descriptions are kept short and their size is measured (`nodwyn mcp --schema-size`).

Only this module imports `mcp`, and only the `mcp` command imports this module: the SDK
takes most of a second to import, which no other command should pay.
"""

import json
import os
import sys
from pathlib import Path

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

from .. import __version__
from ..tasks.store import Store, project_of
from .conversation import agent_from_client
from .toolbox import Toolbox

_READ_ONLY = types.ToolAnnotations(read_only_hint=True)

TOOLS = [
    types.Tool(
        name="index-search",
        description=(
            "Search this conversation's history by words; scope earlier: the project's "
            "earlier tasks, if the person allowed it. Up to 8 turns with seqs for recall."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "scope": {"enum": ["conversation", "earlier"]},
            },
            "required": ["query"],
        },
        annotations=_READ_ONLY,
    ),
    types.Tool(
        name="recall",
        description=(
            "One event by seq, or a whole turn (card and a line per event) when seq starts "
            "one. task: from index-search; default this conversation."
        ),
        input_schema={
            "type": "object",
            "properties": {"seq": {"type": "integer"}, "task": {"type": "string"}},
            "required": ["seq"],
        },
        annotations=_READ_ONLY,
    ),
    types.Tool(
        name="name-task",
        description=(
            "Name this task in 3-7 words. Call once, together with your first step, not "
            "instead of it. A task that has a name keeps it."
        ),
        input_schema={
            "type": "object",
            "properties": {"title": {"type": "string"}},
            "required": ["title"],
        },
    ),
    types.Tool(
        name="record-summary",
        description=(
            "A few lines: level digest (where this task stands) or close (what this chat did)."
        ),
        input_schema={
            "type": "object",
            "properties": {"text": {"type": "string"}, "level": {"enum": ["digest", "close"]}},
            "required": ["text", "level"],
        },
    ),
    types.Tool(
        name="who-wrote",
        description=(
            "Which turn wrote lines start-end of a file (path from the working folder): "
            "each line's turn, and that turn's card. Earlier tasks: if the person allowed it."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "file": {"type": "string"},
                "start": {"type": "integer"},
                "end": {"type": "integer"},
            },
            "required": ["file", "start"],
        },
        annotations=_READ_ONLY,
    ),
]

# Sent once, at the start of a session: when the agent writes summaries, so each is a short
# call made while its cache is warm (ADR 0033).
INSTRUCTIONS = """nodwyn keeps this agent's sessions; its tools search and recall them.
Name a new task with name-task, alongside your first step.
When a turn has finished something (a fix, a decision, a result), end it with record-summary
level digest: 2-6 lines on where the task stands, decisions and why, what is left.
When this chat ends or is about to be compacted, call record-summary level close: what it did.
Keep both short; nodwyn refuses one when nothing new happened since the last."""


def wire(tool: types.Tool) -> dict:
    """A tool as tools/list sends it."""
    return tool.model_dump(by_alias=True, exclude_none=True, mode="json")


def schema_sizes() -> dict[str, int]:
    """Bytes of each tool's definition in tools/list (compact JSON, UTF-8), and their total."""
    sizes = {
        tool.name: len(json.dumps(wire(tool), separators=(",", ":")).encode()) for tool in TOOLS
    }
    sizes["total"] = sum(sizes.values())
    return sizes


def make_server(toolbox: Toolbox) -> Server:
    agent = {"name": toolbox.agent}

    async def list_tools(ctx, params) -> types.ListToolsResult:
        return types.ListToolsResult(tools=TOOLS)

    async def call_tool(ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
        if agent["name"] is None:  # not told by `--agent`: the client's own name says
            client = ctx.session.client_params
            agent["name"] = toolbox.agent = agent_from_client(
                client.client_info.name if client else ""
            )
        meta = dict(params.meta or {})
        answer = await anyio.to_thread.run_sync(
            toolbox.run, params.name, dict(params.arguments or {}), meta
        )
        return types.CallToolResult(
            content=[types.TextContent(text=answer.text)], is_error=answer.error
        )

    return Server(
        "nodwyn",
        version=__version__,
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )


def serve(store: Store, agent: str | None = None, cwd: Path | None = None) -> None:
    """Serve MCP on stdin/stdout until the client closes the connection."""
    toolbox = Toolbox(store, agent, Path(cwd) if cwd else working_folder())
    server = make_server(toolbox)

    async def main() -> None:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    anyio.run(main)


def working_folder() -> Path:
    """The folder the agent started the server in, as the agent names it: `PWD` keeps the
    path the agent used when it leads to the same place (os.getcwd() resolves symlinks)."""
    here = Path(os.getcwd())
    logical = os.environ.get("PWD")
    if logical and os.path.isabs(logical) and os.path.samefile(logical, here):
        return Path(logical)
    return here


def folder_given(folder: str | None) -> Path | None:
    """`--folder`, as an agent fills it in (Cursor: `${workspaceFolder}`); None when it was not
    given or the agent left its placeholder unfilled, so the working folder counts."""
    if not folder or "${" in folder or not os.path.isabs(folder):
        return None
    return Path(project_of(folder))


def print_sizes(out=sys.stdout) -> None:
    sizes = schema_sizes()
    each = ", ".join(f"{name} {size}" for name, size in sizes.items() if name != "total")
    print(f"tools/list schemas: {sizes['total']} bytes ({each})", file=out)
