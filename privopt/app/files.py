"""Files privopt reads and writes.

Reading: :func:`read_text` and :func:`read_csv` turn a missing, binary, empty or malformed file into
a :class:`~privopt.errors.ValidationError` that names the argument it came from.

Writing: :func:`write_together` writes every file of one run to a temporary file in its target
folder and renames them only once all of them are complete, so a reader sees the previous outputs
or the new ones, never a truncated file or a mix of old and new from a run that failed. A failure
(an exception, SIGINT, or SIGTERM turned into an exception by the command line) removes the
temporary files; a SIGKILL can leave one behind, hidden (``.NAME.PID.RANDOM.tmp``), and the next
write into the same folder removes it.

Only regular files (and new paths) are replaced that way; a symbolic link is followed and its
target replaced. A character device (``/dev/null``, ``/dev/stdout``, a terminal) or a FIFO is a
stream, not a file: it is written directly, once every regular file of the run is complete and
before they are renamed, and it stays what it was (a FIFO's writer waits for a reader, as with
``cat > fifo``). Other special files (block devices, sockets) are refused. Every failure to write —
a full disk, a folder without write permission, a read-only file system, a path that is a folder —
is a :class:`~privopt.errors.ValidationError` that names the output path.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import secrets
import signal
import stat
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path

import pandas as pd

from privopt.errors import ValidationError

#: Signals held back while a run's temporary files are renamed into place (so that the renames are
#: not split by an interrupt); they are delivered as soon as the renames are done.
_DEFERRED_SIGNALS = {signal.SIGINT, signal.SIGTERM}


def _shown(path: Path) -> str:
    return repr(str(path))


def as_path(value: object, argument: str) -> Path:
    """``value`` as a :class:`~pathlib.Path`; a named error unless it is a str or path-like."""
    if isinstance(value, str | os.PathLike) and str(value):
        return Path(value)
    raise ValidationError(
        argument, "a file path (str or pathlib.Path)", f"{type(value).__name__} {value!r}"[:80]
    )


def read_text(path: str | Path, argument: str, what: str) -> str:
    """The UTF-8 text of ``path``; a named error when it is missing, binary or empty.

    ``what`` describes the file in messages (``"a TOML spec file"``).
    """
    source = as_path(path, argument)
    if not source.is_file():
        raise ValidationError(
            argument, f"an existing {what.removeprefix('a ').removeprefix('an ')}", _shown(source)
        )
    try:
        data = source.read_bytes()
    except OSError as exc:
        raise ValidationError(
            argument, f"a readable {what.removeprefix('a ')}", f"{_shown(source)}: {exc.strerror}"
        ) from exc
    if b"\x00" in data:
        raise ValidationError(argument, f"{what} (text)", f"binary data in {_shown(source)}")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValidationError(
            argument, f"{what} (UTF-8 text)", f"undecodable byte at offset {exc.start} of {_shown(source)}"
        ) from exc
    if not text.strip():
        raise ValidationError(
            argument, f"a non-empty {what.removeprefix('a ')}", f"an empty file {_shown(source)}"
        )
    return text


def read_csv(path: str | Path, argument: str, what: str, *, index_col: int | None = None) -> pd.DataFrame:
    """A CSV file (header row first) as a DataFrame; a named error when it cannot be read as one."""
    text = read_text(path, argument, what)
    try:
        frame = pd.read_csv(io.StringIO(text), index_col=index_col)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        raise ValidationError(argument, what, f"{_shown(Path(path))}: {detail}") from exc
    if frame.empty:
        raise ValidationError(
            argument, f"{what} with at least one data row", f"a header only in {_shown(Path(path))}"
        )
    return frame


# ---------------------------------------------------------------------- writing
def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # alive, owned by someone else
        return True
    return True


#: The temporary files of :func:`write_together`: ``.NAME.PID.RANDOM.tmp``.
_TEMPORARY = re.compile(r"^\..+\.(\d+)\.[0-9a-f]{8}\.tmp$")


def _remove_stale(folder: Path) -> None:
    """Remove the temporary files in ``folder`` left by writers that were killed (SIGKILL)."""
    for entry in folder.glob(".*.tmp"):
        match = _TEMPORARY.match(entry.name)
        if match is not None and not _pid_alive(int(match.group(1))):
            entry.unlink(missing_ok=True)


def _temporary(target: Path) -> Path:
    """A new empty file next to ``target`` (created with the usual permissions, umask applied)."""
    name = f".{target.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp"
    temporary = target.parent / name
    os.close(os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
    return temporary


def _fsync(path: Path) -> None:
    with open(path, "rb") as handle:
        os.fsync(handle.fileno())


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    previous = signal.pthread_sigmask(signal.SIG_BLOCK, _DEFERRED_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, previous)


def _prepare(target: Path) -> None:
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ValidationError(
            "output", "a path whose folder can be created", f"{_shown(target)}: {exc.strerror or exc}"
        ) from exc
    if target.is_dir():
        raise ValidationError("output", "a file path", f"{_shown(target)}, which is a folder")


#: Special files refused as outputs, by what they are (``stat.S_IS*`` tests).
_REFUSED = {"a block device": stat.S_ISBLK, "a socket": stat.S_ISSOCK}


def _is_stream(path: Path) -> bool:
    """Whether ``path`` (symbolic links followed) is a character device or a FIFO, written directly.

    A missing path or a regular file is not (it is replaced atomically); a folder or another special
    file is refused.
    """
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):  # a new file (its folder is checked later)
        return False
    except OSError as exc:
        raise ValidationError(
            "output", "a writable file path", f"{_shown(path)}: {exc.strerror or exc}"
        ) from exc
    if stat.S_ISDIR(mode):
        raise ValidationError("output", "a file path", f"{_shown(path)}, which is a folder")
    for what, test in _REFUSED.items():
        if test(mode):
            raise ValidationError(
                "output", "a regular file, a character device or a FIFO", f"{_shown(path)}, which is {what}"
            )
    return stat.S_ISCHR(mode) or stat.S_ISFIFO(mode)


def _discard(temporaries: Mapping[Path, Path]) -> None:
    for temporary in temporaries.values():
        with contextlib.suppress(OSError):  # e.g. a folder that turned read-only meanwhile
            temporary.unlink(missing_ok=True)


def write_together(writers: Mapping[Path, Callable[[Path], object]]) -> tuple[Path, ...]:
    """Write a run's files atomically, as a group.

    Parameters
    ----------
    writers:
        For each target path, a function that writes the complete file at the path it is given (a
        temporary file in the target's folder; the target itself when it is a character device or a
        FIFO, module docstring).

    Returns
    -------
    The target paths, once every one of them holds its new content. Folders are created as needed.
    If any writer fails, no regular target changes and the temporary files are removed; an
    :class:`OSError` (disk full, permission denied, read-only file system, ...) is a
    :class:`~privopt.errors.ValidationError` naming the target it happened on.
    """
    streams = {Path(target): _is_stream(Path(target)) for target in writers}
    targets = [target if streams[target] else target.resolve() for target in streams]
    if len(set(targets)) != len(targets):
        raise ValidationError("output", "distinct file paths", ", ".join(map(str, targets)))
    jobs = list(zip(targets, streams.values(), writers.values(), strict=True))
    temporaries: dict[Path, Path] = {}
    current = targets[0] if targets else Path()
    try:
        for current, stream, write in jobs:
            if not stream:
                _prepare(current)
                _remove_stale(current.parent)
                temporaries[current] = _temporary(current)
                write(temporaries[current])
                _fsync(temporaries[current])
        for current, stream, write in jobs:  # every regular file is complete: now the streams
            if stream:
                write(current)
        with _signals_deferred():
            for current, temporary in temporaries.items():
                os.replace(temporary, current)
            temporaries.clear()
    except OSError as exc:
        raise ValidationError(
            "output", "a writable file path", f"{_shown(current)}: {exc.strerror or exc}"
        ) from exc
    finally:
        _discard(temporaries)
    return tuple(targets)


def write_text(path: str | Path, text: str, argument: str = "path") -> Path:
    """Write ``text`` to ``path`` atomically (see :func:`write_together`)."""
    (target,) = write_together({as_path(path, argument): lambda temporary: temporary.write_text(text)})
    return target
