"""How a later memory is a version of an earlier one, for the rule of
:mod:`ihmt.search.changes`: it names the value it replaced (:data:`NAMED`), says a change
of the same thing on firm ground (:data:`POSSIBLY`) or on weaker ground (:data:`FOLLOWS`),
or is no version of it (None). Also the tests the rule shares: a figure given another
number (:func:`refigured`), a value stated again (:func:`restates`) and another thing of
the same kind (:func:`sibling`).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..model import Hit
from ..text import tokenize
from .change_figures import number_terms, same_unit
from .change_notes import Note, calendar_terms, use_verbs
from .kinds import of_kind

YEAR = re.compile(r"(?:19|20)\d\d")  # a year: a date, never a value nor a thing
_HASH = re.compile(r"(?=[a-f]*\d)(?=\d*[a-f])[0-9a-f]{6,40}")  # "4be21a", "9f1c2e0"

NAMED = "named"  # the later memory names the value it replaced: the earlier is outdated
POSSIBLY = "possibly"  # a change said without the old value, on firm ground: flagged so
FOLLOWS = "follows"  # ... on weaker ground: the later only comes first


def link(old: Hit, o: Note, new: Hit, n: Note, terms: set[str], stemmer: str,
          facts_of: Callable[[str], frozenset[str]], *, beyond: bool) -> str | None:
    """How the later ``new`` (read as ``n``) is a version of the earlier ``old`` (``o``):
    :data:`NAMED`, :data:`POSSIBLY`, :data:`FOLLOWS` or None. ``beyond``: ``new`` was
    found by the answer's own words, not by the question (:func:`ihmt.search.changes.later_changes`)."""
    # Two memories the timeline holds as statements of one attribute about two subjects
    # are about two things ("the Vega service switched its login to Auth0" is no news of
    # Delta's); of one subject, the timeline links them.
    # "went back to bash" says again what "my shell is bash" said (not what "moved from
    # GitHub Actions to CircleCI" said: the earlier put another value in its place)
    if (n.reverts - terms) & (o.values | o.slots) and not o.moved_to - n.reverts - terms:
        return None
    # The later says that what the question asks about stayed ("Atlas staging Redis
    # upgraded to 7.2; prod unchanged"): its change is of something else.
    if (set(old.matched) & n.kept) - n.changed - use_verbs(stemmer):
        return None
    if elsewhere(n, o, terms) or named_apart(o, n):
        return None
    # Each names an item by its key, and not the other's ("ADR for CX-1464: ..." and "ADR
    # for MOB-5163: ..."): two items of one kind, not two versions of one.
    keys_o, keys_n = _keys(o), _keys(n)
    if keys_o and keys_n and not keys_o & keys_n:
        return None
    attrs = {k.split("::", 1)[-1] for k in facts_of(old.id)}
    if attrs & {k.split("::", 1)[-1] for k in facts_of(new.id)}:
        return None
    # Both state a value of one thing, the later another value ("Our CDN is CloudFront",
    # later "Our CDN is Fastly"): the later is the newer version, said without a word of
    # change.
    if restates(o, n, set(old.matched)):
        return NAMED
    uses = use_verbs(stemmer)
    # A sentence's first word is capitalised anyway; it is a name where the other memory
    # writes it capitalised inside a sentence ("Nginx is our reverse proxy" and "Traefik
    # replaced Nginx") and the question does not ask by it.
    # (not a short acronym, "CI is Buildkite now" after "Moved CI over to GitHub Actions":
    # the thing, not a value)
    both = ((o.initial & n.names) | (n.initial & o.names)) - terms \
        - (o.names - o.values) - (n.names - n.values)
    o_names, n_names = o.names | (both & o.words), n.names | (both & n.words)
    o_values, n_values = o.values | (both & o.words), n.values | (both & n.words)
    # The subject: a word both say as a word of its own that is no value of both and no
    # word of change ("billing"; not "Cloud" of "Cloud Run" or of "CloudFormation",
    # which two decisions about two services may both name, nor their "instead"; but
    # "secrets" of "AWS Secrets Manager" after "secrets are kept in Vault"). Of two hits,
    # a word of the question both match; of a memory found by the answer's words, a word
    # of the question or two words of the answer.
    said = (o.whole & n.whole) - (o_values & n_values) - o.gone - n.gone - o.cues - n.cues
    subject = said & set(old.matched) & set(new.matched)
    if beyond and not subject and len(said - uses) >= 2:
        subject = said - uses
    # The later memory says the earlier one's value went away ("replaced Nginx", "closed
    # the ING one", "cancelled FitLab", "from Redis"): the value ties the two even where
    # they say the thing in other words ("reverse proxy" and "in front of the services").
    gone = ((o_names - o.gone) & n.gone) - terms  # (names: "closed the ING one")
    gone = {g for g in gone if not YEAR.fullmatch(g)}  # ("... de 2025 a las 9:30": a date)
    if refigured(o, n, set(old.matched), terms, uses, stemmer):
        return NAMED
    # The later renames a name the earlier holds ("Renamed notifier -> herald" after "the
    # 'notifier' service sends all email"): whatever else both say, and though something
    # still says the old name ("old dashboards still say notifier").
    if n.renamed & o_names - terms and not n.hedged:
        return NAMED
    if not beyond and (kind := swapped(o, n, terms, stemmer)):
        return kind
    if not subject:
        if gone & n.changed and not n.hedged and not gone & n.kept:
            return NAMED
        # Two answers the question found by different words ("snapshot", "database"),
        # of one thing they both name ("backup"), the later giving the earlier's figure
        # another number in a change ("kept 14 days", later "retention 30 days").
        if not beyond and not n.hedged and (said - uses) - calendar_terms(stemmer) and \
                _renumbered(o, n, stemmer):
            return NAMED
        # (or both found by a question word, a name they both give as a value: "Mateo")
        if (beyond or set(old.matched) & set(new.matched)) and \
                redated(o, n, said - uses, terms, stemmer):
            return POSSIBLY  # (nothing says which day went away)
        return None
    values = (o.words & n.changed) - terms - n.kept - o.gone - n.new
    # A value said where the old one stands ("from yarn"), or a name of both that the
    # later memory replaces with a name of its own: a memory naming only what the earlier
    # one named ("now that billing runs on Postgres ...") confirms it.
    fresh = n_names - o.words - terms
    # (the old value said gone is one of the earlier's values: a name, or a word where a
    # value stands, "is yarn"; not any word, "from the food to the history")
    # (A memory found beyond the question must say the value went away: sharing a name
    # and naming another is too little for a note the question did not find.)
    # (a word in lower case said gone, "done with squashing" after "prefers squash merges",
    # where the two share two subject words: "Marco", "merge")
    if values & n.gone & (o_names | o.slots | o.initial) or \
            (len(subject) >= 2 and values & n.gone and not n.hedged) or \
            (not beyond and fresh and _telling(values) & (o_names | n_names)):
        return NAMED
    # A query word the earlier matched and the later lacks, where the later says a word of
    # its own right before the subject they share, makes the later another thing ("the
    # admin API moved to port 9000" is no news of the public API's port).
    # (Asked before the rule above, it kept "Session cache TTL changed" from the product
    # cache's TTL, but served a blind history's old email provider: not so.)
    if (set(old.matched) & o.words) - set(new.matched) - uses - o.parts and \
            sibling(n, o, subject, uses, stemmer):
        return None
    # A figure the change gives in the unit of one of the earlier's ("logs are kept for 30
    # days", later "log retention went up to 90 days"): the earlier figure is the old value.
    if _renumbered(o, n, stemmer):
        return NAMED
    # Said without the old value ("deploys migrated to GitHub Actions"): about the same
    # thing (a subject word inside the change that is no verb of use), a name of its own
    # where the new value stands, the earlier memory naming one the later does not, and
    # no plan, attempt or wish anywhere in the later ("probamos a mover X a Y y lo
    # revertimos").
    about = (set(old.matched) & set(new.matched) & n.changed) - uses
    if beyond and not about:
        about = (said & n.changed) - uses
    # (the earlier's name may stand elsewhere in the later, not in its change: "All
    # infrastructure code is Terraform now; the CloudFormation stacks were imported")
    if n.hedged or not about or not (n.moved_to & fresh) - n.kept or \
            not o_names - n.changed - terms:
        return None
    if numbered_elsewhere(o, n, n_names - o.words) or \
            _dated_only(o, n, (n.moved_to & fresh) - n.kept, stemmer):
        return None
    # A query word the earlier matched and the later lacks (but for verbs of use, the word
    # that says how the earlier's value serves, "se generan con X", and a word found only
    # inside one of its names, "ci" of "CircleCI") may be a narrower subject ("user
    # uploads" before "uploads moved to R2") or another one: "the Harbor search service
    # was migrated to X" is no news of the Harbor *billing* service's port. It is another
    # where the later memory says a word of its own right beside the subject they share.
    if (set(old.matched) & o.words) - set(new.matched) - uses - o.ways - o.parts and \
            sibling(n, o, about - n_names, uses, stemmer):
        return None
    # Flagged only on firmer ground: two subject words in common, or the question asks by
    # the very word that says how the earlier's value serves ("¿dónde corren los
    # workers?" of "los workers corren en Fly"). "We write docs in Markdown" is no version
    # of "we moved the docs to Netlify": it only follows it.
    # An earlier memory that says what the thing *is* ("The data warehouse is Redshift")
    # is replaced by a change of that thing ("we finished moving the warehouse to
    # Snowflake").
    if len(about) >= 2 or (o.ways & set(old.matched)) - subject or o.defines:
        return POSSIBLY
    return FOLLOWS


