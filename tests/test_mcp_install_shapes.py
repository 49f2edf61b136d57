"""`nodwyn mcp install AGENT --write` on every shape an agent's file may have (issue 38, ADR
0043), each result read back by the agent's own parser rules with readers nodwyn does not use:
tomllib for Codex's TOML, the standard library's JSON (duplicate keys refused) for Claude
Code's and Copilot CLI's strict JSON, json5 (duplicate keys refused) for the JSON with comments
of Gemini CLI, OpenCode and Cursor. Each shape is written twice: the second changes nothing."""

import json
import os
import shlex
import subprocess
import sys
import tomllib
from pathlib import Path

import json5
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nodwyn import cli
from nodwyn.mcp import install as mcp_install
from nodwyn.mcp import jsonc
from test_mcp_install_agents import one_block_added

CODEX = '# my settings\nmodel = "gpt-5.5"\n'
STRICT = ("claude", "copilot")  # JSON.parse: no comments, no trailing comma


@pytest.fixture
def homes(tmp_path, monkeypatch):
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("HOME", str(tmp_path / "person"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "person" / ".config"))
    return tmp_path


def config_of(agent: str, text: str) -> Path:
    file = mcp_install.codex_file() if agent == "codex" else mcp_install.json_target(agent)[0]
    file.parent.mkdir(parents=True, exist_ok=True)
    file.write_text(text)
    return file


def write(capsys, agent: str) -> tuple[int, str]:
    capsys.readouterr()
    code = cli.main(["mcp", "install", agent, "--write"])
    out = capsys.readouterr()
    return code, out.out + out.err


def no_twice(pairs):
    keys = [key for key, _ in pairs]
    assert len(keys) == len(set(keys)), f"a key given twice: {keys}"
    return dict(pairs)


def read_as_the_agent(agent: str, text: str):
    if agent == "codex":
        return tomllib.loads(text)
    if agent in STRICT:
        return json.loads(text, object_pairs_hook=no_twice)
    if agent == "gemini":  # strip-json-comments' defaults: comments, but no trailing comma
        json.loads(jsonc.plain(text, "comments"))
    return json5.loads(text, allow_duplicate_keys=False)


def servers(agent: str, config) -> dict:
    return config["mcp" if agent == "opencode" else "mcp_servers" if agent == "codex" else
                  "mcpServers"]  # fmt: skip


def written_once(capsys, agent: str, file: Path, before: str) -> str:
    code, said = write(capsys, agent)
    assert code == 0 and "Added" in said, said
    after = file.read_text()
    entry = servers(agent, read_as_the_agent(agent, after))["nodwyn"]
    assert "--agent" in json.dumps(entry)
    assert file.with_name(file.name + ".before-nodwyn").read_text() == before
    assert write(capsys, agent) == (
        0,
        f"{file} already has "
        + (
            "[mcp_servers.nodwyn]"
            if agent == "codex"
            else f"{'mcp' if agent == 'opencode' else 'mcpServers'}.nodwyn"
        )
        + "; left as it is.\n",
    )
    assert file.read_text() == after  # fmt: skip
    return after


PROFILE = '\n[profiles.fast]\nmodel = "o"\n'
CODEX_SHAPES = {
    "an inline table": 'mcp_servers = { other = { command = "x" } }\n' + PROFILE,
    "dotted keys": 'mcp_servers.other.command = "x"\n',
    "one [mcp_servers] table": '[mcp_servers]\nother = { command = "x" } # mine\n',
    "a table per server": '[mcp_servers.other]\ncommand = "x"\n[mcp_servers.other.env]\nA = "b"\n',
    "no servers, no final newline": 'approval_policy = "never"',
}  # fmt: skip


@pytest.mark.parametrize("shape", list(CODEX_SHAPES))
def test_codex_reads_its_config_with_nodwyn_added_to_every_shape(homes, capsys, shape):
    before = CODEX + CODEX_SHAPES[shape]
    file = config_of("codex", before)
    after = written_once(capsys, "codex", file, before)
    config = tomllib.loads(after)
    old = tomllib.loads(before)
    assert config["mcp_servers"].pop("nodwyn")["args"][-3:] == ["mcp", "--agent", "codex"]
    assert config == ({**old, "mcp_servers": {}} if "mcp_servers" not in old else old)
    # every line the person wrote is there, comments too (an inline table gets nodwyn in it)
    kept = [line for line in before.splitlines() if not line.startswith("mcp_servers = {")]
    assert all(line in after.splitlines() for line in kept)


def test_codex_s_inline_servers_table_is_extended_in_place_not_declared_twice(homes, capsys):
    before = CODEX + CODEX_SHAPES["an inline table"]
    file = config_of("codex", before)
    after = written_once(capsys, "codex", file, before)
    assert "[mcp_servers.nodwyn]" not in after
    [line] = [line for line in after.splitlines() if line.startswith("mcp_servers = ")]
    assert line.startswith('mcp_servers = { other = { command = "x" }, nodwyn = {')
    assert after.endswith(PROFILE)


