"""Progress that behaves in logs: few lines off a terminal, a rate-limited bar on one, silence on request."""

from __future__ import annotations

import io

import pytest
from privopt.solvers import progress as progress_module
from privopt.solvers.progress import LOG_SECONDS, Progress, progress_disabled


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock(monkeypatch):
    fake = _Clock()
    monkeypatch.setattr(progress_module.time, "perf_counter", fake)
    return fake


def _run(clock: _Clock, stream: io.StringIO, seconds: float, step: float, **kwargs) -> None:
    with Progress("column generation", 10_000, stream=stream, **kwargs) as bar:
        while clock.now < seconds:
            clock.now += step
            bar.update(advance=1, lower=0.5, upper=0.6, gap=0.1)


def test_a_40_second_run_writes_a_few_lines_to_a_log(clock):
    # Issue: "a 40-second colgen solve writes fewer than 60 progress lines into a non-terminal log";
    # 4,000 updates at 10 ms give one line per LOG_SECONDS plus the closing line.
    stream = io.StringIO()
    _run(clock, stream, 40.0, 0.01)
    lines = stream.getvalue().splitlines()
    assert 0 < len(lines) <= 40.0 / LOG_SECONDS + 1
    assert all(line.startswith("[privopt] column generation:") for line in lines)
    assert "upper 0.6" in lines[-1]
    assert "gap 0.1" in lines[-1]


def test_short_work_and_disabled_progress_write_nothing(clock):
    stream = io.StringIO()
    _run(clock, stream, 1.0, 0.01)  # shorter than QUIET_SECONDS
    assert stream.getvalue() == ""
    _run(clock, stream, 60.0, 0.01, enabled=False)
    assert stream.getvalue() == ""
    with progress_disabled():
        clock.now = 0.0
        _run(clock, stream, 60.0, 0.01)
    assert stream.getvalue() == ""


def test_a_terminal_gets_a_bar_redrawn_at_most_once_a_second(clock):
    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Terminal()
    with Progress("vertex enumeration", 60, unit="s", stream=stream) as bar:
        clock.now = 5.0
        bar.update(done=5)
        assert bar._bar is not None
        assert bar._bar.mininterval == progress_module.REDRAW_SECONDS == 1.0
    assert "vertex enumeration" in stream.getvalue()
