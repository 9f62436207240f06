"""Parquet storage of sweep results, written incrementally so that an interrupted sweep resumes.

A store is a folder of parquet part files (``part-000000.parquet``, …), one per flush, each holding
the rows of the cells finished since the previous flush. :meth:`ResultStore.load` concatenates them;
:meth:`ResultStore.finished` lists the keys of the cells already done, which :class:`Sweep` skips.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from privopt.app.files import write_text, write_together
from privopt.errors import ValidationError

#: Column holding each row's cell key (a stable hash of the cell's parameters and the sweep seed).
KEY = "cell"
#: Column holding ``"ok"`` or ``"failed"``.
STATUS = "status"
_MANIFEST = "sweep.json"


@dataclass(frozen=True)
class ResultStore:
    """A folder of parquet parts holding the rows of finished cells.

    ``manifest`` (the sweep's grid, seed and privopt version) is written once; opening the same folder
    for a sweep with another manifest is refused, so results of different sweeps (or of another
    privopt release) are never mixed. A changed cell function is not detected: use a new folder after
    changing one.
    """

    path: Path

    @classmethod
    def open(cls, path: str | Path, manifest: dict[str, Any]) -> ResultStore:
        folder = Path(path)
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
        there replace the earlier ones.
        """
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
