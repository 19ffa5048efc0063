"""The words the version groups of :mod:`ihmt.search.topic` are found and judged by.

Each attribute has a *vocabulary*: single words (not phrases) people use when they talk
about a job, a home, a manager, a tool ... in English and Spanish. A memory that holds one
of them may be a version of the attribute; the other lists here say when it is not
(a rejection, something seen in an ad, somebody else's state or role, a past mention) and
which words carry a value (names, numbers, a means of transport, a product name).

The lists are a lexicon of the domain, kept apart from the benchmarks that test them
(``bench.versions`` and the unrelated-pairs tests use their own phrasings).
"""

from __future__ import annotations

import re

from ..text import fold

# Words (not phrases) that mark a memory as speaking about an attribute. Stemmed with the
# store's stemmer before use, so "worked", "working" and "works" count as "work".
VOCABULARY: dict[str, str] = {
    "employer": "work works worked working job jobs employer employers company hired hire "
                "joined join offer contract position role startup onboarding onboarded "
                "badge quit resigned resignation payroll salary internship coworkers "
                "trabajo trabaja trabajar trabajando empresa empleo contrataron contrato "
                "incorpore incorporé puesto oferta empece empecé empezé fiché fiche "
                "dimiti dimití renuncie renuncié nomina nómina sueldo becario becaria",
    "location": "live lives lived living home flat apartment house moved move relocated "
                "relocate lease rent based neighbourhood neighborhood settled address "
                "landlord unpacking unpacked movers "
                "vivo vivir vivía viviendo casa piso apartamento mudé mude mudamos "
                "mudanza trasladé traslade trasladamos alquiler resido instalé instale barrio "
                "direccion dirección casero casera desembalar desembalando desempaquetar",
    "stack": "stack",
    "manager": "manager boss report reports reporting lead leads supervisor "
               "dirige dirigir dirigia lidera liderar "
               "reorg reorganisation reorganization one-on-ones "
               "jefe jefa responsable reporto dependo supervisora supervisor "
               "reorganización reorganizacion",
    # (only product names that are not also ordinary words or first names: "Kate",
    # "Eclipse", "Atom", "Cursor", "Helix" would pull in lunches and eclipses)
    "editor": "editor ide code coding keybindings vim neovim emacs vscode sublime intellij "
              "pycharm webstorm goland clion gedit xcode netbeans notepad "
              "programo programar editor ide",
    "ci": "ci pipeline pipelines build builds jenkins actions integration jobs "
          "pipelines integración integracion",
    "package manager": "npm pnpm yarn bun pip pipenv poetry uv conda cargo composer bundler "
                       "maven gradle nuget lockfile "
                       "gestor paquetes",
    "runtime": "python version upgraded upgrade bumped runtime services "
               "versión version actualizamos subimos servicios",
    "commute": "commute commuting office drive bike cycle train bus walk car scooter foot "
               "tram metro subway ferry motorbike "
               "oficina coche bici bicicleta tren autobús autobus andando trayecto pie "
               "patinete tranvía tranvia moto",
    "schedule": "standup stand-up daily meeting "
                "daily reunión reunion standup",
    # The user's own things and services: a question names the thing ("what laptop do I
    # have?"), the change names the new one ("IT swapped my laptop for a MacBook").
    "computer": "laptop laptops computer notebook macbook thinkpad workstation desktop "
                "machine pc imac portatil portátil ordenador computadora",
    "phone": "phone phones smartphone iphone pixel galaxy android handset mobile "
             "movil móvil telefono teléfono celular",
    "phone number": "number numbers phone mobile sim cell "
                    "numero número telefono teléfono movil móvil celular",
    "car": "car cars vehicle drive driving drove hatchback estate suv "
           "coche coches conduzco conducir carro auto vehiculo vehículo",
    "doctor": "doctor gp physician surgery practice "
              "medico médico medica médica doctora cabecera ambulatorio consultorio",
    "dentist": "dentist dentists dental dentista dentistas odontologo odontólogo odontologa",
    "gym": "gym gyms fitness membership workout "
           "gimnasio gimnasios cuota",
    "bank": "bank banks banking account "
            "banco bancos cuenta",
    "internet": "internet broadband fibre fiber isp router wifi provider "
                "fibra operador proveedor compañía compania",
    "diet": "diet vegan vegetarian pescatarian keto meat eat eating "
            "dieta vegano vegana vegetariano vegetariana carne",
}

