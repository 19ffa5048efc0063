"""A blind corpus for :mod:`bench.changes`: histories written without reading the rules.

The lead engineer has read the misses of ``bench.changes`` and ``bench.versions``, so those
corpora are no longer unseen. This one was written by someone who did not open the rules
(``ihmt.search``, ``ihmt.timeline``, ``ihmt.ingest``) nor their tests, and who read
:mod:`bench.changes_corpus` and :mod:`bench.versions` only for their data structures: other
topics, other value families, other verbs and sentence shapes, other traps. Its misses are
not to be printed (``bench.changes`` refuses ``--misses`` with ``--corpus blind``): read
them and the corpus stops measuring generalisation.

Twenty-seven topics, about a third of the histories in Spanish: sixteen things a software
team runs (:mod:`bench.changes_blind_team`: catalogue search, transactional email, payment
processing, on-call paging, team chat, issue tracker, container registry, secrets, the
reporting service's ORM, the reverse proxy, upload storage, product analytics, the data
warehouse, the cloud, the mobile framework, who leads the payments squad) and eleven of the
user's own state (:mod:`bench.changes_blind_self`: employer, home city, manager, editor,
laptop, phone, gym, bank, commute, dentist, language school). Each history: a first
version, one or two changes (said in the topic's own words or in its family's generic
ones: nominalisations, passives, "X took over from Y", "goodbye X", colon and arrow notes
...), 18 to 22 unrelated notes sharing common words with the questions, and in 60% of the
histories a trap of one of ten kinds (:mod:`bench.changes_blind_traps`). Every template
list alternates by position between the ``dev`` (even) and ``held`` (odd) halves.

    python -m bench.changes --corpus blind --histories 200 --seed 5 --json
"""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

from .changes import Entry, History
from .changes_blind_self import SELF
from .changes_blind_team import TEAM
from .changes_blind_traps import TRAP_KINDS, TRAPS

TOPICS: dict[str, dict[str, Any]] = {**TEAM, **SELF}

TRAP_SHARE = 0.6

# Changes said of any topic of a family, on top of the topic's own. Fields as in
# :mod:`bench.changes_blind_traps`; ``{v}`` the new value, ``{o}`` the one it replaced.
CHANGES: dict[str, dict[str, list[str]]] = {
    "team": {
        "en": ["The cutover of {s} to {v} is done.",
               "{v} took over from {o} as our {role}.",
               "We're on {v} these days for {s}.",
               "Said goodbye to {o}; {v} handles {s} from now on.",
               "As of Monday our {role} is {v}.",
               "{v} replaced {o} as our {role} last night.",
               "{Role} => {v}",
               "{Role}: {v} (was {o})",
               "The {v} rollout for {s} wrapped up today.",
               "Sunset {o} for good: {s} is served by {v}.",
               "We have standardised on {v} as our {role}.",
               "Swapped {o} out for {v} in {s}.",
               "{S} → {v} ✔",
               "Phased out {o}; {v} is live for {s}."],
        "es": ["El cambio de {s} a {v} ya está hecho.",
               "{v} toma el relevo de {o} como {our}.",
               "Estos días tiramos de {v} para {s}.",
               "Adiós, {o}: {s} queda en manos de {v}.",
               "Desde el lunes {our} es {v}.",
               "{v} sustituyó a {o} como {our} anoche.",
               "{Role} => {v}",
               "{Role}: {v} (antes {o})",
               "Completado el despliegue de {v} para {s}.",
               "Apagado {o} para siempre; {s} se sirve desde {v}.",
               "Ya es oficial: {our} pasa a ser {v}.",
               "Dimos de baja {o}; en su lugar, {v} para {s}.",
               "{S} → {v} ✔",
               "{o} jubilado; {v} ya da servicio a {s}."],
    },
    "self": {
        "en": ["New {noun}: {v}.",
               "Goodbye {o}, hello {v}.",
               "These days {have}.",
               "{N} changed: it is {v} now, not {o}.",
               "As of this month, {n} is {v}.",
               "Out with {o}, in with {v}.",
               "Finally made the jump: {have}.",
               "{N}: {o} → {v}"],
        "es": ["{New}: {v}.",
               "Adiós, {o}; hola, {v}.",
               "Estos días {have}.",
               "Cambio de {noun}: ahora {v}, ya no {o}.",
               "Desde este mes {n} es {v}.",
               "Fuera {o}, dentro {v}.",
               "Por fin di el salto: {have}.",
               "{N}: {o} → {v}"],
    },
    "people": {
        "en": ["{v} took over from {o} as {lead}.",
               "Handover done: {lead} is {v} from Monday.",
               "{o} left the company; {v} is {lead} now.",
               "{Lead} => {v}",
               "Farewell drinks for {o} today. {v} steps in as {lead}.",
               "{v} has been named {lead}.",
               "{Lead}: {v} (was {o})",
               "Goodbye {o}, welcome {v}!"],
        "es": ["{v} toma el relevo de {o} como {lead}.",
               "Traspaso hecho: desde el lunes {lead} es {v}.",
               "{o} se ha ido de la empresa; ahora {lead} es {v}.",
               "{Lead} => {v}",
               "Despedida de {o} hoy. {v} pasa a ser {lead}.",
               "Nombramiento oficial: {v} es {lead}.",
               "{Lead}: {v} (antes {o})",
               "¡Adiós, {o}; hola, {v}!"],
    },
}

