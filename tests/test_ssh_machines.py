"""SSH machines pulled by the real ssh, rsync and sftp from a real sshd on 127.0.0.1 (sshd.py):
every session once, stamped with the machine it ran on, only what grew crossing, and every
fault said in one line: a refused port, a changed or unknown host key, a key refused, no rsync
on the far end, folder names with spaces, quotes and shell words, hostile host names, a pull
killed with -9 (while it copies, while it imports)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import ssh_sessions
from nodwyn.errors import BadInput
from nodwyn.importers.sync import import_paths
from nodwyn.log import logfile
from nodwyn.log import records as r
from nodwyn.machines import pull, ssh, transfer
from nodwyn.tasks.store import Store
from ssh_pulls import far_fixture, folders, local_tasks, nodwyn, starts, store_fixture  # noqa: F401 (the fixtures)
from sshd import server_fixture  # noqa: F401 (the fixture)


@pytest.mark.parametrize("alias, via", [("plain", "rsync"), ("norsync", "sftp")])
def test_a_pull_imports_each_session_once_stamped_with_its_machine(
    store, far, tmp_path, alias, via
):
    host = ssh.add(store.root, alias, folders(far))
    done = pull.pull(store.root, store, host)
    assert (done.error, done.via) == ("", via)
    found = starts(store)
    assert set(found) == local_tasks(tmp_path, far) and done.created == len(found)
    assert {start.origin.machine for start in found.values()} == {host.id}
    again = pull.pull(store.root, store, host)
    assert (again.error, again.created, again.extended) == ("", 0, 0)
    assert set(starts(store)) == set(found)
    kept = ssh.hosts(store.root)[0]
    assert kept.error == "" and kept.pulled > 0 and kept.via == via


def test_a_host_reached_through_a_proxyjump_of_the_ssh_config_is_pulled(store, far, tmp_path):
    host = ssh.add(store.root, "jumped", folders(far))  # ~/.ssh/config: ProxyJump plain
    done = pull.pull(store.root, store, host)
    assert (done.error, done.via, done.created) == ("", "rsync", len(local_tasks(tmp_path, far)))


@pytest.mark.parametrize("alias", ["plain", "norsync"])
def test_only_what_grew_crosses(store, tmp_path, alias):
    folder = tmp_path / "far end" / "claude"
    path = ssh_sessions.session(folder, "/srv/app", turns=400)
    host = ssh.add(store.root, alias, [f"claude={folder}"])
    first = pull.pull(store.root, store, host)
    idle = pull.pull(store.root, store, host)
    grown = ssh_sessions.grow(path)
    after = pull.pull(store.root, store, host)
    assert first.error == "" and first.received > 0  # compressed by rsync: less than the file
    assert first.size >= path.stat().st_size - grown
    assert (after.error, after.created, after.extended) == ("", 0, 1)
    assert after.received - idle.received <= grown + 512  # the new turn, not the file again
    copy = next(Path(host_mirror(store, host)).rglob(path.name))
    assert copy.read_bytes() == path.read_bytes()


def host_mirror(store: Store, host: ssh.Host) -> Path:
    return ssh.mirror(store.root, host.id)


@pytest.mark.parametrize("alias", ["plain", "norsync"])
def test_a_session_rewritten_whole_there_is_copied_whole_and_gains_its_new_turn(
    store, tmp_path, alias
):
    from test_import_gemini import SESSION, document, gemini, meta, project_dir, user

    chats = project_dir(tmp_path / "far end")  # <far end>/.gemini/tmp/pager/chats
    (chats.parent / ".project_root").write_text("/home/ana/pager\n")
    path = chats / f"session-2026-05-01T10-00-{SESSION[:8]}.json"
    first = [user(1, "Fix the pager"), gemini(1, "Fixed.")]
    document(path, meta(messages=first))
    appended = ssh_sessions.session(tmp_path / "far end" / "claude", "/srv/app", turns=2)
    host = ssh.add(
        store.root, alias, [f"gemini={chats.parent.parent}", f"claude={appended.parent}"]
    )
    assert pull.pull(store.root, store, host).created == 2  # a copy of each kind, each its call
    # Gemini CLI writes the file over: its start changes too (lastUpdated), not only its end
    later = meta(lastUpdated="2026-05-01T11:00:00.000Z")
    document(path, {**later, "messages": [*first, user(2, "Now the tests"), gemini(2, "Done.")]})
    done = pull.pull(store.root, store, host)
    assert (done.error, done.extended) == ("", 1)
    assert next(ssh.mirror(store.root, host.id).rglob(path.name)).read_bytes() == path.read_bytes()
    assert store.get(f"gm-{SESSION}").turns == 2
    # each call's --delete stays within its own folders: the other kind's copy is still there
    assert next(ssh.mirror(store.root, host.id).rglob(appended.name)).exists()


HOSTILE = 'it\'s "quoted"; $(touch {pwned}) `touch {pwned}` [a]*?'


@pytest.mark.parametrize("alias", ["plain", "norsync"])
def test_folder_names_with_spaces_quotes_and_shell_words_are_only_names(store, tmp_path, alias):
    pwned = tmp_path / "pwned"
    folder = tmp_path / "far end" / HOSTILE.format(pwned=pwned) / "sessions"
    ssh_sessions.session(folder, "/srv/app", turns=3)
    host = ssh.add(store.root, alias, [f"claude={folder}"])
    done = pull.pull(store.root, store, host)
    assert (done.error, done.created) == ("", 1)
    assert not pwned.exists() and not Path("pwned").exists()


def test_a_folder_named_like_an_option_is_a_folder(store, server, tmp_path):
    home = server.folder / "home"
    made = ssh_sessions.session(home / "-rf sessions", "/srv/app", turns=2)
    try:
        host = ssh.add(store.root, "home", ["claude=~/-rf sessions"])
        assert pull.pull(store.root, store, host).created == 1  # by rsync
        mirror = tmp_path / "by sftp"
        mirror.mkdir()
        (copied,) = transfer.by_sftp("home", "home", mirror, [("~/-rf sessions", False)])
        assert copied.error == "" and copied.received == made.stat().st_size
    finally:
        shutil.rmtree(home / "-rf sessions")


@pytest.mark.parametrize(
    "host",
    ["a;touch {pwned}", "-oProxyCommand=touch {pwned}", "$(touch {pwned})", "a'b", "a b",
     "`touch {pwned}`", 'a"b', "a\nb", ""],
)  # fmt: skip
def test_hostile_host_names_are_refused_before_anything_runs(store, tmp_path, host):
    pwned = tmp_path / "pwned"
    with pytest.raises(BadInput, match="not a host ssh can be given"):
        ssh.add(store.root, host.format(pwned=pwned))
    assert ssh.hosts(store.root) == [] and not pwned.exists()


def test_the_command_line_refuses_a_hostile_host_in_one_line(store, tmp_path):
    pwned = tmp_path / "pwned"
    done = nodwyn(store, "machines", "add", "ssh", f"x;touch {pwned}")
    assert done.returncode == 1 and not pwned.exists()
    assert len(done.stderr.strip().splitlines()) == 1 and "not a host" in done.stderr


@pytest.mark.parametrize(
    "alias, said",
    [
        ("closed", "closed: connection refused; is sshd running there"),
        ("changed", "changed: host key changed; run ssh changed once to check it"),
        ("unknown", "unknown: host key not known yet; run ssh unknown once to check and accept"),
        ("stranger", "stranger: permission denied; add your key there (ssh-copy-id stranger)"),
    ],
)
def test_what_ssh_refuses_is_said_in_one_line_and_kept(store, far, alias, said):
    host = ssh.add(store.root, alias, folders(far))
    done = pull.pull(store.root, store, host)
    assert done.error.startswith(said) and "\n" not in done.error
    assert ssh.hosts(store.root)[0].error == done.error
    assert starts(store) == {}


def test_a_folder_not_there_is_said_and_the_others_pulled(store, far, tmp_path):
    host = ssh.add(store.root, "plain", [*folders(far), f"codex={tmp_path}/nowhere"])
    done = pull.pull(store.root, store, host)
    assert done.error == f"plain: no folder {tmp_path}/nowhere there; check --folder " \
        "(nodwyn machines add ssh HOST --folder AGENT=PATH)"  # fmt: skip
    assert done.created == len(local_tasks(tmp_path, far))


def test_the_agents_own_folders_in_the_remote_home_are_pulled(store, server, tmp_path):
    host = ssh.add(store.root, "home")  # no --folder: ~/.claude/projects, ~/.codex/sessions...
    done = pull.pull(store.root, store, host)
    assert done.error == (
        "home: no agent's sessions in the usual folders there; name them with "
        "nodwyn machines add ssh home --folder AGENT=PATH"
    )
    home = server.folder / "home"
    written = ssh_sessions.fixture_corpus(home / "written")
    shutil.copytree(written["claude"], home / ".claude" / "projects" / "-srv-app")
    shutil.copytree(written["codex"], home / ".codex" / "sessions" / "2025" / "09" / "03")
    expected = local_tasks(tmp_path, written)
    try:
        again = pull.pull(store.root, store, host)
        named = ssh.add(store.root, "home", ["claude=~/.claude/projects", "codex=~//.codex/"])
        assert pull.pull(store.root, store, named).error == ""  # as typed, ~ and all
    finally:
        for made in (".claude", ".codex", "written"):
            shutil.rmtree(home / made)
    assert (again.error, again.via) == ("", "rsync")
    assert set(starts(store)) == expected and any(t.startswith("cx-") for t in expected)
    assert {start.origin.machine for start in starts(store).values()} == {host.id}


def test_a_pull_killed_with_9_and_started_again_loses_and_doubles_nothing(store, tmp_path):
    folder = tmp_path / "far end" / "claude"
    small = ssh_sessions.session(folder / "a", "/srv/a", turns=20)
    big = ssh_sessions.session(folder / "b", "/srv/b", turns=3000, words="x" * 400)
    host = ssh.add(store.root, "slow", [f"claude={folder}"])  # rsync at 256 KiB/s
    process = subprocess.Popen(
        [sys.executable, "-m", "nodwyn.cli", "machines", "pull", "slow"],
        env=os.environ.copy(), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    mirror = ssh.mirror(store.root, host.id)
    deadline = time.monotonic() + 60
    while not 0 < _size(mirror, big.name) < big.stat().st_size // 2:
        assert time.monotonic() < deadline and process.poll() is None, "no copy under way"
        time.sleep(0.02)
    beside = pull.pull(store.root, store, host)  # the page's Pull now meanwhile: refused
    assert beside.error == "slow: a pull is already under way" and beside.created == 0
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    done = pull.pull(store.root, store, host)
    assert done.error == ""
    assert next(mirror.rglob(big.name)).read_bytes() == big.read_bytes()
    here = Store(tmp_path / "here")
    import_paths(here, "claude", [folder])
    for log in here.sessions.glob("*.jsonl"):
        assert _records(store.sessions / log.name) == _records(log)
    assert set(starts(store)) == set(starts(here)) and len(starts(here)) == 2 and small.exists()


def test_a_pull_killed_with_9_while_it_imports_loses_and_doubles_nothing(store, tmp_path):
    folder = tmp_path / "far end" / "claude"
    for n in range(300):
        ssh_sessions.session(folder / f"p{n:03d}", f"/srv/{n}", turns=20)
    host = ssh.add(store.root, "plain", [f"claude={folder}"])
    process = subprocess.Popen(
        [sys.executable, "-m", "nodwyn.cli", "machines", "pull", "plain"],
        env=os.environ.copy(), start_new_session=True,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while not any(store.sessions.glob("*.jsonl")):  # the first task is written: kill it
        assert time.monotonic() < deadline and process.poll() is None, "no import under way"
        time.sleep(0.01)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert len(list(store.sessions.glob("*.jsonl"))) < 300  # killed halfway through
    assert pull.pull(store.root, store, host).error == ""
    here = Store(tmp_path / "here")
    import_paths(here, "claude", [folder])
    assert set(starts(store)) == set(starts(here))
    for log in here.sessions.glob("*.jsonl"):
        assert _records(store.sessions / log.name) == _records(log)


def _size(mirror: Path, name: str) -> int:
    found = list(mirror.rglob(name))
    return found[0].stat().st_size if found else 0


def _records(log: Path) -> list[dict]:
    """A log's records as the agent said them (not where, when nor from which machine read)."""
    out = []
    for _, _, record in logfile.read(log):
        data = json.loads(r.encode(record))
        data.pop("at", None)
        if isinstance(record, r.SessionStart):
            data["origin"] = {"tool": record.origin.tool, "id": record.origin.id}
        out.append(data)
    return out


def test_records_are_redacted_before_they_are_written(store, tmp_path):
    folder = tmp_path / "far end" / "claude"
    secret = "sk-ant-api03-" + "Q" * 90
    path = ssh_sessions.session(folder, "/srv/app", turns=2, words=f"the key is {secret}")
    host = ssh.add(store.root, "plain", [f"claude={folder}"])
    assert pull.pull(store.root, store, host).created == 1
    (log,) = store.sessions.glob("*.jsonl")
    assert secret not in log.read_text() and "[redacted]" in log.read_text()
    assert secret in path.read_text()  # the far end's file is never touched