# Words of an attribute's vocabulary that other topics use as much ("the nightly report
# *job* runs at 02:00", "the data team *builds* dashboards in Metabase"): a memory found by
# these alone joins the group only where it names one of the attribute's own values
# (:data:`VALUE_WORDS`) or the timeline knows it.
WEAK: dict[str, str] = {
    "ci": "build builds built jobs job pipeline pipelines integration integración integracion",
    "computer": "machine pc",
    "phone": "mobile movil móvil",
    "phone number": "sim cell",
    "car": "drive driving drove estate",
    "doctor": "surgery practice",
    "gym": "membership workout cuota",
    "bank": "account cuenta",
    "internet": "provider wifi router operador proveedor compañía compania",
    "diet": "meat eat eating carne",
    "runtime": "version upgraded upgrade bumped services versión actualizamos subimos "
               "servicios",
}

# A memory that rejects, plans or only imagines a value does not state it.
REJECT = re.compile(
    r"\b(?:turned\s+\w+\s+down|turned\s+down|declined|decided\s+against|said\s+no|not\s+for\s+me"
    r"|voted\s+(?:it\s+)?down|but\s+(?:we\s+)?stayed|stayed\s+with|held\s+off|evaluated|"
    r"thought\s+about|considering|proposed|suggested|interviewed|"
    r"too\s+far|no\s+(?:nos|me)\s+\w+|rechac\w*|dije\s+que\s+no|se\s+voto\s+que\s+no|"
    r"pense\s+en|propus\w*|propuso|evaluamos|no\s+cambiamos|no\s+es\s+para\s+mi|"
    r"al\s+final\s+no|esperamos|"
    r"not\s+for\s+us|(?:was\s*n'?t|was\s+not)\s+for\s+(?:us|me)|"
    r"(?:did\s*n'?t|did\s+not)\s+(?:work\s+out|stick|convince|like\s+it)|ruled\s+out|"
    r"no\s+(?:nos|me)\s+convenci\w*|descart\w*|discarded|"
    # plans, wishes and talk that did not come true
    r"considered|contemplat\w*|thinking\s+(?:of|about)|talk\s+of|pitched|wanted\s+to|"
    r"asked\s+(?:to|for|us\s+to|me\s+to)|planning|plan\s+to|won'?t|"
    r"rejected|declined|"
    r"(?:did\s*n'?t|did\s+not|never)\s+happen\w*|fell\s+through|not\s+my\s+thing|"
    r"so\s+no|nope|staying\s+put|stay\s+put|still\s+not|no\s+thanks|"
    r"nos\s+planteamos|me\s+plantee|planteamos|se\s+hablo|fuera\s+mi|fuese\s+mi|"
    r"probablemente|no\s+paso|no\s+ocurrio|no\s+salio|ni\s+hablar|no\s+es\s+lo\s+mio|"
    r"vamos\s+a\s+probar|queria\s+que|quisieron|turning\s+(?:\w+\s+)?down|turn\s+(?:\w+\s+)?down|"
    r"we'?re\s+staying|i'?m\s+staying|staying\s+(?:here|where)|sigo\s+donde|"
    r"seguimos\s+donde|nos\s+quedamos\s+donde|me\s+quedo\s+donde|look\w*\s+promising|"
    r"sounds?\s+promising|waste\s+of\s+time|"
    # a change tried and undone, or still to come ("tried moving the monorepo to pnpm;
    # rolled back", "plan for next quarter: move deploys to Jenkins", "se revirtió")
    r"rolled\s+back|reverted|revertimos|se\s+revirtio|volvimos\s+atras|"
    r"tried\s+(?:moving|switching|migrating|replacing|to\s+move|to\s+switch)|attempted|"
    r"intentamos|plans?\s+for|next\s+(?:quarter|year|sprint)|pending|propuesta|"
    r"el\s+proximo\s+(?:trimestre|ano|sprint)|la\s+proxima\s+semana)\b")
