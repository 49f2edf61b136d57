"""A test hook that stops this process at a chosen write, as `kill -9` would there.

`NODWYN_STOP_AT_WRITE=N` makes the Nth write point the process passes its last: it ends at
once with `os._exit` (no cleanup, no flush, no lock released by us), and a torn point first
writes half of its bytes. Unset, each point costs one comparison. The writers call `point()`
before and in the middle of each append and around the saving of derived state, so a test
can stop a real import at every one of its writes in turn (tests/test_import_crash.py).
"""

import os
from collections.abc import Callable

STOPPED = 75  # the exit status of a process stopped by the hook
_stop_at = int(os.environ.get("NODWYN_STOP_AT_WRITE") or 0)
_passed = 0


def point(torn: Callable[[], object] | None = None) -> None:
    """One write point; at the chosen one, `torn()` (a partial write) runs, then the end."""
    global _passed
    if not _stop_at:
        return
    _passed += 1
    if _passed == _stop_at:
        if torn is not None:
            torn()
        os._exit(STOPPED)
