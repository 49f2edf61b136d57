"""The quota meter (issue 30): rate limits read from agents' logs, said current, stale or reset.

Over the real corpus, `nodwyn quota --json` must give each Codex limit's latest used percent
and reset time as the last token_count event says it (the oracle reads the rollouts' raw
lines itself). Hand-written rollouts, Claude Code sessions and nodwyn logs give each shape.
"""

import json
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import msgspec
import pytest
from corpora import REAL
from importing import age, env, imported_one, prompt, write
from nodwyn.importers.codex.limits import REPEAT_AFTER
from nodwyn.log import records
from nodwyn.tasks.store import Store
from nodwyn.usage import quota

START = datetime(2026, 12, 2, 9, 0, tzinfo=UTC)
CODEX_FILES = sorted([*REAL.glob("codex/*.jsonl"), *REAL.glob("extra/codex/*.jsonl")])


def stamp(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


def rollout(path: Path, readings: list[tuple[int, float, float]], start=START) -> Path:
    """A Codex rollout whose token counts say (minutes after `start`, 5 h used, week used);
    the 5 h window resets at start + 5 h, the week's at start + 3 days."""
    START = start  # noqa: N806 (the module's START, unless given)
    five, week = START + timedelta(hours=5), START + timedelta(days=3)
    lines = [
        {"timestamp": stamp(START), "type": "session_meta",
         "payload": {"id": "019e0b22-0000-7000-8000-00000000quota", "cwd": "/home/ana/app",
                     "cli_version": "0.122.0", "source": "cli"}},
    ]  # fmt: skip
    for minutes, short, long in readings:
        limits = {
            "limit_id": "codex", "plan_type": "plus", "rate_limit_reached_type": None,
            "primary": {"used_percent": short, "window_minutes": 300,
                        "resets_at": int(five.timestamp())},
            "secondary": {"used_percent": long, "window_minutes": 10080,
                          "resets_at": int(week.timestamp())},
        }  # fmt: skip
        at = stamp(START + timedelta(minutes=minutes))
        payload = {"type": "token_count", "info": None, "rate_limits": limits}
        lines.append({"timestamp": at, "type": "event_msg", "payload": payload})
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return age(path)


def nodwyn(*args) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", *args], capture_output=True, text=True,
        stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def windows(store: Store, now: datetime) -> dict[str, quota.Window]:
    (agent,) = quota.meter(store, now).agents
    return {w.label: w for w in agent.windows}


# The real corpus


def last_said(files: list[Path]) -> dict[tuple[str, int], tuple[str, float, str]]:
    """The oracle: per (limit id, window minutes), what the last token_count of all the files
    said (its time, used percent, reset time), read from the raw lines."""
    said = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            event = json.loads(line)
            payload = event.get("payload") or {}
            if event.get("type") != "event_msg" or payload.get("type") != "token_count":
                continue
            limits = payload.get("rate_limits") or {}
            for slot in ("primary", "secondary"):
                window = limits.get(slot)
                if not window:
                    continue
                key = (limits["limit_id"], window["window_minutes"])
                resets = datetime.fromtimestamp(window["resets_at"], UTC)
                value = (event["timestamp"], window["used_percent"], stamp(resets))
                if key not in said or value[0] >= said[key][0]:
                    said[key] = value
    return said


@pytest.mark.corpus
def test_over_the_corpus_each_codex_limit_reads_as_its_last_token_count_says(data_dir):
    store = Store()
    from nodwyn.importers.sync import import_paths

    report = import_paths(store, "codex", CODEX_FILES)
    assert len(report.created) == len(CODEX_FILES) == 10
    shown = json.loads(nodwyn("quota", "--json").stdout)
    (codex,) = shown["agents"]
    got = {(w["name"], w["window_minutes"]): w for w in codex["windows"]}
    expected = last_said(CODEX_FILES)
    assert set(got) == set(expected) == {("codex", 300), ("codex", 10080)}
    for key, (at, used, resets) in expected.items():
        window = got[key]
        assert (window["used_percent"], window["resets_at"]) == (used, resets), key
        # as of the event that said it: at most REPEAT_AFTER before the last one that did
        seen = datetime.fromisoformat(window["as_of"].replace("Z", "+00:00"))
        last = datetime.fromisoformat(at.replace("Z", "+00:00"))
        assert timedelta(0) <= last - seen < timedelta(seconds=REPEAT_AFTER), key
    # months after those sessions, every window's reset has passed: none reads as current
    assert {w["state"] for w in codex["windows"]} == {"reset"}
    assert codex["line"] == "Codex: 5 h reset · week reset"


# Hand-written rollouts


def test_a_current_window_has_its_burn_rate_and_when_it_would_run_out(data_dir, tmp_path):
    store = Store()
    imported_one(
        store, "codex", rollout(tmp_path / "r.jsonl", [(0, 10, 2), (60, 20, 3), (120, 30, 4)])
    )
    now = START + timedelta(minutes=125)
    shown = windows(store, now)
    five = shown["5 h"]
    assert (five.state, five.used_percent, five.text) == ("current", 30.0, "30%")
    assert five.burn_per_hour == 10.0  # 10 to 30 in two hours
    assert five.runs_out_at == ""  # 70 more points take 7 h: the window resets first
    assert shown["week"].burn_per_hour == 1.0
    (agent,) = quota.meter(store, now).agents
    resets = quota.clock(stamp(START + timedelta(hours=5)), now)
    assert agent.line == f"Codex: 5 h 30% · week 4% · resets {resets}"


def test_a_fast_burn_says_when_the_window_would_be_used_up(data_dir, tmp_path):
    store = Store()
    imported_one(store, "codex", rollout(tmp_path / "r.jsonl", [(0, 20, 1), (60, 60, 2)]))
    five = windows(store, START + timedelta(minutes=61))["5 h"]
    assert five.burn_per_hour == 40.0
    assert five.runs_out_at == stamp(START + timedelta(minutes=120))  # 40 more at 40 an hour


def test_a_window_whose_reset_passed_reads_reset(data_dir, tmp_path):
    store = Store()
    imported_one(store, "codex", rollout(tmp_path / "r.jsonl", [(0, 27, 4)]))
    shown = windows(store, START + timedelta(hours=6))
    assert (shown["5 h"].state, shown["5 h"].text) == ("reset", "reset")
    assert (shown["week"].state, shown["week"].text) == ("current", "4%")  # 6 h into a week
    (agent,) = quota.meter(store, START + timedelta(hours=6)).agents
    assert agent.line.startswith("Codex: 5 h reset · week 4% · resets ")


def test_a_figure_older_than_its_window_reads_stale_with_when_it_was_seen(data_dir):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="codex"))
    with store.create(start) as writer:  # no reset time said: only its age can tell
        old = stamp(START - timedelta(hours=6))
        writer.append([records.Limit(at=old, name="codex", window_minutes=300, used_percent=27)])
    (agent,) = quota.meter(store, START).agents
    (stale,) = agent.windows
    assert (stale.state, stale.text) == ("stale", "27% · last seen 6 h ago")
    assert agent.line == "Codex: 5 h 27% · last seen 6 h ago"
    assert stale.burn_per_hour is None


