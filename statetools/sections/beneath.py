"""Open a file inside a folder without ever leaving it, whatever happens meanwhile.

Checking a path and then opening it leaves a gap: a symbolic link swapped in between
leads the open elsewhere. Here the folder is opened once and every component of the
path is opened relative to the descriptor of the one before it, never following a
link (``O_NOFOLLOW``). A link met on the way is read (``readlink``) and its target
walked the same way, from the folder's own descriptors: ``..`` goes back up the
descriptors already held and never above the folder, and an absolute target is
refused unless it names a place inside the folder by its full path. Whatever is
swapped in, what is opened lies inside the folder.

Where the platform has no descriptor-relative opens (Windows), the path is resolved
and checked, then opened, which is as good as the platform allows.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["Outside", "open_beneath"]

_MAX_LINKS = 40
"""How many links one path may go through (as the kernel's own limit)."""

_RELATIVE = os.open in os.supports_dir_fd and hasattr(os, "O_NOFOLLOW")
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # a FIFO must not block the open
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)


class Outside(Exception):
    """The path, or a link on it, leads outside the folder.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> os.symlink("/etc/hostname", folder / "escape")
    >>> open_beneath(folder, "escape")
    Traceback (most recent call last):
    statetools.sections.beneath.Outside
    """


def open_beneath(folder: Path, path: str) -> int:
    """A read-only descriptor of the regular file ``path`` inside ``folder``.

    Raises :class:`Outside` when the path or a link on it leads outside the folder,
    ``FileNotFoundError`` when there is no such regular file, ``OSError`` otherwise.

    >>> import tempfile
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "notes.md").write_text("hi")
    >>> fd = open_beneath(folder, "notes.md")
    >>> os.read(fd, 10), os.close(fd)
    (b'hi', None)
    """
    if not _RELATIVE:  # pragma: no cover - Windows
        return _open_checked(folder, path)
    root = os.open(folder, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    held = [root]  # the descriptors of the folders walked into, the folder first
    try:
        return _walk(held, _parts(path), _parts(str(folder.resolve())))
    finally:
        for fd in held:
            os.close(fd)


def _parts(path: str) -> list[str]:
    return [p for p in path.split("/") if p not in ("", ".")]


def _walk(held: list[int], pending: list[str], root: list[str]) -> int:
    links = 0
    while pending:
        part = pending.pop(0)
        if part == "..":
            if len(held) == 1:
                raise Outside
            os.close(held.pop())
            continue
        last = not pending
        flags = os.O_RDONLY | _NOFOLLOW | _CLOEXEC | (_NONBLOCK if last else _DIRECTORY)
        try:
            fd = os.open(part, flags, dir_fd=held[-1])
        except OSError as exc:
            if exc.errno not in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise
            target = _link(part, held[-1])
            if target is None:  # not a link: a file where a folder was meant
                raise FileNotFoundError(errno.ENOENT, "not a folder", part) from None
            links += 1
            parts = _parts(target)
            if target.startswith("/"):  # only a full path into the folder stays inside
                if parts[: len(root)] != root:
                    raise Outside from None
                parts = parts[len(root) :]
                while len(held) > 1:
                    os.close(held.pop())
            if links > _MAX_LINKS:
                raise Outside from None
            pending[:0] = parts
            continue
        if last:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise FileNotFoundError(errno.ENOENT, "not a regular file", part)
            return fd
        held.append(fd)
    raise FileNotFoundError(errno.ENOENT, "not a regular file", "")


def _link(part: str, dir_fd: int) -> str | None:
    """The target of the link ``part`` in ``dir_fd``, or None if it is not a link."""
    try:
        return os.readlink(part, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.EINVAL, errno.ENOENT):
            return None
        raise


def _open_checked(folder: Path, path: str) -> int:  # pragma: no cover - Windows
    resolved = (folder / path).resolve()
    if not resolved.is_relative_to(folder.resolve()):
        raise Outside
    if not resolved.is_file():
        raise FileNotFoundError(errno.ENOENT, "not a regular file", path)
    return os.open(resolved, os.O_RDONLY | getattr(os, "O_BINARY", 0))
