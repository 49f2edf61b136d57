"""Data directories that share one folder, for the machines' tests: each one a `Machine`."""

from pathlib import Path

from nodwyn import machines
from nodwyn.log import records
from nodwyn.machines import exchange, share
from nodwyn.tasks.store import Store


class Machine:
    """One data directory that shares `folder`, named `name`."""

    def __init__(self, root: Path, folder: Path, name: str):
        self.store = Store(root)
        machines.rename(root, name)
        share.choose(root, folder)
        self.id = machines.this(root).id
        self.folder = folder

    def sync(self) -> exchange.Report:
        return exchange.sync(self.store)

    def new_task(self, text: str) -> str:
        start = records.SessionStart(
            project="/home/ana/pager", origin=records.Origin(tool="nodwyn")
        )
        with self.store.create(start) as writer:
            writer.append([records.Message(text=text)])
            writer.append([records.Reply(text="done")])
            writer.append([records.SessionClose()])
        return writer.path.stem

    def published(self, task: str) -> Path:
        return self.folder / self.id / "sessions" / f"{task}.jsonl"

    def titles(self) -> dict[str, str]:
        return {t.id: t.title for t in self.store.list(archived=None)}


def make_pair(tmp_path: Path) -> tuple["Machine", "Machine"]:
    """A laptop and a desk that share tmp_path / "Sync"."""
    folder = tmp_path / "Sync"
    return Machine(tmp_path / "laptop", folder, "laptop"), Machine(
        tmp_path / "desk", folder, "desk"
    )
