"""Every agent's three names, written once: its key, the origin its logs name, its label.

- the **key** ("claude"): the word in `nodwyn import claude`, the settings, the page's folders
  and the hooks; `Agent.name`, and a variable or argument called `agent` where it is a str;
- the **origin** ("claude-code"): what a task's log names in its start (`origin.tool`, a field
  kept under its stored name) and the catalogue's `origin`; `Agent.origin`;
- the **label** ("Claude Code"): the name people read; `Agent.label`.

This module imports nothing (not even typing), so the command line's listing labels its rows
without loading the importers' registry.
"""

# key: (origin, label), in the order people see the agents
AGENTS: dict[str, tuple[str, str]] = {
    "claude": ("claude-code", "Claude Code"),
    "codex": ("codex", "Codex"),
    "gemini": ("gemini-cli", "Gemini CLI"),
    "copilot": ("copilot-cli", "Copilot CLI"),
    "opencode": ("opencode", "OpenCode"),
    "aider": ("aider", "Aider"),
    "antigravity": ("antigravity", "Antigravity"),
    "cursor": ("cursor", "Cursor"),
    "pi": ("pi", "Pi"),
    "qwen": ("qwen-code", "Qwen Code"),
    "crush": ("crush", "Crush"),
    "cline": ("cline", "Cline"),
    "roo": ("roo-code", "Roo Code"),
    "kilo": ("kilo-code", "Kilo Code"),
    "continue": ("continue", "Continue"),
}

_BY_ORIGIN = dict(AGENTS.values())


def origin(agent: str) -> str:
    """The origin the logs of the agent keyed `agent` name."""
    return AGENTS[agent][0]


def label(agent: str) -> str:
    """The label of the agent keyed `agent`, or the key itself for one nodwyn does not know."""
    return AGENTS[agent][1] if agent in AGENTS else agent


def label_of_origin(origin: str) -> str:
    """The label of the agent whose logs name `origin`, or the origin itself ("nodwyn")."""
    return _BY_ORIGIN.get(origin, origin)
