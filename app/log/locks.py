"""The writer's lock on a log: exclusive, taken at once or refused, never waited for.

A `writer.Writer` holds it for as long as it lives, so a second writer, in this process or
another, is refused (TaskBusy). POSIX: `flock` on the whole file. Windows: `msvcrt.locking` on
one byte far past the end, so readers of the file are never blocked. The operating system
drops the lock when the process ends, however it ends.
"""

import contextlib
import os
import sys
from pathlib import Path

if sys.platform == "win32":
    import msvcrt

    _FAR = 1 << 62  # lock a byte far past the end, so readers are never blocked

    def lock(fd: int) -> None:
        here = os.lseek(fd, 0, os.SEEK_CUR)
        os.lseek(fd, _FAR, os.SEEK_SET)
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        finally:
            os.lseek(fd, here, os.SEEK_SET)

    def unlock(fd: int) -> None:
        os.lseek(fd, _FAR, os.SEEK_SET)
        with contextlib.suppress(OSError):
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)

    def unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


def is_locked(path: Path) -> bool:
    """Whether some writer holds the log now (checked by taking and dropping the lock)."""
    try:
        fd = os.open(path, os.O_RDWR | getattr(os, "O_BINARY", 0))
    except FileNotFoundError:
        return False
    try:
        lock(fd)
    except OSError:
        return True
    else:
        unlock(fd)
        return False
    finally:
        os.close(fd)
