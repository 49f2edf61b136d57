"""The Linux package, checked on this machine: `python packaging/check.py` (.ci/run calls it).

1. builds the one-folder bundle and the .deb as released, xz (packaging/build.py), so its
   size is the download's;
2. installs the .deb with `dpkg -i` and validates its desktop file with `desktop-file-validate`;
3. starts the installed app (/usr/bin/nodwyn-app, i.e. the bundle, not the source tree) under
   a fresh Xvfb with a system tray (trayer), with `--demo --self-check REPORT`: the app waits
   for its page to list the demo tasks, works every tray item, writes what it saw and quits
   through the tray; the check wants exit status 0, no failed step and the demo tasks listed;
4. starts the installed app's MCP server as Settings > Agents' memory writes it for an agent
   (the launcher with `--nodwyn-cli mcp`) and lists its tools over stdio;
5. installs every agent's hooks with the installed app into a fresh HOME (`--nodwyn-cli hooks
   install AGENT --write`), plays a permission asked through the command Claude Code's
   settings then hold (the launcher's `--nodwyn-cli hook`, no app running: spooled), and reads
   it back from `sessions --live` of the installed app serving;
6. removes the package again with `dpkg -r`, so the machine stays as it was.
It prints the bundle's and the .deb's sizes, its time to first paint: from starting the
process to the first frame of the screen that shows the page (its sidebar colour, --bg-side in
frontend/style.css), read by polling the X screen every 50 ms from outside the app, and the
installed app's idle memory (PSS summed over all its processes: the app, the window's, the web
engine's) with the window open and with it closed to the tray, measured by its self-check
(app/desktop/idle.py), each beside its goal (ADR 0060).

Needs root (dpkg) and: xvfb, trayer, desktop-file-utils (apt), PyInstaller (pip); .ci/run
installs them. The app's log, report and screenshot are left in test-artifacts/package-check/.
Options: --no-build reuses build/dist/; --keep leaves the package installed.
Figures are noisy on a shared 2-core machine.
"""

import argparse
import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

from PIL import ImageGrab

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import build  # noqa: E402
import linux  # noqa: E402

ARTIFACTS = ROOT / "test-artifacts" / "package-check"  # the report, screenshot and app log
INSTALLED = Path("/usr/bin/nodwyn-app")
DESKTOP_FILE = Path("/usr/share/applications/nodwyn.desktop")
SIDEBAR = (245, 246, 248)  # --bg-side, light scheme
SCREEN = "1280x800x24"
TRAYER = ["trayer", "--edge", "top", "--align", "right", "--widthtype", "pixel"] + [
    "--width", "64", "--heighttype", "pixel", "--height", "32",
]  # fmt: skip
START_LIMIT = 90  # seconds to first paint before a start counts as hung (it takes ~2-10 s)
QUIT_LIMIT = 180  # seconds for the self-check's steps after the first paint
ATTEMPTS = 3
IDLE_SECONDS = 10  # the self-check's idle measure, window open then closed (CPU over this)
# Goals of the Linux package (ADR 0060): bundle and .deb sizes, idle PSS open and closed.
GOALS = {"bundle_mb": 200, "deb_mb": 80, "open_pss_mb": 250, "closed_pss_mb": 120}
TOOLS = {"Xvfb": "xvfb", "trayer": "trayer", "desktop-file-validate": "desktop-file-utils"}


class Failed(Exception):
    """A step of the check did not do what it should."""


def start_display() -> tuple[subprocess.Popen, str]:
    """A fresh Xvfb on a free display number (Xvfb picks it and writes it to a pipe)."""
    read, write = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write), "-screen", "0", SCREEN, "-nolisten", "tcp"],
        pass_fds=(write,),
        stderr=subprocess.DEVNULL,
    )
    os.close(write)
    with os.fdopen(read) as pipe:
        number = pipe.readline().strip()
    if not number:
        raise Failed("Xvfb did not start")
    return server, f":{number}"


def painted(display: str) -> bool:
    colours = ImageGrab.grab(xdisplay=display).convert("RGB").getcolors(1 << 24) or []
    return any(count > 10_000 and colour == SIDEBAR for count, colour in colours)


def watch_paint(display: str) -> None:
    """`check.py --watch-paint DISPLAY`: print the monotonic time the page first shows.

    A process of its own, not a thread: while an X client holds a server grab, a screen grab
    waits inside Pillow without letting go of the GIL, and the check must still time out.
    CLOCK_MONOTONIC is one clock for every process of the machine.
    """
    while not painted(display):
        time.sleep(0.05)
    print(time.monotonic(), flush=True)


