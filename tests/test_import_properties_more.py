"""The hostile copies of tests/test_import_properties.py made of Pi's and Qwen Code's sessions
(ADR 0053): hypothesis mutates the real files and our own, imports them through the CLI, then
lists, searches and opens every task through the API. No traceback, no file skipped for an
"unexpected" reason, every answer 200; a person's prompt on a line left whole is in the log."""

import json

import pytest
import test_import_pi as pi
import test_import_qwen as qwen
from hypothesis import given, settings
from hypothesis import strategies as st
from test_import_properties import MUTATION, PROFILE
from test_import_properties_agents import check

WHERE = {
    "pi": ".pi/agent/sessions/--home-ana-pager--/2026_pi-s-1.jsonl",
    "qwen": ".qwen/projects/-home-ana-pager/chats/qw-s-1.jsonl",
}
REAL = {
    "pi": "pi/marcpadz__dexter-v3__pi-session.jsonl",
    "qwen": "qwen-code/Haniaimraxn__TODO-LIST__5c7e5311-5ac2-4e52-a4c0-d938f6e98268.jsonl",
}


def own(agent: str) -> list[bytes]:
    if agent == "pi":
        lines = pi.session(pi.said(1, "user", "Fix the pager"),
                           pi.said(2, "assistant", [{"type": "text", "text": "Done."}], model="m",
                                   usage=pi.usage(10, 5)))  # fmt: skip
    else:
        lines = [
            qwen.record("user", 0, **qwen.parts({"text": "Fix the pager"})),
            qwen.telemetry(1, input_token_count=10, output_token_count=5),
            qwen.record("assistant", 2, model="m", **qwen.parts({"text": "Done."})),
        ]
    return [json.dumps(x).encode() for x in lines]


@pytest.mark.parametrize("agent", sorted(WHERE))
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=4))
def test_mutated_copies_of_our_own_sessions_import_and_open_without_a_traceback(agent, plan):
    check(agent, own(agent), plan, WHERE)


@pytest.mark.parametrize("agent", sorted(REAL))
@settings(settings.get_profile(PROFILE))
@given(plan=st.lists(st.tuples(st.integers(0, 10**6), MUTATION), min_size=1, max_size=3))
def test_mutated_copies_of_real_sessions_import_and_open_without_a_traceback(corpus, agent, plan):
    check(agent, (corpus / "more" / REAL[agent]).read_bytes().splitlines(), plan, WHERE)
