"""Nothing lost: outputs appear together or not at all, and interrupts stop every child process.

The writers are killed for real (SIGKILL, SIGTERM, SIGINT to a subprocess); the tests wait for the
subprocess to reach the interesting point by reading a line it prints or by watching /proc, never by
sleeping a fixed time.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import privopt as po
from privopt.app import serialization
from privopt.app.cli import app
from privopt.app.files import write_together

SPEC = """
[data]
probabilities = [[0.07, 0.10], [0.26, 0.57]]
n = 100

[definition]
kind = "SensitiveLDP"
eps = 0.6931471805599453

[set]
kind = "renyi"

[output]
mechanism = "mechanism.csv"
solution = "solution.json"
"""

#: A vertex enumeration that runs for minutes in the child process (2 × 8, exact arithmetic).
LONG_ENUMERATION = """
[data]
synthetic = { shape = [2, 8], seed = 3, n = 1000 }

[definition]
kind = "SensitiveLDP"
eps = 0.5

[set]
kind = "renyi"

[options]
route = "vertex"
backend = "ppl"
vertex_limit = 1e13
time_limit = 3600

[output]
mechanism = "mechanism.csv"
solution = "solution.json"
"""

#: Generous bound on waiting for a subprocess to reach a state (a hang fails instead of blocking CI).
WAIT_SECONDS = 300


def visible_files(folder: Path) -> dict[str, bytes]:
    """The outputs in ``folder``: every file but the hidden ones and the spec."""
    return {
        p.name: p.read_bytes() for p in folder.iterdir() if not p.name.startswith(".") and p.suffix != ".toml"
    }


def hidden_temporaries(folder: Path) -> list[str]:
    return [p.name for p in folder.iterdir() if p.name.endswith(".tmp")]


# ---------------------------------------------------------------------- write_together
def test_write_together_creates_folders_and_replaces_atomically(tmp_path: Path) -> None:
    target = tmp_path / "new" / "dir"
    written = write_together(
        {target / "a.csv": lambda p: p.write_text("a"), target / "b.json": lambda p: p.write_text("b")}
    )
    assert [p.name for p in written] == ["a.csv", "b.json"]
    inode = (target / "a.csv").stat().st_ino
    write_together({target / "a.csv": lambda p: p.write_text("A")})
    assert (target / "a.csv").read_text() == "A"
    assert (target / "a.csv").stat().st_ino != inode  # a new file renamed into place, not rewritten
    assert hidden_temporaries(target) == []


def test_a_failing_writer_changes_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.csv").write_text("old a")
    (tmp_path / "b.json").write_text("old b")

    def fails(path: Path) -> None:
        path.write_text("half")
        raise RuntimeError("serialisation failed")

    with pytest.raises(RuntimeError, match="serialisation failed"):
        write_together({tmp_path / "a.csv": lambda p: p.write_text("new a"), tmp_path / "b.json": fails})
    assert visible_files(tmp_path) == {"a.csv": b"old a", "b.json": b"old b"}
    assert hidden_temporaries(tmp_path) == []


def test_write_errors_are_named(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(po.ValidationError, match=r"output: expected a path whose folder can be created"):
        write_together({tmp_path / "file" / "a.csv": lambda p: p.write_text("a")})
    (tmp_path / "folder").mkdir()
    with pytest.raises(po.ValidationError, match=r"output: expected a file path, got .*which is a folder"):
        write_together({tmp_path / "folder": lambda p: p.write_text("a")})


def test_po_save_is_atomic_and_creates_folders(tmp_path: Path) -> None:
    W = po.mechanisms.grr(3, 1.0)
    path = po.save(W, tmp_path / "sub" / "grr.json")
    assert po.load(path).matrix.tolist() == W.matrix.tolist()
    with pytest.raises(po.ValidationError, match=r"label: expected a str, number"):
        po.save(po.Mechanism([[1.0]], [object()]), path)
    assert po.load(path).matrix.tolist() == W.matrix.tolist()  # the previous file is untouched
    assert hidden_temporaries(path.parent) == []


KILLED_WRITER = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from privopt.app.files import write_together

    folder = Path(sys.argv[1])

    def blocks(path):
        path.write_text("half of the new solution")
        print("writing", flush=True)
        sys.stdin.readline()  # blocks until the test kills this process

    write_together({folder / "mechanism.csv": lambda p: p.write_text("new csv"), folder / "solution.json": blocks})
    """
)