def app_env(display: str, work: Path) -> dict:
    env = {
        **os.environ,
        "DISPLAY": display,
        "NODWYN_DATA_DIR": str(work / "data"),
        "CLAUDE_CONFIG_DIR": str(work / "claude"),
        "CODEX_HOME": str(work / "codex"),
        "QTWEBENGINE_CHROMIUM_FLAGS": "--disable-gpu",
        "PYSTRAY_BACKEND": "xorg",
        "NODWYN_SELFCHECK_IDLE": str(IDLE_SECONDS),
        "NODWYN_MODEL_KEEP_ALIVE": "5",  # the sentence model's child ends before the measure
    }
    for name in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "LD_LIBRARY_PATH"):
        env.pop(name, None)  # the bundle must stand on its own
    return env


def tray_up(display: str, limit: float = 60.0) -> None:
    """Wait until a tray manager (trayer) holds the display's system-tray selection: an app
    started before it has no tray, and closing its window would quit it."""
    from Xlib import X
    from Xlib import display as xdisplay

    screen = xdisplay.Display(display)
    try:
        atom = screen.intern_atom(f"_NET_SYSTEM_TRAY_S{screen.get_default_screen()}")
        end = time.monotonic() + limit
        while screen.get_selection_owner(atom) == X.NONE:
            if time.monotonic() > end:
                raise SystemExit(f"no tray manager took the tray on {display} in {limit:.0f} s")
            time.sleep(0.02)
    finally:
        screen.close()


def attempt(app: Path, work: Path) -> dict:
    """One start of the app with --demo --self-check under a fresh Xvfb and tray.

    Returns {"report", "first_paint", "total", "hung", "log"}; "hung" when the page did not
    show within START_LIMIT seconds (then the app is killed).
    """
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    server, display = start_display()
    env = app_env(display, work)
    helpers = [server]
    try:
        helpers.append(subprocess.Popen(TRAYER, env=env, stderr=subprocess.DEVNULL))
        tray_up(display)  # the app looks for a tray once, as it starts
        watcher = subprocess.Popen(
            [sys.executable, __file__, "--watch-paint", display], stdout=subprocess.PIPE, text=True
        )
        helpers.append(watcher)
        with (work / "app.log").open("w") as log:
            started = time.monotonic()
            app_process = subprocess.Popen(
                [str(app), "--demo", "--self-check", str(work / "report.json")],
                env=env,
                stdout=log,
                stderr=log,
            )
            line = wait_line(watcher, app_process, START_LIMIT)
            first_paint = float(line) - started if line else None
            hung = first_paint is None and app_process.poll() is None
            if not hung:
                with contextlib.suppress(subprocess.TimeoutExpired):
                    app_process.wait(QUIT_LIMIT)
            if app_process.poll() is None:
                app_process.kill()
                app_process.wait()
            total = time.monotonic() - started
    finally:
        for process in reversed(helpers):
            process.kill()
            process.wait()
    report = work / "report.json"
    return {
        "report": json.loads(report.read_text()) if report.exists() else None,
        "code": app_process.returncode,
        "first_paint": first_paint,
        "total": total,
        "hung": hung,
        "log": (work / "app.log").read_text(errors="replace")[-3000:],
    }


def wait_line(process: subprocess.Popen, app: subprocess.Popen, limit: float) -> str | None:
    """The first line `process` prints within `limit` seconds while `app` runs, else None."""
    found: list[str] = []
    reader = threading.Thread(target=lambda: found.append(process.stdout.readline()))
    reader.daemon = True
    reader.start()
    deadline = time.monotonic() + limit
    while reader.is_alive() and app.poll() is None and time.monotonic() < deadline:
        reader.join(0.1)
    return found[0].strip() if found and found[0].strip() else None


def smoke_start(app: Path, work: Path) -> dict:
    """Start the app until one start gets past its first paint (at most ATTEMPTS starts).

    A start that hangs before its page shows is the desktop app's own start-up race (the
    tray's X connection and Qt's, both waiting on the X server; reproduced from the source
    tree too, see the report of issue 7): it is printed, never hidden, and the app is
    started again. Anything else that goes wrong fails the check at once.
    """
    for number in range(1, ATTEMPTS + 1):
        result = attempt(app, work)
        if not result["hung"]:
            break
        print(f"start {number}: the page did not show within {START_LIMIT} s (a hang); its log:")
        print(result["log"][-800:] or "(empty)")
    else:
        raise Failed(f"every one of {ATTEMPTS} starts hung before its page showed")
    if result["code"] != 0 or result["report"] is None:
        raise Failed(
            f"the app ended with {result['code']} (report: {result['report'] is not None})"
            f", it said:\n{result['log']}"
        )
    return result


