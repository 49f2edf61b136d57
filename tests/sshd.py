"""A real OpenSSH server on 127.0.0.1 for the tests of SSH machines, made in a temporary folder:
its own sshd_config, host key and authorized_keys, on a free port, and an ssh client config
(used through NODWYN_SSH_CONFIG, as `ssh -F` would) whose Host aliases reach it in the ways
the tests need:

- `plain`: the far end has rsync;
- `norsync`: a key whose sessions get a PATH without rsync (authorized_keys' `environment=`),
  so the pull must fall back to sftp (sftp-server is started by its full path);
- `slow`: a key whose PATH puts first an rsync that sends at 256 KiB/s, so a pull can be
  killed halfway through a file, and a `claude` that prints its folder and its arguments
  (and writes them in `<folder>/claude-ran`);
- `home`: a key whose commands start in `<folder>/home`, an empty home folder of its own, so
  the agents' default folders there are the test's to write;
- `changed`: the right server, but a known_hosts file holding another key for it;
- `unknown`: the right server, but a known_hosts file with no key for it;
- `stranger`: a key the server does not know;
- `closed`: a port nothing listens on;
- `jumped`: the server reached through `plain` by ProxyJump (as a bastion host is).

`start(folder)` returns the running server, or raises Unavailable with the reason; `server` is
the module-scoped pytest fixture of it (imported by a module as `server_fixture`).
"""

import os
import pwd
import shlex
import shutil
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

SSHD = "/usr/sbin/sshd"
SFTP_SERVER = "/usr/lib/openssh/sftp-server"


class Unavailable(Exception):
    """sshd cannot start here (the text says why)."""


@dataclass
class Server:
    folder: Path  # `home` below it is the far end's home folder for the `home` alias
    port: int
    config: Path  # the client's ssh config
    process: subprocess.Popen

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _keygen(path: Path) -> str:
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)], check=True)
    return path.with_suffix(".pub").read_text().split(" ")[:2]


def _bin(folder: Path, **scripts: str) -> Path:
    """A folder for PATH holding sh and the scripts given (name -> text)."""
    folder.mkdir()
    (folder / "sh").symlink_to("/bin/sh")
    for name, text in scripts.items():
        (folder / name).write_text(text)
        (folder / name).chmod(0o755)
    return folder


def start(folder: Path) -> Server:
    for program in (SSHD, SFTP_SERVER):
        if not os.path.exists(program):
            raise Unavailable(f"{program} is missing: apt-get install -y openssh-server rsync")
    for program in ("ssh", "sftp", "rsync", "ssh-keygen"):
        if shutil.which(program) is None:
            raise Unavailable(f"no {program} on PATH: apt-get install -y openssh-client rsync")
    Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation folder
    host_key = _keygen(folder / "host_key")
    wrong_key = _keygen(folder / "other_host_key")
    keys = {
        name: _keygen(folder / f"id_{name}")
        for name in ("plain", "norsync", "slow", "home", "stranger")  # the last not authorized
    }
    (folder / "home").mkdir()
    (folder / "in-home").write_text(  # the forced command of the `home` key
        f"#!/bin/sh\ncd {shlex.quote(str(folder / 'home'))} && "
        'exec /bin/sh -c "$SSH_ORIGINAL_COMMAND"\n'
    )
    (folder / "in-home").chmod(0o755)
    norsync = _bin(folder / "norsync-bin")
    slow = _bin(
        folder / "slow-bin",
        rsync='#!/bin/sh\nexec /usr/bin/rsync --bwlimit=256 "$@"\n',
        # says where it runs and what it got, and writes it down in <folder>/claude-ran
        claude=f'#!/bin/sh\n{{ pwd; printf "%s\\n" "$@"; }} | tee {folder}/claude-ran\n',
    )
    (folder / "authorized_keys").write_text(
        f"{' '.join(keys['plain'])} plain\n"
        f'environment="PATH={norsync}" {" ".join(keys["norsync"])} norsync\n'
        f'environment="PATH={slow}:/usr/bin:/bin" {" ".join(keys["slow"])} slow\n'
        f'command="{folder}/in-home" {" ".join(keys["home"])} home\n'
    )
    port = free_port()
    (folder / "known_hosts").write_text(f"[127.0.0.1]:{port} {' '.join(host_key)}\n")
    (folder / "known_hosts_wrong").write_text(f"[127.0.0.1]:{port} {' '.join(wrong_key)}\n")
    (folder / "known_hosts_none").write_text("")
    (folder / "sshd_config").write_text(_sshd_config(folder, port))
    config = folder / "ssh_config"
    config.write_text(_client_config(folder, port, free_port()))
    with open(folder / "sshd.log", "wb") as log:  # sshd keeps its own copy of the handle
        process = subprocess.Popen(
            [SSHD, "-D", "-e", "-f", str(folder / "sshd_config")],
            stdout=subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
    _wait_listening(process, port, folder / "sshd.log")
    return Server(folder=folder, port=port, config=config, process=process)


def _wait_listening(process: subprocess.Popen, port: int, log: Path) -> None:
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise Unavailable(f"sshd ended at once: {log.read_text().strip()[-300:]}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    process.kill()
    raise Unavailable("sshd did not listen within 20 s")


def _sshd_config(folder: Path, port: int) -> str:
    return f"""Port {port}
ListenAddress 127.0.0.1
HostKey {folder}/host_key
AuthorizedKeysFile {folder}/authorized_keys
PidFile {folder}/sshd.pid
PermitRootLogin prohibit-password
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
StrictModes no
PermitUserEnvironment PATH
Subsystem sftp {SFTP_SERVER}
LogLevel ERROR
"""


def _client_config(folder: Path, port: int, closed: int) -> str:
    blocks = {
        "plain": (port, "plain", "known_hosts"),
        "norsync": (port, "norsync", "known_hosts"),
        "slow": (port, "slow", "known_hosts"),
        "home": (port, "home", "known_hosts"),
        "changed": (port, "plain", "known_hosts_wrong"),
        "unknown": (port, "plain", "known_hosts_none"),
        "stranger": (port, "stranger", "known_hosts"),
        "closed": (closed, "plain", "known_hosts"),
        "jumped": (port, "plain", "known_hosts"),
    }
    return (
        "".join(
            f"""Host {alias}
  HostName 127.0.0.1
  Port {at}
  User {pwd.getpwuid(os.getuid()).pw_name}
  IdentityFile {folder}/id_{key}
  IdentitiesOnly yes
  IdentityAgent none
  UserKnownHostsFile {folder}/{known}
  StrictHostKeyChecking yes
  ControlMaster no
"""
            for alias, (at, key, known) in blocks.items()
        )
        + "Host jumped\n  ProxyJump plain\n"
    )


@pytest.fixture(scope="module", name="server")
def server_fixture(tmp_path_factory):
    """A running server for a test module, skipped with the reason where sshd cannot start."""
    try:
        running = start(tmp_path_factory.mktemp("sshd"))
    except Unavailable as exc:
        pytest.skip(f"no sshd to pull from: {exc}")
    yield running
    running.stop()
