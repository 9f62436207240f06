"""Outputs at the edges of the machine: special files, full disks, permissions, read-only file systems.

Regular files are replaced atomically; a FIFO or a character device is written directly and stays
what it was; other special files are refused. Every failure names the output path and leaves no
temporary file. Nothing here touches the real ``/dev``: the FIFO and the socket live in a temporary
folder, and a full disk, a denied permission and a read-only file system are injected as the
``OSError`` the kernel would raise.
"""

from __future__ import annotations

import errno
import os
import socket
import stat
import threading
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app.cli import app
from privopt.app.files import write_text, write_together

SPEC = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]

[definition]
kind = "LDP"
eps = 1.0

[output]
mechanism = "{mechanism}"
solution = "solution.json"
"""

#: Generous bound on waiting for the reader of a FIFO (a hang fails instead of blocking CI).
WAIT_SECONDS = 300

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")


def temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


class FifoReader(threading.Thread):
    """Reads a FIFO to its end in the background (opening it blocks until a writer opens it)."""

    def __init__(self, path: Path) -> None:
        super().__init__(daemon=True)
        self.path = path
        self.data = b""

    def run(self) -> None:
        with open(self.path, "rb") as handle:
            self.data = handle.read()

    def result(self) -> bytes:
        self.join(WAIT_SECONDS)
        assert not self.is_alive(), "the FIFO's reader never saw the end of the data"
        return self.data


# ---------------------------------------------------------------------- special files
@posix_only
def test_a_fifo_is_written_directly_and_stays_a_fifo(tmp_path: Path) -> None:
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    reader.start()
    written = write_together(
        {fifo: lambda p: p.write_text("streamed"), tmp_path / "b.json": lambda p: p.write_text("file")}
    )
    assert reader.result() == b"streamed"
    assert stat.S_ISFIFO(fifo.stat().st_mode)  # not replaced by a regular file
    assert (tmp_path / "b.json").read_text() == "file"
    assert written == (fifo, (tmp_path / "b.json").resolve())
    assert temporaries(tmp_path) == []


@posix_only
def test_a_failing_regular_writer_leaves_the_fifo_unopened(tmp_path: Path) -> None:
    """The streams are written only once every regular file is complete."""
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)

    def fails(path: Path) -> None:
        raise RuntimeError("serialisation failed")

    with pytest.raises(RuntimeError, match="serialisation failed"):  # would block if it opened the FIFO
        write_together({fifo: lambda p: p.write_text("x"), tmp_path / "b.json": fails})
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert temporaries(tmp_path) == []


@posix_only
def test_design_writes_its_csv_into_a_fifo(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(mechanism="regular.csv"))
    assert CliRunner().invoke(app, ["design", str(spec), "--quiet"]).exit_code == 0
    fifo = tmp_path / "mechanism.csv"
    os.mkfifo(fifo)
    spec.write_text(SPEC.format(mechanism="mechanism.csv"))
    reader = FifoReader(fifo)
    reader.start()
    result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    assert result.exit_code == 0, result.output
    assert reader.result() == (tmp_path / "regular.csv").read_bytes()  # the reader gets the whole CSV
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    assert temporaries(tmp_path) == []


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="Unix sockets")
def test_a_socket_is_refused_by_name(tmp_path: Path) -> None:
    path = tmp_path / "out.sock"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        with pytest.raises(
            po.ValidationError, match=r"output: expected a regular file, a character device or a FIFO, got "
        ) as caught:
            write_text(path, "x")
    assert str(path) in str(caught.value)
    assert "which is a socket" in str(caught.value)
    assert temporaries(tmp_path) == []


def test_a_symlink_keeps_pointing_at_its_replaced_target(tmp_path: Path) -> None:
    target = tmp_path / "real.csv"
    target.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(target)
    write_text(link, "new")
    assert link.is_symlink()
    assert target.read_text() == "new"


def test_a_folder_or_a_link_to_one_is_refused_by_name(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "folder")
    for path in (tmp_path / "folder", tmp_path / "link"):
        with pytest.raises(
            po.ValidationError, match=r"output: expected a file path, got .*which is a folder"
        ):
            write_text(path, "x")
    assert temporaries(tmp_path) == []
    assert list((tmp_path / "folder").iterdir()) == []


# ---------------------------------------------------------------------- the kernel says no
def test_a_full_disk_names_the_path_and_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("old a")

    def full(path: Path) -> None:
        with open(path, "w") as handle:
            handle.write("half")
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    with pytest.raises(po.ValidationError) as caught:
        write_together({tmp_path / "a.csv": full, tmp_path / "b.json": lambda p: p.write_text("b")})
    message = str(caught.value)
    assert (
        message
        == f"output: expected a writable file path, got {str(tmp_path / 'a.csv')!r}: No space left on device"
    )
    assert (tmp_path / "a.csv").read_text() == "old a"
    assert not (tmp_path / "b.json").exists()
    assert temporaries(tmp_path) == []


@pytest.mark.parametrize(
    ("code", "reason"),
    [(errno.EACCES, "Permission denied"), (errno.EROFS, "Read-only file system")],
)
def test_a_folder_that_refuses_new_files_names_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, code: int, reason: str
) -> None:
    """Creating the temporary file fails as in a folder without write permission or on a read-only
    file system (injected: the tests may run as root, who may write anywhere)."""
    real_open = os.open

    def refusing(path: str | os.PathLike[str], flags: int, *args: Any, **kwargs: Any) -> int:
        if Path(path).parent == tmp_path and flags & os.O_CREAT:
            raise OSError(code, os.strerror(code), str(path))
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", refusing)
    with pytest.raises(po.ValidationError) as caught:
        write_text(tmp_path / "mechanism.csv", "x")
    assert str(caught.value) == (
        f"output: expected a writable file path, got {str(tmp_path / 'mechanism.csv')!r}: {reason}"
    )
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []


def test_design_on_a_full_disk_exits_2_with_one_line_naming_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC.format(mechanism="mechanism.csv"))
    (tmp_path / "solution.json").write_text("previous")

    def full(fd: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)  # the kernel reports the full disk when the data is flushed
    result = CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1
    assert result.stderr == (
        f"error: output: expected a writable file path, got {str(tmp_path / 'mechanism.csv')!r}: "
        "No space left on device\n"
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["solution.json", "spec.toml"]
    assert (tmp_path / "solution.json").read_text() == "previous"