def judge(result: dict) -> None:
    seen = result["report"]
    if seen.get("errors"):
        raise Failed(f"self-check steps failed: {json.dumps(seen['errors'], indent=1)}")
    tasks = dict(seen.get("tasks") or [])
    if "demo-pager-limit" not in tasks:
        raise Failed(f"the sidebar did not list the demo tasks: {sorted(tasks)}")
    if result["first_paint"] is None:
        raise Failed("the page never showed on the screen")
    print(f"the window listed {len(tasks)} demo tasks; every tray item did its work")


MCP_HELLO = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2024-11-05", "capabilities": {},
        "clientInfo": {"name": "packaging-check", "version": "1"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]  # fmt: skip


def mcp_tools(app: Path, work: Path) -> list[str]:
    """The installed app's MCP server, started as Settings > Agents' memory writes it into an
    agent's config (the launcher with --nodwyn-cli mcp): the tools it lists over stdio. Talked
    to as an agent does: each request waits for its answer, and stdin stays open until the
    last one came (a server may drop an answer still in flight when its stdin closes)."""
    env = {**os.environ, "NODWYN_DATA_DIR": str(work / "mcp-data")}
    errors = work / "mcp-stderr.txt"
    with errors.open("w") as err:
        server = subprocess.Popen([str(app), "--nodwyn-cli", "mcp", "--agent", "claude"],
                                  env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=err, text=True)  # fmt: skip
    late = threading.Event()  # set when the 120 s ran out and the server was killed
    timer = threading.Timer(120, lambda: (late.set(), server.kill()))
    timer.start()
    heard: list[str] = []
    try:
        for message in MCP_HELLO:
            try:
                server.stdin.write(json.dumps(message) + "\n")
                server.stdin.flush()
            except BrokenPipeError:
                break
            if "id" not in message:
                continue
            answer = answer_to(server.stdout, message["id"], heard)
            if answer is None:
                break
            if message["id"] == 2:
                return [tool["name"] for tool in answer["result"]["tools"]]
    finally:
        timer.cancel()
        with contextlib.suppress(OSError):
            server.stdin.close()
        server.kill()
        server.wait()
    if late.is_set():
        raise Failed("the installed app's MCP server did not answer within 120 s")
    raise Failed(f"the installed app's MCP server listed no tools (exit {server.returncode}):\n"
                 f"{''.join(heard)[-1000:]}{errors.read_text()[-2000:]}")  # fmt: skip


def answer_to(stdout, request: int, heard: list[str]) -> dict | None:
    """The server's answer to one request, read line by line (notifications and log lines
    before it are kept in `heard`); None when the server closed its stdout first."""
    for line in stdout:
        heard.append(line)
        with contextlib.suppress(ValueError):
            answer = json.loads(line)
            if isinstance(answer, dict) and answer.get("id") == request:
                return answer
    return None


HOOKED = ("claude", "codex", "gemini", "copilot", "opencode", "cursor", "aider")
ASKED = {"session_id": "0c0c0c0c-0000-4000-8000-00000000c4ec", "cwd": "/tmp",
         "hook_event_name": "PermissionRequest", "tool_name": "Bash",
         "tool_input": {"command": "rm -rf build"}}  # fmt: skip


def hooks_played(app: Path, work: Path) -> str:
    """The installed app's hooks in a fresh HOME, one event played through them and read back."""
    home = work / "hooks-home"
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "NODWYN_DATA_DIR": str(work / "hooks-data")}
    for moved in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
                  "XDG_CONFIG_HOME"):  # fmt: skip
        env.pop(moved, None)
    cli = [str(app), "--nodwyn-cli"]
    for agent in HOOKED:
        subprocess.run([*cli, "hooks", "install", agent, "--write"], env=env, check=True,
                       capture_output=True, timeout=120)  # fmt: skip
    hooks = json.loads((home / ".claude" / "settings.json").read_text())["hooks"]
    command = hooks["PermissionRequest"][-1]["hooks"][0]["command"]
    if "--nodwyn-cli hook" not in command:
        raise Failed(f"Claude Code's hook does not run the installed app: {command}")
    subprocess.run(command, shell=True, input=json.dumps(ASKED), text=True, env=env, timeout=60,
                   check=True)  # fmt: skip
    serve = subprocess.Popen([*cli, "serve", "--port", "0"], env=env, stdout=subprocess.PIPE,
                             text=True)  # fmt: skip
    try:
        serve.stdout.readline()  # the address line: the spool has been read
        done = subprocess.run([*cli, "sessions", "--live", "--json"], env=env, text=True,
                              capture_output=True, timeout=120)  # fmt: skip
    finally:
        serve.terminate()
        serve.wait(timeout=60)
    states = json.loads(done.stdout or "[]")
    if not any(state["what"] == "Bash: rm -rf build" for state in states):
        raise Failed(f"the played hook's event was not read back: {done.stdout}{done.stderr}")
    return f"{len(HOOKED)} agents' hooks installed in a fresh HOME; Claude Code's read back"


