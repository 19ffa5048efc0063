"""Finishing a write a dead process left: only what it touched, or everything when unsure.

A save or a bulk chunk names, on the synced line that opens it (:mod:`ihmt.store.intent`),
the trunk it starts from (``root.json``'s epoch and generation), the new leaves it is about
to write, and the identity and size of the two journals it appends to. Everything else it
does follows from those: the trunk is replaced atomically as its last step, branch files
get ids derived from their children (re-running an event writes the same file again), and
the catalog and the fact log are only appended to. So the next writer, holding the lock:

* trunk of the recorded generation (the write died before its last step): cuts the two
  journals back to their recorded size (the lines past it are the dead write's own, a torn
  one included), reads the named leaves that reached the disk, and files them again as a
  save would: trunk entries, their facts and supersessions, the events they make due,
  their catalog lines, the trunk. A leaf that never reached the disk is absent. Leaves
  left at the trunk lose a parent stamp the dead write may have given them;
* trunk one generation on (the write died after its last step): checks that each named
  leaf is on disk and at the trunk or in the branch its header names, and that the fact
  log is as long as the trunk says;
* anything else (no record, a record cut short or altered, another trunk, a journal that
  was replaced or shrank, a named leaf that cannot be read, an interrupted forget, any
  error while finishing): the full rebuild from the leaves, as before.

Either way nothing acknowledged is lost: a leaf file on disk is never removed. Vectors need
nothing here: a save journals its leaves in ``state/vectors/pending`` before writing them
(the next process encodes what the journal names), and a bulk chunk appends its vectors
before its leaves.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

from .errors import DamagedFileError, NotFoundError
from .model import Leaf, SaveReport
from .store.intent import file_sig
from .store.leaves import read_leaf
from .store.store import Store, copy_root, domain_of_id
from .text import count, memory_terms
from .tree.prune import live_children

if TYPE_CHECKING:
    from .forgetting import Forgetter
    from .timeline.facts import FactTimeline
    from .tree.consolidate import Consolidator
    from .writing import Writer

log = logging.getLogger(__name__)

FULL_MESSAGE = "a previous write was interrupted; the tree was rebuilt from the leaves"
KINDS = ("save", "bulk", "open")  # writes whose record says all they touch


class Unverifiable(Exception):
    """The record names something recovery cannot check: rebuild everything."""


def record_for(store: Store, leaves: Iterable[Leaf], pending: Iterable[str] = ()
               ) -> dict[str, Any] | None:
    """The intent record of a write about to add ``leaves`` (lock held, after recovery):
    the ones that are new, in the order they will be filed. None when the trunk cannot be
    read (the write then repairs it first; a crash falls back to the full rebuild)."""
    try:
        root = store.root()
    except DamagedFileError:
        return None
    skip = {e["id"] for e in root["top"]} | set(pending)
    ids: list[str] = []
    for leaf in leaves:
        if leaf.id in skip or store.leaf_exists(leaf.id, leaf.domain):
            continue
        skip.add(leaf.id)
        ids.append(leaf.id)
    return {"epoch": root.get("epoch"), "gen": root["generation"], "leaves": ids,
            "catalog": file_sig(store.catalog_path),
            "facts": file_sig(store.state_dir / "facts.jsonl")}


class Recovery:
    """Finishes an interrupted write (lock held); :attr:`last` says how (for tests and
    benchmarks: ``{"mode": "partial" | "full", "leaves": n, "reason": ...}``)."""

    def __init__(self, store: Store, consolidator: Consolidator, timeline: FactTimeline,
                 writer: Writer, forgetter: Forgetter,
                 rebuild_locked: Callable[[], dict[str, Any]]) -> None:
        self.store = store
        self.consolidator = consolidator
        self.timeline = timeline
        self.writer = writer
        self.forgetter = forgetter
        self._rebuild_locked = rebuild_locked
        self.last: dict[str, Any] = {}

    def run(self) -> None:
        """The store is interrupted and the lock held: finish the write, then close it."""
        what, record = self.store.intent.open_record()
        self.store.settle_intent()  # a log that cannot be read is set aside
        self.store.remove_partial_files()
        self.store.clear_cache()
        reason = self._why_not(what, record)
        if reason is None:
            assert record is not None
            try:
                n = self._finish(what, record)
            except Unverifiable as exc:
                reason = str(exc)
            except OSError:
                raise  # a full disk ...: the intent stays open, the next write tries again
            except Exception as exc:  # noqa: BLE001 - a bad record never stops a write
                reason = f"finishing it failed ({type(exc).__name__}: {exc})"
                self.store.clear_cache()
            else:
                msg = (f"a previous {what} was interrupted; it was finished from the files it "
                       f"names ({count(n, 'memory', 'memories')}), without a full rebuild")
                log.warning(msg)
                self.store.problems.append(msg)
                self.last = {"mode": "partial", "what": what, "leaves": n, "reason": "",
                             "named": len(record["leaves"])}
                self.store.end_write()
                return
        log.warning("%s (%s)", FULL_MESSAGE, reason)
        self.store.problems.append(FULL_MESSAGE)
        self.last = {"mode": "full", "what": what, "leaves": None, "reason": reason,
                     "named": None}
        forgotten = self.forgetter.finish_interrupted()  # a forget is carried through
        self._rebuild_locked()
        if forgotten:
            self.forgetter.after_rebuild(forgotten)
        self.store.end_write()

    def _why_not(self, what: str, record: dict[str, Any] | None) -> str | None:
        if record is None:
            return "its intent line has no record that can be trusted"
        if what not in KINDS:
            return f"a {what} is always rebuilt"
        if self.forgetter.marker.exists():
            return "a forget was under way"
        ids = record.get("leaves")
        if (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)
                or not isinstance(record.get("gen"), int)):
            return "its record is not in the expected shape"
        return None

    # ------------------------------------------------------------------ finishing
    def _finish(self, what: str, record: dict[str, Any]) -> int:
        try:
            root = self.store.root()
        except DamagedFileError as exc:
            raise Unverifiable(str(exc)) from exc
        if root.get("epoch") != record.get("epoch"):
            raise Unverifiable("the trunk was rebuilt after the record was written")
        ids: list[str] = record["leaves"]
        if root["generation"] == record["gen"] + 1:
            return self._check_committed(root, ids, record)
        if root["generation"] != record["gen"]:
            raise Unverifiable("the trunk is of another generation than the record's")
        journals = [(self.store.catalog_path, _cut_at(self.store.catalog_path,
                                                     record.get("catalog"))),
                    (self.timeline.path, _cut_at(self.timeline.path, record.get("facts")))]
        leaves = [lf for lf in (self._leaf(i) for i in ids) if lf is not None]
        # Checked: from here on the store is changed, each step done again if this dies.
        for path, size in journals:
            if size is not None:
                os.truncate(path, size)
                self.store.changes += 1
        self.timeline.refresh()
        root = copy_root(root)
        stem = self.store.config.stemmer
        prepared = [(lf, memory_terms(lf.text, lf.tags, stem)) for lf in leaves]
        self.consolidator.known = {lf.id: lf for lf in leaves}
        try:
            lines = self.writer.add_existing(root, prepared, SaveReport())
            self._clear_stale_stamps(root, {domain_of_id(i) for i in ids})
        finally:
            self.consolidator.known = {}
        self.store.catalog_append(lines)
        self.timeline.fsync()
        root["facts_size"] = self.writer.facts_size()
        self.store.write_root(root)
        if what == "bulk" and leaves:
            os.sync()  # a chunk's leaves were written unsynced, then synced together
        return len(leaves)

    def _leaf(self, leaf_id: str) -> Leaf | None:
        """A named leaf as its file holds it, None when it never reached the disk."""
        try:
            path = self.store.leaf_path(leaf_id, domain_of_id(leaf_id))
        except (NotFoundError, ValueError) as exc:
            raise Unverifiable(f"the record names {leaf_id!r}, not a leaf") from exc
        if not path.exists():
            return None
        try:
            leaf = read_leaf(path)
        except DamagedFileError as exc:  # unreadable ones included: the rebuild reports them
            raise Unverifiable(str(exc)) from exc
        if leaf.id != leaf_id:
            raise Unverifiable(f"{path.name} holds {leaf.id}")
        return leaf

    def _clear_stale_stamps(self, root: dict[str, Any], domains: set[str]) -> None:
        """Leaves at the trunk have no parent; the dead write may have stamped some with a
        branch its re-run did not make (a chunk's leaves that never reached the disk)."""
        for entry in root["top"]:
            if int(entry["layer"]) != 0 or entry["domain"] not in domains:
                continue
            leaf = self.consolidator.known.get(entry["id"])
            if leaf is None:
                try:
                    leaf = self.store.read_leaf(entry["id"], entry["domain"])
                except (NotFoundError, DamagedFileError):
                    continue
            if leaf.parent is not None:
                leaf.parent = None
                self.store.write_leaf(leaf, new=False)

    def _check_committed(self, root: dict[str, Any], ids: list[str],
                         record: dict[str, Any]) -> int:
        """The dead write replaced the trunk, its last step: check what it names."""
        top = {e["id"] for e in root["top"] if int(e["layer"]) == 0}
        for leaf_id in ids:
            leaf = self._leaf(leaf_id)
            if leaf is None:
                raise Unverifiable(f"{leaf_id} is in the record but not on disk")
            if leaf_id in top:
                continue
            parent = leaf.parent or ""
            try:
                branch, _ = self.store.branch(parent, int(parent.split("-")[0][1:]))
            except (DamagedFileError, NotFoundError, ValueError) as exc:
                raise Unverifiable(f"{leaf_id} is not in the tree") from exc
            if leaf_id not in {c["id"] for c in live_children(branch.children)}:
                raise Unverifiable(f"{leaf_id} is not in the branch its header names")
        if self.writer.facts_size() != int(root.get("facts_size", -1)):
            raise Unverifiable("the fact log is not the length the trunk says")
        sig, cur = record.get("catalog"), file_sig(self.store.catalog_path)
        if sig is not None and (cur is None or cur[0] != sig[0]):
            raise Unverifiable("the catalog was begun again")
        return len(ids)


def _cut_at(path: os.PathLike[str], sig: Any) -> int | None:
    """The size to cut a journal back to (None: leave it), or Unverifiable when it is not
    the file the record saw, or is shorter."""
    cur = file_sig(path)  # type: ignore[arg-type]
    if sig is None:
        return 0 if cur is not None else None  # the write began it: all of it is its own
    if (not isinstance(sig, list) or len(sig) != 2 or cur is None or cur[0] != sig[0]
            or cur[1] < sig[1]):
        raise Unverifiable(f"{os.fspath(path)} was replaced or shortened since the record")
    return int(sig[1]) if cur[1] > sig[1] else None