def test_repeated_figures_are_written_once_per_repeat_interval(data_dir, tmp_path):
    store = Store()
    task = imported_one(
        store, "codex", rollout(tmp_path / "r.jsonl", [(0, 5, 1), (1, 5, 1), (2, 5, 1), (7, 5, 1)])
    )
    from importing import log_of

    limits = [x for x in log_of(store, task) if isinstance(x, records.Limit)]
    assert [(x.at[11:16], x.src.id) for x in limits] == [
        ("09:00", "primary"), ("09:00", "secondary"), ("09:07", "primary"), ("09:07", "secondary"),
    ]  # fmt: skip
    assert windows(store, START + timedelta(minutes=8))["5 h"].as_of == stamp(
        START + timedelta(minutes=7)
    )


# Other agents' messages, and logs with none


def test_claude_codes_usage_limit_message_reads_as_used_up_until_its_reset(data_dir, tmp_path):
    reset = int((START + timedelta(hours=3)).timestamp())
    said = [{"type": "text", "text": f"Claude AI usage limit reached|{reset}"}]
    message = {"id": "m1", "role": "assistant", "model": "<synthetic>", "content": said}
    notice = env("u2", "u1", 5, type="assistant", isApiErrorMessage=True, message=message)
    path = write(tmp_path / "claude" / "s.jsonl", [prompt("u1", None, 1, "Fix it"), notice])
    store = Store()
    imported_one(store, "claude", age(path))
    (agent,) = quota.meter(store, datetime(2026, 5, 1, 11, tzinfo=UTC)).agents
    (window,) = agent.windows
    assert (agent.label, window.used_percent, window.reached) == ("Claude Code", 100.0, True)
    assert window.resets_at == stamp(START + timedelta(hours=3))
    assert window.as_of == "2026-05-01T10:00:05.000Z"


