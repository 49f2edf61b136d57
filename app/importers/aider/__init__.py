"""Aider (Aider-AI/aider): `.aider.chat.history.md` in a repository, one task per run.

Each run the file records is a task (`ad-<hash of the file's path and the run's header line>`);
a file that is not aider's is refused with a one-line reason. The project
is the run's `Git working dir` (else `Cur working dir`), else the file's folder. Prompt times
come from `.aider.input.history` beside it (entries matched in order by their words), else
the run header; both are local times of the computer that ran aider, read as this one's.
The file only grows, so each record's `src.line` (where its block starts) is its identity.
The runs are read in `runs`; this module finds the files and plugs them into the registry.
"""

import os
import time
from functools import lru_cache
from pathlib import Path

from ..agent import Agent, Found, Session

NAME = ".aider.chat.history.md"
DEPTH = 3  # folders below the home folder where repositories are looked for
RESCAN = 300  # seconds between two searches of the home folder
PASSED = {"node_modules", "venv", "Library", "AppData", "site-packages", "__pycache__"}


class Aider(Agent):
    name = "aider"
    resume = "aider --restore-chat-history"  # the folder's own chat history
    prefix = "ad-"
    content = (".md",)  # a chat history kept under another name
    whole = True  # appended, but one file holds many runs: read whole, matched by line

    def roots(self) -> list[Path]:
        """aider writes into each repository, so its files are looked for where repositories
        are: the home folder and up to three folders down (hidden ones and dependency
        folders passed over), looked for again every 5 minutes; or the one file
        `AIDER_CHAT_HISTORY_FILE` names. None found: the home folder's file, not there."""
        chosen = os.environ.get("AIDER_CHAT_HISTORY_FILE")
        if chosen:
            return [Path(chosen)]
        home = Path.home()
        return list(_in_home(str(home), int(time.time() // RESCAN))) or [home / NAME]

    def sources(self, folder: Path):
        return (p for p in folder.rglob(f"*{NAME}") if p.is_file())

    def companions(self, path: Path) -> list[Path]:
        return [input_history(path)]

    def read(self, path: Path, live: bool) -> list[Session] | str:
        from . import runs  # loaded by the first history it reads: listing the agents loads none

        found = runs.read(path, input_history(path), live)
        if isinstance(found, str):
            return found
        return [Session(Found(self.prefix + key, key), records) for key, records in found]


@lru_cache(maxsize=2)
def _in_home(home: str, _period: int) -> tuple[Path, ...]:
    """The chat histories in the home folder and up to DEPTH folders below it."""
    found, level = [], [Path(home)]
    for _ in range(DEPTH + 1):
        below = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for entry in entries:
                if entry.name == NAME and entry.is_file():
                    found.append(Path(entry.path))
                elif entry.is_dir(follow_symlinks=False) and not _passed(entry.name):
                    below.append(Path(entry.path))
        level = below
    return tuple(sorted(found))


def _passed(name: str) -> bool:
    return name.startswith(".") or name in PASSED


def input_history(path: Path) -> Path:
    return path.with_name(path.name.replace("chat.history.md", "input.history"))


AGENT = Aider()
