"""Does a memory answer with the current value, however the change was said?

Generates small histories in English and Spanish: one topic (where the user works, lives,
how they commute, who they report to, which CI or runtime the team uses ...) whose value
changes 1-3 times, each version a memory saved with its date, plus unrelated notes and,
in some histories, a trap (the old value mentioned in passing after the change, or an
alternative that was evaluated and rejected). Each history goes into its own store and is
asked:

- a question about now, with no time named: the newest version must lead;
- a question naming a year of an earlier version: that version must lead.

The phrasings here are written for this benchmark and kept apart from the extraction rules
(:mod:`ihmt.timeline`), so it measures the method, not one list of phrases. Templates are
split in two halves by position: ``dev`` (even) and ``held`` (odd); the report gives both,
and a rule tuned by reading the misses of one half is checked on the other.

Systems, all on the same memories: flat BM25 (``bm25s``), "the newest of the memories BM25
matches", IHMT lexical and, with ``--semantic``, IHMT with the semantic extra.

    python -m bench.versions --histories 240 --seed 3 --json
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._common import emit, env_info, progress

# Each topic: values, how a first version is stated, how a change is stated, questions about
# now and about a year. ``{v}`` is the value, ``{o}`` the previous value. Lists alternate
# dev / held-out by position.
TOPICS: dict[str, dict[str, Any]] = {
    "employer": {
        "values": ["Initrode", "Globex", "Hooli", "Vandelay Industries", "Umbrella Labs",
                   "Stark Analytics", "Wayne Logistics", "Soylent Foods", "Cyberdyne Systems",
                   "Tyrell Data", "Massive Dynamic", "Pied Piper"],
        "en_state": ["I work at {v} as a data engineer.",
                     "My employer is {v}; the office is downtown.",
                     "I have been working for {v} for three years.",
                     "At {v} I mostly build internal dashboards."],
        "en_change": ["Today was my first day at {v}.",
                      "I accepted the offer from {v} and started this week.",
                      "Handed in my badge at {o}; I joined {v} on Monday.",
                      "New job: I am now a backend developer at {v}.",
                      "Left {o} last month and started working at {v}.",
                      "Signed with {v}, my first week there went well."],
        "es_state": ["Trabajo en {v} como ingeniera de datos.",
                     "Llevo tres años trabajando para {v}.",
                     "Mi empresa es {v}, con oficina en el centro.",
                     "En {v} hago sobre todo paneles internos."],
        "es_change": ["Hoy empecé en {v}.",
                      "Me contrataron en {v} y ya llevo una semana.",
                      "Dejé {o}; desde el lunes trabajo para {v}.",
                      "Nuevo trabajo: ahora estoy en {v} como desarrolladora.",
                      "Primer día en {v}, todo muy bien.",
                      "Me fui de {o} y me incorporé a {v}."],
        "en_q": ["where do I work?", "which company do I work for?",
                 "who is my employer?", "what company am I at?"],
        "es_q": ["¿dónde trabajo?", "¿para qué empresa trabajo?", "¿en qué empresa estoy?",
                 "¿quién es mi empleador?"],
        "en_past": ["where did I work in {y}?", "which company was I working for in {y}?"],
        "es_past": ["¿dónde trabajaba en {y}?", "¿para qué empresa trabajaba en {y}?"],
        "trap_passing": ["Had lunch with my old colleagues from {o} today.",
                         "Comí con antiguos compañeros de {o}."],
        "trap_reject": ["I interviewed at {x} but turned their offer down.",
                        "Hice una entrevista en {x} pero rechacé la oferta."],
    },
    "city": {
        "values": ["Valencia", "Lisbon", "Bilbao", "Porto", "Sevilla", "Munich", "Zaragoza",
                   "Granada", "Lyon", "Utrecht", "Malaga", "Ghent"],
        "en_state": ["I live in {v}, close to the old town.",
                     "Home is a small flat in {v}.",
                     "I am based in {v} these days.",
                     "My apartment in {v} has a balcony."],
        "en_change": ["We moved to {v} last weekend.",
                      "Finally relocated to {v}; the boxes are unpacked.",
                      "Said goodbye to {o}, my new home is in {v}.",
                      "Just signed the lease on a flat in {v}.",
                      "I now live in {v}, near the river.",
                      "Settled in {v} after the move from {o}."],
        "es_state": ["Vivo en {v}, cerca del casco antiguo.",
                     "Mi piso está en {v}.",
                     "Resido en {v} desde hace años.",
                     "Tengo un apartamento en {v} con balcón."],
        "es_change": ["Me mudé a {v} el fin de semana.",
                      "Nos trasladamos a {v}; ya está todo desempaquetado.",
                      "Dejé {o}, ahora vivo en {v}.",
                      "Firmé el alquiler de un piso en {v}.",
                      "Ya me instalé en {v}, cerca del río.",
                      "Cambié {o} por {v}: nueva casa."],
        "en_q": ["where do I live?", "which city am I living in?", "where is my home?",
                 "what city do I live in?"],
        "es_q": ["¿dónde vivo?", "¿en qué ciudad vivo?", "¿dónde está mi casa?",
                 "¿en qué ciudad resido?"],
        "en_past": ["where did I live in {y}?", "which city was I living in in {y}?"],
        "es_past": ["¿dónde vivía en {y}?", "¿en qué ciudad vivía en {y}?"],
        "trap_passing": ["Spent the weekend visiting friends in {o}.",
                         "Pasé el fin de semana de visita en {o}."],
        "trap_reject": ["We looked at flats in {x} but decided against moving there.",
                        "Miramos pisos en {x} pero al final no nos mudamos allí."],
    },
    "manager": {
        "values": ["Tomás Rivera", "Priya Nair", "Helen Ward", "Kenji Sato", "Lucía Ortega",
                   "Omar Haddad", "Greta Lind", "Marco Bellini", "Aisha Khan", "Pablo Ruiz"],
        "en_state": ["My manager is {v}.", "I report to {v} in the platform group.",
                     "{v} is my boss and runs our one-on-ones.",
                     "{v} leads my team and signs off on my reviews."],
        "en_change": ["After the reorg I now report to {v}.",
                      "{v} took over as my manager this week.",
                      "My new boss is {v}; {o} moved to another team.",
                      "Starting today {v} is my line manager.",
                      "The team was handed over to {v}.",
                      "I was moved under {v} in the reshuffle."],
        "es_state": ["Mi jefa es {v}.", "Reporto a {v} en el grupo de plataforma.",
                     "{v} es mi responsable directo.",
                     "{v} dirige mi equipo y hace mis evaluaciones."],
        "es_change": ["Tras la reorganización ahora reporto a {v}.",
                      "{v} es mi nuevo jefe desde esta semana.",
                      "{o} se fue a otro equipo; ahora mi responsable es {v}.",
                      "Desde hoy mi jefa es {v}.",
                      "El equipo pasó a manos de {v}.",
                      "Me cambiaron de equipo y ahora dependo de {v}."],
        "en_q": ["who is my manager?", "who do I report to?", "who is my boss?",
                 "who is my line manager?"],
        "es_q": ["¿quién es mi jefe?", "¿a quién reporto?", "¿quién es mi responsable?",
                 "¿de quién dependo?"],
        "en_past": ["who was my manager in {y}?", "who did I report to in {y}?"],
        "es_past": ["¿quién era mi jefe en {y}?", "¿a quién reportaba en {y}?"],
        "trap_passing": ["Bumped into {o} at the coffee machine today.",
                         "Me crucé con {o} en la cafetería."],
        "trap_reject": ["HR suggested {x} as my mentor, but I said no.",
                        "Me propusieron a {x} como mentora, pero dije que no."],
    },
    "editor": {
        "values": ["Neovim", "Emacs", "VS Code", "Zed", "Helix", "Sublime Text", "IntelliJ IDEA",
                   "Kate"],
        "en_state": ["I write all my code in {v}.", "My editor is {v}, with a dark theme.",
                     "I use {v} for every project.", "{v} is the editor I open every morning."],
        "en_change": ["Switched my editor to {v} last week.",
                      "Gave up on {o}; I code in {v} now.",
                      "Moved all my keybindings over to {v}.",
                      "These days I do everything in {v}.",
                      "Replaced {o} with {v} for daily work.",
                      "Tried {v} for a month and kept it as my editor."],
        "es_state": ["Programo siempre en {v}.", "Mi editor es {v}, con tema oscuro.",
                     "Uso {v} para todos los proyectos.", "{v} es lo primero que abro cada día."],
        "es_change": ["Me pasé a {v} la semana pasada.",
                      "Dejé {o}; ahora programo en {v}.",
                      "Cambié de editor: ahora uso {v}.",
                      "Ya hago todo en {v}.",
                      "Sustituí {o} por {v} para el día a día.",
                      "Probé {v} un mes y me quedé con él."],
        "en_q": ["which editor do I use?", "what do I write code in?", "what is my editor?",
                 "which code editor am I using?"],
        "es_q": ["¿qué editor uso?", "¿con qué programo?", "¿cuál es mi editor?",
                 "¿qué editor de código utilizo?"],
        "en_past": ["which editor did I use in {y}?", "what was my editor in {y}?"],
        "es_past": ["¿qué editor usaba en {y}?", "¿cuál era mi editor en {y}?"],
        "trap_passing": ["Helped a colleague fix his {o} config.",
                         "Ayudé a un compañero con su configuración de {o}."],
        "trap_reject": ["Gave {x} a try for an afternoon, not for me.",
                        "Probé {x} una tarde, no es para mí."],
    },
    "ci": {
        "values": ["Jenkins", "GitHub Actions", "GitLab CI", "CircleCI", "Buildkite",
                   "Drone", "TeamCity", "Travis CI"],
        "en_state": ["Our builds run on {v}.", "{v} runs every pipeline we have.",
                     "We use {v} for continuous integration.", "All CI jobs live in {v}."],
        "en_change": ["{o} was shut down; every pipeline runs on {v} now.",
                      "We migrated our CI from {o} to {v}.",
                      "Moved the build pipelines over to {v} this sprint.",
                      "CI is on {v} now, {o} is gone.",
                      "Finished the switch to {v} for all builds.",
                      "Retired {o}; builds and tests run in {v}."],
        "es_state": ["Nuestras builds corren en {v}.", "{v} ejecuta todos los pipelines.",
                     "Usamos {v} para integración continua.", "Todos los jobs de CI están en {v}."],
        "es_change": ["Apagamos {o}; todos los pipelines van en {v}.",
                      "Migramos la CI de {o} a {v}.",
                      "Pasamos los pipelines de build a {v} este sprint.",
                      "La CI ya está en {v}, {o} desapareció.",
                      "Terminamos el cambio a {v} para todas las builds.",
                      "Retiramos {o}; builds y tests corren en {v}."],
        "en_q": ["what CI do we use?", "which system runs our builds?",
                 "where do our pipelines run?", "what is our CI system?"],
        "es_q": ["¿qué CI usamos?", "¿dónde corren nuestras builds?",
                 "¿qué sistema ejecuta los pipelines?", "¿cuál es nuestra CI?"],
        "en_past": ["what CI did we use in {y}?", "where did our builds run in {y}?"],
        "es_past": ["¿qué CI usábamos en {y}?", "¿dónde corrían las builds en {y}?"],
        "trap_passing": ["Found an old {o} job log while cleaning the wiki.",
                         "Encontré un log viejo de {o} limpiando la wiki."],
        "trap_reject": ["We evaluated {x} for CI but stayed where we are.",
                        "Evaluamos {x} para la CI pero no cambiamos."],
    },
    "runtime": {
        "values": ["Python 3.10", "Python 3.11", "Python 3.12", "Python 3.13", "Python 3.14"],
        "en_state": ["Our services run on {v}.", "Every backend service uses {v}.",
                     "The services are pinned to {v}.", "Production runs {v} everywhere."],
        "en_change": ["Bumped every service to {v}.", "We upgraded all services to {v}.",
                      "The backend moved from {o} to {v}.", "Rolled out {v} across the services.",
                      "All services are on {v} since the upgrade.",
                      "Finished the {v} migration for the services."],
        "es_state": ["Nuestros servicios corren con {v}.", "Todos los servicios usan {v}.",
                     "Los servicios están fijados en {v}.", "En producción usamos {v}."],
        "es_change": ["Subimos todos los servicios a {v}.",
                      "Actualizamos los servicios a {v}.",
                      "El backend pasó de {o} a {v}.", "Desplegamos {v} en todos los servicios.",
                      "Los servicios ya están en {v} tras la actualización.",
                      "Terminamos la migración a {v} de los servicios."],
        "en_q": ["which Python version do our services use?", "what Python runs the services?",
                 "what Python version is production on?", "which Python do the services run?"],
        "es_q": ["¿qué versión de Python usan los servicios?",
                 "¿con qué Python corren los servicios?",
                 "¿qué Python hay en producción?", "¿qué versión de Python usamos?"],
        "en_past": ["which Python version did the services use in {y}?",
                    "what Python ran the services in {y}?"],
        "es_past": ["¿qué versión de Python usaban los servicios en {y}?",
                    "¿con qué Python corrían los servicios en {y}?"],
        "trap_passing": ["A script from the {o} days still lives in the tools repo.",
                         "Un script de la época de {o} sigue en el repo de herramientas."],
        "trap_reject": ["We tested {x} for the services but held off.",
                        "Probamos {x} en los servicios pero esperamos."],
    },
    "commute": {
        "values": ["by bike", "by train", "by car", "on foot", "by bus", "by scooter"],
        "en_state": ["I get to the office {v}.", "My commute to work is {v}.",
                     "Every morning I go to work {v}.", "I travel to the office {v}."],
        "en_change": ["Sold the car; I go to the office {v} now.",
                      "New routine: I commute {v}.",
                      "Since the move I get to work {v}.",
                      "Changed my commute, it is {v} these days.",
                      "I started going to the office {v}.",
                      "Now I travel to work {v}, much better."],
        "es_state": ["Voy a la oficina {v}.", "Mi trayecto al trabajo es {v}.",
                     "Cada mañana voy a trabajar {v}.", "Llego a la oficina {v}."],
        "es_change": ["Vendí el coche; ahora voy a la oficina {v}.",
                      "Nueva rutina: voy al trabajo {v}.",
                      "Desde la mudanza voy a trabajar {v}.",
                      "Cambié de trayecto, ahora es {v}.",
                      "Empecé a ir a la oficina {v}.",
                      "Ahora voy al trabajo {v}, mucho mejor."],
        "en_q": ["how do I get to the office?", "how do I commute to work?",
                 "how do I travel to work?", "what is my commute?"],
        "es_q": ["¿cómo voy a la oficina?", "¿cómo voy al trabajo?",
                 "¿cómo llego a la oficina?", "¿cuál es mi trayecto al trabajo?"],
        "en_past": ["how did I get to the office in {y}?", "how did I commute in {y}?"],
        "es_past": ["¿cómo iba a la oficina en {y}?", "¿cómo iba al trabajo en {y}?"],
        "trap_passing": ["Saw an ad for commuting {o} on the way home.",
                         "Vi un anuncio sobre ir {o} de camino a casa."],
        "trap_reject": ["Thought about commuting {x}, but it is too far.",
                        "Pensé en ir al trabajo {x}, pero está demasiado lejos."],
    },
    "standup": {
        "values": ["9:00", "9:30", "10:00", "10:15", "11:00", "8:45"],
        "en_state": ["Standup is at {v} every day.", "The daily standup starts at {v}.",
                     "We hold the standup meeting at {v}.", "Our standup happens at {v} sharp."],
        "en_change": ["Standup moved to {v}.", "From now on the standup is at {v}.",
                      "We shifted the daily standup to {v}.",
                      "The standup was rescheduled to {v}.",
                      "Standup starts at {v} now, not {o}.",
                      "New time for the daily standup: {v}."],
        "es_state": ["La daily es a las {v}.", "El standup diario empieza a las {v}.",
                     "Hacemos la reunión diaria a las {v}.", "Nuestra daily es a las {v} en punto."],
        "es_change": ["La daily pasó a las {v}.", "A partir de ahora la daily es a las {v}.",
                      "Movimos el standup diario a las {v}.",
                      "Cambiaron la daily a las {v}.",
                      "La daily empieza a las {v}, ya no a las {o}.",
                      "Nueva hora de la reunión diaria: {v}."],
        "en_q": ["when is standup?", "what time is the daily standup?",
                 "at what time do we have standup?", "when does the standup start?"],
        "es_q": ["¿a qué hora es la daily?", "¿cuándo es el standup?",
                 "¿a qué hora empieza la reunión diaria?", "¿cuándo es la daily?"],
        "en_past": ["when was standup in {y}?", "what time was the standup in {y}?"],
        "es_past": ["¿a qué hora era la daily en {y}?", "¿cuándo era el standup en {y}?"],
        "trap_passing": ["Someone still had the old {o} standup reminder in their calendar.",
                         "Alguien seguía con el aviso de las {o} en el calendario."],
        "trap_reject": ["Somebody proposed a {x} standup; we voted it down.",
                        "Alguien propuso la daily a las {x}; se votó que no."],
    },
}

NOISE_EN = ["Bought a new kettle for the kitchen.", "The team lunch is on Thursday.",
            "Reminder: renew the passport before summer.", "Read a good book about sailing.",
            "The printer on the second floor jams a lot.", "Booked a dentist appointment.",
            "Our sprint review went well.", "My sister visited for the weekend.",
            "Planted tomatoes on the balcony.", "Finished the online course on statistics."]
NOISE_ES = ["Compré una tetera nueva.", "La comida del equipo es el jueves.",
            "Recordatorio: renovar el pasaporte.", "Leí un buen libro sobre vela.",
            "La impresora de la segunda planta se atasca.", "Pedí cita con el dentista.",
            "La revisión del sprint salió bien.", "Mi hermana vino el fin de semana.",
            "Planté tomates en el balcón.", "Terminé el curso online de estadística."]


@dataclass
class History:
    hid: int
    topic: str
    lang: str
    half: str  # dev or held
    versions: list[tuple[str, str, str]]  # (date, text, value) oldest first
    others: list[tuple[str, str]] = field(default_factory=list)  # (date, text) noise, traps
    trap: str | None = None
    question: str = ""
    past_question: str = ""
    past_index: int = 0  # which version the past question asks for


def _pick(items: list[str], half: str, rng: random.Random) -> str:
    pool = items[0::2] if half == "dev" else items[1::2]
    return rng.choice(pool or items)


def generate(n: int, seed: int) -> list[History]:
    rng = random.Random(seed)
    topics = sorted(TOPICS)
    out: list[History] = []
    for i in range(n):
        topic = topics[i % len(topics)]
        spec = TOPICS[topic]
        lang = "es" if (i // len(topics)) % 2 else "en"
        half = "dev" if (i // (2 * len(topics))) % 2 == 0 else "held"
        n_versions = 2 + rng.randrange(3)
        values = rng.sample(spec["values"], n_versions + 1)
        alt = values.pop()
        year = 2021 + rng.randrange(2)
        versions: list[tuple[str, str, str]] = []
        for k, v in enumerate(values):
            date = f"{year + k}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 28):02d}"
            key = f"{lang}_state" if k == 0 else f"{lang}_change"
            text = _pick(spec[key], half, rng).format(v=v, o=values[k - 1] if k else "")
            versions.append((date, text, v))
        h = History(i, topic, lang, half, versions)
        noise = NOISE_ES if lang == "es" else NOISE_EN
        for _ in range(3):
            h.others.append((f"{year + rng.randrange(n_versions)}-{rng.randrange(1, 13):02d}-"
                             f"{rng.randrange(1, 28):02d}", rng.choice(noise)))
        last = versions[-1][0]
        after = f"{int(last[:4]) + 1}{last[4:]}"  # a trap dated after every version
        roll = rng.random()
        if roll < 0.25:
            h.trap = "passing"
            tpl = spec["trap_passing"][1 if lang == "es" else 0]
            h.others.append((after, tpl.format(o=values[0], x=alt)))
        elif roll < 0.5:
            h.trap = "reject"
            tpl = spec["trap_reject"][1 if lang == "es" else 0]
            h.others.append((after, tpl.format(o=values[0], x=alt)))
        h.question = _pick(spec[f"{lang}_q"], half, rng)
        h.past_index = rng.randrange(n_versions - 1)
        y = versions[h.past_index][0][:4]
        if versions[h.past_index + 1][0][:4] == y:
            h.past_index = -1  # the next version came the same year: "in Y" is ambiguous
        else:
            h.past_question = _pick(spec[f"{lang}_past"], half, rng).format(y=y)
        out.append(h)
    return out


# ----------------------------------------------------------------------------- systems


def _flat(texts: list[str], query: str, stemmer: str) -> list[float]:
    import bm25s

    from ihmt.text import tokenize

    corpus = [tokenize(t, stemmer) or ["_"] for t in texts]
    retriever = bm25s.BM25(k1=1.5, b=0.75, method="lucene")
    retriever.index(corpus, show_progress=False)
    q = [t for t in tokenize(query, stemmer) if any(t in d for d in corpus)]
    if not q:
        return [0.0] * len(texts)
    return [float(s) for s in retriever.get_scores(q)]


def run(histories: list[History], *, semantic: bool, top: int = 5) -> dict[str, Any]:
    from ihmt import Memory
    from ihmt.render import compact_answer

    from . import _semantic

    _semantic.select(semantic)
    tmp = Path(tempfile.mkdtemp(prefix="ihmt-versions-"))
    rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
    misses: list[dict[str, Any]] = []
    systems = ["flat_bm25", "newest_bm25", "ihmt"]
    try:
        for h in histories:
            mem = Memory.open(tmp / f"h{h.hid}", create=True)
            if semantic:
                _semantic.check(mem)
            ids: dict[str, str] = {}
            entries = [(d, t) for d, t, _ in h.versions] + h.others
            for d, t in sorted(entries):
                ids[t] = mem.save(t, date=d).ids[0]
            if semantic:
                _semantic.wait(mem)
            texts = [t for _, t in entries]
            dates = {t: d for d, t in entries}
            stem = mem.config.stemmer
            newest = ids[h.versions[-1][1]]
            all_versions = {ids[t] for _, t, _ in h.versions}
            asks = [("current", h.question, newest)]
            if h.past_index >= 0:
                asks.append(("past", h.past_question, ids[h.versions[h.past_index][1]]))
            for kind, q, want in asks:
                scores = _flat(texts, q, stem)
                order = [ids[texts[i]] for i in sorted(range(len(texts)),
                                                       key=lambda i: -scores[i]) if scores[i] > 0]
                matched = [texts[i] for i in range(len(texts)) if scores[i] > 0]
                newest_match = ids[max(matched, key=lambda t: dates[t])] if matched else None
                res = mem.search(q, top_k=top)
                answer = compact_answer(res)
                got = {
                    "flat_bm25": order[0] if order else None,
                    "newest_bm25": newest_match,
                    "ihmt": res.best.id if res.hits else None,
                }
                in_answer = {
                    "flat_bm25": want in order[:top],
                    "newest_bm25": want in order[:top],
                    "ihmt": any(x.id == want for x in res.hits[:top]),
                }
                for s in systems:
                    ok = got[s] == want and (s != "ihmt" or res.status == "FOUND")
                    rows[s].append({"kind": kind, "half": h.half, "lang": h.lang,
                                    "topic": h.topic, "trap": h.trap, "first": got[s] == want,
                                    "found_first": ok, "in_answer": in_answer[s]})
                if got["ihmt"] != want or res.status != "FOUND":
                    misses.append({"history": h.hid, "kind": kind, "half": h.half,
                                   "query": q, "status": res.status,
                                   "confidence": res.confidence,
                                   "want": next(t for t in ids if ids[t] == want),
                                   "got": next((t for t in ids if ids[t] == got["ihmt"]), None),
                                   "versions": [f"{d} {t}" for d, t, _ in h.versions],
                                   "others": [f"{d} {t}" for d, t in h.others],
                                   "wrong_version": got["ihmt"] in all_versions
                                   and got["ihmt"] != want,
                                   "answer_head": answer.splitlines()[:2]})
            mem.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"rows": rows, "misses": misses}


def _share(rows: list[dict[str, Any]], key: str) -> float | None:
    return round(sum(r[key] for r in rows) / len(rows), 3) if rows else None


def summarize(rows: dict[str, list[dict[str, Any]]], label: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for system, rs in rows.items():
        name = label if system == "ihmt" else system
        cur = [r for r in rs if r["kind"] == "current"]
        past = [r for r in rs if r["kind"] == "past"]
        traps = [r for r in cur if r["trap"]]
        out[name] = {
            "current_value_first": _share(cur, "found_first" if system == "ihmt" else "first"),
            "current_best_right": _share(cur, "first"),
            "newest_in_answer": _share(cur, "in_answer"),
            "past_value_first": _share(past, "first"),
            "traps_ok": _share(traps, "first"),
            "by_half": {half: {"current": _share([r for r in cur if r["half"] == half],
                                                 "first"),
                               "past": _share([r for r in past if r["half"] == half], "first")}
                        for half in ("dev", "held")},
            "by_lang": {lang: _share([r for r in cur if r["lang"] == lang], "first")
                        for lang in ("en", "es")},
            "n_current": len(cur), "n_past": len(past), "n_traps": len(traps),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.versions", description=__doc__.split(
        "\n\n")[0])
    ap.add_argument("--histories", type=int, default=240)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--semantic", action="store_true",
                    help="also run IHMT with the semantic extra (must be installed)")
    ap.add_argument("--misses", type=int, default=0, help="print this many IHMT misses")
    ap.add_argument("--half", choices=["dev", "held", "all"], default="all")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    histories = generate(args.histories, args.seed)
    if args.half != "all":
        histories = [h for h in histories if h.half == args.half]
    progress(f"{len(histories)} histories")
    lexical = run(histories, semantic=False)
    result: dict[str, Any] = {"env": env_info(), "histories": len(histories),
                              "seed": args.seed, "systems": summarize(lexical["rows"],
                                                                      "ihmt_lexical")}
    misses = lexical["misses"]
    if args.semantic:
        sem = run(histories, semantic=True)
        result["systems"]["ihmt_semantic"] = summarize(
            {"ihmt": sem["rows"]["ihmt"]}, "ihmt_semantic")["ihmt_semantic"]
        result["semantic_misses"] = len(sem["misses"])
    result["lexical_misses"] = len(misses)
    if args.misses:
        result["misses"] = misses[: args.misses]

    def table(r: dict[str, Any]) -> str:
        lines = ["system               current-first  best-right  newest-in-answer  past-first"
                 "  traps  cur dev/held  past dev/held"]
        for name, s in r["systems"].items():
            lines.append(f"{name:20} {s['current_value_first']!s:>13}  "
                         f"{s['current_best_right']!s:>10}  {s['newest_in_answer']!s:>16}  "
                         f"{s['past_value_first']!s:>10}  {s['traps_ok']!s:>5}  "
                         f"{s['by_half']['dev']['current']}/{s['by_half']['held']['current']}"
                         f"  {s['by_half']['dev']['past']}/{s['by_half']['held']['past']}")
        for m in r.get("misses", []):
            lines.append(f"- [{m['kind']}/{m['half']}] {m['query']} -> {m['status']} "
                         f"{m['confidence']}: got {m['got']!r}, want {m['want']!r}")
        return "\n".join(lines)

    emit(result, args.json, table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
