"""Reading a file met while looking around a project (a pin file, a sibling that may name an
image, the head of a script): only a regular file is read. A named pipe, a socket or a device
is refused at once: opening a pipe no one writes to would wait forever."""

from __future__ import annotations

import errno
import os
import stat


def read_regular(path: str, limit: int = -1) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit`` of them, all if negative);
    OSError for anything else, as for a file that cannot be read."""
    descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    with os.fdopen(descriptor, "rb") as stream:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", path)
        return stream.read(limit)
