"""Parquet storage of sweep results, written incrementally so that an interrupted sweep resumes.

A store is a folder of parquet part files (``part-000000.parquet``, …), one per flush, each holding
the rows of the cells finished since the previous flush, and ``sweep.json``, the sweep's manifest.
:meth:`ResultStore.load` concatenates the parts; :meth:`ResultStore.finished` lists the keys of the
cells already done, which :class:`Sweep` skips. A part is written atomically (complete or absent, even
if the process is killed mid-write: :func:`privopt.app.files.write_together`).

One sweep writes to a store at a time: :meth:`ResultStore.locked` holds an exclusive lock on
``.sweep.lock`` in the folder (``flock``, released by the kernel when the process ends, even by
SIGKILL, so a lock is never stale), and a second sweep on the same folder is refused at once with an
error naming the process that holds it — two sweeps never mix their parts. The lock is advisory and
local to the file system's host semantics: on a network file system it relies on the server's
locking (NFS emulates ``flock`` with POSIX locks).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import socket
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privopt.app.files import as_path, write_text, write_together
from privopt.errors import ValidationError

#: Column holding each row's cell key (a stable hash of the cell's parameters and the sweep seed).
KEY = "cell"
#: Column holding ``"ok"`` or ``"failed"``.
STATUS = "status"
_MANIFEST = "sweep.json"
#: The lock file of a store being written (hidden: readers of the parts ignore it).
LOCK = ".sweep.lock"


@dataclass(frozen=True)
class _ResultStoreFields:
    path: Path


@dataclass(frozen=True, init=False)
class ResultStore(_ResultStoreFields):
    """A folder of parquet parts holding the rows of finished cells: ``ResultStore(folder).load()``
    reads them, ``folder`` a ``str`` or a :class:`~pathlib.Path` (docs/how-to-sweep.md).

    ``manifest`` (the sweep's grid, seed and privopt version) is written once; opening the same folder
    for a sweep with another manifest is refused, so results of different sweeps (or of another
    privopt release) are never mixed. A changed cell function is not detected: use a new folder after
    changing one.
    """

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(as_path(path, "path"))

    @classmethod
    @contextlib.contextmanager
    def locked(cls, path: str | Path, manifest: dict[str, Any]) -> Iterator[ResultStore]:
        """:meth:`open` the store and hold its lock (module docstring) until the ``with`` block ends.

        Raises :class:`~privopt.errors.ValidationError` (argument ``store``) at once when another
        process holds the lock.
        """
        folder = as_path(path, "store")
        if folder.exists() and not folder.is_dir():
            raise ValidationError("store", "a folder for the parquet parts", f"{str(folder)!r} is a file")
        folder.mkdir(parents=True, exist_ok=True)
        descriptor = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(descriptor, 1000).decode(errors="replace").strip() or "another process"
                raise ValidationError(
                    "store",
                    "a folder no other running sweep is writing to (one sweep per store at a time)",
                    f"{str(folder)!r}, locked by {holder}",
                ) from None
            os.ftruncate(descriptor, 0)
            started = time.strftime("%Y-%m-%d %H:%M:%S")
            os.write(descriptor, f"process {os.getpid()} on {socket.gethostname()} since {started}".encode())
            yield cls.open(folder, manifest)
        finally:
            os.close(descriptor)  # releases the lock

    @classmethod
    def open(cls, path: str | Path, manifest: dict[str, Any]) -> ResultStore:
        folder = as_path(path, "store")
        if folder.exists() and not folder.is_dir():
            raise ValidationError("store", "a folder for the parquet parts", f"{str(folder)!r} is a file")
        folder.mkdir(parents=True, exist_ok=True)
        file = folder / _MANIFEST
        text = json.dumps(manifest, sort_keys=True, default=str)
        if file.is_file():
            if json.loads(file.read_text()) != json.loads(text):
                raise ValidationError(
                    "store",
                    "a folder used by this sweep only (same grid, seed and privopt version), or a new folder",
                    f"{str(folder)!r}, which holds the results of a different sweep",
                )
        else:
            write_text(file, text, "store")
        return cls(folder)

    def parts(self) -> list[Path]:
        return sorted(self.path.glob("part-*.parquet"))

    def load(self) -> pd.DataFrame:
        """The stored rows of every cell's latest attempt (an empty frame when nothing was stored).

        A cell re-run after a failure (``Sweep(retry_failed=True)``) appears in a later part; its rows
        there replace the earlier ones. A folder that does not exist is an error (a mistyped path would
        otherwise read as an empty store).
        """
        if not self.path.is_dir():
            raise ValidationError(
                "path",
                "the folder of a sweep's store (its store= argument)",
                f"{str(self.path)!r}, not a folder",
            )
        frames = []
        for index, part in enumerate(self.parts()):
            frame = pd.read_parquet(part)
            if not frame.empty:
                frames.append(frame.assign(_part=index))
        if not frames:
            return pd.DataFrame()
        table = pd.concat(frames, ignore_index=True)
        latest = table.groupby(KEY)["_part"].transform("max")
        return table[table["_part"] == latest].drop(columns="_part").reset_index(drop=True)

    def finished(self, include_failed: bool = True) -> set[str]:
        """Keys of the stored cells (without the failed ones when ``include_failed`` is false)."""
        table = self.load()
        if table.empty:
            return set()
        if not include_failed:
            failed = set(table.loc[table[STATUS] != "ok", KEY])
            return set(table[KEY]) - failed
        return set(table[KEY])

    def append(self, rows: Iterable[dict[str, Any]]) -> None:
        """Write ``rows`` as a new part file (nothing for no rows)."""
        frame = pd.DataFrame(list(rows))
        if frame.empty:
            return
        index = len(self.parts())
        target = self.path / f"part-{index:06d}.parquet"
        # A part is either complete or absent, even if killed mid-write.
        write_together({target: lambda path: frame.to_parquet(path, index=False)})
