"""Benchmark: `nodwyn usage` day by day, field by field, beside a plain count of the logs and
beside ccusage 17.2.1 and @ccusage/codex 18.0.11, on the corpus's Claude Code and Codex logs.

Needs node and npm (so it is not run in CI): the two are installed, pinned, into --npm (a
folder under /tmp by default) the first time, and run `--offline` (LiteLLM's prices they ship)
on the very same files, laid out as they expect (CLAUDE_CONFIG_DIR/projects, CODEX_HOME/sessions)
with the corpus's files linked in. Days are UTC days for all three (TZ=UTC).

Checks, as issue 35 states them (exit status 1 when one fails):
- every day's input, output, cache-write and cache-read tokens are the plain count's within 0.5%;
- on a Claude Code day where every record has a request id and ccusage's offline prices know
  every model (newer ones it prices at $0), our cost is no less than ccusage's
  and no more than it plus the output ccusage leaves out (it keeps a streamed message's first,
  partial record, we its last), at that model's output rate;
- `usage`'s total equals the tasks' costs summed, to the cent.

    python tests/bench/bench_usage_vs_ccusage.py [--corpus DIR] [--npm DIR]
"""

import argparse
import datetime as dt
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["TZ"] = "UTC"  # before anything reads the local zone
time.tzset()

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

import plain_count  # noqa: E402 (after the zone is set)

PACKAGES = ("ccusage@17.2.1", "@ccusage/codex@18.0.11")
CLAUDE = ("claude", "extra/claude")
CODEX = ("codex", "extra/codex")
FIELDS = plain_count.FIELDS


def installed(folder: Path) -> Path:
    """The npm folder with both tools, installed there once."""
    bin_dir = folder / "node_modules" / ".bin"
    if not (bin_dir / "ccusage").exists() or not (bin_dir / "ccusage-codex").exists():
        folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(["npm", "install", "--prefix", str(folder), "--no-audit", "--no-fund",
                        *PACKAGES], check=True)  # fmt: skip
    return bin_dir


def linked(corpus: Path, into: Path) -> tuple[Path, Path]:
    """CLAUDE_CONFIG_DIR and CODEX_HOME laid out as the tools read them, files linked in."""
    homes = into / "claude", into / "codex"
    for home, below, folders in ((homes[0], "projects", CLAUDE), (homes[1], "sessions", CODEX)):
        for folder in folders:
            for file in (corpus / folder).rglob("*.jsonl"):
                link = home / below / folder.replace("/", "-") / file.relative_to(corpus / folder)
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(file)
    return homes


def ccusage_days(bin_dir: Path, claude_home: Path, codex_home: Path) -> dict[str, dict]:
    """ccusage's and @ccusage/codex's days, in our four fields and cost (Claude's apart)."""
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(claude_home), "CODEX_HOME": str(codex_home)}
    days: dict[str, dict] = {}
    claude = _json([bin_dir / "ccusage", "daily", "--offline", "--json"], env)
    for day in claude["daily"]:
        row = days.setdefault(day["date"], _empty())
        row["input"] += day["inputTokens"]
        row["output"] += day["outputTokens"]
        row["cache_write"] += day["cacheCreationTokens"]
        row["cache_read"] += day["cacheReadTokens"]
        row["claude_cost"] += day["totalCost"]
        row["claude_output"] = {m["modelName"]: m["outputTokens"] for m in day["modelBreakdowns"]}
        row["claude_priced"] = all(m["cost"] > 0 for m in day["modelBreakdowns"])
        row["cost"] += day["totalCost"]
    codex = _json([bin_dir / "ccusage-codex", "daily", "--offline", "--json"], env)
    for day in codex["daily"]:
        key = dt.datetime.strptime(day["date"], "%b %d, %Y").date().isoformat()
        row = days.setdefault(key, _empty())
        row["input"] += day["inputTokens"] - day["cachedInputTokens"]
        row["output"] += day["outputTokens"]
        row["cache_read"] += day["cachedInputTokens"]
        row["cost"] += day["costUSD"]
    return days


def _empty() -> dict:
    return {**dict.fromkeys(FIELDS, 0), "cost": 0.0, "claude_cost": 0.0, "claude_output": {},
            "claude_priced": False}  # fmt: skip


def _json(command: list, env: dict) -> dict:
    done = subprocess.run([str(c) for c in command], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"{command[0].name} failed: {done.stderr.strip()[:300]}")
    return json.loads(done.stdout)


def ours(corpus: Path, data: Path):
    """The usage report by day (split by agent) and the tasks' costs, on a fresh import."""
    os.environ["NODWYN_DATA_DIR"] = str(data)
    from nodwyn.importers.sync import import_paths
    from nodwyn.tasks.store import Store
    from nodwyn.usage import figures as usage

    store = Store()
    for tool, folders in (("claude", CLAUDE), ("codex", CODEX)):
        for folder in folders:
            import_paths(store, tool, [corpus / folder])
    report = usage.report(store, by="day", split="agent")
    tasks = sum(info.cost_usd or 0.0 for info in store.list(archived=None))
    return report, tasks