def install(deb: Path) -> None:
    subprocess.run(["dpkg", "-i", str(deb)], check=True, stdout=subprocess.DEVNULL)
    if not INSTALLED.exists() or not DESKTOP_FILE.exists():
        raise Failed(f"dpkg -i left no {INSTALLED} or {DESKTOP_FILE}")
    done = subprocess.run(["desktop-file-validate", str(DESKTOP_FILE)], capture_output=True)
    if done.returncode != 0 or done.stdout.strip():
        raise Failed(f"desktop-file-validate: {done.stdout.decode()}{done.stderr.decode()}")
    print(f"dpkg -i {deb.name}: installed; {DESKTOP_FILE} validates")


def installed() -> bool:
    done = subprocess.run(["dpkg-query", "-W", "-f=${Status}", "nodwyn"], capture_output=True)
    return done.returncode == 0 and b"not-installed" not in done.stdout


def remove() -> None:
    subprocess.run(["dpkg", "-r", "nodwyn"], check=True, stdout=subprocess.DEVNULL)
    if Path("/opt/nodwyn").exists() or INSTALLED.exists():
        raise Failed("dpkg -r nodwyn left files behind")
    print("dpkg -r nodwyn: removed, nothing left behind")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="reuse build/dist/")
    parser.add_argument("--keep", action="store_true", help="leave the package installed")
    parser.add_argument("--watch-paint", metavar="DISPLAY", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.watch_paint:
        watch_paint(args.watch_paint)
        return 0
    missing = [f"{tool} (apt {pkg})" for tool, pkg in TOOLS.items() if not shutil.which(tool)]
    if not sys.platform.startswith("linux") or os.geteuid() != 0 or missing:
        print(f"packaging/check.py needs Linux, root and {', '.join(missing) or 'its tools'}")
        return 1
    if build.main(["--no-bundle"] if args.no_build else []) != 0:
        return 1
    deb = build.DIST / f"nodwyn_{build.version()}_{linux.architecture()}.deb"
    try:
        install(deb)
        shutil.rmtree(ARTIFACTS, ignore_errors=True)
        ARTIFACTS.mkdir(parents=True)
        result = smoke_start(INSTALLED, ARTIFACTS)
        judge(result)
        tools = mcp_tools(INSTALLED, ARTIFACTS)
        print(f"the installed app's MCP server lists {len(tools)} tools: {', '.join(tools)}")
        print(hooks_played(INSTALLED, ARTIFACTS))
    except (Failed, subprocess.CalledProcessError) as failure:
        print(f"FAILED: {failure}", file=sys.stderr)
        return 1
    finally:
        if not args.keep and installed():
            remove()
    print(
        f"time to first paint {result['first_paint']:.1f} s; "
        f"self-check done and quit after {result['total']:.1f} s"
    )
    return figures(build.size_mb(build.bundle_path()), deb.stat().st_size / 1e6, result["report"])


def figures(bundle_mb: float, deb_mb: float, report: dict) -> int:
    """Print the sizes and the idle memory beside their goals; 1 when a size is over its goal
    or a figure was not measured. Idle memory over its goal is said, not failed: it moves by
    tens of MB with the machine's load (ADR 0060)."""
    idle = report.get("idle") or {}
    found = {
        "bundle_mb": bundle_mb,
        "deb_mb": deb_mb,
        "open_pss_mb": (idle.get("open") or {}).get("pss_mb"),
        "closed_pss_mb": (idle.get("closed") or {}).get("pss_mb"),
    }
    over = []
    for name, value in found.items():
        if value is None:
            over.append(name)
            print(f"{name}: not measured (the self-check's idle step: {idle or 'missing'})")
            continue
        print(f"{name}: {value:.0f} (goal under {GOALS[name]})")
        if value >= GOALS[name] and name.endswith("pss_mb"):
            print(f"  {name} is over its goal (said, not failed: see ADR 0060)")
        elif value >= GOALS[name]:
            over.append(name)
    for state in ("open", "closed"):
        for row in (idle.get(state) or {}).get("each", []):
            print(
                f"  {state}: {row['kind']} PSS {row['pss_mb']:.0f} MB, RSS {row['rss_mb']:.0f} MB"
            )
    if over:
        print(f"FAILED: over the goal or not measured: {', '.join(over)}", file=sys.stderr)
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