def swapped(o: Note, n: Note, terms: set[str], stemmer: str) -> str | None:
    """Whether the later ``n`` moves to a product of the kind the question asks for, in
    place of the one the earlier ``o`` names (:mod:`ihmt.search.kinds`: "which tool do I
    invoice with?"; "Facturo con Holded", later "He pasado mi facturación a Quipu"), the
    two sharing no word of the thing: :data:`NAMED` where the later says the earlier's
    product went away, :data:`POSSIBLY` where it only moves to its own. Not a plan, and
    not where the later keeps the earlier's product or names it still in use."""
    if n.hedged:
        return None
    for old, new in zip(of_kind(o.words, terms, stemmer), of_kind(n.words, terms, stemmer)):
        fresh = new - old
        if not old or not fresh & n.moved_to or old & n.kept:
            continue
        if old & n.gone:
            return NAMED
        if not old & n.words:
            return POSSIBLY
    return None


def dateish(term: str, stemmer: str) -> bool:
    """Whether ``term`` is a word of a date: a year, a month, a weekday, a day's number."""
    return bool(YEAR.fullmatch(term)) or term in calendar_terms(stemmer) or \
        (term.isdigit() and len(term) <= 2)


def _dated_only(o: Note, n: Note, to: set[str], stemmer: str) -> bool:
    """Whether what the later ``n`` moves to (``to``) is only a date, where the earlier
    ``o`` gives no date as a value: it moves a day ("the launch slipped: new date is 3
    June"), not the earlier's value ("Upgraded the service to Go 1.22")."""
    return bool(to) and all(dateish(t, stemmer) for t in to) and \
        not any(dateish(t, stemmer) for t in o.values)


