"""Every agent nodwyn imports, chosen by name from one table.

The interface an agent meets lives in `agent` (ADR 0036); this
module only lists the agents, so a new agent is a new module or folder and one line in
`_agents` (ADR 0018). It imports every agent and no agent
imports it.
"""

from ..errors import BadInput
from .agent import Agent


def _agents() -> dict[str, Agent]:
    # One line per agent, in the order people see them (imports written out for packagers).
    from . import (
        aider,
        antigravity,
        claude,
        cline,
        codex,
        continuedev,
        copilot,
        crush,
        cursor,
        gemini,
        opencode,
        pi,
        qwen,
    )

    chosen = [
        claude.AGENT,
        codex.AGENT,
        gemini.AGENT,
        copilot.AGENT,
        opencode.AGENT,
        aider.AGENT,
        antigravity.AGENT,
        cursor.AGENT,
        pi.AGENT,
        qwen.AGENT,
        crush.AGENT,
        cline.AGENT,
        cline.ROO,
        cline.KILO,
        continuedev.AGENT,
    ]
    return {agent.name: agent for agent in chosen}


AGENTS: dict[str, Agent] = {}


def all_agents() -> dict[str, Agent]:
    """name -> Agent, in the order people see them (loaded on first use)."""
    if not AGENTS:
        AGENTS.update(_agents())
    return AGENTS


def agent_keys() -> tuple[str, ...]:
    """Every agent's key, in the order people see them."""
    return tuple(all_agents())


def get(name: str) -> Agent:
    """The agent called `name`, or a clear refusal naming those nodwyn knows."""
    agent = all_agents().get(name)
    if agent is None:
        raise BadInput(f"unknown agent {name!r}: use one of {', '.join(all_agents())}")
    return agent


def by_origin(origin: str) -> Agent | None:
    """The agent whose logs name `origin` (claude-code, gemini-cli, ...)."""
    return next((a for a in all_agents().values() if a.origin == origin), None)
