"""The Makefile's test targets: parallel when pytest-xdist is there, skip reasons printed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="make is not installed")


def planned(target: str) -> str:
    """The commands ``make`` would run for ``target`` (``-n``: nothing is run)."""
    r = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    return next(ln for ln in r.stdout.splitlines() if "-m pytest" in ln)


def test_make_test_prints_skip_reasons_and_runs_on_every_core() -> None:
    line = planned("test")
    assert " -rs" in line
    pytest.importorskip("xdist", reason="pytest-xdist is not installed: make test runs serially")
    assert "-n auto" in line


def test_make_test_quick_leaves_out_the_heavy_trials() -> None:
    line = planned("test-quick")
    assert '-m "not heavy"' in line and " -rs" in line and " -x" in line