def _renumbered(o: Note, n: Note, stemmer: str) -> bool:
    """Whether a change of ``n`` gives a figure of ``o`` another number in its unit, the old
    number said nowhere in ``n``."""
    numbers = {y for y, _ in n.figures}
    return any(same_unit(u, v, stemmer) and x != y and x not in numbers and x not in n.words
               for x, u in o.figures for y, v in n.changed_figures)


_KEY = re.compile(r"[a-z][a-z0-9]*-\d{2,}")  # a ticket's or a record's key: "cx-1464"


def _keys(note: Note) -> set[str]:
    """The keys of items (tickets, records) a memory names."""
    return {t for t in note.idents if _KEY.fullmatch(t)}


def redated(o: Note, n: Note, said: set[str], terms: set[str], stemmer: str) -> bool:
    """Whether the later ``n``, found by the earlier's own words, puts on another day the
    thing the earlier ``o`` dated: the one word both say of it (``said``: "boda") stands in
    the change, which moves it to a day or a month ("la boda se retrasa al 9 de
    septiembre" after "La boda de Pablo es el 17 de junio"), the earlier gives a day or a
    month the later does not, and nothing in the later is a plan."""
    days = calendar_terms(stemmer)
    return len(said) == 1 and bool(said & n.changed) and not n.hedged and \
        bool((n.moved_to - terms) & days) and bool((o.values - n.words - terms) & days)


def _telling(values: set[str]) -> set[str]:
    """``values`` but a lone digit: a "0" both say (of "0 5 * * *" and "0 4 * * *") is no
    value of one thing."""
    return {v for v in values if len(v) > 1 or not v.isdigit()}


def named_apart(o: Note, n: Note) -> bool:
    """Whether one memory names a thing by a name of several parts that extends a name the
    other gives ("orders-db-replica" and "orders-db", "pedidos-entrantes-dlq" and
    "pedidos-entrantes"), and does not give the shorter name itself: the two are about two
    things (the replica is no version of the primary)."""
    def extends(a: set[str], b: set[str]) -> bool:
        # (not a dot: "ci-master-01.internal" is the host "ci-master-01", fully named)
        return any(x.startswith(y) and x[len(y):len(y) + 1] in ("-", "_") and y not in a
                   for x in a for y in b)
    return extends(n.idents, o.idents) or extends(o.idents, n.idents)


