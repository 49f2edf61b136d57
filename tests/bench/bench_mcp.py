"""How long an agent waits on `nodwyn mcp`, and how many bytes its tools cost every request.

Starts `nodwyn mcp` as a subprocess with the SDK's stdio client, on a real Claude Code transcript
from the corpus placed where Claude Code keeps it, and times: start to initialized, tools/list,
index-search (each call finds this conversation and imports it on demand first), and recall of
a turn. Prints the tools/list schema bytes too. Figures are wall times on a shared 2-core
machine: noisy.

    python tests/bench/bench_mcp.py [--calls N]
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import anyio
from mcp import ClientSession, StdioServerParameters, stdio_client
from nodwyn.mcp.conversation import claude_slug
from nodwyn.mcp.server import print_sizes

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT.parent / "shared" / "corpus" / "claude"
OWN = "d-kimuson__claude-code-viewer__fe5e1c67-53e7-4862-81ae-d0e013e3270b.jsonl"


def place(tmp: Path) -> tuple[Path, dict[str, str]]:
    work = tmp / "work"
    work.mkdir()
    live = tmp / "claude" / "projects" / claude_slug(work) / "fe5e1c67.jsonl"
    live.parent.mkdir(parents=True)
    shutil.copyfile(CORPUS / OWN, live)
    env = {"NODWYN_DATA_DIR": str(tmp / "data"), "CLAUDE_CONFIG_DIR": str(tmp / "claude")}
    return work, env | {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp)}


async def measure(work: Path, env: dict[str, str], calls: int) -> dict[str, list[float]]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "nodwyn.cli", "mcp", "--agent", "claude"],
        env=env,
        cwd=work,
    )
    times: dict[str, list[float]] = {
        "start": [],
        "tools/list": [],
        "index-search": [],
        "recall": [],
    }
    began = time.perf_counter()
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        times["start"].append(time.perf_counter() - began)
        for name, run in (
            ("tools/list", lambda: session.list_tools()),
            ("index-search", lambda: session.call_tool("index-search", {"query": "TodoList"})),
            ("recall", lambda: session.call_tool("recall", {"seq": 3})),
        ):
            for _ in range(calls):
                began = time.perf_counter()
                result = await run()
                times[name].append(time.perf_counter() - began)
                assert not getattr(result, "is_error", False), result
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    print_sizes()
    with tempfile.TemporaryDirectory() as folder:
        work, env = place(Path(folder))
        times = anyio.run(measure, work, env, args.calls)
    for name, values in times.items():
        first = values[0] * 1000
        median = statistics.median(values) * 1000
        print(f"{name}: first {first:.1f} ms, median {median:.1f} ms over {len(values)}")


if __name__ == "__main__":
    main()
