"""Derived files in a shape the store cannot use (a folder at their path, a file that
cannot be read) are set aside to ``state/aside/`` and rebuilt; what cannot be fixed is a
StoreError that says what to do. Nothing the user saved is lost (issue 23, item 7).

The tests may run as root, for whom ``chmod 000`` changes nothing: an unreadable file is
simulated by making ``open`` raise PermissionError for that file only.
"""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from ihmt import Memory
from ihmt.doctor import check_store
from ihmt.errors import StoreError
from ihmt.store import files

MADRID = "I live in Madrid since 2020."


def _store(tmp_path: Path) -> Path:
    mem = Memory.open(tmp_path / "s", create=True)
    mem.save(MADRID, date="2024-01-01")
    mem.save("We chose Postgres for billing because we need transactions.")
    path = mem.path
    mem.close()
    return path


def _folder_at(path: Path) -> None:
    path.unlink(missing_ok=True)
    path.mkdir()
    (path / "what-was-here.txt").write_text("kept")


def _works(path: Path) -> list[str]:
    """Open as a new process would: old memories found, a new save found, and the store
    left with no write marked under way. Returns the notices of the first search."""
    mem = Memory.open(path)
    res = mem.search("postgres billing transactions")
    assert res.best is not None and "Postgres" in res.best.text
    new = mem.save("Kiwis are delivered on Tuesdays to the back door.").ids[0]
    assert mem.search("kiwis delivered tuesdays").best.id == new
    assert "Madrid" in mem.search("where do I live").best.text
    assert not mem.store.interrupted()
    mem.close()
    return list(res.notices)


def _aside(path: Path) -> list[Path]:
    folder = path / "state" / "aside"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def _deny_reading(monkeypatch: pytest.MonkeyPatch, target: Path) -> None:
    """``open`` of ``target`` for reading raises PermissionError while the file there is
    the one found now (the one set aside keeps its inode; a new file is readable)."""
    ino = os.stat(target).st_ino
    real = builtins.open

    def fake(file, mode="r", *a, **k):
        if ("r" in mode and not isinstance(file, int)
                and os.path.abspath(os.fspath(file)) == str(target)):
            try:
                same = os.stat(file).st_ino == ino
            except OSError:
                same = False
            if same:
                raise PermissionError(13, "Permission denied", str(file))
        return real(file, mode, *a, **k)

    monkeypatch.setattr(builtins, "open", fake)


def test_a_folder_at_root_json_is_set_aside_and_rebuilt(tmp_path: Path) -> None:
    path = _store(tmp_path)
    _folder_at(path / "root.json")
    _works(path)
    assert (path / "root.json").is_file()
    [moved] = _aside(path)
    assert moved.name.startswith("root.json.") and (moved / "what-was-here.txt").exists()


def test_a_folder_at_the_catalog_neither_fails_a_save_nor_blocks_later_opens(
        tmp_path: Path) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "catalog.jsonl")
    mem = Memory.open(path)
    new = mem.save("The standup is at 9:30 on Mondays.").ids[0]
    assert not mem.store.interrupted()
    assert any("catalog.jsonl is a folder" in p for p in mem.store.problems)
    mem.close()
    _works(path)
    mem = Memory.open(path)
    leaves = {p.stem for p in mem.store.iter_leaf_paths()}
    assert new in leaves and leaves <= set(mem.store.catalog())  # rewritten whole
    mem.close()
    assert check_store(path)["not_in_catalog"]["count"] == 0
    assert any((p / "what-was-here.txt").exists() for p in _aside(path))


def test_a_folder_at_the_catalog_during_a_bulk_load(tmp_path: Path) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "catalog.jsonl")
    mem = Memory.open(path)
    with mem.bulk():
        ids = [mem.save(f"Bulk note {i} about the orchard's pear trees.").ids[0]
               for i in range(5)]
    assert set(ids) <= set(mem.store.catalog())
    assert not mem.store.interrupted()
    mem.close()
    _works(path)


