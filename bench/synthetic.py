"""Seeded generator of realistic agent memories and the queries that should find them.

    python -m bench.synthetic --n 50000 --queries 200 --seed 7 --out /tmp/syn [--json]

Writes ``memories.jsonl`` ({"id", "text", "date"?}) and ``queries.jsonl``
({"query", "targets", "kind"}). The same seed gives byte-identical files: every random
choice goes through one ``random.Random(seed)``.

Memories imitate what a coding agent keeps: decisions with their reasons, setup facts
(ports, paths, env vars, hosts, versions), preferences, people (a few common first names
shared by many people), bug post-mortems, dated personal facts, and later corrections of
earlier facts. About one in seven is in Spanish. Many carry a rare identifier (ticket ids,
hostnames, function names, env vars, commit hashes, error codes).

Query kinds, in a balanced mix:

- ``exact``: a rare identifier of the target plus one or two of its ordinary words;
- ``descriptive``: a combination of ordinary words of the target that (checked against the
  corpus) at most one other memory also contains, and no later version of the same fact (such
  words describe the fact, whose answer is its newest version), no identifier;
- ``update``: asks for the current value of something corrected later (2-4 versions); the
  newest memory of the chain is the only target. Chain members carry ``"chain": <index>`` in
  ``memories.jsonl``, so a harness can score the links a store made between versions;
- ``person``: a first name (shared by many memories) plus a topic word of the target;
- ``paraphrase`` (only with ``--paraphrase``): a question sharing no content word with the
  target, built from synonyms.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import random
import re
import sys
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench._common import emit, format_table, progress, write_jsonl

# ----------------------------------------------------------------------------- vocabulary

FIRST_NAMES = [
    "Luis", "Ana", "Maria", "John", "David", "Sarah", "Carlos", "Laura", "Pedro", "Elena",
    "Mike", "Emma", "Javier", "Sofia", "Tom", "Lucia", "Daniel", "Paula", "Alex", "Marta",
    "James", "Priya", "Omar", "Chen",
]  # fmt: skip
LAST_NAMES = [
    "Garcia", "Fernandez", "Smith", "Johnson", "Martinez", "Lopez", "Brown", "Kowalski",
    "Nguyen", "Patel", "Rossi", "Silva", "Müller", "Muñoz", "Novak", "Okafor", "Tanaka",
    "Dubois", "Jensen", "Ibáñez", "O'Neill", "Castro", "Romero", "Herrera", "Wagner",
    "Schmidt", "Kim", "Haddad", "Costa", "Ortega", "Moreno", "Alvarez", "Becker", "Larsen",
    "Ward", "Hughes", "Reyes", "Vidal", "Navarro", "Fischer", "Yilmaz", "Sato", "Petrov",
    "Andersson", "Walsh", "Mendes", "Quinn", "Baker", "Iglesias", "Serrano",
]  # fmt: skip
ROLES = [
    "tech lead", "SRE", "product manager", "QA engineer", "data engineer",
    "security reviewer", "frontend developer", "DBA", "engineering manager", "designer",
    "contractor", "intern", "staff engineer", "release manager", "support engineer",
]  # fmt: skip
ROLES_ES = [
    "jefa de proyecto", "responsable de QA", "ingeniero de datos", "desarrolladora frontend",
    "administrador de bases de datos", "becario", "arquitecta de software",
]  # fmt: skip
SERVICES = [
    "billing", "checkout", "search", "notifications", "auth", "reporting", "inventory",
    "shipping", "payroll", "analytics", "onboarding", "recommendations", "pricing", "ledger",
    "fraud-detection", "media-upload", "chat", "scheduler", "audit-log", "feature-flags",
    "geocoding", "email-digest", "loyalty", "warehouse", "customer-portal", "admin-console",
    "mobile-gateway", "ingestion", "export", "subscriptions",
]  # fmt: skip
# Words with the same meaning, for paraphrase queries (sharing no word with the service).
SERVICE_SYNONYMS = {
    "billing": "invoicing", "checkout": "purchase flow", "search": "lookup",
    "notifications": "push alerts", "auth": "login", "reporting": "dashboards",
    "inventory": "stock levels", "shipping": "deliveries", "payroll": "salaries",
    "recommendations": "suggestions", "pricing": "tariffs", "chat": "messaging",
    "scheduler": "cron", "geocoding": "address coordinates", "loyalty": "rewards",
    "warehouse": "depot", "subscriptions": "recurring plans", "onboarding": "signup",
}  # fmt: skip
CODENAMES = [
    "Falcon", "Orion", "Juniper", "Basalt", "Kestrel", "Nimbus", "Tundra", "Cobalt",
    "Sequoia", "Marlin", "Quartz", "Aurora", "Pampa", "Sirocco", "Tejo", "Mistral", "Olivo",
    "Halcon", "Granite", "Vega", "Lynx", "Cedar", "Atlas", "Delta", "Ember", "Fjord",
    "Galena", "Harbor", "Iris", "Jaguar", "Kraken", "Lagoon", "Magnolia", "Nebula", "Onyx",
    "Pelican", "Quokka", "Raven", "Sable", "Topaz", "Umbra", "Vortex", "Willow", "Xenon",
    "Yucca", "Zephyr", "Andes", "Bora", "Cierzo", "Duero",
]  # fmt: skip
TECH = {
    "database": ["Postgres", "MySQL", "MongoDB", "DynamoDB", "CockroachDB", "SQLite",
                 "Cassandra", "ClickHouse", "MariaDB"],
    "queue": ["Kafka", "RabbitMQ", "SQS", "NATS", "Pulsar", "Redis Streams"],
    "cache": ["Redis", "Memcached", "Varnish", "Hazelcast"],
    "language": ["Go", "Rust", "Python", "Kotlin", "TypeScript", "Java", "Elixir", "Scala"],
    "framework": ["FastAPI", "Django", "Flask", "Express", "Spring Boot", "Rails", "Phoenix",
                  "Gin", "Ktor"],
    "ci": ["GitHub Actions", "GitLab CI", "Jenkins", "CircleCI", "Buildkite", "Drone"],
    "infra": ["Terraform", "Pulumi", "Ansible", "Helm", "Kustomize", "CloudFormation"],
    "observability": ["Prometheus", "Datadog", "Loki", "OpenTelemetry", "Sentry",
                      "Honeycomb", "Jaeger"],
    "frontend": ["React", "Vue", "Svelte", "Angular", "htmx", "SolidJS"],
    "testing": ["pytest", "Jest", "Vitest", "Playwright", "Cypress", "Hypothesis"],
    "packaging": ["Poetry", "uv", "pip-tools", "Pipenv", "Hatch"],
    "identity": ["Keycloak", "Auth0", "Okta", "Cognito"],
    "search engine": ["Elasticsearch", "OpenSearch", "Meilisearch", "Typesense", "Solr"],
    "orchestrator": ["Kubernetes", "Nomad", "ECS", "Cloud Run", "Docker Swarm"],
}  # fmt: skip
# How a paraphrase names each category without using its usual words.
TECH_PARAPHRASE = {
    "database": "storage engine", "queue": "message broker", "cache": "in-memory layer",
    "language": "programming tongue", "framework": "web toolkit", "ci": "build pipeline",
    "infra": "provisioning tool", "observability": "monitoring stack",
    "frontend": "UI library", "testing": "verification tool", "packaging": "dependency manager",
    "identity": "sign-in provider", "search engine": "full-text index",
    "orchestrator": "container scheduler",
}  # fmt: skip
REASONS = [
    "we need strict transactional guarantees for refunds",
    "the team already knows it well and onboarding stays cheap",
    "licensing costs came out lower over three years",
    "its replication handles region failover without manual steps",
    "p99 latency stayed under 20 ms in the spike test",
    "the managed offering removes most of the patching toil",
    "schema migrations are simpler to review",
    "it plugs into the existing audit tooling",
    "the benchmark showed three times the throughput on batch imports",
    "the other option lost messages during the chaos drill",
    "memory usage on the small instances was half",
    "compliance asked for encryption at rest with our own keys",
    "the community is active and releases are predictable",
    "the cold start was too slow with the alternative",
    "hiring for it is easier in Madrid and Lisbon",
    "we already pay for the enterprise support contract",
    "the query planner copes better with wide joins",
    "backpressure is built in and retries are idempotent",
    "local development works offline on laptops",
    "the vendor sunset announcement made the other one risky",
    "static typing caught a whole class of serialization bugs",
    "the ops team can debug it at three in the morning",
    "it keeps ordering guarantees per partition key",
    "the upgrade path from the legacy cluster is documented",
    "storage costs dropped after compression",
    "observability hooks come for free",
    "the security review flagged fewer findings",
    "integration tests run twice as fast",
]  # fmt: skip
# The same reasons in other words (a paraphrase query must share no word with its target).
REASON_PARAPHRASE = {
    REASONS[0]: "money given back to clients has to stay consistent",
    REASONS[1]: "engineers were already familiar with it",
    REASONS[2]: "it was cheaper to license",
    REASONS[3]: "it survives a datacenter outage automatically",
    REASONS[4]: "it stayed fast when traffic peaked",
    REASONS[5]: "a hosted version spares us upgrades",
    REASONS[6]: "altering tables is easier to check",
    REASONS[7]: "it works with our compliance trail",
    REASONS[8]: "bulk loads ran much quicker",
    REASONS[9]: "its rival dropped events under fault injection",
    REASONS[10]: "it needs less RAM on cheap machines",
    REASONS[11]: "auditors required encrypted disks",
    REASONS[12]: "its maintainers ship on schedule",
    REASONS[13]: "startup was sluggish elsewhere",
    REASONS[14]: "recruiting people for it is simpler in Iberia",
    REASONS[15]: "a paid vendor agreement already covers it",
    REASONS[16]: "complex relational lookups perform better",
    REASONS[17]: "it slows producers down safely and repeats work harmlessly",
    REASONS[18]: "programmers can build without internet",
    REASONS[19]: "the competitor was being discontinued",
    REASONS[20]: "compile-time types prevented encoding mistakes",
    REASONS[21]: "on-call staff can troubleshoot it at night",
    REASONS[22]: "records sharing a key keep their sequence",
    REASONS[23]: "moving off the old servers has a written guide",
    REASONS[24]: "disk bills shrank once data was packed",
    REASONS[25]: "metrics and traces need no extra wiring",
    REASONS[26]: "auditors raised fewer issues",
    REASONS[27]: "the automated suites finish in half the time",
}

REASONS_ES = [
    "necesitamos transacciones fiables para los reembolsos",
    "el equipo ya lo conoce bien",
    "sale más barato en licencias",
    "la réplica entre regiones funciona sin pasos manuales",
    "la latencia se mantuvo baja en la prueba de carga",
    "el soporte del proveedor es mejor",
    "las migraciones de esquema son más sencillas",
    "consume la mitad de memoria en las máquinas pequeñas",
    "cumple lo que pidió el equipo de seguridad",
    "funciona sin conexión en los portátiles",
]  # fmt: skip
# Spanish reasons that translate an English one (a paraphrase query built from the English
# reason is answered by either).
REASON_ES_AS_EN = {
    REASONS_ES[0]: REASONS[0], REASONS_ES[1]: REASONS[1], REASONS_ES[2]: REASONS[2],
    REASONS_ES[3]: REASONS[3], REASONS_ES[4]: REASONS[4], REASONS_ES[6]: REASONS[6],
    REASONS_ES[7]: REASONS[10], REASONS_ES[9]: REASONS[18],
}
ENVS = ["staging", "production", "dev", "QA", "sandbox", "preprod"]
REGIONS = ["eu", "us", "ap", "sa", "euw", "use", "apse", "me"]
HOST_ROLES = ["db", "api", "cache", "worker", "kafka", "es", "gw", "batch", "redis", "vault",
              "ci", "mq"]  # fmt: skip
TICKET_PREFIXES = ["PAY", "OPS", "INFRA", "BILL", "AUTH", "SRCH", "CORE", "MOB", "WEB",
                   "DATA", "SEC", "PLAT", "ML", "QA", "CX", "INV", "SHIP", "RPT"]  # fmt: skip
VERBS = ["reconcile", "flush", "rebuild", "fetch", "sync", "validate", "compute", "resolve",
         "dispatch", "merge", "parse", "render", "refresh", "archive", "emit", "normalize",
         "hydrate", "throttle", "schedule", "purge", "encode", "rotate", "replay", "settle"]  # fmt: skip
NOUNS = ["ledger", "cart", "invoice", "token", "session", "queue", "cache", "payload",
         "webhook", "batch", "quota", "coupon", "shipment", "refund", "index", "snapshot",
         "manifest", "cursor", "tenant", "receipt", "ticket", "profile", "price", "order",
         "stock", "audit", "schema", "job", "lease", "offset"]  # fmt: skip
ENV_SUFFIXES = ["URL", "TOKEN", "TIMEOUT_MS", "BATCH_SIZE", "SECRET", "HOST", "PORT",
                "MAX_RETRIES", "TTL", "REGION", "BUCKET", "POOL_SIZE"]  # fmt: skip
ERROR_CODES = ["HTTP 502", "HTTP 429", "HTTP 504", "ECONNREFUSED", "ECONNRESET", "SIGKILL",
               "OOMKilled", "deadlock detected", "serialization failure 40001",
               "TLS handshake timeout", "HTTP 413", "ENOSPC"]  # fmt: skip
TRIGGERS = [
    "a customer retried a payment twice within a second",
    "the nightly export overlapped with the backup window",
    "traffic doubled during the spring campaign",
    "a deploy rolled out while a migration was still running",
    "the upstream provider rotated their certificates",
    "a batch of invoices had more than 10k lines",
    "two workers picked the same lease",
    "the disk on the build agent filled up",
    "a mobile client sent an empty locale header",
    "daylight saving time shifted the cron schedule",
    "the feature flag was toggled for only one region",
    "a tenant uploaded a 2 GB video",
]  # fmt: skip
CAUSES = [
    "a missing index on the foreign key", "an unbounded retry loop",
    "a connection pool sized for the old instance type", "a race between two consumers",
    "timezone-naive timestamps", "an N+1 query in the serializer",
    "a stale DNS entry cached by the JVM", "a leaked file handle per request",
    "integer overflow in the cents field", "a regex with catastrophic backtracking",
    "a default timeout of zero meaning infinite", "log lines larger than the buffer",
]  # fmt: skip
FIXES = [
    "added an idempotency key", "moved the job to a separate queue",
    "capped retries with jitter", "added the composite index",
    "pinned the client library", "switched to UTC everywhere",
    "streamed the upload in chunks", "raised the pool limit and added a circuit breaker",
    "rewrote the query with a join", "rotated the logs hourly",
]  # fmt: skip
CAUSES_ES = ["una condición de carrera entre dos consumidores", "un índice que faltaba",
             "fechas sin zona horaria", "un bucle de reintentos sin límite"]  # fmt: skip
CITIES = ["Madrid", "Valencia", "Sevilla", "Bilbao", "Lisbon", "Porto", "Berlin", "Munich",
          "Paris", "Lyon", "Dublin", "London", "Amsterdam", "Warsaw", "Prague", "Vienna",
          "Milan", "Turin", "Zaragoza", "Malaga", "Granada", "Toronto", "Austin", "Denver",
          "Bogota", "Lima", "Santiago", "Mexico City", "Buenos Aires", "Montevideo"]  # fmt: skip
HOBBIES = ["climbing", "piano", "pottery", "salsa", "chess", "photography", "surfing",
           "running", "sourdough baking", "woodworking"]  # fmt: skip
HOBBIES_ES = ["escalada", "piano", "cerámica", "guitarra", "ajedrez", "fotografía"]
ITEMS = ["standing desk", "mechanical keyboard", "road bike", "espresso machine",
         "noise-cancelling headphones", "ultrawide monitor", "tent", "e-reader"]  # fmt: skip
PREF_TOPICS = [
    ("commit messages", "imperative mood with a ticket id", "past tense summaries"),
    ("indentation", "four spaces", "tabs"),
    ("test names", "test_<behaviour>_when_<condition>", "numbered test cases"),
    ("logging", "structured JSON logs", "printf-style lines"),
    ("error handling", "explicit exceptions with context", "returning None"),
    ("branch names", "feature/<ticket>-<slug>", "personal prefixes"),
    ("docstrings", "Google style", "reStructuredText"),
    ("dependency pins", "exact versions in lock files", "loose ranges"),
    ("code review", "small pull requests under 300 lines", "big-bang merges"),
    ("SQL style", "uppercase keywords and trailing commas", "ORM-generated queries"),
    ("type hints", "full annotations checked by mypy", "untyped helpers"),
    ("naming", "descriptive names over abbreviations", "single-letter variables"),
    ("editor", "Neovim with LSP", "a heavy IDE"),
    ("meetings", "async written updates", "daily standups"),
    ("release notes", "user-facing language", "raw git logs"),
]  # fmt: skip
PREF_TOPICS_ES = [
    ("los mensajes de commit", "frases cortas en imperativo", "descripciones largas"),
    ("las revisiones", "pull requests pequeñas", "cambios enormes"),
    ("los tests", "nombres descriptivos", "tests numerados"),
]  # fmt: skip
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]  # fmt: skip
MONTHS_ES = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
             "septiembre", "octubre", "noviembre", "diciembre"]  # fmt: skip
WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday"]
WEEKDAYS_ES = ["lunes", "martes", "miércoles", "jueves", "viernes"]
MEETINGS = ["retro", "architecture review", "planning", "incident review", "one-on-one",
            "design critique", "quarterly review"]  # fmt: skip
METRICS = ["error budget", "queue depth", "p95 latency", "cache hit ratio", "disk usage",
           "conversion rate", "cost per request", "replication lag"]  # fmt: skip
ARTIFACTS = ["migration plan", "load test report", "draft RFC", "cost estimate",
             "runbook", "vendor quote", "threat model"]  # fmt: skip

START = _dt.date(2023, 1, 1)
SPAN_DAYS = 3 * 365
SPANISH_SHARE = 0.14

_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_WORD2 = re.compile(r"[^\W\d_]{2,}", re.UNICODE)  # words of two letters or more


def _upper_first(text: str) -> str:
    return text[:1].upper() + text[1:]


# ----------------------------------------------------------------------------- data types


@dataclass
class _Mem:
    text: str
    date: str | None
    kind: str
    idents: list[str] = field(default_factory=list)  # rare strings, each in no other memory
    names: list[str] = field(default_factory=list)  # first names mentioned
    core: str = ""  # the memory's own sentence(s), before any filler
    sort_key: float = 0.0
    chain: int | None = None
    paraphrase: str | None = None
    para_key: str | None = None  # what a paraphrase of this memory would ask about
    id: str = ""


@dataclass
class _Chain:
    question: str
    members: list[_Mem] = field(default_factory=list)


# ----------------------------------------------------------------------------- the generator


class _Generator:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()
        self.chains: list[_Chain] = []
        self.chain_subjects: set[str] = set()

    # ---- small random helpers

    def pick(self, seq: list[Any]) -> Any:
        return seq[int(self.rng.random() * len(seq))]

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def fresh(self, make: Any) -> str:
        """A new identifier no other memory has used (retries on collision).

        Uniqueness is checked on the identifier without its domain suffix, so that
        "db-eu-7" and "db-eu-7.internal" (the same words to a search) never both exist.
        """
        for _ in range(50):
            value = make()
            key = value.lower().split(".", 1)[0] if "/" not in value else value.lower()
            if key not in self.used:
                self.used.add(key)
                return value
        value = f"{make()}{len(self.used)}"
        self.used.add(value.lower())
        return value

    def person(self) -> tuple[str, str]:
        return self.pick(FIRST_NAMES), self.pick(LAST_NAMES)

    # ---- identifiers

    def ticket(self) -> str:
        return self.fresh(lambda: f"{self.pick(TICKET_PREFIXES)}-{self.rng.randint(100, 9999)}")

    def host(self) -> str:
        def make() -> str:
            n = self.rng.randint(1, 99) if self.chance(0.4) else self.rng.randint(100, 999)
            h = f"{self.pick(HOST_ROLES)}-{self.pick(REGIONS)}-{n}"
            return h + self.pick(["", "", ".internal", ".prod.lan"])

        return self.fresh(make)

    def function(self) -> str:
        def make() -> str:
            verb, noun = self.pick(VERBS), self.pick(NOUNS)
            extra = self.pick(NOUNS) if self.chance(0.6) else ""
            extra = "" if extra == noun else extra
            if self.chance(0.55):
                return verb + noun.capitalize() + extra.capitalize()
            return "_".join(p for p in (verb, noun, extra) if p)

        return self.fresh(make)

    def envvar(self, service: str) -> str:
        def make() -> str:
            base = service.upper().replace("-", "_")
            mid = self.pick(NOUNS).upper() + "_" if self.chance(0.7) else ""
            return f"{base}_{mid}{self.pick(ENV_SUFFIXES)}"

        return self.fresh(make)

    def path(self, service: str) -> str:
        def make() -> str:
            mod = self.pick(NOUNS)
            form = self.rng.randrange(4)
            if form == 0:
                return f"/etc/{service}/{mod}-{self.rng.randint(1, 99)}.yaml"
            if form == 1:
                return f"services/{service}/{mod}/{self.pick(VERBS)}_{self.pick(NOUNS)}.py"
            if form == 2:
                return f"~/.config/{service}/{mod}{self.rng.randint(1, 999)}.toml"
            return f"deploy/{self.pick(ENVS).lower()}/{service}-{mod}{self.rng.randint(1, 99)}.tf"

        return self.fresh(make)

    def sha(self) -> str:
        return self.fresh(lambda: f"{self.rng.getrandbits(28):07x}")

    def error_code(self) -> str:
        return self.fresh(lambda: f"E{self.rng.randint(1000, 99999)}")

    def version(self) -> str:
        return f"{self.rng.randint(1, 17)}.{self.rng.randint(0, 12)}.{self.rng.randint(0, 9)}"

    def port(self) -> int:
        return self.pick([80, 443, 3000, 5432, 6379, 8000, 8080, 8443, 9000, 9092, 9200]) + (
            self.rng.randint(1, 899) if self.chance(0.7) else 0
        )

    # ---- dates

    def day(self, lo: int = 0, hi: int = SPAN_DAYS - 1) -> int:
        return self.rng.randint(lo, hi)

    @staticmethod
    def iso(offset: int) -> str:
        return (START + _dt.timedelta(days=offset)).isoformat()

    def spoken(self, offset: int, spanish: bool = False) -> str:
        d = START + _dt.timedelta(days=offset)
        if spanish:
            return f"{d.day} de {MONTHS_ES[d.month - 1]} de {d.year}"
        form = self.rng.randrange(3)
        if form == 0:
            return f"{d.day} {MONTHS[d.month - 1]} {d.year}"
        if form == 1:
            return d.isoformat()
        return f"{MONTHS[d.month - 1]} {d.day}, {d.year}"

    # ---- fillers: extra sentences that vary vocabulary and length

    def filler(self, spanish: bool) -> tuple[str, list[str], list[str]]:
        r = self.rng.randrange(12)
        first = self.pick(FIRST_NAMES)
        if spanish:
            options = [
                (f"Lo revisamos en la reunión del {self.pick(WEEKDAYS_ES)}.", [], []),
                (f"Pendiente: hablar con {first} sobre {self.pick(NOUNS)}.", [], [first]),
                ("Ojo con el entorno de pruebas, a veces falla.", [], []),
                (f"Más detalles en el canal de {self.pick(SERVICES)}.", [], []),
            ]
            return options[r % len(options)]
        if r == 0:
            t = self.ticket()
            return f"Follow-up is tracked in {t}.", [t], []
        if r == 1:
            return f"{first} will double-check the {self.pick(NOUNS)} next sprint.", [], [first]
        if r == 2:
            month = self.pick(MONTHS)
            return f"Numbers come from the {month} {self.pick(METRICS)} dashboard.", [], []
        if r == 3:
            return f"Discussed during the {self.pick(WEEKDAYS)} {self.pick(MEETINGS)}.", [], []
        if r == 4:
            q = self.rng.randint(1, 4)
            return f"Low priority; revisit after Q{q} planning unless the {self.pick(METRICS)} "\
                "gets worse.", [], []
        if r == 5:
            p = self.path(self.pick(SERVICES))
            return f"The longer write-up sits in {p}.", [p], []
        if r == 6:
            f2, l2 = self.person()
            return f"{f2} {l2} agreed; {first} still has doubts about the {self.pick(NOUNS)}.",\
                [], [f2, first]
        if r == 7:
            return f"Keep an eye on the {self.pick(METRICS)} after the change.", [], []
        if r == 8:
            return f"{first} asked to mention it in the {self.pick(ARTIFACTS)}.", [], [first]
        if r == 9:
            return "Nobody objected, but the rollout plan is still rough.", [], []
        if r == 10:
            h = self.host()
            return f"Related alerts came from {h}.", [h], []
        return f"The {self.pick(ARTIFACTS)} is linked in the team channel.", [], []

    def finish(
        self,
        kind: str,
        sentences: list[str],
        date: str | None,
        idents: list[str],
        names: list[str],
        spanish: bool,
        extra: int | None = None,
    ) -> _Mem:
        """Add filler sentences until the memory has 15-80 words."""
        wanted = extra if extra is not None else self.pick([0, 1, 1, 1, 2, 2, 3, 4])
        core = " ".join(sentences)
        words = sum(len(s.split()) for s in sentences)
        added = 0
        while (added < wanted or words < 15) and added < 6:
            s, i, n = self.filler(spanish)
            if words + len(s.split()) > 80:
                break
            sentences.append(s)
            idents = idents + i
            names = names + n
            words += len(s.split())
            added += 1
        return _Mem(" ".join(sentences), date, kind, idents, names, core=core)

    # ---- memory kinds

    def decision(self) -> _Mem:
        cat = self.pick(sorted(TECH))
        a, b = self.rng.sample(TECH[cat], 2)
        svc = self.pick(SERVICES)
        date = self.day()
        idents: list[str] = []
        if self.chance(SPANISH_SHARE):
            # Same random draws, in the same order, as when both texts were built inline.
            r1 = self.pick(REASONS_ES)
            spoken = self.spoken(date, True)
            r2 = self.pick(REASONS_ES)
            texts = [
                f"Elegimos {a} en lugar de {b} para el servicio de {svc} porque {r1}.",
                f"Decisión del {spoken}: {a} y no {b} en {svc}; motivo principal: {r2}.",
            ]  # fmt: skip
            s = self.pick(texts)
            mem = self.finish("decision", [s], self.iso(date), idents, [], True)
            # A Spanish decision whose reason translates an English one answers the same
            # paraphrase question as the English decision: the same key, so that neither
            # is chosen as the single target of a paraphrase query.
            why = r1 if s == texts[0] else r2
            mem.para_key = f"decision:{cat}:{svc}:{REASON_ES_AS_EN.get(why, why)}"
            return mem
        reason = self.pick(REASONS)
        form = self.rng.randrange(5)
        if form == 0:
            s = f"We chose {a} over {b} for the {svc} service because {reason}."
        elif form == 1:
            s = f"Decided to use {a} instead of {b} in {svc}: {reason}."
        elif form == 2:
            t = self.ticket()
            idents.append(t)
            s = f"ADR for {t}: {svc} moves to {a}; {b} was rejected since {reason}."
        elif form == 3:
            s = (f"After the {self.pick(MEETINGS)} the team picked {a} (not {b}) as the {cat} "
                 f"for {svc}. Main reason: {reason}.")  # fmt: skip
        else:
            who = self.person()
            s = (f"{who[0]} {who[1]} made the call on {self.spoken(date)}: {svc} keeps {a} "
                 f"and drops {b}, as {reason}.")  # fmt: skip
            mem = self.finish("decision", [s], self.iso(date), idents, [who[0]], False)
            mem.para_key = f"decision:{cat}:{svc}:{reason}"
            return mem
        mem = self.finish("decision", [s], self.iso(date), idents, [], False)
        mem.para_key = f"decision:{cat}:{svc}:{reason}"
        if form in (0, 1) and svc in SERVICE_SYNONYMS:
            topic, why = TECH_PARAPHRASE[cat], REASON_PARAPHRASE[reason]
            syn = SERVICE_SYNONYMS[svc]
            mem.paraphrase = self.pick([
                f"which {topic} did we pick for {syn}, given that {why}?",
                f"{topic} selected for {syn} since {why}",
            ])  # fmt: skip
        return mem

    def setup(self) -> _Mem:
        svc = self.pick(SERVICES)
        env = self.pick(ENVS)
        dated = self.chance(0.5)
        date = self.iso(self.day()) if dated else None
        if self.chance(SPANISH_SHARE):
            var, p = self.envvar(svc), self.path(svc)
            s = self.pick([
                f"El servicio de {svc} escucha en el puerto {self.port()} en {env}; la variable "
                f"{var} debe apuntar a {p}.",
                f"Para arrancar {svc} en local hay que exportar {var} y tener {p} a mano.",
            ])  # fmt: skip
            return self.finish("setup", [s], date, [var, p], [], True)
        form = self.rng.randrange(7)
        if form == 0:
            var = self.envvar(svc)
            s = (f"Local dev: the {svc} API listens on port {self.port()}; export {var} before "
                 f"running make dev.")  # fmt: skip
            ids = [var]
        elif form == 1:
            h1, h2 = self.host(), self.host()
            db = self.pick(TECH["database"])
            s = (f"The {env} database for {svc} is {h1} ({db} {self.version()}); the read "
                 f"replica lives on {h2}.")  # fmt: skip
            ids = [h1, h2]
        elif form == 2:
            p = self.path(svc)
            tool = self.pick(TECH["infra"] + TECH["ci"])
            s = f"Config for {tool} in {svc} lives in {p}; never edit the generated copy."
            ids = [p]
        elif form == 3:
            var, p = self.envvar(svc), self.path(svc)
            s = (f"To run the {svc} integration tests you need {var} set and Docker running; "
                 f"fixtures are in {p}.")  # fmt: skip
            ids = [var, p]
        elif form == 4:
            fn, h = self.function(), self.host()
            s = (f"The {svc} cron job calls {fn} every {self.rng.randint(2, 59)} minutes on {h} "
                 f"in {env}.")  # fmt: skip
            ids = [fn, h]
        elif form == 5:
            lang = self.pick(["Python", "Node", "Java", "Go", "Ruby"])
            pkg = self.pick(TECH["packaging"])
            s = (f"{lang} {self.version()} is required for the {svc} repo; the {pkg} lock file "
                 f"is committed and CI fails on drift.")  # fmt: skip
            ids = []
        else:
            h = self.host()
            s = (f"SSH into {h} through the bastion; the {env} {svc} logs rotate daily under "
                 f"/var/log/{svc}.")  # fmt: skip
            ids = [h]
        return self.finish("setup", [s], date, ids, [], False)

    def preference(self) -> _Mem:
        date = self.iso(self.day()) if self.chance(0.4) else None
        if self.chance(SPANISH_SHARE):
            topic, good, bad = self.pick(PREF_TOPICS_ES)
            s = f"Prefiero {good} a {bad} en {topic}, sobre todo en {self.pick(SERVICES)}."
            return self.finish("preference", [s], date, [], [], True)
        topic, good, bad = self.pick(PREF_TOPICS)
        form = self.rng.randrange(4)
        names: list[str] = []
        if form == 0:
            s = f"User prefers {good} over {bad} for {topic}."
        elif form == 1:
            first, last = self.person()
            names = [first]
            s = (f"{first} {last} likes {good} for {topic} and pushes back on {bad} in "
                 f"reviews of the {self.pick(SERVICES)} code.")  # fmt: skip
        elif form == 2:
            first = self.pick(FIRST_NAMES)
            names = [first]
            s = (f"Always use {good} for {topic} in the {self.pick(SERVICES)} repo; {first} "
                 f"asked for it after the {self.pick(MEETINGS)}.")  # fmt: skip
        else:
            s = f"Reminder to self: for {topic}, {good} beats {bad}. Do not argue it again."
        return self.finish("preference", [s], date, [], names, False)

    def people(self) -> _Mem:
        first, last = self.person()
        svc = self.pick(SERVICES)
        date = self.day()
        cat = self.pick(sorted(TECH))
        topic = self.pick(TECH[cat])
        if self.chance(SPANISH_SHARE):
            s = self.pick([
                f"{first} {last} es {self.pick(ROLES_ES)} del equipo de {svc}; sabe mucho de "
                f"{topic}.",
                f"Hablé con {first} {last} el {self.spoken(date, True)} sobre {topic} en {svc}.",
            ])  # fmt: skip
            return self.finish("person", [s], self.iso(date), [], [first], True)
        role = self.pick(ROLES)
        form = self.rng.randrange(5)
        ids: list[str] = []
        if form == 0:
            s = f"{first} {last} is the {role} on the {svc} team; ask them about {topic}."
        elif form == 1:
            fn = self.function()
            ids = [fn]
            s = (f"{first} {last} ({role}, {self.pick(CITIES)} office) owns {fn} and the {svc} "
                 f"runbooks.")  # fmt: skip
        elif form == 2:
            s = (f"Met {first} {last} on {self.spoken(date)} about {topic} for {svc}; they will "
                 f"send the {self.pick(ARTIFACTS)} by {self.pick(WEEKDAYS)}.")  # fmt: skip
        elif form == 3:
            f2, l2 = self.person()
            s = (f"{first} {last} joined as {role} in {MONTHS[(date // 30) % 12]}; their mentor "
                 f"is {f2} {l2}, who knows {topic} inside out.")  # fmt: skip
            mem = self.finish("person", [s], self.iso(date), ids, [first, f2], False)
            return mem
        else:
            s = (f"{first} {last} is on call for {svc} every other {self.pick(WEEKDAYS)}; "
                 f"escalate {topic} pages to them.")  # fmt: skip
        mem = self.finish("person", [s], self.iso(date), ids, [first], False)
        mem.para_key = f"person:{role}:{svc}"
        if form == 0 and role == "SRE" and svc in SERVICE_SYNONYMS:
            mem.paraphrase = f"who handles reliability engineering for {SERVICE_SYNONYMS[svc]}?"
        return mem

    def postmortem(self) -> _Mem:
        svc = self.pick(SERVICES)
        date = self.day()
        t = self.ticket()
        fn = self.function()
        if self.chance(SPANISH_SHARE):
            s = (f"Incidencia {t} del {self.spoken(date, True)}: {svc} devolvía "
                 f"{self.pick(ERROR_CODES)}; la causa fue {self.pick(CAUSES_ES)} en {fn}.")  # fmt: skip
            return self.finish("postmortem", [s], self.iso(date), [t, fn], [], True)
        err = self.pick(ERROR_CODES)
        form = self.rng.randrange(4)
        names: list[str] = []
        ids = [t, fn]
        if form == 0:
            s = (f"Post-mortem {t}: {svc} returned {err} when {self.pick(TRIGGERS)}. Root cause: "
                 f"{self.pick(CAUSES)} in {fn}. Fix: {self.pick(FIXES)}.")  # fmt: skip
        elif form == 1:
            h = self.host()
            ids.append(h)
            s = (f"Incident on {self.spoken(date)}: {err} errors from {h} in {svc}; {fn} was "
                 f"the culprit ({self.pick(CAUSES)}). We {self.pick(FIXES)}.")  # fmt: skip
        elif form == 2:
            first = self.pick(FIRST_NAMES)
            names = [first]
            c = self.sha()
            ids.append(c)
            s = (f"Bug {t}: {fn} failed with {err} after {self.pick(TRIGGERS)}; {first} traced "
                 f"it to {self.pick(CAUSES)} and patched it in commit {c}.")  # fmt: skip
        else:
            code = self.error_code()
            ids.append(code)
            s = (f"{svc} error {code} ({t}) means {fn} gave up after retries; usually "
                 f"{self.pick(CAUSES)}. Workaround: {self.pick(FIXES)}.")  # fmt: skip
        return self.finish("postmortem", [s], self.iso(date), ids, names, False)

    def personal(self) -> _Mem:
        date = self.day()
        first, last = self.person()
        when = self.spoken(date)
        if self.chance(SPANISH_SHARE):
            s = self.pick([
                f"El {self.spoken(date, True)} {first} empezó clases de {self.pick(HOBBIES_ES)}.",
                f"Cita con el dentista, el doctor {last}, el {self.spoken(date, True)} a las "
                f"{self.rng.randint(9, 19)}:30.",
            ])  # fmt: skip
            return self.finish("personal", [s], self.iso(date), [], [first], True, extra=0)
        form = self.rng.randrange(6)
        names = [first]
        if form == 0:
            s = f"On {when}, {first} {last} started {self.pick(HOBBIES)} lessons."
        elif form == 1:
            s = (f"Renewed my passport on {when}; the new one expires in "
                 f"{START.year + 10 + date // 365}.")  # fmt: skip
            names = []
        elif form == 2:
            s = (f"Dentist appointment with Dr. {last} on {when} at "
                 f"{self.rng.randint(9, 18)}:{self.pick(['00', '15', '30', '45'])}.")  # fmt: skip
            names = []
        elif form == 3:
            s = (f"{first} {last} ran the {self.pick(CITIES)} half marathon on {when} in 1 hour "
                 f"{self.rng.randint(25, 59)} minutes.")  # fmt: skip
        elif form == 4:
            item = self.pick(ITEMS)
            article = "an" if item[0] in "aeiou" else "a"
            s = (f"Bought {article} {item} on {when} for {self.rng.randint(40, 900)} euros; "
                 f"receipt forwarded to {first}.")  # fmt: skip
        else:
            s = (f"Vacation in {self.pick(CITIES)} with {first} from {when} for "
                 f"{self.rng.randint(3, 15)} days; laptop stays home.")  # fmt: skip
        return self.finish("personal", [s], self.iso(date), [], names, False, extra=0)

    def chain(self) -> list[_Mem]:
        """A fact and one to three later corrections of it (same subject, new value)."""
        attr = self.pick(["port", "host", "version", "owner", "launch", "city", "login",
                          "ratelimit", "backup"])
        svc = self.pick(SERVICES)
        code = self.pick(CODENAMES)
        subject_key = f"{attr}:{code}:{svc}"
        first, last = self.person()
        if attr == "city":
            subject_key = f"city:{first}:{last}"
        if subject_key in self.chain_subjects:
            return []
        self.chain_subjects.add(subject_key)
        length = self.pick([2, 2, 3, 3, 4])
        d0 = self.day(0, SPAN_DAYS - 400)
        offsets = [d0]
        for _ in range(length - 1):
            offsets.append(offsets[-1] + self.rng.randint(15, 180))
        spanish = attr in ("port", "host", "city") and self.chance(SPANISH_SHARE)
        thing = f"the {code} {svc} service"
        thing_es = f"el servicio {code} de {svc}"

        def value() -> str:
            if attr == "port":
                return str(self.port())
            if attr == "host":
                return self.host()
            if attr == "version":
                return f"{self.pick(['Python', 'Node', 'Java', 'Go'])} {self.version()}"
            if attr == "owner":
                f2, l2 = self.person()
                return f"{f2} {l2}"
            if attr == "launch":
                return self.spoken(self.day())
            if attr == "login":
                return self.pick(TECH["identity"] + ["Authentik", "Ory Kratos", "Azure AD"])
            if attr == "ratelimit":
                return f"{self.pick([60, 100, 120, 200, 300, 500, 600, 1000])} requests per minute"
            if attr == "backup":
                return self.pick(["every night at 02:00", "every 6 hours", "weekly on Sundays",
                                  "every 12 hours", "twice a day", "hourly",
                                  "every night at 04:30"])
            return self.pick(CITIES)

        values: list[str] = []
        while len(values) < length:
            v = value()
            if v not in values:
                values.append(v)
        mems: list[_Mem] = []
        for i, (off, val) in enumerate(zip(offsets, values, strict=True)):
            prev = values[i - 1] if i else ""
            if attr == "port":
                if spanish:
                    s = (f"{_upper_first(thing_es)} escucha en el puerto {val}." if i == 0 else
                         f"Corrección: {thing_es} ahora usa el puerto {val} (antes {prev}).")  # fmt: skip
                else:
                    s = (f"{_upper_first(thing)} listens on port {val}." if i == 0 else
                         self.pick([f"Correction: {thing} now uses port {val} instead of {prev}.",
                                    f"Update: {thing} moved to port {val}."]))  # fmt: skip
            elif attr == "host":
                if spanish:
                    s = (f"La base de datos de {thing_es} está en {val}." if i == 0 else
                         f"Corrección: la base de datos de {thing_es} se movió a {val}.")  # fmt: skip
                else:
                    s = (f"The database behind {thing} is on {val}." if i == 0 else
                         f"Heads up: the database behind {thing} was migrated to {val}; "
                         f"{prev} is being decommissioned.")  # fmt: skip
            elif attr == "version":
                s = (f"{_upper_first(thing)} runs on {val}." if i == 0 else
                     f"Upgraded {thing} to {val} after the security advisory.")  # fmt: skip
            elif attr == "owner":
                s = (f"{val} owns {thing}." if i == 0 else
                     f"Ownership of {thing} passed from {prev} to {val}.")  # fmt: skip
            elif attr == "login":
                s = (self.pick([f"{_upper_first(thing)} uses {val} for login.",
                                f"The login provider of {thing} is {val}."]) if i == 0 else
                     self.pick([f"{_upper_first(thing)} switched its login provider to {val}.",
                                f"We moved {thing}'s login provider from {prev} to {val}."]))  # fmt: skip
            elif attr == "ratelimit":
                verb = "raised" if int(val.split()[0]) > int((prev or "0").split()[0]) else "lowered"
                s = (f"The rate limit of {thing} is {val}." if i == 0 else
                     self.pick([f"{_upper_first(thing)}'s rate limit was {verb} to {val}.",
                                f"We {verb} the rate limit of {thing} to {val}."]))  # fmt: skip
            elif attr == "backup":
                s = (f"The backup schedule of {thing} is {val}." if i == 0 else
                     self.pick([f"{_upper_first(thing)} moved its backup schedule to {val}.",
                                f"The backup schedule of {thing} was changed to {val}."]))  # fmt: skip
            elif attr == "launch":
                s = (f"The launch of {thing} is planned for {val}." if i == 0 else
                     f"The launch of {thing} slipped: new date is {val}.")  # fmt: skip
            else:
                if spanish:
                    s = (f"{first} {last} vive en {val}." if i == 0 else
                         f"{first} {last} se ha mudado a {val}.")  # fmt: skip
                else:
                    s = (f"{first} {last} lives in {val}." if i == 0 else
                         f"{first} {last} moved to {val} last month.")  # fmt: skip
            mem = self.finish("correction", [s], self.iso(off), [], [first] if attr == "city"
                              else [], spanish, extra=self.pick([0, 0, 1]))  # fmt: skip
            mems.append(mem)
        questions = {
            "port": (f"which port does {thing} use now?", f"¿qué puerto usa ahora {thing_es}?"),
            "host": (f"current database host for {thing}",
                     f"¿dónde está ahora la base de datos de {thing_es}?"),
            "version": (f"what version does {thing} run today?",) * 2,
            "owner": (f"who owns {thing} now?",) * 2,
            "launch": (f"current launch date of {thing}",) * 2,
            "city": (f"where does {first} {last} live now?", f"¿dónde vive ahora {first} {last}?"),
            "login": (f"what login provider does {thing} use now?",) * 2,
            "ratelimit": (f"current rate limit of {thing}",) * 2,
            "backup": (f"what is the backup schedule of {thing} today?",) * 2,
        }  # fmt: skip
        question = questions[attr][1 if spanish else 0]
        index = len(self.chains)
        for m in mems:
            m.chain = index
        self.chains.append(_Chain(question, mems))
        return mems

    # ---- the whole corpus

    def memories(self, n: int) -> list[_Mem]:
        makers = [
            (self.decision, 16), (self.setup, 19), (self.preference, 8), (self.people, 15),
            (self.postmortem, 16), (self.personal, 12), (self.chain, 6),
        ]  # fmt: skip
        funcs = [f for f, _ in makers]
        weights = [w for _, w in makers]
        out: list[_Mem] = []
        while len(out) < n:
            made = self.rng.choices(funcs, weights)[0]()
            for m in made if isinstance(made, list) else [made]:
                if len(out) < n:
                    out.append(m)
        # A chain cut short by n keeps only the members that made it into the corpus.
        kept = {id(m) for m in out}
        for c in self.chains:
            c.members = [m for m in c.members if id(m) in kept]
        for m in out:
            # Chronological order, undated memories spread at random among the dated ones.
            if m.date:
                m.sort_key = (_dt.date.fromisoformat(m.date) - START).days + self.rng.random()
            else:
                m.sort_key = self.rng.random() * SPAN_DAYS
        out.sort(key=lambda m: m.sort_key)
        for i, m in enumerate(out, 1):
            m.id = f"m{i}"
        return out


# ----------------------------------------------------------------------------- queries


# The generator checks word overlap on its own (it must not depend on the library it
# measures): accents folded, lower-cased, common English and Spanish words ignored.
_STOP = frozenset(
    """a about after all also an and any are as at be because been before but by can did do
    does for from had has have how i if in into is it its just me my no not now of on one or
    our out over so some than that the their them then there these they this those to too up
    us was we were what when where which while who why will with would you your al con de del
    el en es la las lo los para pero por que se su sus un una y ya""".split()
)


def _fold(text: str) -> str:
    if text.isascii():
        return text.lower()
    return unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()


def _content_words(text: str) -> set[str]:
    return set(_WORD2.findall(_fold(text))) - _STOP


class _QueryMaker:
    def __init__(self, gen: _Generator, mems: list[_Mem]) -> None:
        self.rng = gen.rng
        self.gen = gen
        self.mems = mems
        self.words = [_content_words(m.text) for m in mems]
        postings: dict[str, list[int]] = {}
        for i, ws in enumerate(self.words):
            for w in ws:
                postings.setdefault(w, []).append(i)
        self.postings = postings
        self._sets: dict[str, set[int]] = {}
        self.names = {_fold(x) for x in FIRST_NAMES + LAST_NAMES}
        self.used_targets: set[int] = set()
        # The later versions of each chain member: a query whose words a later version also
        # holds describes the fact, whose answer is its newest version, not this memory.
        index = {id(m): i for i, m in enumerate(mems)}
        self.later: dict[int, set[int]] = {}
        for chain in gen.chains:
            members = [index[id(m)] for m in chain.members if id(m) in index]
            for k, i in enumerate(members):
                self.later[i] = set(members[k + 1:])

    def _set(self, word: str) -> set[int]:
        got = self._sets.get(word)
        if got is None:
            got = self._sets[word] = set(self.postings.get(word, ()))
        return got

    def others_with_all(self, words: list[str], target: int) -> int:
        """How many memories other than ``target`` contain every one of ``words``."""
        sets = sorted((self._set(w) for w in words), key=len)
        common = set(sets[0])
        for other in sets[1:]:
            common &= other
            if not common:
                break
        return len(common - {target})

    def ordinary(self, i: int, core_only: bool = False) -> list[str]:
        """Ordinary content words of memory i, as written in it (no names, no identifier
        parts, and present in at least one other memory)."""
        m = self.mems[i]
        ident_words: set[str] = set()
        for x in m.idents:
            ident_words |= set(_WORD.findall(_fold(x)))
            ident_words |= {_fold(p) for p in re.findall(r"[A-Z]?[a-z]+", x)}
        surface: dict[str, str] = {}
        for w in _WORD.findall(m.core if core_only else m.text):
            surface.setdefault(_fold(w), w)
        return sorted(
            surface[w]
            for w in surface
            if w in self.words[i]
            and len(w) >= 4
            and w not in self.names
            and w not in ident_words
            and len(self.postings.get(w, ())) >= 2
        )

    def candidates(self, pred: Any) -> list[int]:
        idx = [i for i, m in enumerate(self.mems) if pred(m)]
        self.rng.shuffle(idx)
        return idx

    def exact(self) -> Any:
        for i in self.candidates(lambda m: bool(m.idents)):
            if i in self.used_targets:
                continue
            m = self.mems[i]
            ident = self.rng.choice(m.idents)
            if ident not in m.text:
                continue
            words = self.ordinary(i, core_only=True) or self.ordinary(i)
            extra = self.rng.sample(words, min(len(words), self.rng.choice([1, 2])))
            form = self.rng.randrange(4)
            if form == 0:
                q = " ".join([ident] + extra)
            elif form == 1:
                q = f"what do we know about {ident} {' '.join(extra)}".strip()
            elif form == 2:
                q = " ".join(extra + [ident])
            else:
                q = f"{ident} and {' '.join(extra)}?"
            yield i, q

    def _unique_combo(self, i: int, words: list[str], fixed: list[str], sizes: tuple[int, ...],
                      tries: int, most: int) -> list[str] | None:
        """A random combination of ``words`` (plus ``fixed``) found in at most ``most``
        other memories, and in no later version of the same fact."""
        for size in sizes:
            if len(words) < size:
                continue
            for _ in range(tries):
                pick = self.rng.sample(words, size)
                folded = [_fold(w) for w in fixed + pick]
                if self.others_with_all(folded, i) <= most and not any(
                        set(folded) <= self.words[j] for j in self.later.get(i, ())):
                    return pick
        return None

    def descriptive(self) -> Any:
        for i in self.candidates(lambda m: len(m.text.split()) >= 15):
            if i in self.used_targets:
                continue
            chosen = None
            for core_only in (True, False):
                words = self.ordinary(i, core_only)
                chosen = self._unique_combo(i, words, [], (3, 4), 10, 1)
                if chosen:
                    break
            if not chosen:
                continue
            form = self.rng.randrange(3)
            if form == 0:
                q = " ".join(chosen)
            elif form == 1:
                q = f"the one about {', '.join(chosen[:-1])} and {chosen[-1]}"
            else:
                q = f"what was said about {' '.join(chosen)}?"
            yield i, q

    def person(self) -> Any:
        for i in self.candidates(lambda m: bool(m.names)):
            if i in self.used_targets:
                continue
            m = self.mems[i]
            first = self.rng.choice(sorted(set(m.names)))
            if _fold(first) not in self.words[i]:
                continue
            chosen = None
            for core_only in (True, False):
                words = self.ordinary(i, core_only)
                chosen = self._unique_combo(i, words, [first], (1, 2), 8, 0)
                if chosen:
                    break
            if chosen is None:
                continue
            form = self.rng.randrange(3)
            if form == 0:
                q = f"{first} {' '.join(chosen)}"
            elif form == 1:
                q = f"what did {first} say about {' and '.join(chosen)}?"
            else:
                q = f"{' '.join(chosen)} {first}"
            yield i, q

    def update(self) -> Any:
        by_id = {id(m): i for i, m in enumerate(self.mems)}
        order = list(range(len(self.gen.chains)))
        self.rng.shuffle(order)
        for c in order:
            chain = self.gen.chains[c]
            if len(chain.members) < 2:
                continue
            newest = by_id[id(chain.members[-1])]
            if newest in self.used_targets:
                continue
            yield newest, chain.question

    def paraphrase(self) -> Any:
        keys: dict[str, int] = {}
        for m in self.mems:
            if m.para_key:
                keys[m.para_key] = keys.get(m.para_key, 0) + 1
        for i in self.candidates(lambda m: m.paraphrase is not None):
            if i in self.used_targets or keys.get(self.mems[i].para_key or "", 0) != 1:
                continue  # another memory would answer the same question
            q = self.mems[i].paraphrase or ""
            qw = {w[:5] for w in _content_words(q)}
            if qw & {w[:5] for w in self.words[i]}:
                continue  # shares a word (or a stem) with the target: not a paraphrase
            yield i, q

    def make(self, n: int, kinds: list[str]) -> list[dict[str, Any]]:
        gens = {k: getattr(self, k)() for k in kinds}
        out: list[dict[str, Any]] = []
        active = list(kinds)
        while len(out) < n and active:
            for k in list(active):
                if len(out) >= n:
                    break
                try:
                    i, q = next(gens[k])
                    while i in self.used_targets:
                        i, q = next(gens[k])
                except StopIteration:
                    active.remove(k)
                    continue
                self.used_targets.add(i)
                out.append({"query": q, "targets": [self.mems[i].id], "kind": k})
        return out


# ----------------------------------------------------------------------------- entry points


def generate(
    n: int, n_queries: int, seed: int, paraphrase: bool = False
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(memories, queries) as the rows written to the two JSONL files."""
    gen = _Generator(seed)
    mems = gen.memories(n)
    kinds = ["exact", "descriptive", "update", "person"] + (["paraphrase"] if paraphrase else [])
    queries = _QueryMaker(gen, mems).make(n_queries, kinds)
    rows: list[dict[str, Any]] = []
    for m in mems:
        row: dict[str, Any] = {"id": m.id, "text": m.text}
        if m.date:
            row["date"] = m.date
        if m.chain is not None:
            row["chain"] = m.chain  # versions of one fact: the truth for implicit links
        rows.append(row)
    return rows, queries


