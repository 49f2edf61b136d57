"""The page's JavaScript is type-checked: every frontend/js file says `// @ts-check`, and
TypeScript's own checker (scripts/check-js, pinned in tools/jscheck) finds no error in it."""

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_every_js_file_asks_to_be_checked():
    files = sorted((ROOT / "frontend" / "js").glob("*.js"))
    assert files
    assert [f.name for f in files if not f.read_text().startswith("// @ts-check")] == []


@pytest.mark.skipif(
    shutil.which("node") is None or shutil.which("npm") is None,
    reason="node and npm are not installed: TypeScript's checker comes from npm",
)
def test_typescripts_checker_finds_no_error_in_the_pages_javascript():
    done = subprocess.run([str(ROOT / "scripts" / "check-js")], capture_output=True, text=True,
                          timeout=600)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