@pytest.mark.parametrize(
    ("origin", "text", "window", "resets"),
    [
        ("claude-code", "5-hour limit reached ∙ resets 3pm (Europe/London)", 300,
         "2026-12-02T15:00:00.000Z"),
        ("claude-code", "Weekly limit reached · resets Mon 9am (America/New_York)", 10080,
         "2026-12-07T14:00:00.000Z"),
        ("gemini-cli", "You have exhausted your capacity on this model. Your quota will reset "
         "after 2h1m13s.", 0, "2026-12-02T11:01:13.000Z"),
        ("gemini-cli", "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit "
         "'Gemini 2.5 Pro Requests per day per user per tier'", 1440, ""),
    ],
)  # fmt: skip
def test_an_agents_limit_message_in_a_log_imported_before_is_read(
    data_dir, origin, text, window, resets
):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool=origin))
    with store.create(start) as writer:  # as an import before this change left it: an error
        writer.append([records.Error(at=stamp(START), text=text)])
    (agent,) = quota.meter(store, START + timedelta(minutes=5)).agents
    (shown,) = agent.windows
    assert (shown.window_minutes, shown.resets_at, shown.used_percent) == (window, resets, 100.0)
    now = START + timedelta(minutes=5)
    hit = f"limit hit {quota.clock(stamp(START), now)}"
    assert not shown.share  # a message gives no share: a line, not a bar (ADR 0039)
    assert shown.text == (f"{hit}, resets {quota.clock(resets, now)}" if resets else hit)


def test_an_agent_whose_logs_hold_no_limits_is_not_shown(data_dir):
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="claude-code"))
    with store.create(start) as writer:
        writer.append([records.Error(at=stamp(START), text="API Error: 500 overloaded")])
    assert quota.meter(store).agents == []
    assert "no agent's logs hold rate limits" in nodwyn("quota").stdout
    assert json.loads(nodwyn("quota", "--json").stdout)["agents"] == []


FIVE = "5-hour limit reached ∙ resets 3pm (UTC)"


