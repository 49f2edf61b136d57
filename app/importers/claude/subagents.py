"""The files of a Claude Code session's sub-agents (`<session>/subagents/agent-*.jsonl`), found
from the call that started each, so that they are read with their session.
"""

from collections.abc import Callable
from pathlib import Path

import msgspec

from ..formats import is_json_object

_any = msgspec.json.Decoder().decode


def _whole_lines(path: Path) -> list[bytes]:
    data = path.read_bytes()
    lines = data.split(b"\n")
    if lines and lines[-1] and not is_json_object(lines[-1]):
        lines.pop()
    return [line for line in lines if line]


def subagent_finder(path: Path, session: str) -> Callable[..., tuple[str, list[bytes]] | None]:
    """How a Claude transcript finds a sub-agent's own file: by agent id, else by its prompt;
    a compaction's (2.1's `agent-acompact-*`, started by no call) by `parent`, the uuid its
    first line and the compact boundary's `logicalParentUuid` most often both name, else as the
    first such file not `done` that began by the boundary's time `until`."""
    folder = path.parent
    homes = [folder / path.stem / "subagents", folder / session / "subagents", folder]

    def name_of(file: Path) -> str:
        return file.relative_to(folder).as_posix()

    def find(
        agent_id: str | None,
        prompt: str,
        parent: str = "",
        until: str = "",
        done: tuple | list = (),
    ) -> tuple[str, list[bytes]] | None:
        if parent:
            return _compaction(homes, parent, until, list(done), name_of)
        if agent_id:
            for home in homes:
                file = home / f"agent-{agent_id}.jsonl"
                if file.is_file():
                    return name_of(file), _whole_lines(file)
        if not prompt:
            return None
        for home in homes:
            for file in sorted(home.glob("agent-*.jsonl")) if home.is_dir() else ():
                lines = _whole_lines(file)
                if _asks(lines, session, prompt):
                    return name_of(file), lines
        return None

    return find


def _compaction(homes: list[Path], parent: str, until: str, done: list[str], name_of):
    found = []
    for home in homes:
        for file in sorted(home.glob("agent-acompact-*.jsonl")) if home.is_dir() else ():
            lines = _whole_lines(file)
            try:
                first = _any(lines[0]) if lines else None
            except msgspec.MsgspecError:
                continue
            if isinstance(first, dict) and name_of(file) not in done:
                at = str(first.get("timestamp") or "")
                found.append((first.get("parentUuid") != parent, at, name_of(file), lines))
    found = sorted(f for f in found if not f[0] or (until and f[1] <= until))
    return (found[0][2], found[0][3]) if found else None


def _asks(lines: list[bytes], session: str, prompt: str) -> bool:
    """Whether a sub-agent file belongs to `session` and starts with `prompt`."""
    for line in lines[:5]:
        try:
            record = _any(line)
        except msgspec.MsgspecError:
            continue
        if not isinstance(record, dict) or record.get("type") != "user":
            continue
        if record.get("sessionId") not in (session, None):
            return False
        content = (record.get("message") or {}).get("content")
        if isinstance(content, list):
            content = "\n".join(b.get("text", "") for b in content if isinstance(b, dict))
        return content == prompt
    return False
