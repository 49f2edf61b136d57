"""What the desktop app's process loads as it starts: the modules a page, a tray and a worker
need, and not those only a later request needs (each is loaded when first asked)."""

import subprocess
import sys

LATER = ("markdown_it", "difflib", "PIL.ImageDraw", "PIL.ImageFont", "urllib.request", "tantivy")


def test_the_app_starts_without_what_only_a_later_request_needs():
    code = (
        "import sys, nodwyn.desktop.app, nodwyn.api.routes, nodwyn.api.server; "
        f"print(sorted(set({LATER!r}) & set(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
