"""`nodwyn mcp install`, `nodwyn settings earlier-tasks` and the tools' schema size."""

import json
import subprocess
import sys
import tomllib

import pytest
from nodwyn import cli, settings
from nodwyn.mcp import install as mcp_install
from nodwyn.tasks.store import Store

CODEX_BEFORE = '# my settings\nmodel = "gpt-5.5"\n\n[mcp_servers.other]\ncommand = "other"'


@pytest.fixture
def homes(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "codex").mkdir()
    (tmp_path / "claude").mkdir()
    return tmp_path


def run(capsys, *argv) -> str:
    capsys.readouterr()
    assert cli.main(list(argv)) == 0
    return capsys.readouterr().out


def test_install_prints_each_agents_lines_and_writes_nothing(homes, capsys):
    codex = run(capsys, "mcp", "install", "codex")
    claude = run(capsys, "mcp", "install", "claude")
    assert "[mcp_servers.nodwyn]" in codex and '"--agent", "codex"' in codex
    assert "claude mcp add --scope user" in claude and "mcp --agent claude" in claude
    assert "NODWYN_DATA_DIR" in codex  # the tests' data directory is not the default one
    assert not (homes / "codex" / "config.toml").exists()
    assert not (homes / "claude" / ".claude.json").exists()


def test_install_write_appends_to_codex_config_and_keeps_every_byte_before(homes, capsys):
    config = homes / "codex" / "config.toml"
    config.write_text(CODEX_BEFORE)
    assert "Added" in run(capsys, "mcp", "install", "codex", "--write")
    text = config.read_text()
    assert text.startswith(CODEX_BEFORE + "\n")
    servers = tomllib.loads(text)["mcp_servers"]
    assert servers["other"] == {"command": "other"}
    assert servers["nodwyn"]["args"][-3:] == ["mcp", "--agent", "codex"]
    assert "already has" in run(capsys, "mcp", "install", "codex", "--write")
    assert config.read_text() == text


def test_install_write_adds_one_key_to_claudes_file_and_keeps_the_rest(homes, capsys):
    file = homes / "claude" / ".claude.json"
    before = {"numStartups": 4, "projects": {"/x": {"allowedTools": []}}, "mcpServers": {"a": {}}}
    file.write_text(json.dumps(before))
    run(capsys, "mcp", "install", "claude", "--write")
    after = json.loads(file.read_text())
    assert after["numStartups"] == 4 and after["projects"] == before["projects"]
    assert after["mcpServers"]["a"] == {}
    assert after["mcpServers"]["nodwyn"]["args"][-3:] == ["mcp", "--agent", "claude"]
    assert "already has" in run(capsys, "mcp", "install", "claude", "--write")


def test_install_write_refuses_a_file_it_cannot_read_and_changes_nothing(homes, capsys):
    config = homes / "codex" / "config.toml"
    config.write_text("this is = = not toml")
    assert cli.main(["mcp", "install", "codex", "--write"]) == 1
    assert "not valid TOML" in capsys.readouterr().err
    assert config.read_text() == "this is = = not toml"


def test_the_earlier_tasks_switch_is_turned_on_and_off_for_one_project(tmp_path, capsys):
    root = Store().root
    run(capsys, "settings", "earlier-tasks", str(tmp_path / "a"), "on")
    run(capsys, "settings", "earlier-tasks", str(tmp_path / "b"), "on")
    assert settings.load(root).earlier_tasks == {
        str(tmp_path / "a"): True,
        str(tmp_path / "b"): True,
    }
    assert "no longer" in run(capsys, "settings", "earlier-tasks", str(tmp_path / "a"), "off")
    assert settings.load(root).earlier_tasks == {str(tmp_path / "b"): True}
    assert json.loads(run(capsys, "settings"))["earlier_tasks"] == {str(tmp_path / "b"): True}


def test_schema_size_is_measured_and_printed():
    out = subprocess.run(
        [sys.executable, "-m", "nodwyn.cli", "mcp", "--schema-size"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.startswith("tools/list schemas: ")
    total = int(out.split()[2])
    # sent with every request an agent makes: kept small, about 320 bytes a tool (five tools)
    assert 0 < total < 1600
    for name in ("index-search", "recall", "name-task"):
        assert name in out


def test_listing_sessions_does_not_import_the_mcp_sdk():
    code = "import sys; from nodwyn import cli; cli.main(['sessions']); print('mcp' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().endswith("False")


def test_the_packaged_app_connects_agents_to_its_own_launcher(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    monkeypatch.setattr(sys, "executable", "/opt/nodwyn/nodwyn")
    monkeypatch.setenv("PATH", "")  # no pip-installed nodwyn: the bundle is all there is
    assert mcp_install.command("codex") == [
        "/opt/nodwyn/nodwyn", "--nodwyn-cli", "mcp", "--agent", "codex",
    ]  # fmt: skip