# Unrelated notes of the team and of the user, many with the questions' common words (use,
# run, keep, store, team, app, work, live ...), none naming a value of any topic.
NOISE_EN = [
    "We use feature branches and squash merges.", "The nightly backup job runs at 03:00.",
    "Keep pull requests under 400 lines when possible.",
    "The app's onboarding screens were redesigned in June.",
    "Store timestamps in UTC and render them in the user's time zone.",
    "The design system uses an 8-pixel grid.", "Run the migrations before restarting workers.",
    "I keep my passport in the top drawer.", "The team retro is on Friday afternoons.",
    "I usually work from home on Mondays.", "My sister's birthday is on the 14th of March.",
    "The API returns 429 when a client exceeds its rate limit.",
    "We store product images in three sizes.",
    "The support team answers tickets within four hours.",
    "Code owners must approve changes to the refunds module.",
    "Dark mode shipped in the last app release.", "I run 5 km on Sunday mornings.",
    "Use the shared calendar for holiday requests.",
    "The search page shows twenty results per page.", "Our sprints are two weeks long.",
    "Keep secrets out of log lines.", "I water the plants on Saturdays.",
    "The mobile app supports Android 10 and up.",
    "Standup starts at 9:30 in the small meeting room.",
    "We use British spelling in the docs.", "The build cache is cleared every Sunday.",
    "I keep a paper notebook for meeting notes.", "The office closes at 8 pm on Fridays.",
    "Invoices are generated on the first day of each month.",
    "New hires get a buddy for their first month.",
    "We tag releases with the date and a short name.", "I drink too much coffee before noon.",
    "Run the formatter before pushing.", "The team lunch is every other Wednesday.",
    "Keep the README up to date when adding a command.",
    "Error messages should say what the user can do next.",
    "I prefer morning meetings to afternoon ones.",
    "The staging environment mirrors production data once a week.",
    "Where possible, we keep configuration in environment variables.",
    "The quarterly planning happens in the big room upstairs.",
    "The gym on the ground floor of the office is free for staff.",
    "My laptop bag needs a new zip.", "The city council repaved our street last month.",
]
NOISE_ES = [
    "Usamos ramas por funcionalidad y merges aplastados.",
    "La copia de seguridad nocturna corre a las 03:00.",
    "Mantén los pull requests por debajo de 400 líneas si se puede.",
    "Las pantallas de bienvenida de la app se rediseñaron en junio.",
    "Guarda las fechas en UTC y muéstralas en la zona del usuario.",
    "El sistema de diseño usa una rejilla de 8 píxeles.",
    "Ejecuta las migraciones antes de reiniciar los workers.",
    "Guardo el pasaporte en el cajón de arriba.",
    "La retro del equipo es los viernes por la tarde.",
    "Suelo trabajar desde casa los lunes.", "El cumpleaños de mi hermana es el 14 de marzo.",
    "La API devuelve 429 cuando un cliente supera su límite.",
    "Guardamos las imágenes de producto en tres tamaños.",
    "El equipo de soporte responde los tickets en cuatro horas.",
    "Los cambios en el módulo de devoluciones necesitan aprobación de sus dueños.",
    "El modo oscuro salió en la última versión de la app.",
    "Corro 5 km los domingos por la mañana.",
    "Usa el calendario compartido para pedir vacaciones.",
    "La página de búsqueda muestra veinte resultados.", "Nuestros sprints duran dos semanas.",
    "No metas secretos en las líneas de log.", "Riego las plantas los sábados.",
    "La app móvil funciona en Android 10 o superior.",
    "La daily empieza a las 9:30 en la sala pequeña.",
    "En la documentación usamos español neutro.",
    "La caché de builds se vacía cada domingo.",
    "Llevo una libreta de papel para las notas de reuniones.",
    "La oficina cierra a las 20:00 los viernes.",
    "Las facturas se generan el día uno de cada mes.",
    "Las personas nuevas tienen un padrino el primer mes.",
    "Etiquetamos las versiones con la fecha y un nombre corto.",
    "Tomo demasiado café antes del mediodía.", "Pasa el formateador antes de hacer push.",
    "La comida del equipo es un miércoles sí y otro no.",
    "Mantén el README al día cuando añadas un comando.",
    "Los mensajes de error deben decir qué puede hacer el usuario.",
    "Prefiero las reuniones por la mañana.",
    "Staging copia los datos de producción una vez por semana.",
    "Siempre que se pueda, guardamos la configuración en variables de entorno.",
    "La planificación trimestral es en la sala grande de arriba.",
    "El gimnasio de la planta baja de la oficina es gratis para la plantilla.",
    "A la funda del portátil le hace falta una cremallera nueva.",
    "El ayuntamiento asfaltó nuestra calle el mes pasado.",
]