@pytest.mark.parametrize("value", ["[]", '""'])
def test_codex_s_empty_servers_value_is_made_a_table(homes, capsys, value):
    before = f'{CODEX}mcp_servers = {value}\n\n[profiles.fast]\nmodel = "o4"\n'
    file = config_of("codex", before)
    config = tomllib.loads(written_once(capsys, "codex", file, before))
    assert list(config["mcp_servers"]) == ["nodwyn"] and config["profiles"]["fast"]["model"] == "o4"


@pytest.mark.parametrize(
    "value", ['[[mcp_servers]]\nname = "a"\n', 'mcp_servers = ["a"]\n', 'mcp_servers = "x"\n']
)
def test_codex_s_servers_value_that_holds_something_else_is_refused_and_kept(homes, capsys, value):
    file = config_of("codex", CODEX + value)
    code, said = write(capsys, "codex")
    assert code == 1 and "not a table of servers" in said and "nothing was changed" in said
    assert "\n" not in said.strip() and "Traceback" not in said
    assert file.read_text() == CODEX + value
    assert not file.with_name("config.toml.before-nodwyn").exists()


JSON_AGENTS = ["claude", "gemini", "copilot", "opencode", "cursor"]


def key(agent: str) -> str:
    return "mcp" if agent == "opencode" else "mcpServers"


@pytest.mark.parametrize("agent", JSON_AGENTS)
@pytest.mark.parametrize("value", ["null", "[]", '""'])
def test_a_null_or_empty_servers_value_is_replaced_never_given_twice(homes, capsys, agent, value):
    before = f'{{\n  "theme": "dark",\n  "{key(agent)}": {value},\n  "tail": [1, 2]\n}}\n'
    file = config_of(agent, before)
    after = written_once(capsys, agent, file, before)
    config = read_as_the_agent(agent, after)  # a key given twice fails here
    assert list(config) == ["theme", key(agent), "tail"] and config["tail"] == [1, 2]
    assert list(config[key(agent)]) == ["nodwyn"]


@pytest.mark.parametrize("agent", JSON_AGENTS)
@pytest.mark.parametrize("value", ['["a"]', '"x"', "5", "true", '[{"command": "x"}]'])
def test_a_servers_value_that_holds_something_is_refused_with_the_reason(homes, capsys, agent,
                                                                        value):  # fmt: skip
    before = f'{{"{key(agent)}": {value}, "theme": "dark"}}'
    file = config_of(agent, before)
    code, said = write(capsys, agent)
    assert code == 1 and "not an object of servers" in said and "would lose" in said
    assert value[:3] in said  # what it holds is named
    assert file.read_text() == before and not file.with_name(file.name + ".before-nodwyn").exists()


def test_claude_s_file_with_a_list_or_null_servers_value_gives_no_traceback(homes):
    file = config_of("claude", '{"numStartups": 3, "mcpServers": ["a"]}')
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(file.parent)}
    command = [sys.executable, "-m", "nodwyn.cli", "mcp", "install", "claude", "--write"]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.startswith("nodwyn: ") and done.stderr.count("\n") == 1
    file.write_text('{"numStartups": 3, "mcpServers": null}')
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    config = json.loads(file.read_text(), object_pairs_hook=no_twice)
    assert config["numStartups"] == 3 and list(config["mcpServers"]) == ["nodwyn"]


@pytest.mark.parametrize("agent", JSON_AGENTS)
def test_a_key_given_twice_gets_nodwyn_in_the_one_the_agent_keeps(homes, capsys, agent):
    """A parser keeps the last of a key given twice; nodwyn's entry goes there."""
    before = (f'{{"{key(agent)}": {{"old": {{"command": "a"}}}},\n'
              f' "{key(agent)}": {{"kept": {{"command": "b"}}}}}}\n')  # fmt: skip
    file = config_of(agent, before)
    code, _ = write(capsys, agent)
    kept = jsonc.loads(file.read_text(), mcp_install.DIALECTS[agent])[key(agent)]
    assert code == 0 and list(kept) == ["nodwyn", "kept"]
    assert file.read_text().count(f'"{key(agent)}":') == 2  # none added


@pytest.mark.parametrize("agent", ["gemini", "opencode", "cursor"])
def test_comments_and_strings_that_look_like_syntax_are_kept_byte_for_byte(homes, capsys, agent):
    before = (
        "// servers { I use }\n{\n"
        '  "note": "a, } and // are text here",\n'
        f'  /* "{key(agent)}": null, */\n'
        f'  "{key(agent)}": {{ // mine\n    "a": {{ "command": "x" }}\n  }}\n}}\n'
    )
    file = config_of(agent, before)
    after = written_once(capsys, agent, file, before)
    config = read_as_the_agent(agent, after)
    assert config["note"] == "a, } and // are text here"
    assert list(config[key(agent)]) == ["nodwyn", "a"]
    assert one_block_added(before, after)  # every byte of the person's file, comments too


