"""The patterns by which a memory states the value of a thing, for the rule of changes
(:mod:`ihmt.search.changes`): "Our CDN is CloudFront", "Password manager: LastPass", "el bot
se llama ramona", "renamed notifier -> herald". Split from
:mod:`ihmt.search.change_words` (the words of change, plans and slots) along that seam.
"""

from __future__ import annotations

from ..lazy_re import lazy

# A memory that states the value of a thing, read on each sentence unfolded (a capital
# tells a name): "Our CDN is CloudFront", "Mi banco es el BBVA", "Password manager:
# LastPass", "Correction: the message queue is Kafka", "Firefox is my default browser",
# "I use Chrome as my browser". A later memory stating another value of the same thing, in
# the same words, is its newer version though it says no word of change. Groups: ``subj``
# (``subj2``, ``subj3``) the thing, ``val`` (``val2``, ``val3``) what is said of it.
_LABEL = (r"(?i:(?:correction|update|actually|edit|fyi|note|correcci[oó]n|actualizaci[oó]n"
          r"|(?:small\s+|quick\s+|minor\s+)?fix|erratum"
          r"|en\s+realidad|ojo|me\s+equivoqu[eé]|errata)\s*[:,-]\s*"
          r"|(?:actually|in\s+fact|en\s+realidad|de\s+hecho)\s+)?")
_OWNER = r"(?i:(?:the|our|my|el|la|los|las|nuestro|nuestra|nuestros|nuestras|mi|mis)\s+)"
_NAMED = r"(?:[\w][\w.+#-]*(?:\s+[\w][\w.+#-]*){0,2})"
# A name given to a thing, whatever its case: "The staging cluster is named atlas", "el bot
# se llama ramona", "Renamed the staging cluster to hermes". Groups as in ``STATES``.
# A name changed, on folded text: "renamed notifier -> herald", "renamed the 'notifier'
# service to herald", "renombramos pagos-api a cobros". Groups 1 and 2 (3 and 4): the old
# name and the new.
RENAMED = lazy(
    r"\brenam(?:ed|ing)\s+(?:the\s+|our\s+)?['\"`]?([\w.+#-]+)['\"`]?(?:\s+[a-z]+)?\s+"
    r"(?:to|->|=>|\u2192|as|into)\s+['\"`]?([\w.+#-]+)"
    r"|\brenombr(?:amos|e|o|ado|ada|aron)\s+(?:el\s+|la\s+|los\s+|las\s+)?['\"`]?([\w.+#-]+)"
    r"['\"`]?(?:\s+[a-z]+)?\s+(?:a|como|->|\u2192)\s+['\"`]?([\w.+#-]+)")

NAMING = lazy(
    r"^\W*" + _LABEL + _OWNER + r"?(?P<subj>[\w-]+(?:\s+[\w-]+){0,3}?)\s+(?i:is|are|es)\s+"
    r"(?i:now\s+|ahora\s+)?(?i:named|called|llamad[oa]s?)\s+(?P<val>[\w.+#-]+)"
    r"|^\W*" + _LABEL + _OWNER + r"?(?P<subj2>[\w-]+(?:\s+[\w-]+){0,3}?)\s+se\s+llaman?\s+"
    r"(?i:ahora\s+)?(?P<val2>[\w.+#-]+)"
    r"|^\W*(?i:(?:we|I|they|ops|hemos|he)\s+)?(?i:renamed|renombr[a-z]*)\s+" + _OWNER +
    r"?(?P<subj3>[\w-]+(?:\s+[\w-]+){0,3}?)\s+(?i:to|a|como)\s+(?P<val3>[\w.+#-]+)")

STATES = lazy(
    r"^\W*" + _LABEL + r"(?P<val2>" + _NAMED + r")\s+(?i:is|es)\s+(?i:now\s+|ahora\s+)?"
    r"(?i:my|our|mi|nuestro|nuestra|the\s+new|el\s+nuevo|la\s+nueva)\s+"
    r"(?P<subj2>[\w-]+(?:\s+[\w-]+){0,2})"
    # a holder said first, the role after "now" or "the": "Luis is now primary on-call for
    # payments", "Priya is the release manager for mobile"
    # (the role in lower case to the clause's end: "The CDN is now Fastly" is the next form)
    r"|^\W*" + _LABEL + r"(?!(?i:the|our|my|a|an|el|la|los|las|mi|nuestro|nuestra)\b)"
    r"(?P<val4>[A-Z0-9][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*){0,2})\s+(?i:is|es)\s+"
    r"(?:(?i:now|ahora)\s+(?:(?:the|el|la)\s+)?|(?i:the|el|la)\s+)"
    r"(?P<subj4>[a-z][\w-]*(?:\s+[a-z][\w-]*){0,5})(?=\s*(?:[,;.!]|$))"
    r"|^\W*" + _LABEL + _OWNER + r"?(?P<subj>[\w-]+(?:['’]s)?(?:\s+[\w-]+){0,3}?)"
    r"(?:\s+(?i:is|are|es|son|est[aá]|est[aá]n)\s+(?i:now\s+|ahora\s+)?|\s*:\s+)"
    r"(?i:(?:a|an|the|un|una|el|la)\s+)?(?P<val>[^,;!?()]{1,80}?)"
    r"(?=\s*(?:[,;!?()]|\.?\s*$))"
    r"|\b(?P<val3>" + _NAMED + r")\s+(?i:as)\s+(?i:my|our)\s+"
    r"(?P<subj3>[\w-]+(?:\s+[\w-]+){0,2})", flags=0)

# Where a stated value ends and what dates or explains it begins ("MySQL 8 since the
# upgrade", "Kafka because of the volume").
STATE_VALUE_END = lazy(
    r"\s+(?:since|after|from|as\s+of|starting|because|due\s+to|for\s+the|until|desde"
    r"|tras|porque|hasta"
    # what comes with the value is no part of it: "Editor: VS Code with Vim keybindings"
    r"|with|con)\b")

# Words that say which one of a thing, not what thing: dropped from a stated subject ("my
# new phone", "my default browser again" are "phone" and "browser").
STATE_QUALIFIERS = frozenset(
    """new current default main primary usual favorite favourite preferred present actual
    again now too also anymore still nuevo nueva actual principal favorito favorita habitual
    ahora tambien todavia""".split())

# Subjects too general to be one thing with one value ("The problem is Redis", "The plan
# is Kafka"): what is said of them is an event or an opinion, not a setting.
STATE_GENERIC = frozenset(
    """problem problems issue issues question idea plan plans reason goal answer point thing
    things result bug error fix difference trick key rule note update todo status option
    options choice choices alternative alternatives suggestion proposal candidate candidates
    risk concern worry downside upside benefit advantage problema problemas tema pregunta
    idea plan razon objetivo respuesta cosa resultado error opcion opciones propuesta
    alternativa riesgo ventaja""".split())

# Words of a stated value that are values though written in lower case: counts, periods
# and units of time ("every two weeks", "monthly", "cada dos semanas").
STATE_VALUE_WORDS = frozenset(
    """one two three four five six seven eight nine ten eleven twelve fifteen twenty thirty
    hundred thousand once twice every daily weekly biweekly fortnightly monthly quarterly
    yearly annually hourly nightly day days week weeks month months year years hour hours
    minute minutes uno una dos tres cuatro cinco seis siete ocho nueve diez doce quince
    veinte treinta cien mil cada diario diaria semanal quincenal mensual trimestral anual
    dia dias semana semanas mes meses ano anos hora horas minuto minutos weekday weekdays
    weekend weekends laborables""".split())
