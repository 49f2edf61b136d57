"""The thread names Codex keeps beside its rollouts in `session_index.jsonl`."""

from functools import lru_cache
from pathlib import Path

import msgspec

_any = msgspec.json.Decoder().decode


def codex_index_title(path: Path, session: str) -> str:
    """The thread name Codex keeps for a session in `session_index.jsonl` (latest wins)."""
    for parent in list(path.parents)[:6]:
        index = parent / "session_index.jsonl"
        try:
            stamp = index.stat().st_mtime_ns
        except OSError:
            continue
        return _index(str(index), stamp).get(session, "")
    return ""


@lru_cache(maxsize=4)
def _index(index: str, _stamp: int) -> dict[str, str]:
    """id -> thread name of one session index (cached while the file is unchanged)."""
    names: dict[str, str] = {}
    try:
        with open(index, "rb") as handle:
            for line in handle:
                try:
                    entry = _any(line)
                except msgspec.MsgspecError:
                    continue
                if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                    name = " ".join(str(entry.get("thread_name") or "").split())[:120]
                    if name:
                        names[entry["id"]] = name
    except OSError:
        return {}
    return names
