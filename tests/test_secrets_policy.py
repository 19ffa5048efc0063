"""The secrets policy of a store: refuse (default), redact or off; output never shows them."""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.errors import SecretError
from ihmt.render import compact_answer, result_dict

TOKEN = "ghp_" + "Zx9" * 12  # a fake GitHub-shaped token
NOTE = f"CI setup: the deploy bot uses {TOKEN} to push tags"


def test_default_refuses_and_says_what_and_how(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    with pytest.raises(SecretError) as err:
        m.save(NOTE)
    msg = str(err.value)
    assert "github token" in msg and "line 1" in msg and TOKEN not in msg
    assert "save the rest" in msg
    assert m.stats()["leaves"] == 0


def test_ingest_skips_a_file_with_a_secret_with_its_reason(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True)
    f = tmp_path / "notes.md"
    f.write_text(NOTE + "\n")
    items = list(m.ingest_paths([f]))
    assert items[0].skipped and "secret" in items[0].skipped


def test_redact_policy_stores_the_rest(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True, config={"secrets": "redact"})
    rep = m.save(NOTE)
    assert rep.warnings and "redacted 1" in rep.warnings[0]
    text = m.get(rep.ids[0]).text
    assert TOKEN not in text and "[REDACTED:github_token]" in text


def test_search_output_never_prints_a_secret_even_when_stored(tmp_path: Path) -> None:
    m = Memory.open(tmp_path / "s", create=True, config={"secrets": "off"})
    m.save(NOTE)
    res = m.search("deploy bot push tags")
    assert TOKEN not in compact_answer(res)
    assert TOKEN not in str(result_dict(res))
