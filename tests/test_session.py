"""Session tools: confined reads with the UNCHANGED/diff protocol, scratch notes, digests."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ihmt.errors import InputError, NotFoundError
from ihmt.project import SessionFiles, SessionMemory, digest
from ihmt.text import count_tokens

BODY = "".join(f"line {i}: some text to make the file a little longer\n" for i in range(1, 41))


@pytest.fixture()
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text(BODY, encoding="utf-8")
    return root


@pytest.fixture()
def reader(work: Path) -> SessionFiles:
    return SessionFiles([work])


# ---------------------------------------------------------------------- read protocol
def test_first_read_then_unchanged(reader: SessionFiles) -> None:
    first = reader.read_file("src/app.py")
    head, body = first.split("\n", 1)
    assert head == f"src/app.py (40 lines, {count_tokens(BODY)} tok)"
    assert body == BODY
    again = reader.read_file("src/app.py")
    assert re.fullmatch(r"UNCHANGED: src/app\.py \(40 lines, same as read at \d\d:\d\d:\d\d\)",
                        again)
    assert reader.read_file("src/app.py", force=True).split("\n", 1)[1] == BODY


def test_changed_file_answers_with_a_diff(reader: SessionFiles, work: Path) -> None:
    reader.read_file("src/app.py")
    p = work / "src" / "app.py"
    p.write_text(BODY.replace("line 20: some", "line 20: EDITED"), encoding="utf-8")
    out = reader.read_file("src/app.py")
    assert out.startswith("CHANGED: src/app.py (40 lines")
    assert "-line 20: some text" in out and "+line 20: EDITED text" in out
    assert "line 1: some" not in out  # only the hunk, not the file
    assert count_tokens(out) < count_tokens(BODY)
    assert reader.read_file("src/app.py").startswith("UNCHANGED")  # the diff was handed out


def test_diff_bigger_than_file_sends_the_file(reader: SessionFiles, work: Path) -> None:
    reader.read_file("src/app.py")
    new = "".join(f"other {i}\n" for i in range(40))
    (work / "src" / "app.py").write_text(new, encoding="utf-8")
    out = reader.read_file("src/app.py")
    assert out.split("\n", 1)[1] == new
    assert "changed since" in out.split("\n", 1)[0]


def test_line_ranges(reader: SessionFiles, work: Path) -> None:
    out = reader.read_file("src/app.py", start_line=3, end_line=5)
    head, body = out.split("\n", 1)
    assert head.startswith("src/app.py:3-5 (of 40 lines")
    assert body == "".join(BODY.splitlines(keepends=True)[2:5])
    assert reader.read_file("src/app.py", start_line=3, end_line=5).startswith(
        "UNCHANGED: src/app.py:3-5")
    assert reader.read_file("src/app.py", start_line=4, end_line=4).startswith("UNCHANGED")
    tail = reader.read_file("src/app.py", start_line=39)
    assert tail.split("\n", 1)[1] == "".join(BODY.splitlines(keepends=True)[38:])
    # Only parts were handed out: a whole read sends the whole file.
    assert reader.read_file("src/app.py").split("\n", 1)[1] == BODY
    # After a whole read, any range is already known.
    assert reader.read_file("src/app.py", start_line=10, end_line=12).startswith("UNCHANGED")
    with pytest.raises(InputError):
        reader.read_file("src/app.py", start_line=41)
    with pytest.raises(InputError):
        reader.read_file("src/app.py", start_line=5, end_line=2)
    with pytest.raises(InputError):
        reader.read_file("src/app.py", start_line=-1)


def test_range_of_a_changed_file_is_fresh(reader: SessionFiles, work: Path) -> None:
    reader.read_file("src/app.py")
    (work / "src" / "app.py").write_text(BODY.replace("line 2:", "line two:"), encoding="utf-8")
    out = reader.read_file("src/app.py", start_line=1, end_line=3)
    assert "line two:" in out and "changed since" in out.split("\n", 1)[0]


def test_a_new_session_reads_afresh(reader: SessionFiles, work: Path) -> None:
    reader.read_file("src/app.py")
    assert SessionFiles([work]).read_file("src/app.py").split("\n", 1)[1] == BODY


# ---------------------------------------------------------------------- confinement
def test_outside_paths_are_refused(reader: SessionFiles, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n", encoding="utf-8")
    for bad in (str(secret), "../secret.txt", "src/../../secret.txt", "/etc/passwd"):
        with pytest.raises(InputError, match="outside the allowed folders"):
            reader.read_file(bad)


def test_symlink_escape_is_refused(reader: SessionFiles, work: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n", encoding="utf-8")
    os.symlink(secret, work / "src" / "link.txt")
    os.symlink(tmp_path, work / "up")
    with pytest.raises(InputError, match="symlink"):
        reader.read_file("src/link.txt")
    with pytest.raises(InputError, match="symlink"):
        reader.read_file("up/secret.txt")
    os.symlink(work / "src" / "app.py", work / "inside.py")  # a link that stays inside: fine
    assert reader.read_file("inside.py").split("\n", 1)[1] == BODY


def test_declared_roots_widen_access(work: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.md").write_text("hello\n", encoding="utf-8")
    r = SessionFiles([work])
    with pytest.raises(InputError):
        r.read_file(other / "notes.md")
    r.add_root(other)
    assert r.read_file(other / "notes.md").endswith("hello\n")
    with pytest.raises(NotFoundError):
        r.add_root(tmp_path / "missing")


def test_huge_binary_missing(work: Path) -> None:
    r = SessionFiles([work], max_bytes=1000)
    (work / "big.txt").write_text("x" * 1001, encoding="utf-8")
    with pytest.raises(InputError, match="read limit"):
        r.read_file("big.txt")
    (work / "nul.bin").write_bytes(b"abc\x00def")
    with pytest.raises(InputError, match="binary"):
        r.read_file("nul.bin")
    (work / "latin1.txt").write_bytes("caf\xe9\n".encode("latin-1"))
    with pytest.raises(InputError, match="UTF-8"):
        r.read_file("latin1.txt")
    with pytest.raises(NotFoundError):
        r.read_file("nope.txt")
    with pytest.raises(InputError):
        r.read_file("src")  # a folder


# ---------------------------------------------------------------------- notes
def test_note_and_recall() -> None:
    mem = SessionMemory()
    assert mem.note("The API server listens on port 8080 in dev.").startswith("noted #1")
    mem.note("Postgres runs in docker as container pg-dev, port 5433.")
    mem.note("Use make test-fast to skip the slow integration tests.")
    out = mem.recall("which port does the API server use")
    assert out.startswith("#1 note") and "8080" in out
    assert "test-fast" in mem.recall("how to run tests quickly")
    assert mem.recall("#2").startswith("#2 note") and "pg-dev" in mem.recall("#2")
    assert mem.recall("kubernetes helm chart").startswith("NOT FOUND")
    with pytest.raises(InputError):
        mem.note("   ")
    with pytest.raises(InputError):
        mem.recall("")


def test_ties_are_ambiguous_and_a_clue_chooses() -> None:
    mem = SessionMemory()
    mem.note("Staging deploy: run deploy.sh staging")
    mem.note("Production deploy: run deploy.sh prod")
    out = mem.recall("deploy")
    assert out.startswith("AMBIGUOUS") and "#1" in out and "#2" in out and "clue=" in out
    chosen = mem.recall("deploy", clue="production")
    assert chosen.startswith("#2 note") and "prod" in chosen


def test_a_new_session_memory_is_empty() -> None:
    first = SessionMemory()
    first.note("the build needs JAVA_HOME=/opt/jdk21")
    assert "jdk21" in first.recall("JAVA_HOME")
    second = SessionMemory()
    assert len(second) == 0
    assert second.recall("JAVA_HOME").startswith("NOT FOUND")


# ---------------------------------------------------------------------- digest
FAILING_TESTS = '''
import pytest


@pytest.mark.parametrize("n", range(40))
def test_many_pass(n):
    print("noise line", n)
    assert n >= 0


def test_total_is_wrong():
    items = [1, 2, 3]
    assert sum(items) == 7, "basket total mismatch"


def helper(x):
    return 1 / x


def test_division():
    helper(0)
'''


@pytest.fixture(scope="module")
def pytest_log(tmp_path_factory) -> str:
    d = tmp_path_factory.mktemp("failing")
    (d / "test_tiny.py").write_text(textwrap.dedent(FAILING_TESTS), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider",
                           "test_tiny.py"], cwd=d, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "PYTEST_ADDOPTS": "", "NO_COLOR": "1"})
    assert proc.returncode == 1
    return proc.stdout


def test_digest_of_a_real_pytest_log(pytest_log: str) -> None:
    assert count_tokens(pytest_log) > 1000  # long enough to be worth digesting
    mem = SessionMemory()
    out = mem.digest_output(pytest_log, label="pytest run")
    assert count_tokens(out) <= 620
    assert count_tokens(out) < count_tokens(pytest_log) / 2
    assert "test session starts" in out  # first lines
    assert "FAILED test_tiny.py::test_total_is_wrong" in out
    assert "FAILED test_tiny.py::test_division" in out
    assert "ZeroDivisionError" in out
    assert "basket total mismatch" in out
    assert re.search(r"2 failed, 40 passed", out)  # the totals
    assert "recall('pytest run')" in out
    assert "…" in out  # what was left out is marked
    # The full text stays recallable, by label and by words inside it.
    full = mem.recall("pytest run", max_tokens=100_000)
    assert full.split("\n", 1)[1] == pytest_log
    words = mem.recall("ZeroDivisionError")
    assert "ZeroDivisionError" in words and count_tokens(words) <= 1500


def test_digest_of_other_runners() -> None:
    noise = "".join(f"compiling module {i}\n" for i in range(300))
    unittest_log = noise + textwrap.dedent("""\
        ======================================================================
        FAIL: test_x (tests.test_a.T.test_x)
        ----------------------------------------------------------------------
        Traceback (most recent call last):
          File "tests/test_a.py", line 5, in test_x
            self.assertEqual(1, 2)
        AssertionError: 1 != 2

        ----------------------------------------------------------------------
        Ran 12 tests in 0.004s

        FAILED (failures=1)
        """)
    out = digest(unittest_log, label="ut")
    for want in ("FAIL: test_x", "AssertionError: 1 != 2", "Ran 12 tests", "FAILED (failures=1)"):
        assert want in out
    go_log = noise + "--- FAIL: TestParse (0.00s)\n    parse_test.go:12: want 3, got 4\nFAIL\n" \
        "FAIL\texample.com/p\t0.005s\n"
    out = digest(go_log)
    assert "--- FAIL: TestParse" in out and "parse_test.go:12: want 3" in out
    assert "FAIL\texample.com/p\t0.005s" in out
    jest_log = noise + "Tests:       1 failed, 9 passed, 10 total\nTime:        1.2 s\n"
    assert "Tests:       1 failed, 9 passed, 10 total" in digest(jest_log)
    cc_log = noise + "src/main.c:10:5: error: expected ';' before 'return'\n"
    assert "error: expected ';'" in digest(cc_log)


def test_digest_budget_and_labels() -> None:
    mem = SessionMemory()
    log_text = "".join(f"ERROR: failure number {i} in module m{i}\n" for i in range(2000))
    out = mem.digest_output(log_text)
    assert count_tokens(out) <= 620 and "left out" in out
    second = mem.digest_output("short output\nall good\n")
    assert "'output-2'" in second
    assert mem.recall("output-2").endswith("short output\nall good\n")
    with pytest.raises(InputError):
        mem.digest_output("  ")