def _pick(items: list[str], half: str, rng: random.Random) -> str:
    pool = items[0::2] if half == "dev" else items[1::2]
    return rng.choice(pool or items)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def _fields(spec: dict[str, Any], lang: str, now: str, before: str,
            never: str) -> dict[str, str]:
    """The topic's fields of one language with their value: ``have`` holds ``now``,
    ``past`` holds ``before``, ``inf``/``inf3`` take ``never``; capitalised copies too."""
    which = {"past": before, "inf": never, "inf3": never}
    out = {k: f.format(v=which.get(k, now)) for k, f in spec[lang].items()}
    out.update({_cap(k): _cap(f) for k, f in list(out.items())})
    return out


def fill(tpl: str, lang: str, fields: dict[str, str], **values: str) -> str:
    """A template with its fields and values; "a" before a vowel becomes "an" in English,
    "de el" / "a el" are contracted in Spanish."""
    text = tpl.format(**fields, **values)
    if lang == "en":  # "a iPhone 14" -> "an iPhone 14"
        for value in values.values():
            if value[:1] in "AEIOaeio":
                text = re.sub(rf"\b([Aa]) (?={re.escape(value)})", r"\1n ", text)
    if lang == "es":
        text = re.sub(r"\b([Dd])e el\b", r"\1el", text)
        text = re.sub(r"\b([Aa]) el\b", r"\1l", text)
    return text


def values_of(spec: dict[str, Any], lang: str) -> list[str]:
    return spec.get(f"values_{lang}") or spec["values"]


def changes_of(spec: dict[str, Any], lang: str) -> list[str]:
    """The topic's own changes, then (unless it opts out) its family's generic ones."""
    own = spec[f"{lang}_change"]
    return own + (CHANGES[spec["family"]][lang] if spec.get("generic", True) else [])


def names(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value)}(?!\w)", text, re.IGNORECASE) is not None


