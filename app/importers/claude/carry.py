"""What the Claude Code fold (parse.py) remembers between source lines, saved beside the log in
its `.imp` state so the next import goes on where this one stopped.

Saved state, so it evolves as the log does (STYLE 5): a new field gets a default and goes
last, and a field's type never changes, so the state an older version saved still decodes
(agent.carry_of).
"""

from msgspec import Struct

from ...log import records as r
from . import context, replies


class Command(Struct, kw_only=True):
    """A slash command not yet known to be a prompt (it is not when it ran locally)."""

    line: int
    at: str
    name: str
    args: str


class Carry(Struct, kw_only=True):
    """What the fold remembers between lines."""

    session: str = ""
    started: bool = False
    pending: list[r.Known] = []  # titles met before the session started
    last_at: str = ""
    calls: dict[str, str] = {}  # open call id -> tool
    files: dict[str, list[str]] = {}  # open call id -> files it writes
    prompts: dict[str, str] = {}  # a sub-agent call's prompt -> the agent's name
    asked: dict[str, str] = {}  # open sub-agent call id -> its prompt
    side: dict[str, str] = {}  # sidechain record uuid -> agent name
    group: replies.Group | None = None
    command: Command | None = None
    boundary: r.ContextCompact | None = None
    turn_open: bool = False
    turn_cost: float = 0.0
    turn_unknown: bool = False
    agents_done: list[str] = []
    answered: int = 0  # the last line of a final answer that may end the turn (0: none)
    answered_at: str = ""
    answered_id: str = ""  # that answer's message id
    held: r.Message | None = None  # a prompt, until the next line shows what it closed
    titles: list[r.SessionTitle] = []  # named while a prompt was held: given out after it
    queued: list[context.Queued] = []  # a person's words in Claude Code's queue
    usages: dict[str, r.Usage] = {}  # message id:request id -> the usage counted for it so far
