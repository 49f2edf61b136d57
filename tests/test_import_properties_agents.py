"""The hostile copies of tests/test_import_properties.py (#14) made of the sessions of the
agents of issue 18: hypothesis mutates the real Gemini CLI, Copilot CLI and Antigravity files
and our own, imports them through the CLI, then lists, searches and opens every task through
the API. No traceback anywhere, no file skipped for an "unexpected" reason, every answer 200;
a person's prompt on a line left whole is in the task's log."""

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodwyn.log.redact import redact
from test_import_bad_input import antigravity_lines, copilot_lines, gemini_lines
from test_import_properties import MUTATION, PROFILE, imported_through_the_cli, log_text, mutated

WHERE = {
    "gemini": ".gemini/tmp/p/chats/session-2026-04-25T08-46-c737eb36.jsonl",
    "copilot": ".copilot/session-state/3cc3555e/events.jsonl",
    "antigravity": "brain/0a0a0a0a-0000-4000-8000-000000000009/.system_generated/logs/transcript.jsonl",  # noqa: E501
}
REAL = {
    "gemini": "gemini-cli/wingorithm__Vibe-Coding-Comparison-Project__session-2026-04-25T08-46-c737eb36.jsonl",  # noqa: E501
    "copilot": "copilot-cli/XEFF09__dotfiles__b87feda8-379e-4f8c-aa42-b4f7d12f253a__events.jsonl",
    "antigravity": "antigravity/surendrababuchittibomma__AI-Powered-Debt-Relief-Financial-Recovery-Platform__transcript.jsonl",  # noqa: E501
}
OWN = {"gemini": gemini_lines, "copilot": copilot_lines, "antigravity": antigravity_lines}


def prompt_of(agent: str, line: bytes) -> str:
    """A person's words on a line, as the log keeps them ("" when the line holds none): Copilot
    CLI's and Pi's. Gemini folds ids (a mutated copy may replace a whole one), Antigravity
    wraps the prompt, Qwen Code's may read as the slash command typed before it: none."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return ""
    if not isinstance(value, dict):
        return ""
    if agent == "copilot" and value.get("type") == "user.message":
        data = value.get("data") if isinstance(value.get("data"), dict) else {}
        text = data.get("content")
        return text if isinstance(text, str) and "<current_datetime>" not in text else ""
    asked = value.get("message")
    if agent == "pi" and value.get("type") == "message" and isinstance(asked, dict):
        text = asked.get("content")
        return text if asked.get("role") == "user" and isinstance(text, str) else ""
    return ""


def check(agent: str, lines: list[bytes], plan: list, where=WHERE, prompt=prompt_of) -> None:
    """Import the mutated copy at `where[agent]`; the words `prompt` finds on the lines left
    whole must be in the log, and every task lists, searches and opens."""
    lines, whole = mutated(lines, plan)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        source = root / "agent" / where[agent]
        source.parent.mkdir(parents=True)
        source.write_bytes(b"\n".join(lines) + b"\n")
        store, client, tasks = imported_through_the_cli(agent, source, root / "data")
        for task in tasks:
            text = log_text(store, task)
            for line in whole:
                words = prompt(agent, line)
                if words.strip() and redact(words) == words:
                    assert json.dumps(words)[1:-1] in text, (task, words[:80])
            assert client.get(f"/api/tasks/{task}/context").status == 200
            assert client.get(f"/api/search?q=the&mode=words&task={task}").status == 200


@pytest.mark.parametrize("agent", sorted(OWN))
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=4))
def test_mutated_copies_of_our_own_sessions_import_and_open_without_a_traceback(agent, plan):
    check(agent, OWN[agent](), plan)


@pytest.mark.parametrize("agent", sorted(REAL))
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=3))
def test_mutated_copies_of_real_sessions_import_and_open_without_a_traceback(corpus, agent, plan):
    check(agent, (corpus / "other" / REAL[agent]).read_bytes().splitlines(), plan)
