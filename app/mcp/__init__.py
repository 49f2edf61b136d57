"""The MCP server: what an agent's model may ask nodwyn (index-search, recall, name-task,
record-summary, who-wrote), and putting the server into each agent's configuration.

Holds server.py (the MCP SDK's wiring: decodes a call, runs a tool, sends the answer),
toolbox.py (the tools as plain functions), answer.py (what every tool answers with and the
leave it checks), authorship.py (who-wrote: which turn wrote these lines), conversation.py and
live_sessions.py (which task is the calling conversation), install.py with jsonc.py (adding the
server to an agent's settings file, comments kept).

May import: the top modules, log/, tasks/, memory/, importers/, summarizing/ and background/
(running.py: the running app answers a search). Only server.py imports the `mcp` SDK, and only
when `nodwyn mcp` runs. (This package is nodwyn.mcp; the SDK stays the top-level `mcp`.)
"""

# The agents that speak MCP, in the registry's order (conversation.AGENTS; written out here, in
# a package that imports nothing, so that the command line's parser is built without the store;
# a test checks the two agree).
AGENTS = (
    "claude",
    "codex",
    "gemini",
    "copilot",
    "opencode",
    "cursor",
    "qwen",
    "crush",
    "cline",
    "continue",
)