# Something seen or read about, not the user's own state: "saw an ad for cycling to work",
# "read an article about remote jobs", "vi un anuncio sobre ir en patinete".
MEDIA = re.compile(
    r"\b(?:(?:saw|seen|read|heard|watched|came\s+across|spotted)\s+(?:an?\s+|the\s+|some\s+)?"
    r"(?:\w+\s+)?(?:ad|ads|advert|advertisement|article|post|video|story|podcast|thread|"
    r"billboard|commercial|talk|talks|presentation|webinar|tutorial|review|documentary|"
    r"interview|newsletter|tweet|book)"
    r"|(?:saw|read|heard)\s+(?:it|that|this)\s+(?:on|in)"
    r"|(?:on|in|from)\s+(?:a|the|un|una|el|la)\s+(?:blog|forum|foro|podcast|newsletter|"
    r"video|thread|hilo)"
    r"|(?:vi|he\s+visto|lei|he\s+leido|oi|escuche|encontre)\s+(?:un|una|el|la|unos|unas)\s+"
    r"(?:\w+\s+)?(?:anuncio|anuncios|articulo|post|video|noticia|reportaje|podcast|cartel|"
    r"charla|ponencia|tutorial|entrevista|documental|libro)"
    r"|(?:lo\s+)?(?:vi|lei|oi)\s+en)\b")
# Someone else's state, not the user's: "helped a friend move to Berlin", "ayudé a una
# compañera con su configuración de Vim".
OTHERS = re.compile(
    r"\b(?:helped|helping|gave\s+\w+\s+a\s+hand|ayude|ayudando|eche\s+una\s+mano)\s+"
    r"(?:a\s+|an\s+|my\s+|our\s+|a\s+un\s+|a\s+una\s+|a\s+mi\s+|un\s+|una\s+|mi\s+)?"
    r"(?:\w+\s+)?(?:colleague|coworker|co-worker|friend|teammate|neighbou?r|sister|brother|"
    r"cousin|compa\w+|amig[oa]s?|vecin[oa]s?|herman[oa]s?|prim[oa]s?)\b")
# Somebody else's practice, said in the third person: "the data team switched their deploys
# to Spinnaker", "en el proyecto del cliente usan yarn" (not ours, unless the memory also
# says "we", "our", "I": :func:`theirs`).
THEIRS = re.compile(
    r"\b(?:they|their|theirs|usan|utilizan|emplean|tienen|prefieren"
    r"|(?:the|el|la|otro|otra|another|other)\s+(?:\w+\s+)?(?:team|equipo|client|cliente"
    r"|project|proyecto)s?\s+(?:del?\s+\w+\s+)?(?:uses?|usa|switched|moved|runs?|corren?)"
    r"|en\s+el\s+proyecto\s+del?\s+(?:cliente|otro|otra)|in\s+the\s+client'?s?\s+project)\b")
# The topic word is about the past: "my old colleagues", "antiguos compañeros".
FORMER = re.compile(r"\b(?:old|former|ex|previous|antiguo|antigua|antiguos|antiguas|viejo|"
                     r"vieja|anterior)\b")


# Attributes whose values are ordinary lower-case words, not names or numbers.
VALUE_WORDS = {
    "commute": frozenset("""bike bicycle cycle cycling train tram metro subway underground bus
        car drive driving walk walking foot scooter motorbike ferry carpool bici bicicleta
        tren tranvia autobus coche andando pie patinete moto""".split()),
    # Editors and package managers are often written in lower case ("moved to neovim"),
    # and a product named first in a sentence is no capitalised value either.
    "editor": frozenset("""vim neovim nvim emacs vscode sublime intellij pycharm webstorm
        goland clion gedit xcode netbeans notepad""".split()),
    "ci": frozenset("""jenkins travis circleci buildkite drone teamcity bamboo gitlab
        github""".split()),
    "diet": frozenset("""vegan vegetarian pescatarian keto paleo omnivore flexitarian
        vegano vegana vegetariano vegetariana flexitariano flexitariana""".split()),
    # Package managers are written in lower case: not names the value finder sees.
    "package manager": frozenset("""npm pnpm yarn bun pip pipenv poetry uv conda cargo
        composer bundler maven gradle nuget""".split()),
}


