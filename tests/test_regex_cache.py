"""The compiled patterns a hook keeps between processes (ihmt.regex_cache): the same
patterns as compiled, and a damaged or foreign file is only a slower start."""

from __future__ import annotations

import re

import pytest

from ihmt import regex_cache

PATTERNS = [(r"\b(?:switch(?:ed|ing)?|mov(?:ed|ing))\b", 0), (r"(?P<who>\w+) said", re.I),
            (rb"ab+c", 0), (r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)]


@pytest.fixture()
def fresh(monkeypatch: pytest.MonkeyPatch) -> None:
    """A process without these patterns compiled, as a new hook starts."""
    monkeypatch.setattr(re, "_cache", {k: v for k, v in re._cache.items()
                                       if (k[1], k[2]) not in {(p, int(f)) for p, f in PATTERNS}})
    monkeypatch.setattr(regex_cache, "_known", {})


def _compile_all() -> list[re.Pattern]:
    return [re.compile(p, f) for p, f in PATTERNS]


def test_kept_patterns_equal_compiled_ones(tmp_path, fresh, monkeypatch) -> None:
    path = tmp_path / "regex.bin"
    made = _compile_all()
    assert regex_cache.save(path) >= len(PATTERNS)
    monkeypatch.setattr(re, "_cache", {})  # the next process
    monkeypatch.setattr(regex_cache, "_known", {})
    assert regex_cache.load(path) >= len(PATTERNS)
    again = _compile_all()
    assert again == made  # same flags, pattern and compiled code
    assert again[1].match("Ana said").group("who") == "Ana"
    assert again[2].match(b"abbc")
    assert regex_cache.save(path) == 0  # nothing new: not written again


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "other_python"])
def test_damaged_file_is_ignored(tmp_path, fresh, monkeypatch, damage) -> None:
    path = tmp_path / "regex.bin"
    made = _compile_all()
    regex_cache.save(path)
    raw = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(raw[: len(raw) // 2])
    elif damage == "flip":
        path.write_bytes(raw[:-40] + bytes([raw[-40] ^ 0xFF]) + raw[-39:])
    elif damage == "garbage":
        path.write_bytes(b"\x00" * 100)
    else:
        monkeypatch.setattr(regex_cache, "VERSION", regex_cache.VERSION + 1)
    monkeypatch.setattr(re, "_cache", {})
    monkeypatch.setattr(regex_cache, "_known", {})
    assert regex_cache.load(path) == 0
    assert _compile_all() == made  # compiled as usual
    assert regex_cache.save(path) >= len(PATTERNS)  # and the file written again
    monkeypatch.setattr(re, "_cache", {})
    monkeypatch.setattr(regex_cache, "_known", {})
    assert regex_cache.load(path) >= len(PATTERNS)


def test_missing_or_unwritable_is_no_error(tmp_path, fresh) -> None:
    assert regex_cache.load(tmp_path / "none.bin") == 0
    (tmp_path / "dir.bin").mkdir()
    _compile_all()
    assert regex_cache.save(tmp_path / "dir.bin") == 0
    assert regex_cache.load(tmp_path / "dir.bin") == 0


def test_hook_keeps_its_patterns_and_answers_the_same_with_a_damaged_file(tmp_path) -> None:
    from ihmt import Memory
    from tests.test_hooks import prompt_payload, run_hook

    store = tmp_path / "ihmt_memory"
    with Memory.open(store, create=True) as m:
        m.save("The staging server runs on port 8443 behind nginx.", date="2026-03-02")
        m.save("We switched billing from Postgres to CockroachDB.", date="2026-03-03")
    kept = store / "state" / "cache" / "regex.bin"
    payload = prompt_payload("what port does staging run on?")
    first = run_hook(store, "prompt-submit", payload)
    assert "8443" in first.stdout and kept.is_file()
    assert run_hook(store, "prompt-submit", payload).stdout == first.stdout  # read back
    kept.write_bytes(kept.read_bytes()[:-100] + b"\x00" * 100)
    assert run_hook(store, "prompt-submit", payload).stdout == first.stdout
    assert regex_cache.load(kept) > 0  # written again after the answer
