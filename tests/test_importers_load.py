"""What listing the agents loads: their names, roots and folder scans, and no agent's parser,
which the first source of that agent read loads (a fresh process each, as the app and the
worker start)."""

import json
import subprocess
import sys
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / "data" / "corpus"

# Each agent's parsing modules, loaded only when one of its sources is read.
PARSERS = {
    "aider": ["blocks", "mapping", "runs"],
    "antigravity": ["steps"],
    "claude": ["carry", "context", "lines", "parse", "replies", "subagents"],
    "cline": ["api", "turns", "ui"],
    "codex": ["limits", "parse", "titles"],
    "continuedev": ["mapping"],
    "copilot": ["events"],
    "crush": ["mapping"],
    "cursor": ["folders", "keys", "mapping"],
    "gemini": ["fold", "mapping"],
    "opencode": ["mapping", "stores"],
    "pi": ["entries"],
    "qwen": ["records"],
}
MODULES = [f"nodwyn.importers.{agent}.{m}" for agent, names in PARSERS.items() for m in names]


def loaded(code: str) -> list[str]:
    """The parsing modules in sys.modules after `code` runs in a new Python process (the data
    directory and the agents' folders those of the test, in tmp_path: see conftest.py)."""
    script = (
        f"import json, sys\n{code}\nprint(json.dumps(sorted(set({MODULES!r}) & set(sys.modules))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_listing_the_agents_and_their_folders_loads_no_parser():
    code = (
        "from nodwyn.importers import registry\n"
        "for agent in registry.all_agents().values():\n"
        "    [list(agent.sources(root)) for root in agent.roots()]\n"
    )
    assert loaded(code) == []


def test_reading_one_agent_s_file_loads_that_agent_s_parser_only():
    source = next((CORPUS / "claude").glob("demo__todo-app__*.jsonl"))
    code = (
        "from pathlib import Path\n"
        "from nodwyn.importers import registry, sync\n"
        "from nodwyn.tasks.store import Store\n"
        f"done = sync.import_source(Store(), registry.get('claude'), Path({str(source)!r}))\n"
        "assert [kind for kind, _ in done] == ['created'], done\n"
    )
    claude = [f"nodwyn.importers.claude.{m}" for m in PARSERS["claude"]]
    assert loaded(code) == claude