# Product names that are also first names, ordinary words or events ("Kate from accounting",
# "the solar Eclipse", "Helix Nebula"): a memory naming one is about the attribute only
# where the name is used as a tool (see :func:`used_as_tool`).
AMBIGUOUS: dict[str, frozenset[str]] = {
    "editor": frozenset("zed helix kate atom cursor eclipse nova lapce".split()),
    # A job title is about the user's employer only in "I'm a data engineer at ...",
    # "trabajo como analista en ..." (not "the engineer fixed the pipeline").
    "employer": frozenset("""engineer developer dev analyst designer consultant intern sre
        scientist researcher architect programmer ingeniero ingeniera desarrollador
        desarrolladora analista disenador disenadora consultor consultora programador
        programadora""".split()),
}
# Verbs of using, trying or leaving a tool, English and Spanish (accents folded).
_TOOL_VERB = re.compile(
    r"\b(?:use|uses|using|used|tried|try|trying|tries|switched|switching|switch|moved|"
    r"migrated|replaced|replacing|replace|code|coding|program|programming|develop|"
    r"installed|install|configured|configuring|customi[sz]ed|plugins?|extensions?|"
    r"keybindings|keymaps?|config|dotfiles|ditched|dropped|gave\s+up\s+on|quit|"
    r"stuck\s+with|sticking\s+with|settled\s+on|back\s+to|"
    r"uso|usa|usar|usando|use|probe|probando|probar|cambie|pase|sustitui|reemplace|deje|"
    r"programo|programar|programando|instale|configure|me\s+quede|vuelto|volvi|abro)\b")
# A preposition that puts a tool name as the place where work is done: "in Helix",
# "en Zed" (people are not *in* Kate).
_TOOL_PLACE = re.compile(r"\b(?:in|into|en)\s+$")
# What follows a person's name: "Kate from accounting", "Kate's team", "Kate and Marco".
_PERSON_NEXT = re.compile(r"^\s*(?:'s\b|from\b|de\b|del\b|and\b|y\b|said\b|sent\b|says\b|"
                          r"dijo\b|envio\b|is\s+(?:out|off|away|on\s+leave)\b)")
_PERSON_BEFORE = re.compile(r"\b(?:with|con|and|y|to|a|for|para|told|asked|met|called)\s+$")


# Attributes of the user's own state (a team's CI, runtime, package manager, stack and
# standup change without anyone saying "I").
PERSONAL = frozenset({"employer", "location", "manager", "editor", "commute", "computer",
                      "phone", "phone number", "car", "doctor", "dentist", "gym", "bank",
                      "internet", "diet"})
# Of those, the things and services the user has: any note may name a laptop, a bank or a
# gym, so a member leads only where it speaks of the user or of a change
# (:func:`ihmt.search.topic.may_lead`).
THINGS = frozenset({"computer", "phone", "phone number", "car", "doctor", "dentist", "gym",
                    "bank", "internet", "diet"})
