"""The coding agents' session folders on this computer, and importing from them.

Used by the background worker (which follows the default folders) and by the page (which
shows where nodwyn looked and imports a folder the person names). Both import one file at a
time under one lock, so they never race for the same log (a second writer would be refused
and its file forgotten until it changes again), and a stop request is honoured between files.
"""

import functools
import logging
import threading
from collections.abc import Callable
from pathlib import Path

import msgspec

from .. import memory, settings
from ..errors import BadInput
from ..tasks.store import Store
from . import registry, sources
from .sync import Report, import_paths, keep_folds

log = logging.getLogger("nodwyn.agents")

# One file at a time in this process, whoever asks.
IMPORTING = threading.Lock()
# Set when the app quits: an import the page started stops before its next file.
QUITTING = threading.Event()


class Place(msgspec.Struct, kw_only=True, frozen=True):
    """One folder nodwyn looks in, as the first-run page shows it."""

    agent: str = msgspec.field(name="tool")  # the agent's key ("gemini"), as the page reads it
    path: str
    exists: bool
    followed: bool
    shown: str  # the path as a person reads it: ~ for the home folder
    label: str = ""  # the agent's label: "Gemini CLI"
    origin: str = ""  # the origin its tasks' logs name ("gemini-cli"): the page labels them so


class Places(msgspec.Struct, frozen=True):
    places: list[Place]


class Started(msgspec.Struct, frozen=True):
    """The answer to "import this folder": how many files it found; progress follows."""

    files: int
    ok: bool = True


def followed(root: Path) -> list[str]:
    """The agents whose default folders the person follows (settings): Claude Code and Codex
    by their own switches, every other agent by `follow`, else when one of its folders exists."""
    chosen = settings.load(root)
    return [name for name in registry.agent_keys() if is_followed(chosen, name)]


def is_followed(chosen: settings.Settings, name: str) -> bool:
    if name in ("claude", "codex"):
        return getattr(chosen, f"follow_{name}")
    if name in chosen.follow:
        return chosen.follow[name]
    return any(path.exists() for path in registry.get(name).roots())


def places(root: Path) -> Places:
    """Every default folder of every agent, whether it exists and whether it is followed."""
    following = followed(root)
    return Places(
        [
            Place(
                agent=agent.name,
                path=str(path),
                exists=path.exists(),
                followed=agent.name in following,
                shown=shown(path),
                label=agent.label,
                origin=agent.origin,
            )
            for agent in registry.all_agents().values()
            for path in agent.roots()
        ]
    )


def shown(path: Path) -> str:
    """A path with the home folder written as ~, as people write it."""
    try:
        return "~/" + path.relative_to(Path.home()).as_posix()
    except ValueError:
        return str(path)


def session_files(agent: str, folders: list[Path]) -> dict[Path, tuple[int, int]]:
    """Each possible source of the agent below the folders (or a file named itself) with its
    signature: (size, mtime in ns) with its companions'."""
    return sources.files(registry.get(agent), folders)


def import_file(store: Store, agent: str, file: Path) -> Report:
    """Import one file, waiting for any other import of this process to finish its file."""
    with IMPORTING:
        return import_paths(store, agent, [file], keep=False)


def _add(total: Report, one: Report) -> None:
    for field in ("created", "extended", "unchanged", "skipped", "problems"):
        getattr(total, field).extend(getattr(one, field))
    total.stopped = total.stopped or one.stopped


def outcome(report: Report) -> str:
    """What an import did, in one line a person reads (the page's note after the import)."""
    said = (
        f"{len(report.created)} created, {len(report.extended)} extended, "
        f"{len(report.unchanged)} unchanged, {len(report.skipped)} skipped"
    )
    unreadable = sum(problem.count for problem in report.problems)
    if unreadable:
        said += f"; {unreadable} lines unreadable, first {report.problems[0].message()}"
    if report.stopped:
        said += f"; stopped: {report.stopped}"
    elif report.skipped and not (report.created or report.extended or report.unchanged):
        said += f"; nothing imported: {report.skipped[0].path}: {report.skipped[0].reason}"
    elif report.skipped:  # what was skipped says why, in words (importers/kinds.py)
        more = f" (and {len(report.skipped) - 1} more)" if len(report.skipped) > 1 else ""
        said += f"; skipped {report.skipped[0].path}: {report.skipped[0].reason}{more}"
    return said


def stop_imports(timeout: float) -> bool:
    """Let no import start another file, and wait for the file in hand (app quitting)."""
    QUITTING.set()
    if IMPORTING.acquire(timeout=timeout):
        IMPORTING.release()
        return True
    return False


def import_folder(store: Store, agent: str, folder: str, progress: Callable[..., None]) -> Started:
    """Import a folder (or one file) the person named, in a daemon thread; then fold memory."""
    if agent not in registry.agent_keys():
        raise BadInput(f"nodwyn imports {', '.join(registry.agent_keys())} sessions, not {agent!r}")
    path = Path(folder.strip()).expanduser()
    if not folder.strip() or not path.is_absolute():
        raise BadInput("give the folder's full path (for example /home/ana/.claude/projects)")
    if not path.exists():
        raise BadInput(f"there is no file or folder {path}")
    files = sorted(session_files(agent, [path]), key=str)
    if path.is_dir():  # copies kept under names of the person's own: read by their content
        files += sources.by_content(registry.get(agent), path, set(files))
    if not files:
        label = registry.get(agent).label
        raise BadInput(f"no {label} session files in {path}")

    def run() -> None:
        total = Report()
        progress("importing", 0, len(files), "")
        try:
            for done, file in enumerate(files):
                if QUITTING.is_set():
                    return
                progress("importing", done, len(files))
                _add(total, import_file(store, agent, file))
                if total.stopped:  # no room: the files after it would fail alike
                    break
            keep_folds(store)
            with memory.BUILDING:
                memory.refresh_words(store, lambda done, total: progress("indexing", done, total))
            memory.encode(store, functools.partial(progress, "encoding"), lock=memory.BUILDING)
            progress("", 0, 0, outcome(total))
        except Exception as exc:  # the page hears the progress end and why; the log has more
            log.exception("importing %s failed", path)
            progress("", 0, 0, f"importing {path} stopped: {exc}")
        finally:
            progress("", 0, 0)

    threading.Thread(target=run, name="nodwyn-import", daemon=True).start()
    return Started(files=len(files))
