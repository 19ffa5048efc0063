"""Changes the eleventh walk (written blind, measured once before it was read) showed
served stale, in words of their own:

- the old value before an arrow is the value let go ("Memcached -> Redis", "master -> main"),
  as "from X" is;
- "no longer <verb> X" lets X go, whatever the verb ("we no longer enforce X");
- a name of several parts that extends another ("billing-db-replica", "billing-db") names
  another thing: the replica's change is no news of the primary (a dot is no such part:
  "ci-01.internal" is "ci-01");
- a setting's name may hold an underscore ("max_connections = 200"), and a change may say
  its new figure with a verb ("max_connections raised to 400");
- "primarily" asks for the primary (a form the stemmer keeps apart);
- a date that "slips to" another, and a Spanish change said in the present of the one who
  makes it ("subo el umbral al 90%", "paso las tareas a Things"), are changes;
- a reminder or a to-do changes nothing, though it says "now" ("Reminder: compare X with
  what I get now").
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.change_notes import read_note

from .conftest import office_store

_store = office_store


def test_the_value_before_an_arrow_and_after_no_longer_is_gone() -> None:
    assert "jenkin" in read_note("CI: Jenkins -> Buildkite, done last sprint.", "english").gone
    assert "trunk" in read_note("rename default branch trunk \u2192 main", "english").gone
    assert "gitflow" in read_note("We no longer follow GitFlow; trunk-based now.",
                                  "english").gone


def test_a_commit_subject_with_an_arrow_changes_what_it_names(tmp_path: Path) -> None:
    old = "The default branch of the docs repo is trunk."
    new = "Commit 9f1c2e0: chore(repo): rename default branch trunk \u2192 main, update CI"
    m = _store(tmp_path, (old, "2023-02-02"),
               ("Release branches of the docs repo are named release/YYYY.MM.", "2023-02-02"),
               (new, "2023-10-16"))
    res = m.search("What is the default branch of the docs repo called?")
    assert res.hits[0].text == new
    assert next(h for h in res.hits if h.text == old).outdated


def test_no_longer_followed_lets_the_old_convention_go(tmp_path: Path) -> None:
    old = "Our branching model follows GitFlow (develop, release/*, hotfix/*)."
    new = ("We no longer follow GitFlow. Short-lived branches off main, merged within a day, "
           "e.g. 'PAY-88-refund-retry'.")
    m = _store(tmp_path, (old, "2023-05-03"), ("PR titles must include the ticket key.",
                                                "2023-05-03"), (new, "2024-08-19"))
    res = m.search("What branching model do we follow?")
    assert res.hits[0].text == new
    assert not (res.status == "FOUND" and res.hits[0].text == old)


def test_a_longer_name_of_several_parts_is_another_thing(tmp_path: Path) -> None:
    now = "billing-db work_mem raised to 64 after the slow report queries."
    m = _store(tmp_path, ("billing-db (Postgres primary) work_mem = 16.", "2023-08-07"),
               (now, "2024-05-13"),
               ("billing-db-replica work_mem lowered to 8, it only serves dashboards.",
                "2025-03-03"))
    res = m.search("What is work_mem set to on the billing primary?")
    assert res.hits[0].text == now
    assert not any(h.text == now and h.outdated for h in res.hits)


def test_a_fully_named_host_is_the_same_host() -> None:
    from ihmt.search.change_links import named_apart

    a = read_note("The build controller runs on ci-01.internal.", "english")
    b = read_note("Build controller moved: ci-01 -> ci-02.internal.", "english")
    assert not named_apart(a, b)
    c = read_note("ci-01-standby takes over at night.", "english")
    assert named_apart(a, c) is False  # (the dotted name is not extended by a dash)
    assert named_apart(read_note("ci-01 is the controller.", "english"), c)


def test_a_setting_with_an_underscore_is_numbered_by_its_name() -> None:
    assert ("200", "max_connect") in read_note("max_connections = 200", "english").named
    assert ("400", "max_connect") in read_note("max_connections raised to 400 today.",
                                               "english").named


def test_a_reminder_changes_nothing(tmp_path: Path) -> None:
    from ihmt.search.change_words import hedged
    from ihmt.text import fold

    note = ("Reminder: check Fastly's pricing against what we pay now before the CDN "
            "contract renews in March.")
    assert hedged(fold(note))
    now = "The CDN is Bunny now; Cloudflare's rules could not do the geo redirects."
    m = _store(tmp_path, ("Our CDN is Cloudflare.", "2023-07-31"), (now, "2024-09-30"),
               ("The CDN bill goes to the platform team.", "2024-10-02"), (note, "2026-10-13"))
    res = m.search("Which CDN do we use?")
    assert res.hits[0].text == now
    assert not any(h.text == now and h.outdated for h in res.hits)


def test_primarily_asks_for_the_primary(tmp_path: Path) -> None:
    now = "After the capacity incidents, the payments primary has been moved for good to us-west-2."
    m = _store(tmp_path, ("Payments service primary region is us-east-1.", "2023-09-12"),
               ("payments primary region us-east-1 -> us-east-2, latency", "2024-11-25"),
               ("Payments DR region is eu-west-1.", "2025-01-14"), (now, "2025-07-07"))
    res = m.search("Which region does payments primarily run in?")
    assert res.hits[0].text == now
    assert res.status == "FOUND"
    # found by "primarily" too, not by "payments" and "region" alone, as the DR region is
    assert any(t.startswith("primar") for t in res.hits[0].matched)



def test_a_date_that_slips_and_a_spanish_present_change(tmp_path: Path) -> None:
    from ihmt.search.change_words import CUE
    from ihmt.text import fold

    assert CUE.search(fold("Planning notes: the beta slips to October 3 (store review)."))
    assert CUE.search(fold("subo el límite de memoria de staging a 4 GB"))
    assert not CUE.search(fold("Paso por la oficina los martes."))
    now = ("Marta en #infra: 'mucho ruido por las noches, subo el umbral de disco de prod al "
           "92% sin avisar'")
    m = _store(tmp_path, ("Alerta de disco en los nodos de producción: salta al 85% durante 5 "
                          "minutos.", "2024-03-01"),
               ("Alerta de memoria en prod: 90%.", "2024-03-01"), (now, "2025-01-20"))
    res = m.search("¿Cuándo salta la alerta de disco en prod?")
    assert res.hits[0].text == now