# Words that put a memory about one of these on another thing: the dentist is no family
# doctor ("ahora voy al doctor Iriarte" of a dentist), a phone number no phone.
ELSEWHERE: dict[str, re.Pattern[str]] = {
    "doctor": re.compile(r"\b(?:dentist\w*|dental|odontolog\w*|vet|vets|veterinari\w*|"
                         r"pediatr\w*|paediatr\w*|physio\w*|fisio\w*|optician|oculista|"
                         r"psicolog\w*|psycholog\w*|therapist|terapeuta)\b"),
    "phone": re.compile(r"\b(?:number|numero|sim|plan|tarifa|contract|contrato)\b"),
    "computer": re.compile(r"\b(?:coffee|cafe|espresso|washing|build|ci|runner|server|"
                           r"servidor|virtual|vm|test\s+device)\b"),
    "gym": re.compile(r"\b(?:pool|piscina|swimming|yoga\s+studio)\b"),
}
# Where a value must look like one: a phone number holds six digits or more.
VALUE_SHAPE: dict[str, re.Pattern[str]] = {
    "phone number": re.compile(r"\+?\d[\d \-().]{4,}\d"),
}
# Attributes whose ambiguous words are values themselves (a product name, not a title).
TOOL_ATTRIBUTES = frozenset({"editor"})
_EMPLOYED_AS = re.compile(
    r"\b(?:i'?m|i\s+am|i\s+was|i\s+work|working|hired|joined|started|as|soy|era|como|"
    r"trabajo\s+de|entre\s+de)\s+(?:an?\s+|una?\s+)?(?:[\w-]+\s+){0,3}?(?:" +
    "|".join(sorted(AMBIGUOUS["employer"])) + r")\b")


def in_context(text: str, word: str, attribute: str) -> bool:
    """Whether an :data:`AMBIGUOUS` ``word`` of ``attribute`` is used in its sense: an
    editor's name as a tool (:func:`used_as_tool`), a job title said of the user."""
    if attribute == "employer":
        return _EMPLOYED_AS.search(fold(text)) is not None
    return used_as_tool(text, word)


def used_as_tool(text: str, name: str) -> bool:
    """Whether the ambiguous product ``name`` (folded) is written, capitalised, as a tool
    the user works in: after "in"/"en", or in a sentence with a verb of using or switching
    where the name is not placed like a person ("with Kate", "Kate from accounting")."""
    folded = fold(text)
    verb = _TOOL_VERB.search(folded) is not None
    for m in re.finditer(r"(?<![\w.])" + re.escape(name) + r"(?![\w-])", folded):
        if not text[m.start():m.start() + 1].isupper():
            continue
        before, after = folded[:m.start()], folded[m.end():]
        if _TOOL_PLACE.search(before):
            return True
        if verb and not _PERSON_NEXT.match(after) and not (
                _PERSON_BEFORE.search(before) and not re.search(
                    r"\b(?:switched|switching|moved|migrated|back|replaced|pase|cambie|"
                    r"volvi|vuelto|sustitui|reemplace)\s+(?:over\s+|back\s+)?\w+\s+$", before)):
            return True
    return False


# A role word that belongs to something else: "the newsletter editor", "the catering
# manager", "the lead of the data team", "el responsable del catering", "el jefe de cocina".
# Words that may stand between a determiner and the role without making it someone else's.
_OWN_MODIFIERS = frozenset("""new current main favourite favorite default usual preferred
    daily only primary old former interim direct line code text go-to real""".split())
ROLE_WORDS: dict[str, frozenset[str]] = {
    "editor": frozenset("editor ide".split()),
    "manager": frozenset("manager boss lead supervisor jefe jefa responsable supervisora "
                         "director directora".split()),
}
_MINE = re.compile(r"\b(?:my|mi|mis|i|me|our|nuestro|nuestra|reporto|dependo|report)\b")


def others_role(text: str, attribute: str) -> bool:
    """Whether every role word of ``attribute`` in ``text`` names somebody else's role
    (qualified by another noun: "the newsletter editor", "responsable del catering") in a
    memory that says nothing of the user's own ("my", "mi", "I report to")."""
    roles = ROLE_WORDS.get(attribute)
    if not roles:
        return False
    folded = fold(text)
    if _MINE.search(folded):
        return False
    words = re.findall(r"[a-z0-9'-]+", folded)
    seen = False
    for i, w in enumerate(words):
        if w not in roles:
            continue
        seen = True
        prev, prev2 = (words[i - 1] if i else ""), (words[i - 2] if i > 1 else "")
        nxt = words[i + 1:i + 3]
        qualified_before = prev2 in {"the", "a", "an", "this", "that", "their", "his", "her",
                                     "its"} and prev not in _OWN_MODIFIERS
        qualified_after = bool(nxt) and (
            nxt[0] in {"of", "for", "at"} or
            (nxt[0] in {"de", "del"} and (len(nxt) < 2 or nxt[1] not in {"codigo", "texto"})))
        if not (qualified_before or qualified_after):
            return False
    return seen


