"""Ways of saying a change (or no change) found by the eighth blind walk, each written here
in other words than the walk's:

- a bare number moved to belongs to the thing the change names ("moved the mail relay's
  SMTP to 2525" says nothing of "the mail relay runs Alpine 3");
- Spanish "al <number>" is where a change puts its value;
- a range of one figure ("bump python 3.10->3.11") gives the new number too, and a change
  said as news ("the worker moves to python 3.12") or as a commit subject is a change;
- "scratch that", "I mixed them up", "me confundí" correct what was said before;
- a rename ("renamed X -> Y") outdates what named X, though something "still says" X;
- "relaxed the rule: ... is fine" is a change, not a value kept;
- a word before the subject in another phrase ("After the merger, payroll ...") does not
  make the subject another thing.
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.change_links import sibling
from ihmt.search.change_notes import read_note, use_verbs

from .conftest import office_store

_store = office_store


def _hit(res, text):  # type: ignore[no-untyped-def]
    return next(h for h in res.hits if h.text == text)


def test_a_number_moved_to_is_not_the_version_of_another_thing(tmp_path: Path) -> None:
    os_note = "The mail relay runs Alpine 3."
    port = "SMTP on the mail relay listens on port 25."
    moved = "Moved mail relay SMTP to 2525 after the ISP blocked 25."
    m = _store(tmp_path, (os_note, "2026-02-01"), (port, "2026-02-02"),
               (moved, "2026-05-01"))
    res = m.search("which OS does the mail relay run?")
    assert res.best.text == os_note and not res.best.outdated, [
        (h.text, h.outdated) for h in res.hits]
    assert not res.best.unsettled
    res = m.search("what port does SMTP on the mail relay listen on?")
    assert res.best.text == moved, [(h.text, h.outdated) for h in res.hits]
    assert _hit(res, port).outdated
    assert not _hit(res, os_note).outdated


def test_spanish_al_number_is_where_the_change_puts_it(tmp_path: Path) -> None:
    assert "8081" in read_note("Pasamos el panel de métricas al 8081.", "spanish").moved_to
    old = "El panel de métricas escucha en el puerto 8080."
    new = "Pasamos el panel de métricas al 8081 por un choque con Jenkins."
    m = _store(tmp_path, (old, "2026-02-01"), (new, "2026-06-01"))
    res = m.search("¿en qué puerto escucha el panel de métricas?")
    assert res.best.text == new and res.status == "FOUND", (res.status, res.best.text)


def test_a_range_gives_the_new_number_and_news_style_changes_count(tmp_path: Path) -> None:
    note = read_note("build: bump python 3.10->3.11 in the worker image", "english")
    assert ("3.11", "python") in note.named and note.changed
    assert read_note("the worker moves to python 3.12, image rebuilt", "english").changed
    assert read_note("chore(deps): upgrade redis client to 5.0", "english").changed
    # describing what a job does is no change
    assert not read_note("The cleanup job moves old files to cold storage.", "english").changed
    first = "The worker image is on Python 3.10."
    bump = "build: bump python 3.10->3.11 in the worker image"
    news = "the worker moves to python 3.12, image rebuilt and pinned"
    m = _store(tmp_path, (first, "2026-01-10"), (bump, "2026-03-01"), (news, "2026-07-01"))
    res = m.search("which python version does the worker use?")
    assert res.best.text == news and res.status == "FOUND", [
        (h.text, h.outdated) for h in res.hits]
    assert _hit(res, bump).outdated


def test_a_correction_said_as_scratch_that_or_mixed_up(tmp_path: Path) -> None:
    for said, lang in [("Scratch that: the queue holds 500 messages.", "english"),
                       ("I mixed them up, the queue holds 500.", "english"),
                       ("Me confundí: la cola admite 500 mensajes.", "spanish")]:
        assert read_note(said, lang).changed, said
    old = "Search cluster: host es.internal, port 9201, read-only user viewer."
    new = ("Scratch that - the search cluster answers on 9200. 9201 was my own tunnel, I "
           "mixed them up.")
    m = _store(tmp_path, (old, "2026-04-01"), (new, "2026-04-01"))
    res = m.search("what port does the search cluster answer on?")
    assert res.best.text == new and res.status == "FOUND", [
        (h.text, h.outdated) for h in res.hits]


def test_a_rename_outdates_the_old_name_whatever_still_says_it(tmp_path: Path) -> None:
    note = read_note("Renamed ledgerd -> abacus (repo and helm chart).", "english")
    assert "ledgerd" in note.renamed and "abacus" in note.values
    old = "The 'ledgerd' service posts every journal entry; its code is in services/ledgerd."
    new = ("Renamed ledgerd -> abacus (repo and helm chart). Some runbooks still say "
           "ledgerd.")
    m = _store(tmp_path, (old, "2026-02-01"), (new, "2026-06-01"))
    res = m.search("what is the service that posts journal entries called?")
    assert res.best.text == new and res.status == "FOUND", [
        (h.text, h.outdated) for h in res.hits]
    assert _hit(res, old).outdated
    # a rename only planned changes nothing
    assert not read_note("We might rename ledgerd to abacus next year.", "english").renamed


def test_a_rule_relaxed_is_a_change_not_a_value_kept() -> None:
    note = read_note("Relaxed the Sunday rule: merges are fine on Sundays before noon.",
                     "english")
    assert note.changed and not note.kept
    # "fine" on its own still says a value stays
    assert read_note("Jest is fine, no need to switch.", "english").kept


def test_a_word_in_another_phrase_does_not_make_another_subject(tmp_path: Path) -> None:
    old = "Payroll service is owned by Team Heron; their channel is #team-heron."
    new = "Since the audit, payroll is now handled by Team Kestrel (#team-kestrel)."
    o, n = read_note(old, "english"), read_note(new, "english")
    assert not sibling(n, o, {"payrol"}, use_verbs("english"), "english")
    # in one phrase the word before the subject still makes it another thing
    near = read_note("The contractor payroll is now handled by Team Kestrel.", "english")
    assert sibling(near, o, {"payrol"}, use_verbs("english"), "english")
    m = _store(tmp_path, (old, "2026-02-01"), (new, "2026-08-01"))
    res = m.search("who do I ask about a bug in the payroll service?")
    assert res.best.text == new, [(h.text, h.outdated) for h in res.hits]
    assert _hit(res, old).outdated


def test_an_earlier_version_linked_on_weak_ground_is_no_rival(tmp_path: Path) -> None:
    # The later says a change of the same thing without naming the old value, on ground
    # too weak to flag the earlier outdated: it leads, and the earlier, still shown, no
    # longer makes the answer AMBIGUOUS.
    old = "The reporting service keeps rollups and exports in ClickHouse."
    new = "After the load review, reporting was switched over to DuckDB."
    m = _store(tmp_path, (old, "2026-02-01"), (new, "2026-05-01"),
               ("The staging database is reset every night.", "2026-01-01"))
    res = m.search("which database does reporting use?")
    assert res.best.text == new, [(h.text, h.outdated) for h in res.hits]
    assert res.status == "FOUND", (res.status, res.message)
    assert any(h.text == old for h in res.hits)
    # a later memory that matched the question too may be a newer version: then it asks
    later = "The reporting service database is being benchmarked against Druid."
    m2 = office_store(tmp_path / "b", (old, "2026-02-01"), (new, "2026-05-01"),
                      ("The staging database is reset every night.", "2026-01-01"),
                      (later, "2026-06-01"))
    res = m2.search("which database does reporting use?")
    assert res.status != "FOUND" or res.best.text != new, (res.status, res.best.text)


def test_after_the_phrase_an_article_ends_no_qualifier() -> None:
    o = read_note("The reporting service keeps rollups in ClickHouse.", "english")
    n = read_note("After the load tests the reporting service moved to DuckDB.", "english")
    assert not sibling(n, o, {"report"}, use_verbs("english"), "english")