def extra_output_cost(corpus: Path, cc_days: dict) -> dict[str, float]:
    """Per day, what the output ccusage leaves out costs at its requests' own output rates."""
    from nodwyn.importers import prices
    from nodwyn.log.records import Usage

    rate: dict[tuple[str, str], float] = {}
    output: dict[tuple[str, str], int] = {}
    for message in plain_count.claude_messages([corpus / f for f in CLAUDE]).values():
        key = (plain_count.local_day(message["at"]), message["model"])
        usage = Usage(**{f: message[f] for f in FIELDS})
        more = Usage(**{**{f: message[f] for f in FIELDS}, "output": message["output"] + 1})
        one = (prices.cost(message["model"], more) or 0.0) - (
            prices.cost(message["model"], usage) or 0.0
        )
        rate[key] = max(rate.get(key, 0.0), one)
        output[key] = output.get(key, 0) + message["output"]
    extra: dict[str, float] = {}
    for (day, model), tokens in output.items():
        theirs = cc_days.get(day, {}).get("claude_output", {}).get(model, 0)
        extra[day] = extra.get(day, 0.0) + max(tokens - theirs, 0) * rate[(day, model)]
    return extra


def requested_days(corpus: Path) -> set[str]:
    """The days on which every Claude Code record with usage has a request id."""
    every: dict[str, bool] = {}
    for message in plain_count.claude_messages([corpus / f for f in CLAUDE]).values():
        day = plain_count.local_day(message["at"])
        every[day] = every.get(day, True) and message["request"]
    return {day for day, all_have in every.items() if all_have}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=ROOT.parent / "shared" / "corpus")
    parser.add_argument("--npm", type=Path, default=Path(tempfile.gettempdir()) / "nodwyn-ccusage")
    args = parser.parse_args()
    bin_dir = installed(args.npm)
    with tempfile.TemporaryDirectory(prefix="usage-bench-") as work:
        work = Path(work)
        sys.path.insert(0, str(ROOT / "tests"))
        from conftest import finished_copy

        corpus = finished_copy(args.corpus, work / "copy")
        claude_home, codex_home = linked(corpus, work / "homes")
        theirs = ccusage_days(bin_dir, claude_home, codex_home)
        plain = plain_count.days_of([corpus / f for f in CLAUDE], [corpus / f for f in CODEX])
        report, tasks = ours(corpus, work / "data")
        extra = extra_output_cost(corpus, theirs)
        requested = requested_days(corpus)
    failed = show(report, plain, theirs, extra, requested)
    total = round(report.total.cost_usd, 2)
    print(f"\nusage total ${total:.2f}, the tasks' costs summed ${tasks:.2f}")
    failed += [] if total == round(tasks, 2) else ["usage total != the tasks' costs"]
    print("\n" + ("every check met" if not failed else "FAILED:\n  " + "\n  ".join(failed)))
    sys.exit(1 if failed else 0)


def show(report, plain, theirs, extra, requested) -> list[str]:
    """The table, day by day and field by field; the checks that failed."""
    rows = {row.key: row for row in report.rows}
    failed = []
    print(f"{'day':<11} {'field':<12} {'ours':>12} {'plain':>12} {'ccusage':>12}")
    for day in sorted(rows.keys() | plain.keys() | theirs.keys()):
        row, counted, cc = rows.get(day), plain.get(day, {}), theirs.get(day, _empty())
        for field in FIELDS:
            mine, count = (getattr(row, field) if row else 0), counted.get(field, 0)
            off = abs(mine - count) > 0.005 * max(count, 1)
            flag = " <- off" if off else ""
            print(f"{day:<11} {field:<12} {mine:>12,} {count:>12,} {cc[field]:>12,}{flag}")
            if off:
                failed.append(f"{day} {field}: ours {mine:,}, plain {count:,}")
        claude = sum(s.cost_usd for s in row.split if s.key == "claude-code") if row else 0.0
        bound = ""
        if day in requested and cc["claude_priced"]:  # ccusage knows every model's price
            low, top = cc["claude_cost"], cc["claude_cost"] + extra.get(day, 0.0)
            bound = f"  (Claude Code: ${claude:.2f}, ccusage ${low:.2f} .. ${top:.2f})"
            if not low - 0.005 <= claude <= top + 0.005:
                failed.append(f"{day} Claude Code cost ${claude:.2f} outside {bound}")
        cost = row.cost_usd if row else 0.0
        print(f"{day:<11} {'cost':<12} {cost:>12.2f} {'':>12} {cc['cost']:>12.2f}{bound}")
    return failed


if __name__ == "__main__":
    main()