# For a commute, a means of transport is a value only where the memory speaks of going
# somewhere: "by car", "en tren", "on foot", "I drive", "to the office" (not "car
# insurance renewal", "train tickets for the conference").
_MEANS = (r"(?:bike|bicycle|train|tram|metro|subway|underground|bus|car|scooter|motorbike|"
          r"ferry|foot|bici|bicicleta|tren|tranvia|autobus|bus|coche|patinete|moto|pie)")
_GOING = re.compile(
    r"\ba\s+pie\b|\bandando\b|\b(?:by|en|on|in)\s+(?:the\s+|a\s+|an\s+|el\s+|la\s+|mi\s+|my\s+)?"
    + _MEANS + r"\b"
    r"|\b(?:take|takes|took|taking|catch|catches|caught|ride|rides|rode|riding|cojo|tomo|"
    r"coger|tomar)\s+(?:the\s+|a\s+|el\s+|la\s+)?" + _MEANS + r"\b"
    r"|\b" + _MEANS + r"\s+to\s+(?:work|the\s+office)\b"
    r"|\b(?:commute|commuting|commutes|go|goes|going|went|travel|travels|travelling|"
    r"traveling|drive|drives|driving|drove|cycle|cycles|cycling|cycled|biking|walk|walks|"
    r"walking|walked|ride|rides|rode|riding|voy|vas|vamos|ir|iba|llego|llegar|vengo|venir|"
    r"conduzco|pedaleo|trayecto)\b|\bget(?:s|ting)?\s+to\b"
    r"|\bto\s+(?:work|the\s+office)\b|\b(?:al\s+trabajo|a\s+la\s+oficina)\b")


def speaks_of_going(text: str) -> bool:
    return _GOING.search(fold(text)) is not None


# Words that say a state changed: "now", "left", "no longer", "ya no", "desde" ...
CHANGE = re.compile(
    r"\b(?:now|nowadays|these\s+days|since|from\s+now|new|left|leaving|quit|goodbye|farewell|"
    r"no\s+longer|no\s+more|any\s+more|anymore|instead|switched|moved|replaced|after|gone|"
    r"started|joined|began|"
    r"ahora|ya\s+no|desde|nuevo|nueva|deje|dejo|adios|despues|en\s+vez|cambie|me\s+fui)\b")


# The user speaking of themselves: a pronoun, a Spanish first-person past ("dejé", "me
# mudé"; the accent is kept in the unfolded text), or a note that starts with the verb
# ("Left Pied Piper; now at Aviato").
_I = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|mine|we|we're|we've|our|us|yo|mi|mis|me|nos|"
                r"nuestro|nuestra|nuestros|nuestras|estoy|soy|voy|estamos|somos)\b")
_I_VERB_FIRST = re.compile(
    r"^\W*(?:left|quit|joined|moved|started|starting|switched|said|signed|accepted|"
    r"handed|resigned|relocated|finished|dejé|deje|empecé|empece|entré|entre|fiché|fiche)\b")


# Somebody else's, said of them by name: "Jonas sold his bike and now takes the tram".
HIS_HER = re.compile(r"\b(?:his|her|hers|himself|herself)\b")


def someone_elses(folded: str) -> bool:
    """Whether a (folded) memory speaks of a third person's things ("his", "her") and not
    of the user's (no "I", "my", "we")."""
    return bool(HIS_HER.search(folded)) and not _I.search(folded)


def theirs(folded: str) -> bool:
    """Whether a folded memory tells of somebody else's practice and not of the user's:
    :data:`THEIRS`, with no word of "I", "we" or "our"."""
    return bool(THEIRS.search(folded)) and not _I.search(folded)


