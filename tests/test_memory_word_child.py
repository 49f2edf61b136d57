"""The word index away from the app's own process: nothing the app imports at its start imports
tantivy, and in the app and `nodwyn serve` the index is refreshed by a child process that ends
once unused (index_process.py), whose index a search then reads."""

import json
import subprocess
import sys

AT_START = """
import json, sys
import nodwyn.cli, nodwyn.desktop, nodwyn.desktop.app, nodwyn.api.routes, nodwyn.api.server
import nodwyn.background.worker, nodwyn.memory, nodwyn.memory.readback
print(json.dumps({"tantivy": "tantivy" in sys.modules}))
"""


def test_nothing_the_app_imports_at_its_start_imports_tantivy():
    done = subprocess.run([sys.executable, "-c", AT_START], capture_output=True, text=True,
                          timeout=60, check=True)  # fmt: skip
    assert json.loads(done.stdout.strip().splitlines()[-1]) == {"tantivy": False}
