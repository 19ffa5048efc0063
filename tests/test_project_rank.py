"""find_code ranks small helpers by what they do: identifier sub-words, docstrings, the
names a function calls, and generic programming equivalences (eta ~ remaining time)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.project import ProjectIndex
from ihmt.project.rank import SymbolRanker, symbol_fields

# A big class that repeats the question's common words many times, beside small helpers
# whose names and docstrings say what they do in other words.
BIG = "class Report:\n    \"\"\"A report with many sections.\"\"\"\n\n" + "".join(
    f"    def section_{i}(self, text, time, string, value):\n"
    f"        # time spent on the string and the value of the text, part {i}\n"
    f"        return text + string + str(time) + str(value)\n\n" for i in range(12))

HELPERS = '''\
def format_eta(seconds):
    return f"{seconds // 60:02}:{seconds % 60:02}"


def _tidy(s):
    """Take the ANSI escape sequences out of coloured terminal output."""
    return _RX.sub("", s)


def unstyle(text):
    return strip_ansi(text)


def strip_ansi(value):
    return value
'''


@pytest.fixture()
def index(tmp_path: Path) -> ProjectIndex:
    root = tmp_path / "pkg"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "report.py").write_text(BIG, encoding="utf-8")
    (root / "pkg" / "helpers.py").write_text(HELPERS, encoding="utf-8")
    ix = ProjectIndex(root, tmp_path / "projects")
    ix.sync()
    return ix


def _found(index: ProjectIndex, query: str) -> str:
    ans = index.locate(query)
    assert ans.hits, query
    return ans.hits[0].name


def test_fields_split_identifiers_and_read_docstrings_and_calls() -> None:
    f = symbol_fields(HELPERS.split("\n\n\n")[1], "_tidy", "english", "pkg/helpers.py")
    assert set(f["n"].split()) == {"tidi"}
    assert {"ansi", "escap", "sequenc", "colour"} <= set(f["d"].split())
    assert "sub" in f["k"].split()
    assert {"pkg", "helper"} <= set(f["o"].split())
    g = symbol_fields(HELPERS.split("\n\n\n")[2], "unstyle", "english")
    assert {"strip", "ansi"} <= set(g["k"].split())


def test_equivalences_are_symmetric_and_weaker_than_the_word() -> None:
    r = SymbolRanker({"files": {}}, "english")
    (c,) = r.concepts("remaining")
    assert c.terms["remain"] == 1.0 and 0 < c.terms["eta"] < 1.0
    (d,) = r.concepts("eta")
    assert 0 < d.terms["remain"] < 1.0


def test_small_helper_found_by_a_sub_word_and_an_equivalence(index: ProjectIndex) -> None:
    assert _found(index, "estimated time remaining") == "format_eta"


def test_small_private_helper_found_by_its_docstring(index: ProjectIndex) -> None:
    assert _found(index, "remove escape sequences from coloured terminal output") == "_tidy"


def test_answer_keeps_one_symbol_with_its_span(index: ProjectIndex) -> None:
    out = index.find_code("estimated time remaining", max_tokens=200)
    head = out.split("\n", 1)[0]
    assert head.startswith("pkg/helpers.py:1-") and head.endswith("format_eta (function)")
    assert "def format_eta(seconds):" in out and "class Report" not in out


def test_without_vectors_the_ranking_is_lexical(index: ProjectIndex, monkeypatch) -> None:
    index.use_vectors = False
    monkeypatch.setattr(index, "_similarities", lambda text: pytest.fail("vectors used"))
    assert _found(index, "estimated time remaining") == "format_eta"


@pytest.mark.skipif(bool(__import__("ihmt.semantic", fromlist=["x"]).missing_packages()),
                    reason="the semantic extra is not installed")
def test_vectors_follow_edits_and_find_by_meaning(index: ProjectIndex) -> None:
    index.use_vectors = True
    # No shared word with the helper's code or docstring: only the vector can find it.
    assert _found(index, "clean up the console colouring garbage") in ("_tidy", "unstyle")
    vec = index._vectors
    assert vec is not None and vec.path.exists()
    n = len(vec.ids)
    helpers = index.root / "pkg" / "helpers.py"
    helpers.write_text(helpers.read_text(encoding="utf-8")
                       + "\n\ndef celsius(f):\n    return (f - 32) * 5 / 9\n",
                       encoding="utf-8")
    index.sync()
    index.use_vectors = False
    lexical = index.locate("convert a temperature from fahrenheit")
    assert lexical.status != "FOUND" or lexical.hits[0].name != "celsius"
    index.use_vectors = True
    assert _found(index, "convert a temperature from fahrenheit") == "celsius"
    assert len(vec.ids) == n + 1  # only the new symbol was added


def test_manifest_of_an_older_version_is_rebuilt_quietly(index: ProjectIndex, caplog) -> None:
    import json
    import logging

    data = json.loads(index.manifest_path.read_text(encoding="utf-8"))
    data["version"] = 1
    for f in data["files"].values():
        for s in f["symbols"]:
            s.pop("f")  # version 1 had no described fields
    index.manifest_path.write_text(json.dumps(data), encoding="utf-8")
    fresh = ProjectIndex(index.root, index.path.parent)
    with caplog.at_level(logging.INFO, logger="ihmt.project.index"):
        assert _found(fresh, "estimated time remaining") == "format_eta"
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("re-indexing for version" in r.getMessage() for r in caplog.records)
    man = json.loads(fresh.manifest_path.read_text(encoding="utf-8"))
    assert all("f" in s for f in man["files"].values() for s in f["symbols"])


def test_symbol_vectors_are_opt_in(monkeypatch) -> None:
    from ihmt.project import vectors

    monkeypatch.delenv("IHMT_CODE_VECTORS", raising=False)
    assert vectors.available() is False  # the first call would encode every symbol
    monkeypatch.setenv("IHMT_CODE_VECTORS", "on")
    monkeypatch.setenv("IHMT_SEMANTIC", "auto")
    installed = not __import__("ihmt.semantic", fromlist=["x"]).missing_packages()
    assert vectors.available() is installed