def test_sigkill_mid_write_leaves_the_previous_outputs(tmp_path: Path) -> None:
    (tmp_path / "mechanism.csv").write_text("old csv")
    (tmp_path / "solution.json").write_text("old json")
    writer = subprocess.Popen(
        [sys.executable, "-c", KILLED_WRITER, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdout is not None
    assert writer.stdout.readline().strip() == "writing"  # the CSV is complete, the JSON half-written
    writer.kill()
    writer.wait(timeout=WAIT_SECONDS)
    assert visible_files(tmp_path) == {"mechanism.csv": b"old csv", "solution.json": b"old json"}
    assert len(hidden_temporaries(tmp_path)) == 2  # what SIGKILL leaves: hidden, never the outputs
    write_together({tmp_path / "solution.json": lambda p: p.write_text("next run")})
    assert hidden_temporaries(tmp_path) == []  # the next write removes the dead writer's leftovers
    assert visible_files(tmp_path) == {"mechanism.csv": b"old csv", "solution.json": b"next run"}


def test_design_outputs_survive_a_serialisation_failure(tmp_path: Path, monkeypatch) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert CliRunner().invoke(app, ["design", str(spec), "--quiet"]).exit_code == 0
    before = visible_files(tmp_path)

    def broken(obj: object) -> str:
        raise RuntimeError("injected serialisation failure")

    monkeypatch.setattr(serialization, "to_json", broken)
    spec.write_text(SPEC.replace("0.6931471805599453", "0.5"))  # a run whose outputs would differ
    result = CliRunner().invoke(app, ["design", str(spec), "--json"])
    assert result.exit_code == 70
    assert result.stdout.count("\n") == 1
    assert "injected serialisation failure" in result.stdout
    assert visible_files(tmp_path) == before  # neither the new CSV nor the new JSON
    assert hidden_temporaries(tmp_path) == []


# ---------------------------------------------------------------------- interrupts
def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        if f"\nPPid:\t{pid}\n" in status:
            found.append(int(entry.name))
    return found


def group_members(pgid: int) -> list[int]:
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            members.append(int(entry.name))
    return members


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_interrupt_during_enumeration_stops_the_child(tmp_path: Path, signum: int, code: int) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(LONG_ENUMERATION)
    cli = subprocess.Popen(
        [str(Path(sys.executable).parent / "privopt"), "design", str(spec), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + WAIT_SECONDS
    children: list[int] = []
    while not children and cli.poll() is None and time.monotonic() < deadline:
        children = children_of(cli.pid)
        time.sleep(0.05)
    assert children, f"no enumeration child appeared (exit {cli.poll()})"
    (child,) = children
    cli.send_signal(signum)
    stdout, stderr = cli.communicate(timeout=WAIT_SECONDS)  # returns: no child holds stdout open
    assert cli.returncode == code
    assert stderr.count("\n") == 1
    assert stderr.startswith("error: ")
    assert "Traceback" not in stderr
    assert stdout == ""
    assert not Path(f"/proc/{child}").exists() or group_members(child) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["spec.toml"]


def test_mechanism_csv_round_trip_through_audit(tmp_path: Path) -> None:
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    CliRunner().invoke(app, ["design", str(spec), "--quiet"])
    frame = pd.read_csv(tmp_path / "mechanism.csv", index_col=0)
    assert frame.shape[0] == 4
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "mechanism.csv"), "--spec", str(spec)])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(
        app, ["audit", str(tmp_path / "solution.json"), "--spec", str(spec), "--json"]
    )
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("kill", [signal.SIGKILL])
def test_sigkill_of_the_real_design_command_mid_write(tmp_path: Path, kill: int) -> None:
    """``privopt design`` itself, stopped while it writes the solution JSON (after the CSV)."""
    spec = tmp_path / "spec.toml"
    spec.write_text(SPEC)
    assert CliRunner().invoke(app, ["design", str(spec), "--quiet"]).exit_code == 0
    spec.write_text(SPEC.replace("0.6931471805599453", "0.5"))  # a run whose outputs would differ
    before = visible_files(tmp_path)
    script = textwrap.dedent(
        """
        import sys
        from privopt.app import serialization
        from privopt.app.cli import app

        real = serialization.to_json

        def slow(obj):
            text = real(obj)
            print("serialising", flush=True)
            sys.stdin.readline()
            return text

        serialization.to_json = slow
        app(["design", sys.argv[1], "--quiet"])
        """
    )
    writer = subprocess.Popen(
        [sys.executable, "-c", script, str(spec)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None
    line = writer.stdout.readline()
    while line and line.strip() != "serialising":
        line = writer.stdout.readline()
    assert line.strip() == "serialising"
    os.kill(writer.pid, kill)
    writer.wait(timeout=WAIT_SECONDS)
    assert visible_files(tmp_path) == before