@pytest.mark.parametrize("agent", STRICT)
def test_a_strict_agents_file_with_a_comment_is_refused_as_the_agent_would(homes, capsys, agent):
    before = f'{{\n  // mine\n  "{key(agent)}": {{}}\n}}\n'
    file = config_of(agent, before)
    code, said = write(capsys, agent)
    assert code == 1 and "not valid JSON" in said and file.read_text() == before


@pytest.mark.parametrize("text", ["", "{}", "{ }", "{\n}\n", "null", "{\n  // nothing yet\n}\n"])
def test_empty_files_and_objects_get_one_entry(homes, capsys, text):
    file = config_of("gemini", text)
    capsys.readouterr()
    assert cli.main(["mcp", "install", "gemini", "--write"]) == 0
    config = read_as_the_agent("gemini", file.read_text())
    assert list(config) == ["mcpServers"] and list(config["mcpServers"]) == ["nodwyn"]


def test_a_file_that_is_a_list_is_refused(homes, capsys):
    file = config_of("cursor", "[]")
    code, said = write(capsys, "cursor")
    assert code == 1 and "not a JSON object" in said and file.read_text() == "[]"


def claude_parses(words: list[str]) -> tuple[str, dict, list[str]]:
    """`claude mcp add` read as Claude Code's parser reads it: options before or after the
    name, `-e` taking every word up to the next option or `--` (the issues 23365, 46121 and
    62332 show it taking the name); the name is the first word no option took."""
    assert words[:3] == ["claude", "mcp", "add"]
    rest = words[3:]
    cut = rest.index("--")
    given, command = rest[:cut], rest[cut + 1 :]
    name, env, at = None, {}, 0
    while at < len(given):
        word = given[at]
        if word in ("-s", "--scope"):
            at += 2
        elif word in ("-e", "--env"):
            at += 1
            while at < len(given) and not given[at].startswith("-"):
                variable, sep, value = given[at].partition("=")
                assert sep, f"Invalid environment variable format: {given[at]}"
                env[variable] = value
                at += 1
        else:
            name = name or word
            at += 1
    return name, env, command


def test_the_printed_claude_command_names_the_server_before_its_variables(homes, capsys,
                                                                         monkeypatch):  # fmt: skip
    monkeypatch.setenv("NODWYN_DATA_DIR", str(homes / "my data"))
    printed = capsys.readouterr() and cli.main(["mcp", "install", "claude"])
    line = capsys.readouterr().out.splitlines()[1].strip()
    assert printed == 0 and line.startswith("claude mcp add --scope user nodwyn -e ")
    name, env, command = claude_parses(shlex.split(line))
    assert name == "nodwyn" and env == {"NODWYN_DATA_DIR": str(homes / "my data")}
    assert command == mcp_install.command("claude")


def test_the_printed_codex_command_is_in_codex_s_order(homes, capsys):
    assert cli.main(["mcp", "install", "codex"]) == 0
    line = capsys.readouterr().out.splitlines()[1].strip()
    words = shlex.split(line)
    assert words[:4] == ["codex", "mcp", "add", "nodwyn"] and words[4] == "--env"
    assert words[words.index("--") + 1 :] == mcp_install.command("codex")


def test_the_reader_keeps_strings_whole_and_each_dialect_refuses_what_its_agent_refuses():
    text = '{"a": "x, ] // not a comment", /* c */ "b": [1,], "b": 2,}'
    assert jsonc.loads(text, "jsonc") == {"a": "x, ] // not a comment", "b": 2}  # the last b
    with pytest.raises(jsonc.Damaged):
        jsonc.loads(text, "comments")  # Gemini CLI: no trailing comma
    with pytest.raises(jsonc.Damaged):
        jsonc.loads('{"a": 1 /* c */}', "json")  # Claude Code, Copilot CLI: no comment
    with pytest.raises(jsonc.Damaged):
        jsonc.loads('{"a": NaN}', "jsonc")  # JSON.parse refuses it; Python's would not


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab ,}]/*"\\\n{[é'),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.text(alphabet="abc/,}", max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=60, deadline=None)
@given(st.dictionaries(st.text(alphabet="xyz,}", max_size=3), JSON_VALUES, max_size=4),
       st.sampled_from(["none", "comments", "commas"]))  # fmt: skip
def test_put_on_any_document_gives_it_back_with_one_member_more(document, noise):
    document.pop("mcpServers", None)
    text = json.dumps(document, indent=2, ensure_ascii=False)
    if noise == "comments":  # a comment before each line, as a person writes them
        text = "\n".join(f"// {i} {{ ,\n{line}" for i, line in enumerate(text.splitlines()))
    elif noise == "commas":  # a trailing comma after each last member
        text = text.replace("\n}", ",\n}") if document else text
    assert json5.loads(text) == document
    assert jsonc.loads(text, "jsonc") == document
    after = jsonc.put(text, ("mcpServers",), "nodwyn", {"command": "n", "args": ["a, }"]})
    read = json5.loads(after, allow_duplicate_keys=False)
    assert read == {**document, "mcpServers": {"nodwyn": {"command": "n", "args": ["a, }"]}}}
