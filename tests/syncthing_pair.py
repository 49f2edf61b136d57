"""Two real Syncthing instances (Debian's, v1 command line) that keep one folder in sync over
loopback: each with its own home, GUI port and API key, global and local discovery, relays,
NAT and usage reports off, listening on 127.0.0.1 only."""

import contextlib
import secrets
import shutil
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

FOLDER = "nodwyn-share"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Instance:
    """One Syncthing: its home, the folder it syncs, its ports and key."""

    def __init__(self, base: Path, name: str):
        self.home, self.folder, self.name = base / f"{name}-home", base / f"{name}-Sync", name
        self.gui, self.listen, self.key = free_port(), free_port(), secrets.token_hex(16)
        subprocess.run(
            ["syncthing", "generate", f"--home={self.home}", "--no-default-folder",
             "--skip-port-probing"],
            check=True, capture_output=True, timeout=60,
        )  # fmt: skip
        self.id = subprocess.run(
            ["syncthing", "serve", f"--home={self.home}", "--device-id"],
            check=True, capture_output=True, text=True, timeout=60,
        ).stdout.strip()  # fmt: skip
        self.folder.mkdir()
        (self.folder / ".stfolder").mkdir()
        self.process: subprocess.Popen | None = None

    def configure(self, peer: "Instance") -> None:
        devices = "".join(f'<device id="{d.id}"></device>' for d in (self, peer))
        known = "".join(
            f'<device id="{d.id}" name="{d.name}"><address>tcp://127.0.0.1:{d.listen}</address>'
            "</device>"
            for d in (self, peer)
        )
        (self.home / "config.xml").write_text(
            f"""<configuration version="36">
  <folder id="{FOLDER}" label="{FOLDER}" path="{self.folder}" type="sendreceive"
          rescanIntervalS="60" fsWatcherEnabled="true" fsWatcherDelayS="1">{devices}</folder>
  {known}
  <gui enabled="true" tls="false"><address>127.0.0.1:{self.gui}</address>
    <apikey>{self.key}</apikey></gui>
  <options>
    <listenAddress>tcp://127.0.0.1:{self.listen}</listenAddress>
    <globalAnnounceEnabled>false</globalAnnounceEnabled>
    <localAnnounceEnabled>false</localAnnounceEnabled>
    <relaysEnabled>false</relaysEnabled>
    <natEnabled>false</natEnabled>
    <urAccepted>-1</urAccepted>
    <crashReportingEnabled>false</crashReportingEnabled>
    <autoUpgradeIntervalH>0</autoUpgradeIntervalH>
    <startBrowser>false</startBrowser>
  </options>
</configuration>
"""
        )

    def start(self, log: Path) -> None:
        self.log = open(log, "wb")  # noqa: SIM115 (closed in stop)
        self.process = subprocess.Popen(
            ["syncthing", "serve", f"--home={self.home}", "--no-browser", "--no-restart",
             "--no-upgrade", "--no-default-folder"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )  # fmt: skip

    def call(self, method: str, path: str) -> bytes:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.gui}{path}", method=method, headers={"X-API-Key": self.key}
        )
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.read()

    def scan(self) -> None:
        """Look at the folder now (its watcher would, a second or more later)."""
        self.call("POST", f"/rest/db/scan?folder={FOLDER}")

    def wait_ready(self, deadline: float) -> None:
        while True:
            with contextlib.suppress(OSError):
                self.call("GET", "/rest/system/ping")
                return
            if time.monotonic() > deadline or self.process.poll() is not None:
                pytest.fail(f"syncthing {self.name} did not start: {self.log.name}")
            time.sleep(0.2)  # polling the API until it answers, under a deadline

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
            self.log.close()


@contextlib.contextmanager
def syncthing_pair(base: Path):
    """Two Syncthings that sync one folder; their folders (a, b)."""
    if shutil.which("syncthing") is None:
        pytest.fail("Debian's syncthing is missing (apt-get install syncthing)")
    one, two = Instance(base, "one"), Instance(base, "two")
    one.configure(two)
    two.configure(one)
    try:
        for instance in (one, two):
            instance.start(base / f"{instance.name}.log")
        deadline = time.monotonic() + 60
        for instance in (one, two):
            instance.wait_ready(deadline)
        yield one, two
    finally:
        one.stop()
        two.stop()