def elsewhere(n: Note, o: Note, terms: set[str]) -> bool:
    """Whether the later ``n`` says its change holds only for a thing that neither the
    earlier ``o`` nor the question names ("changed the metrics port to 9091, but only in
    preproduction" is no news of production's port)."""
    return bool(n.only) and not n.only & (o.words | terms)


def numbered_elsewhere(o: Note, n: Note, fresh: set[str]) -> bool:
    """Whether the value the later ``n`` moves to is a bare number of a thing it names and
    the earlier ``o`` lacks (``fresh``): "moved bastion SSH to 2222" says nothing of "the
    bastion runs Debian 12". Such a number replaces a number the earlier gives alone or in
    a unit ("port 22"), not the version of a name."""
    to = (n.moved_to & fresh) - n.kept
    things = {x for x in fresh - to if not _HASH.fullmatch(x)}  # (a commit's hash is none)
    return bool(to) and all(v.isdigit() for v in to) and bool(things) and \
        not any(x.isdigit() and u not in o.names for x, u in o.figures)


def refigured(o: Note, n: Note, asked: set[str], terms: set[str],
               uses: frozenset[str], stemmer: str) -> bool:
    """Whether the later ``n`` gives another number to a figure the earlier ``o`` numbered
    by name ("The staging Postgres listens on port 5433", later "Staging Postgres port is
    6432"), of the same thing: the question asks by the figure's name or by a word both
    say, every name of the earlier but its number is in the later, and both share a word
    besides the figure. Not a plan, and not where the old number is still said."""
    if n.hedged:
        return False
    for x, u in o.named:
        for y, v in n.named:
            if u != v or x == y or x in n.words or y in o.words:
                continue
            numbers = {a for a, _ in o.named} | {u}
            if (o.names - numbers) - n.words:  # another thing of the same kind
                continue
            shared = (o.whole & n.whole) - numbers - uses - n.cues
            if (asked & o.words) - n.words - uses and \
                    sibling(n, o, shared | {u}, uses, stemmer):
                continue  # "the admin API moved to port 9000" after "the public API ..."
            if shared and (u in terms or shared & asked):
                return True
    return False


def restates(o: Note, n: Note, asked: set[str]) -> bool:
    """Whether the later ``n`` states another value of a thing the earlier ``o`` stated a
    value of, a thing the question asked about (see
    :data:`ihmt.search.change_states.STATES`): the same subject words, the value said the
    same way ("written in" both, or neither), and a value that is neither the old one nor
    a part or a widening of it ("Berlin Mitte" after "Berlin" only says more). Not when
    the later is a plan, keeps the old value ("still"), or names the old value elsewhere
    without saying it went away and without a word of change (two values side by side)."""
    if n.hedged:
        return False
    for a in o.states:
        if not a.subject & asked:
            continue
        for b in n.states:
            if a.subject != b.subject or a.rest != b.rest or a.value <= b.value or \
                    b.value <= a.value:
                continue
            old_value = a.value - b.value
            if old_value & n.kept or ((old_value & n.words) - n.gone and not n.changed):
                continue
            return True
    return False


def sibling(n: Note, o: Note, subject: set[str], uses: frozenset[str],
             stemmer: str) -> bool:
    """Whether ``n`` says, right before a ``subject`` word, a word of its own that ``o``
    lacks and that is neither a value, a word of change nor a verb of use: a word that
    makes the subject another thing ("search" in "the Harbor search service" against "the
    Harbor billing service"), or right after a subject word past "de" or "of", where ``o``
    qualifies that word so too ("el servicio de notificaciones" against "el servicio de
    facturación"). (After it comes what is said of it: "contractors are paid through
    Remote".)"""
    numbers = number_terms(stemmer)

    def own(w: str) -> bool:  # a word of the later's own that qualifies
        return bool(w) and w not in o.words and w not in subject and w not in n.names and \
            w not in n.cues and w not in uses and not w.isdigit() and \
            w not in numbers and not (  # ("five hundred requests")
                "-" in w and all(p in o.words or p in numbers or p.isdigit()
                                 for p in tokenize(w.replace("-", " "), stemmer)))
            # ("three-week sprints" after "sprints are three weeks long")
    # (or right after it, past "de" or "of": "el servicio de notificaciones" against "el
    # servicio de facturación")
    if any(head in subject and own(q) and any(h == head for h, _ in o.of)
           for head, q in n.of):
        return True
    # (where a subject word first stands: a note names its thing with its qualifier the
    # first time; a later mention may be inside the new value, "moved to Help Scout saved
    # replies")
    seq, seen = n.seq, set()
    for i, t in enumerate(seq):
        if t in subject and t not in seen:
            seen.add(t)
            if i > 0 and own(seq[i - 1]):
                return True
    return False