def about_me(text: str) -> bool:
    return bool(_I.search(fold(text)) or re.search(r"\w+é\b", text)
                or _I_VERB_FIRST.search(fold(text)))


# A condition, a wish or a someday: "if the trains strike I'll drive", "I'd love to learn
# Emacs one day", "ojalá algún día viva en Lisboa", "in case Actions goes down we could
# fall back to Drone".
HYPOTHETICAL = re.compile(
    r"\b(?:if|unless|in\s+case|could|should|would|might|maybe|probably|perhaps|possibly|"
    r"quizas|tal\s+vez|podriamos|i'?d\s+(?:love|like|prefer)|i\s+wish|wish\s+i|"
    r"hope\s+to|hoping\s+to|someday|some\s+day|one\s+day|dream\w*|"
    r"ojala|algun\s+dia|en\s+caso\s+de|podria|podrias|deberia|deberiamos|me\s+gustaria|"
    r"nos\s+gustaria|a\s+lo\s+mejor|sueno\s+con)\b")
# News about a product, not a change of ours: "Python 3.14 release notes look interesting".
PRODUCT_NEWS = re.compile(
    r"\b(?:release\s+notes|changelog|roadmap|announced|announcement|beta|preview|"
    r"notas\s+de\s+la\s+version|anunci\w+)\b")
# Somebody close as the subject of the sentence: "My sister just moved to Dublin", "mi
# compañero va en bici" (not "my partner and I moved", and not the manager asked about).
RELATIVE_SUBJECT = re.compile(
    r"(?:^|[.;!?]\s*)(?:my|our|his|her|their|a|an|(?:the\s+)?user'?s|mi|mis|su|sus|nuestro"
    r"|nuestra|nuestros|nuestras|un|una)\s+(?:\w+\s+)?"
    r"(?:sister|brother|colleague|coworker|co-worker|friend|mom|mum|mother|dad|father|"
    r"cofounder|co-founder|mentor|girlfriend|boyfriend|fiance|fiancee|kids|children|"
    r"parents|partner|wife|husband|cousin|neighbou?r|teammate|roommate|flatmate|son|"
    r"daughter|hermana|hermano|madre|padre|padres|amiga|amigo|companera|companero|vecina|"
    r"vecino|prima|primo|pareja|mujer|marido|hijo|hija)\b(?!\s+(?:and\s+i|y\s+yo)\b)")
# A negation with no word of change: "nobody was convinced", "not switching", "but no";
# "I don't drive any more" and "ya no uso Vim" are changes (:data:`CHANGE`).
NEGATION = re.compile(r"\b(?:not|no|nobody|never|nothing|none|nadie|nunca|tampoco|ni|dont|"
                      r"doesnt|didnt|wont|cant|isnt|arent|wasnt|werent)\b|\w+n't\b")


_CLAUSES = re.compile(r"[,;!?()]+|[.:](?!\d)|\s(?:but|pero|though|aunque)\s")
_SI = re.compile(r"^\s*(?:y\s+|pero\s+)?si\s")  # Spanish "if" opening a clause ("sí" folds alike)


def _only_hypothetical(folded: str) -> bool:
    """Every clause is a condition, a wish or a maybe ("if Ben leaves, Priya could become
    my manager"); "Living in Lisbon now, would recommend" states Lisbon in its first."""
    clauses = [c for c in _CLAUSES.split(folded) if c.strip()]
    return bool(clauses) and all(HYPOTHETICAL.search(c) or _SI.search(c) for c in clauses)


def mere_mention(folded: str) -> bool:
    """Whether a (folded) memory is a condition, a wish, news about a product, somebody
    close's state, or a negation without a change: no statement of the user's state."""
    return bool(_only_hypothetical(folded) or PRODUCT_NEWS.search(folded)
                or RELATIVE_SUBJECT.search(folded)
                or (NEGATION.search(folded) and not CHANGE.search(folded)))
