"""Benchmark: importing Cline task folders and Continue sessions (../shared/corpus/more), copied
until they hold about --size MB, each copy under an id of its own, laid out as each agent lays
them out; then `import_paths` into a fresh data directory on one core. Printed: MB/s of the
first import and of the second (every file unchanged), beside the floor of reading the same
files with the standard library's json (every byte parsed once, nothing written).

    python tests/bench/bench_import_cline_continue.py [--size 100]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MORE = ROOT.parent / "shared" / "corpus" / "more"
sys.path.insert(0, str(ROOT))

CLINE = {  # corpus file -> its name in a task folder
    "Jeehunter__mcp-vscode-server__ui_messages.json": "ui_messages.json",
    "gmfstu__Online-Card-Architecture__1769053680585__ui_messages.json": "ui_messages.json",
    "mike4567__MRA04242026__api_conversation_history.json": "api_conversation_history.json",
}
CONTINUE = [
    "toamedbd-code__hms__02044b99-f94b-4df0-a981-3b26d054b6b0.json",
    "oleg121203__Developer__a19b6a94-670c-4f96-9678-2c055a1a83a9.json",
]


def lay_out(work: Path, size: int) -> dict[str, list[Path]]:
    """Copies of each agent's files, about size/2 bytes each, where the agent keeps them."""
    made: dict[str, list[Path]] = {"cline": [], "continue": []}
    for agent, names in (("cline", list(CLINE)), ("continue", CONTINUE)):
        written, n = 0, 0
        while written < size // 2:
            name = names[n % len(names)]
            data = (MORE / agent / name).read_bytes()
            if agent == "cline":
                path = work / "tasks" / str(1_700_000_000_000 + n) / CLINE[name]
            else:
                session = str(uuid.UUID(int=n + 1))
                old = json.loads(data)["sessionId"].encode()
                data = data.replace(old, session.encode())
                path = work / "sessions" / f"{session}.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
            os.utime(path, (1_600_000_000, 1_600_000_000))
            made[agent].append(path)
            written, n = written + len(data), n + 1
    return made


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100, help="MB of copies in all")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        made = lay_out(work / "src", args.size << 20)
        os.environ["NODWYN_DATA_DIR"] = str(work / "data")
        from nodwyn.importers.sync import import_paths
        from nodwyn.tasks.store import Store

        for agent, folder in (("cline", "tasks"), ("continue", "sessions")):
            mb = sum(p.stat().st_size for p in made[agent]) / 2**20
            began = time.perf_counter()
            for path in made[agent]:
                json.loads(path.read_bytes())
            floor = time.perf_counter() - began
            store = Store(work / f"data-{agent}")
            began = time.perf_counter()
            report = import_paths(store, agent, [work / "src" / folder])
            first = time.perf_counter() - began
            began = time.perf_counter()
            import_paths(store, agent, [work / "src" / folder])
            second = time.perf_counter() - began
            print(f"{agent}: {len(made[agent])} files, {mb:.0f} MB, {len(report.created)} tasks; "
                  f"first import {mb / first:.1f} MB/s, second {mb / second:.0f} MB/s; "
                  f"json.loads alone {mb / floor:.0f} MB/s")  # fmt: skip
        shutil.rmtree(work / "src")


if __name__ == "__main__":
    main()
