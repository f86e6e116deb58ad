"""Reading one input file, bounded: only regular files, pipes and standard input, and at most MAX_FILE_BYTES of
them, so that ``/dev/zero`` or an endless pipe is an error rather than a process that eats the machine's memory."""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

#: The most kubesched reads from one file (a kubectl dump of 50,000 pods is a few hundred MiB).
MAX_FILE_BYTES = 1 << 30
STDIN = "-"


class UnreadableFileError(Exception):
    """Why a file could not be read, in words for an error line (the caller adds the file's name)."""


def read_bytes(path: str | Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``path`` (standard input for ``-``); a :class:`UnreadableFileError` for a device, a socket or a
    directory, a file larger than ``limit`` bytes, or an error of the operating system."""
    try:
        if str(path) == STDIN:
            stream = getattr(sys.stdin, "buffer", None)
            if stream is None:
                return _bounded(sys.stdin.read(limit + 1).encode("utf-8"), limit)
            return _bounded(stream.read(limit + 1), limit)
        mode = os.stat(path).st_mode
        if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
            kind = "a directory" if stat.S_ISDIR(mode) else "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(
                mode) else "a socket" if stat.S_ISSOCK(mode) else "not a regular file"
            raise UnreadableFileError(f"cannot read: {kind}, not a file")
        with open(path, "rb") as file:
            return _bounded(file.read(limit + 1), limit)
    except OSError as exc:
        raise UnreadableFileError(f"cannot read: {exc.strerror or exc}") from None


def read_text(path: str | Path, limit: int = MAX_FILE_BYTES) -> str:
    """:func:`read_bytes` decoded as UTF-8; a :class:`UnreadableFileError` naming the first byte that is not."""
    return decode_text(read_bytes(path, limit))


def decode_text(data: bytes) -> str:
    """``data`` decoded as UTF-8; a :class:`UnreadableFileError` naming the first byte that is not."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UnreadableFileError(f"cannot read: not UTF-8 text (byte {exc.start})") from None


def _bounded(data: bytes, limit: int) -> bytes:
    if len(data) > limit:
        raise UnreadableFileError(f"cannot read: larger than {limit} bytes, the most kubesched reads from one file")
    return data