@pytest.mark.parametrize(
    ("text", "after", "state", "said"),
    [
        (FIVE, 1, "current", "5 h limit hit {hit}, resets {resets}"),
        (FIVE, 9, "reset", "5 h limit hit {hit}, reset {resets}"),
        ("You've hit your limit", 1, "current", "limit hit {hit}"),
        ("You've hit your limit", 24 * 217, "stale", "limit hit {hit}"),
    ],
)  # fmt: skip
def test_a_limit_message_is_a_line_in_the_meter_the_tray_and_the_cli(data_dir, text, after,
                                                                       state, said):  # fmt: skip
    """A message gives no share: no "100%", only when the limit was hit and resets (ADR 0039)."""
    store = Store()
    start = records.SessionStart(project="/p", origin=records.Origin(tool="claude-code"))
    with store.create(start) as writer:
        writer.append([records.Error(at=stamp(START), text=text)])
    now = START + timedelta(hours=after)
    (agent,) = quota.meter(store, now).agents
    (window,) = agent.windows
    hit = quota.clock(stamp(START), now)
    resets = quota.clock("2026-12-02T15:00:00.000Z", now)
    assert (window.share, window.state, window.burn_per_hour) == (False, state, None)
    assert agent.line == "Claude Code: " + said.format(hit=hit, resets=resets)
    assert "%" not in agent.line
    printed = nodwyn("quota").stdout.splitlines()  # as of the time now: the same line's shape
    assert printed[0].startswith("Claude Code: ") and "limit hit" in printed[0]
    assert "%" not in "".join(printed) and not printed[1].lstrip().startswith("limit limit")


def test_a_date_of_another_year_says_its_year():
    now = datetime(2026, 12, 5, 3, tzinfo=UTC)
    assert quota.clock("2025-05-01T10:00:00.000Z", now).startswith("01 May 2025 ")


def test_the_cli_the_api_and_the_meter_give_the_same_figures(data_dir, tmp_path):
    from nodwyn import api
    from test_api import TOKEN, Client

    store = Store()
    imported_one(store, "codex", rollout(tmp_path / "r.jsonl", [(0, 10, 2)]))
    (agent,) = quota.meter(store).agents
    printed = nodwyn("quota").stdout.splitlines()
    assert printed[0] == agent.line and printed[1].startswith("  5 h    ")
    via_cli = json.loads(nodwyn("quota", "--json").stdout)
    via_api = Client(api.make_app(store, TOKEN)).get("/api/quota").json
    for shown in (via_cli, via_api):
        del shown["now"]
    assert (
        via_cli
        == via_api
        == {k: v for k, v in msgspec.to_builtins(quota.meter(store)).items() if k != "now"}
    )


def test_a_codex_log_imported_before_limits_were_read_gets_them_once(
    data_dir, tmp_path, monkeypatch
):
    """The importer as it was before this change (no limit records, `.imp` of version 0) is
    stood in for by turning the reading off; the next import, with it on, adds them once."""
    from importing import log_of
    from nodwyn.importers import codex
    from nodwyn.importers.codex import parse

    store = Store()
    path = rollout(tmp_path / "r.jsonl", [(0, 10, 2), (60, 20, 3)])
    with monkeypatch.context() as before:
        before.setattr(codex.AGENT, "limits", 0)
        before.setattr(parse.limits, "read", lambda *args: [])
        task = imported_one(store, "codex", path)
    assert quota.meter(store, START).agents == []
    first = log_of(store, task)
    from nodwyn.importers.sync import import_paths

    assert import_paths(store, "codex", [path]).extended == [task]
    added = log_of(store, task)[len(first) :]
    assert [(x.at, x.used_percent) for x in added] == [
        (stamp(START), 10), (stamp(START), 2),
        (stamp(START + timedelta(hours=1)), 20), (stamp(START + timedelta(hours=1)), 3),
    ]  # fmt: skip
    assert windows(store, START + timedelta(minutes=61))["5 h"].used_percent == 20
    assert import_paths(store, "codex", [path]).unchanged == [task]  # not twice
    rollout(path, [(0, 10, 2), (60, 20, 3), (90, 25, 3)])  # the session goes on
    assert import_paths(store, "codex", [path]).extended == [task]
    assert windows(store, START + timedelta(minutes=91))["5 h"].used_percent == 25
    assert len([x for x in log_of(store, task) if isinstance(x, records.Limit)]) == 6  # +2 at 90
