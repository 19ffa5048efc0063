"""The package metadata installs without deprecation warnings."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    tomllib = pytest.importorskip("tomli")

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def test_license_is_an_spdx_string_with_a_setuptools_that_reads_it() -> None:
    data = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))
    # A table ({text = ...}) makes every install print setuptools' deprecation warning.
    assert isinstance(data["project"]["license"], str)
    assert re.fullmatch(r"[A-Za-z0-9.\-+]+( (AND|OR|WITH) [A-Za-z0-9.\-+]+)*",
                        data["project"]["license"])
    setuptools = [r for r in data["build-system"]["requires"] if r.startswith("setuptools")]
    assert setuptools, data["build-system"]
    floor = re.search(r">=\s*(\d+)", setuptools[0])
    assert floor and int(floor.group(1)) >= 77  # the first setuptools to read SPDX strings
