"""`nodwyn hooks install AGENT --write` and `remove` against real settings files holding the
person's own hooks, comments and odd shapes: theirs kept byte for byte, ours recognisable,
remove restores the file, a second install changes nothing, what cannot be merged is refused."""

import json
import tomllib
from pathlib import Path

import pytest
from nodwyn.errors import BadInput
from nodwyn.live import install
from nodwyn.mcp import jsonc

CONFIGS = Path(__file__).parent / "data" / "agent_configs"
THEIR_STOP = {"hooks": [{"type": "command", "command": "notify-send 'Claude is done'"}]}


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    home = tmp_path / "person"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for moved in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(moved, raising=False)
    monkeypatch.setenv("GEMINI_CLI_HOME", str(home))
    monkeypatch.setenv("COPILOT_HOME", str(home / ".copilot"))
    return home


SHAPES = json.loads((Path(__file__).parent / "data" / "hook_shapes.json").read_text())


def shape(text: str) -> str:
    """A shape's text; "@NAME" is the real file of that name in agent_configs."""
    return (CONFIGS / text[1:]).read_text() if text.startswith("@") else text


@pytest.mark.parametrize(
    ("agent", "text"), [(a, shape(t)) for a, shapes in SHAPES["json"].items() for t in shapes]
)
def test_install_keeps_theirs_and_remove_gives_the_file_back(home, agent, text):
    file = install.file_of(agent)
    file.parent.mkdir(parents=True, exist_ok=True)
    if text:
        file.write_text(text)
    before = jsonc.loads(text, install.DIALECT[agent]) if text else {}
    install.write(agent)
    after = jsonc.loads(file.read_text(), install.DIALECT[agent])
    for event in install.EVENTS[agent]:
        assert install.ours(after["hooks"][event][-1]), event
    theirs = (before.get("hooks") or {}) if isinstance(before.get("hooks"), dict) else {}
    for event, entries in theirs.items():
        assert after["hooks"][event][: len(entries)] == entries  # theirs first, as they were
    written = file.read_bytes()
    assert "already" in install.write(agent)
    assert file.read_bytes() == written  # a second install changes nothing
    install.remove(agent)
    if text and jsonc.loads(text, install.DIALECT[agent]) not in ({}, None):
        assert file.read_text() == text
    else:
        assert not file.exists() or file.read_text() == text


def test_remove_takes_only_ours_when_the_person_added_hooks_after_the_install(home):
    file = install.file_of("claude")
    file.parent.mkdir(parents=True)
    file.write_text(json.dumps({"hooks": {"Stop": [THEIR_STOP]}}, indent=2))
    install.write("claude")
    config = json.loads(file.read_text())
    config["hooks"]["Stop"].append({"hooks": [{"type": "command", "command": "later.sh"}]})
    file.write_text(json.dumps(config, indent=4))
    install.remove("claude")
    assert json.loads(file.read_text()) == {
        "hooks": {"Stop": [THEIR_STOP, config["hooks"]["Stop"][-1]]}
    }


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ('{"hooks": []}', "hooks is a list"),
        ('{"hooks": {"Stop": {"command": "x"}}}', "hooks.Stop is an object"),
        ('{"hooks": {', "not valid JSON"),
        ("[1, 2]", "not a JSON object"),
    ],
)
def test_what_cannot_be_merged_is_refused_and_left_as_it_was(home, text, why):
    file = install.file_of("claude")
    file.parent.mkdir(parents=True)
    file.write_text(text)
    with pytest.raises(BadInput, match=why):
        install.write("claude")
    assert file.read_text() == text


@pytest.mark.parametrize("text", SHAPES["codex_toml"])
def test_codex_s_notify_slot_is_chained_to_the_person_s_program_and_given_back(home, text):
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(text)
    theirs = tomllib.loads(text).get("notify", [])
    install.write("codex")
    notify = tomllib.loads(config.read_text())["notify"]
    assert install.ours(notify)
    assert notify[len(notify) - len(theirs) :] == theirs and (
        not theirs or notify[-len(theirs) - 1] == "--"
    )
    install.write("codex")
    assert tomllib.loads(config.read_text())["notify"] == notify
    install.remove("codex")
    assert config.read_text() == text


def test_aider_s_notifications_lines_are_added_once_and_taken_out(home):
    conf = home / ".aider.conf.yml"
    conf.write_text("model: sonnet\n")
    install.write("aider")
    assert "notifications-command:" in conf.read_text() and "model: sonnet" in conf.read_text()
    install.remove("aider")
    assert conf.read_text() == "model: sonnet\n"
    conf.write_text("notifications: false\n")
    with pytest.raises(BadInput, match="runs one command only"):
        install.write("aider")


def test_copilot_s_and_opencode_s_files_are_ours_and_a_stranger_s_is_refused(home):
    for agent in ("copilot", "opencode"):
        install.write(agent)
        assert install.ours(install.file_of(agent).read_text())
        install.remove(agent)
        assert not install.file_of(agent).exists()
    plugin = install.file_of("opencode")
    plugin.write_text("export const Theirs = async () => ({});\n")
    with pytest.raises(BadInput, match="someone else's"):
        install.write("opencode")
    copilot = json.loads(install.own_file("copilot"))
    assert set(copilot["hooks"]) == set(install.EVENTS["copilot"]) and copilot["version"] == 1
