"""A long bulk load never blocks other processes (issue 23, item 2).

A process inside ``Memory.bulk()`` collects its saves without holding the write lock; it
holds it only while a batch commits, in short chunks. So another process's save and
search go through while the bulk is still open, which this test checks by order, not by
time: the bulk waits for the other process to finish before it ends.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from ihmt import Memory

OTHER = """
import sys
from pathlib import Path
from ihmt import Memory
m = Memory.open(sys.argv[1])
rep = m.save("The deploy key rotates every ninety days.", date="2026-01-05")
hit = m.search("deploy key rotates").best
Path(sys.argv[2]).write_text(rep.ids[0] + " " + (hit.id if hit else "-"))
"""


def test_a_save_and_a_search_get_through_while_a_bulk_is_open(tmp_path: Path) -> None:
    path = tmp_path / "ihmt_memory"
    mem = Memory.open(path, create=True, config={"branch_factor": 4})
    mem.save("first memory before the bulk", date="2026-01-01")
    done = tmp_path / "other-done"
    script = tmp_path / "other.py"
    script.write_text(OTHER)
    with mem.bulk():
        for i in range(200):
            mem.save(f"bulk memory {i} about warehouse shelf {i % 13}", date="2026-01-02")
        other = subprocess.Popen([sys.executable, str(script), str(path), str(done)],
                                 stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not done.exists() and other.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)  # still inside the bulk: the other process must not wait for it
        assert done.exists(), f"the other process did not get through: {other.stderr.read()}"
        other.wait(30)
    saved, found = done.read_text().split()
    assert found == saved
    assert mem.search("deploy key rotates").best.id == saved
    assert mem.stats()["leaves"] == 202
    mem.close()