def write(out: Path, memories: list[dict[str, Any]], queries: list[dict[str, Any]]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    write_jsonl(out / "memories.jsonl", memories)
    write_jsonl(out / "queries.jsonl", queries)


def _table(result: dict[str, Any]) -> str:
    rows = [{"kind": k, "queries": v} for k, v in result["kinds"].items()]
    head = (f"{result['n_memories']} memories, {result['n_queries']} queries, seed "
            f"{result['seed']} -> {result['out']} ({result['seconds']:.2f} s)")  # fmt: skip
    return head + "\n" + format_table(rows, ["kind", "queries"])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.synthetic", description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=5000, help="memories to generate")
    ap.add_argument("--queries", type=int, default=200, help="queries to generate")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--out", type=Path, required=True, help="folder for the two JSONL files")
    ap.add_argument("--paraphrase", action="store_true", help="also emit paraphrase queries")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    progress(f"generating {args.n} memories and {args.queries} queries (seed {args.seed})")
    memories, queries = generate(args.n, args.queries, args.seed, args.paraphrase)
    write(args.out, memories, queries)
    kinds: dict[str, int] = {}
    for q in queries:
        kinds[q["kind"]] = kinds.get(q["kind"], 0) + 1
    result = {
        "out": str(args.out),
        "n_memories": len(memories),
        "n_queries": len(queries),
        "seed": args.seed,
        "kinds": kinds,
        "seconds": time.perf_counter() - t0,
    }
    emit(result, args.json, _table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