@pytest.mark.parametrize("shape", ["folder", "unreadable"])
def test_a_fact_log_that_cannot_be_read_is_set_aside_and_rebuilt(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, shape: str) -> None:
    path = _store(tmp_path)
    mem = Memory.open(path)
    mem.record_fact("user", "editor", "helix", "2024-05-01")  # primary: must survive
    mem.close()
    log = path / "state" / "facts.jsonl"
    if shape == "folder":
        _folder_at(log)
    else:
        _deny_reading(monkeypatch, log)
    notices = _works(path)
    assert any("facts.jsonl" in n and "state/aside/" in n for n in notices), notices
    mem = Memory.open(path)
    assert {(f.attribute, f.value) for f in mem.facts("user")} >= {("editor", "helix")}
    mem.close()
    assert len(_aside(path)) == 1


def test_a_save_first_meeting_an_unusable_fact_log_repairs_it(tmp_path: Path) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "facts.jsonl")
    mem = Memory.open(path)
    mem.save("Since March 2025 I live in Lisbon.", date="2025-03-01")
    assert "Lisbon" in mem.search("where do I live").best.text
    assert {"Madrid", "Lisbon"} <= {f.value for f in mem.facts("user")}
    assert not mem.store.interrupted()
    mem.close()


def test_a_folder_at_the_primary_fact_log_is_reported_not_moved(tmp_path: Path) -> None:
    path = _store(tmp_path)
    primary = path / "state" / "facts.primary.jsonl"
    _folder_at(primary)
    notices = _works(path)
    assert any("facts.primary.jsonl is a folder" in n and "move it out" in n
               for n in notices), notices
    mem = Memory.open(path)
    with pytest.raises(StoreError, match="is a folder.*move it out"):
        mem.record_fact("user", "editor", "vim", "2024-05-01")
    mem.close()
    assert (primary / "what-was-here.txt").exists()  # primary data: never moved for us


def test_a_folder_at_the_intent_log_is_set_aside(tmp_path: Path) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "intent.log")
    _works(path)
    assert (path / "state" / "intent.log").is_file()


def test_an_unreadable_intent_log_after_a_crash_is_recovered(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    mem = Memory.open(path)
    # A writer that died after its leaf and before its trunk: only recovery finds it.
    from ihmt.model import Leaf
    orphan = Leaf(id="L-general-0123456789ab", text="The orchard's well pump was replaced.",
                  domain="general", data_type="NARRATIVE", saved_at="2025-01-01T00:00:00Z")
    mem.store.write_leaf(orphan)
    mem.store.begin_write("save")
    mem.close()
    _deny_reading(monkeypatch, path / "state" / "intent.log")
    mem = Memory.open(path)
    assert mem.search("orchard well pump").best.id == orphan.id
    assert not mem.store.interrupted()
    mem.close()


def test_a_folder_at_the_lock_file_or_an_unopenable_state_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "write.lock")  # the lock is on state/, not on this file
    _works(path)
    real = os.open

    def denied(p, flags, *a, **k):
        if os.fspath(p) == str(path / "state") and flags & getattr(os, "O_DIRECTORY", 0):
            raise PermissionError(13, "Permission denied", os.fspath(p))
        return real(p, flags, *a, **k)

    mem = Memory.open(path)
    monkeypatch.setattr(os, "open", denied)
    with pytest.raises(StoreError, match="cannot open the store's state folder"):
        mem.save("This save cannot take the lock.")


def test_what_cannot_be_set_aside_is_a_store_error_saying_what_to_do(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _store(tmp_path)
    _folder_at(path / "state" / "catalog.jsonl")

    def refuse(p: Path, folder: Path) -> Path:
        raise PermissionError(13, "Permission denied", str(p))

    monkeypatch.setattr(files, "move_aside", refuse)
    mem = Memory.open(path)
    with pytest.raises(StoreError, match="catalog.jsonl is a folder.*move it out"):
        mem.save("This save meets a catalog that cannot be moved.")
    mem.close()
    monkeypatch.undo()
    _works(path)  # once it can be moved, nothing was lost