def generate(n: int, seed: int) -> list[History]:
    """``n`` seeded histories: topic ``i % 27``; the half alternates by round (dev, held,
    ...); Spanish for a third of each round, a different third each round."""
    rng = random.Random(seed)
    topic_names = sorted(TOPICS)
    k = len(topic_names)
    out: list[History] = []
    for i in range(n):
        name = topic_names[i % k]
        spec = TOPICS[name]
        rnd = i // k
        half = "dev" if rnd % 2 == 0 else "held"
        lang = "es" if (i % k + rnd) % 3 == 2 else "en"
        family = spec["family"]
        n_versions = 2 + (rng.random() < 0.4)
        values = rng.sample(values_of(spec, lang), n_versions + 1)
        unused = values.pop()
        day = dt.date(2023, 1, 1) + dt.timedelta(days=rng.randrange(365))
        versions: list[Entry] = []
        same_day = False
        for j, v in enumerate(values):
            old = values[j - 1] if j else ""
            fields = _fields(spec, lang, v, old, unused)
            if j:
                same_day = rng.random() < 0.25
                day += dt.timedelta(days=0 if same_day else rng.randrange(20, 300))
                tpl = _pick(changes_of(spec, lang), half, rng)
            else:
                tpl = _pick(spec[f"{lang}_state"], half, rng)
            versions.append(Entry(day.isoformat(), fill(tpl, lang, fields, v=v, o=old),
                                  "version", v))
        h = History(i, name, lang, half, versions, same_day=same_day)
        h.old_named = values[-2] in versions[-1].text
        first = dt.date.fromisoformat(versions[0].date)
        last = dt.date.fromisoformat(versions[-1].date)
        if rng.random() < TRAP_SHARE:
            h.trap_kind = rng.choice(TRAP_KINDS)
            tpl = _pick(TRAPS[family][lang][h.trap_kind], half, rng)
            fields = _fields(spec, lang, values[-1], values[-2], unused)
            text = fill(tpl, lang, fields, c=values[-1], p=values[-2], x=unused)
            h.trap = Entry((last + dt.timedelta(days=rng.randrange(3, 120))).isoformat(),
                           text, "trap")
            h.others.append(h.trap)
        end = dt.date.fromisoformat(h.trap.date) if h.trap else last
        every = values_of(spec, "en") + values_of(spec, "es")
        noise = [t for t in (NOISE_ES if lang == "es" else NOISE_EN)
                 if not any(names(t, v) for v in every)]
        span = (end - first).days + 240
        for t in rng.sample(noise, min(len(noise), 18 + rng.randrange(5))):
            d = first - dt.timedelta(days=200) + dt.timedelta(days=rng.randrange(span))
            h.others.append(Entry(d.isoformat(), t, "noise"))
        h.question = _pick(spec[f"{lang}_q"], half, rng)
        words = set(re.findall(r"\w+", h.question.lower()))
        h.attr_in_question = bool(words & {a.lower() for a in spec["attr"]})
        out.append(h)
    return out


def reach(histories: list[History], stemmer: str = "english") -> dict[str, float]:
    """How far words alone can get, with IHMT's tokenizer (a property of the data, no
    search): the share of histories whose newest version shares a word with the question
    (``newest_shares``), that can be reached from a version sharing one through a chain of
    changes that each name the value they replaced (``newest_reachable``), and whose
    versions all share no word with it (``no_version_shares``). Comparing it with the
    main corpus's tells a harder corpus from a less general rule."""
    from ihmt.text import tokenize

    def words(text: str) -> set[str]:
        return set(tokenize(text, stemmer))

    shares = reachable = none = 0
    for h in histories:
        q = words(h.question)
        hit = [bool(q & words(v.text)) for v in h.versions]
        linked = hit[0]
        for j in range(1, len(h.versions)):
            linked = hit[j] or (linked and h.versions[j - 1].value in h.versions[j].text)
        shares += hit[-1]
        reachable += linked
        none += not any(hit)
    n = len(histories) or 1
    return {"newest_shares": round(shares / n, 3), "newest_reachable": round(reachable / n, 3),
            "no_version_shares": round(none / n, 3)}
