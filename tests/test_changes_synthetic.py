"""Wrong links the synthetic retrieval set showed (bench.synthetic, 5,000 memories), in
words of their own. Many templated notes share most of their words; a change must still be
of the thing asked:

- a later change of another named service does not unsettle the answer about the one the
  question names ("the Olivo gateway's rate limit" is no news of "the Cobalt service's");
- a question that asks by an identifier only one memory holds ("SEC-2693") asks for that
  memory, and a later note about another item ("BILL-3727") neither outdates nor passes it;
- a year is no value let go ("el 23 de noviembre de 2025 a las 9:30");
- "renewed my passport" keeps the passport: no version of the last renewal.
"""

from __future__ import annotations

from pathlib import Path

from ihmt.search.change_words import CUE
from ihmt.text import fold

from .conftest import office_store

_store = office_store


def test_a_change_of_another_named_service_does_not_unsettle(tmp_path: Path) -> None:
    old = "The Tamarind upload service's rate limit was raised to 300 requests per minute."
    m = _store(tmp_path, (old, "2023-08-09"),
               ("We lowered the rate limit of the Basalt export service to 300 requests per "
                "minute.", "2024-04-02"))
    res = m.search("raised upload Tamarind")
    assert res.hits[0].text == old
    assert not res.hits[0].outdated and not res.hits[0].notices


def test_an_asked_identifier_asks_for_its_memory(tmp_path: Path) -> None:
    asked = ("ADR for OPS-4412: tracing moves to Tempo; Jaeger was rejected since the "
             "benchmark showed twice the storage.")
    m = _store(tmp_path, (asked, "2024-01-17"),
               ("ADR for PAY-9051: payouts moves to Temporal; Airflow was rejected since the "
                "benchmark showed twice the latency.", "2024-12-26"))
    res = m.search("OPS-4412 storage benchmark")
    assert res.hits[0].text == asked
    assert not res.hits[0].outdated


def test_a_year_is_no_value_let_go(tmp_path: Path) -> None:
    incident = "Incident on March 9, 2025: OOM kills in search; purge_index_cache tripped."
    m = _store(tmp_path, (incident, "2025-03-09"),
               ("Cita con la fisio el 14 de diciembre de 2025 a las 18:00.", "2025-11-23"))
    res = m.search("what do we know about purge_index_cache")
    assert res.hits[0].text == incident
    assert not res.hits[0].outdated


def test_renewing_keeps_the_thing() -> None:
    assert not CUE.search(fold("Renewed my passport on 2024-04-23; it expires in 2034."))
    assert not CUE.search(fold("Traffic doubled during the sale."))
    assert CUE.search(fold("Doubled the worker pool to 40."))
