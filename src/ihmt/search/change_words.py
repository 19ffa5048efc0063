"""The words a later memory uses to say that something of a project *changed* (English and
Spanish), for :mod:`ihmt.search.changes`.

A lexicon of how people write such notes, kept apart from the rule that uses it and from
the tests and benchmarks that check it. Every pattern runs on folded text
(:func:`ihmt.text.fold`: lower case, no accents).
"""

from __future__ import annotations

from ..lazy_re import lazy
from . import change_lexicon_rx as _lexicon

# the verbs of "not going back to X", a value left for good (read in OLD_SLOT, NOT_DONE and
# :func:`ihmt.search.change_notes.read_note`'s reverts)
BACK_VERB = r"(?:going|coming|switching|moving)"

# "dropped" said of a figure that fell ("pages dropped a lot", "latency dropped by half"),
# not of a thing let go.
FELL = (r"\s+(?:a\s+lot|a\s+bit|by\s+(?:half|\d|a\s+third|a\s+quarter)|to\s+(?:zero|\d)|\d|sharply"
        r"|significantly|noticeably"
        r"|dramatically|again\b)")

# A change said in words: "switched X to Y", "moved off X", "replaced X with Y", "X is now
# Y", "no longer ...", "dropped X", "in favour of", "migrated", "cambiamos", "apagamos X",
# "ya no" ... ("now that X runs on Y", "ahora que ..." take the state as given: no cue).
# The times a change may be dated from ("since March", "desde el lunes").
_WHEN = (r"january|february|march|april|june|july|august|september|october|november"
         r"|december|monday|tuesday|wednesday|thursday|friday|saturday|sunday|today"
         r"|yesterday|week|month|quarter|year|sprint|spring|summer|autumn|fall|winter"
         r"|release|version|v?\d[\w.]*|q[1-4]")
_CUANDO = (r"enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre"
           r"|noviembre|diciembre|lunes|martes|miercoles|jueves|viernes|hoy|ayer"
           r"|semana|mes|trimestre|ano|sprint|primavera|verano|otono|invierno|version"
           r"|\d[\w.]*")

_FINITE = (r"(?:is|are|was|were|has|have|had|do|does|did|can|could|would|will|es|son|era"
           r"|fue|ha|han)\b")
_DATED = (r"(?:since|from|as\s+of|starting)\s+(?:this\s+|last\s+|next\s+)?(?:" + _WHEN + r")"
          r"|desde\s+(?:este\s+|esta\s+|el\s+|la\s+)?(?:" + _CUANDO + r")"
          # dated by an event of change: "since the upgrade", "desde la migración"
          r"|(?:since|after)\s+the\s+(?:[a-z]+\s+){0,2}?(?:upgrade|migration|move|switch|switchover"
          r"|cutover|reorg|merger"
          r"|rewrite|relaunch)(?!\s+(?:of|to|from|at|in)\b)"
          r"|desde\s+(?:la|el)\s+(?:migracion|cambio|mudanza|actualizacion)"
          # an event named before a comma: "Since the security audit, merging needs ..."
          r"|(?:since|after|desde|tras)\s+(?:the|la|el|our|nuestra|nuestro)\s+"
          r"(?:(?!" + _FINITE + r")[a-z0-9]+\s+){0,2}?(?!" + _FINITE + r")[a-z0-9]+(?=\s*,)"
          # "this year the freeze starts on the 20th", "este año"
          r"|this\s+(?:year|quarter|month|season|sprint)|este\s+(?:ano|trimestre|mes)")

# Words said in more than one pattern below: an earlier memory was wrong ("Correction:",
# "Small fix:", "I was wrong", "me equivoqué"); being done with a value ("he's done with
# squashing"); a holder leaving ("Javier deja la empresa", "Ana leaves the team").
_WRONG = (r"correction|correccion|(?:small|quick|minor|tiny)\s+fix\b|me\s+equivoque"
          r"|i\s+was\s+wrong|had\s+it\s+wrong|lo\s+tenia\s+mal"
          # "scratch that", "I mixed them up", "I misspoke", "me confundí", "mejor dicho"
          r"|(?:scratch|strike)\s+that|disregard\s+(?:that|my\s+last)|misspoke|i\s+was\s+mistaken"
          r"|mixed\s+(?:them|those|these|it|the\s+two)\s+up|got\s+(?:that|it|them)\s+mixed\s+up"
          r"|me\s+confundi|me\s+lie\b|mejor\s+dicho|olvid(?:a|ad|en)\s+lo\s+(?:anterior|que\s+dije)"
          r"|error\s+mio"
          # what was found to hold: "turns out the mesh is actually Istio" (not "let me
          # know how it turns out")
          r"|turns\s+out\s+(?:that\s+)?(?:\S+\s+){1,4}?(?:is|are|was|were|uses|runs)")
_DONE_WITH = r"(?:is|are|'s|'re|am|'m)\s+done\s+with"
# what is handed over is a charge, not a thing passed along ("handed the report to Iker")
_HANDED = (r"handed\s+(?:\S+\s+){0,3}?(?:team|teams|squad|project|projects|role|lead|ownership"
           r"|service|services|repo|repos|on-?call|pager|rota|account|accounts|budget|keys)"
           r"\s+(?:over\s+)?to\b")
_WAS = r"\(\s*(?:was|previously|formerly|before|old|antes|era|eran|anterior)\s*:?\s*"
_LEAVES = (r"(?:deja|dejo|(?:ha|han)\s+dejado|se\s+va\s+de|se\s+(?:ha|han)\s+ido\s+de"
           r"|se\s+fue\s+de|leaves|is\s+leaving|left|has\s+left)\s+(?:la\s+|el\s+|the\s+)?"
           r"(?:empresa|equipo|puesto|cargo|company|team|role|job)"
           # (not a meeting of the team: "Dana left the team meeting early")
           r"(?!\s+(?:meeting|call|chat|channel|room|lunch|offsite|dinner|reunion|comida|cena))")

# A commit's subject says what the commit did, in the imperative by custom ("commit: move
# the cleanup cron to 04:30", "chore(repo): rename trunk to main", "commit: 'mueve el cron
# a las 04:30'"): done, not a to-do (a ticket's title is one: "MOB-812: move the release").
_COMMIT_VERBS = ("move|moves|switch|switches|bump|bumps|raise|raises|lower|lowers|rename"
                 "|renames|replace|replaces|migrate|migrates|set|sets|change|changes"
                 "|increase|increases|reduce|reduces|drop|drops|upgrade|upgrades|downgrade"
                 "|downgrades|mueve|cambia|sube|baja|migra|renombra|reemplaza|sustituye"
                 "|actualiza|pasa")
_COMMIT = (r"^\W*(?:commit\b[^:\n]{0,24}:|merged?\b[^:\n]{0,40}:|(?:feat|fix|chore|refactor"
           r"|perf|build|ci|ops)(?:\([^)\n]{0,30}\))?!?:)\s*\W*(?:\S+\s+){0,2}?(?:"
           + _COMMIT_VERBS + r")\b")
CUE = lazy(
    _COMMIT + r"|" + _WAS + r"|\b" + _HANDED +
    r"|\b(?:switch(?:ed|ing)?|mov(?:ed|ing)|migrat(?:ed|ing)|replac(?:ed|ing)|swap(?:ped|ping)"
    r"|chang(?:ed|ing)|convert(?:ed|ing)|port(?:ed|ing)|rewr(?:ote|itten)|reescrit[oa]s?|upgrad(?:ed|ing)"
    r"|downgrad(?:ed|ing)|dropp(?:ed|ing)(?!" + FELL + ")|ditch(?:ed|ing)|retir(?:ed|ing)"
    r"|deprecat(?:ed|ing)|bump(?:s|ed|ing)?\b|cancell?ed|decommission(?:ed|ing)|phased\s+out"
    r"|sunset(?:ted)?|ripped\s+out"
    r"|turned\s+(?:\S+\s+){0,3}?off|shut\s+(?:\S+\s+){0,3}?down|switched\s+(?:\S+\s+){0,3}?off"
    r"|replaces|gone|removed|deleted|got\s+rid\s+of|stopped\s+using|went\s+with"
    r"|from\s+\S+(?:\s+\S+)?\s+to|de\s+\S+(?:\s+\S+)?\s+a"
    r"|no\s+longer|not\s+any\s*more|any\s*more|in\s+favou?r\s+of|instead(?:\s+of)?|is\s+now"
    r"|are\s+now|now(?!\s+that)|nowadays|these\s+days|from\s+now\s+on"
    r"|cambi(?:amos|e|o|ado|ada)|migr(?:amos|e|o|ado|ada)|reemplaz\w*|sustitu\w*"
    r"|pasamos|movimos|mudamos|trasladamos|dejamos|deje|eliminamos|quitamos|borramos"
    r"|movieron|cambiaron|migraron|trasladaron|pasaron\s+a|reemplazaron|sustituyeron"
    # done to someone by others, in the present: "a Mateo le cambian el inglés a martes"
    r"|(?:me|te|le|les|nos)\s+(?:cambian|mueven|pasan|trasladan)\b"
    # a new date set: "new GA date Oct 6", "nueva fecha: 3 de marzo"
    r"|\bnew\s+(?:\w+\s+)?(?:date|deadline|due\s+date|eta|go-?live)\b|nueva\s+fecha|nuevo\s+plazo"
    # a directive that opens a clause: "user: drop black, use ruff format"
    r"|(?:^|(?<=[:;] ))(?:drop|ditch|stop\s+using)\s+(?=\w)"
    # said of the thing: "los logs fueron trasladados a Loki"
    r"|(?:fue|fueron|ha\s+sido|han\s+sido)\s+(?:trasladad|movid|migrad|cambiad|pasad"
    r"|reemplazad|sustituid)[oa]s?"
    # the same verbs said of the thing itself: "la reunión pasó a los miércoles", "los
    # workers se movieron a Mesos"
    r"|pas(?:o|aron)\s+a|movi(?:o|eron)|mud(?:o|aron)|traslad(?:o|aron)|elimin(?:o|aron)"
    r"|quit(?:o|aron)|borr(?:o|aron)"
    r"|apag(?:amos|ue|o|ado|ada|aron)"
    r"|ya\s+no|ahora(?!\s+que)|en\s+(?:lugar|vez)\s+de"
    # a value taken up again: "Helix CI back on GitHub Actions", "volvió a ESLint"
    r"|back\s+(?:to|on)|volv(?:i|io|imos|ieron)\s+a"
    # a thing given for another: "traded the Pixel in for an iPhone 16"
    r"|trad(?:ed|ing)(?=\s+\S+(?:\s+\S+)?\s+(?:in\s+)?for\b)"
    # a place left: "last day at Contoso today", "hoy fue mi último día en Acme"
    r"|last\s+day\s+(?:at|in|with)|ultimo\s+dia\s+(?:en|con)"
    # "ya" before a verb of being or use in the present, or before "en"/"con" alone: the
    # state reached ("los transaccionales ya salen por Amazon SES", "ya estamos en
    # Kubernetes")
    r"|ya\s+(?:se\s+)?(?:usa|usan|usamos|uso|sale|salen|va|van|vamos|esta|estan|estamos"
    r"|estoy|corre|corren|corremos|funciona|funcionan|vive|vivo|vivimos|trabaja|trabajo"
    r"|trabajamos|tenemos|tengo|tiene|tienen|despliega|despliegan|desplegamos|guarda"
    r"|guardan|guardamos"
    # a note's shorthand: "pagos ya en Java 21", "ya con Vite"
    r"|en|con)\b"
    # the perfect Spain writes a change in: "me he pasado a ING", "hemos migrado X a Y"
    r"|(?:he|has|ha|hemos|habeis|han)\s+(?:pasado|cambiado|migrado|movido|mudado|trasladado"
    r"|dejado|sustituido|reemplazado|quitado|eliminado|apagado|vuelto|vendido|cerrado"
    r"|cancelado|subido|bajado)"
    r"|left\s+(?:the\s+|our\s+)?(?:company|team|firm|job|group|org\w*)"
    r"(?!\s+(?:meeting|call|chat|channel|room|lunch|offsite|early))"
    r"|(?:quit|resigned)(?=\s*(?:[.;,!?]|$|and\b|last\b|in\b|(?:from\s+)?(?:the\s+|our\s+"
    r"|her\s+|his\s+|their\s+|my\s+)?(?:company|team|job|role|position|firm)))"
    r"|se\s+fue|se\s+jubilo|renuncio"
    # a change said as a noun, once it is done: "finished the X migration", "the cutover
    # to X", "X took over", "new home: X", "terminamos la migración a X"
    r"|(?:finish|complet|wrapp?)\w*(?:\s+up)?\s+(?:\S+\s+){0,4}?(?:migration|cut-?over|move)s?"
    r"|migrations?\s+(?:\S+\s+){0,5}?(?:is|was|are|were)\s+(?:done|complete|completed"
    r"|finished|over|live)"
    r"|cut-?over|cut\s+(?:\S+\s+){0,4}?over\s+to|switch-?over|took\s+over|taken\s+over"
    r"|stepped\s+(?:down|aside)|cancelamos|cancelaron"
    r"|handed\s+(?:\S+\s+){0,3}?over\s+to|transition(?:ed|ing)?\s+to|new\s+home"
    r"|(?:terminamos|completamos|acabamos|cerramos)\s+(?:\S+\s+){0,4}?(?:migracion|mudanza)"
    r"|migracion\s+(?:\S+\s+){0,5}?(?:esta|quedo|ya\s+esta)\s+(?:hecha|terminada|lista"
    r"|completada)|tomo\s+el\s+relevo|toma\s+el\s+relevo|asume\s+como|asumio\s+como"
    r"|(?:takes|is\s+taking)\s+over"
    # became, from now on: "la URL de preprod pasó a ser X", "from now on commits are in
    # English", "a partir de ahora los commits van en inglés"
    r"|became|has\s+become|pas(?:o|aron)\s+a\s+ser|from\s+now\s+on|going\s+forward"
    # a new default, being done with the old: "New default for AWS: eu-central-1", "he's
    # done with squashing", "nuevo valor por defecto"
    r"|new\s+default|nuevo\s+(?:valor\s+)?por\s+defecto|" + _DONE_WITH +
    r"|a\s+partir\s+de\s+ahora|de\s+ahora\s+en\s+adelante"
    # a holder going away: "Javier deja la empresa", "Ana leaves the team at the end of May"
    r"|" + _LEAVES +
    # something over: "lo de Slack con el cliente se acabó", "se terminó lo de Heroku"
    r"|se\s+(?:acabo|termino)\b"
    # letting a thing go, getting a new one: "closed the ING account", "the ThinkPad went
    # back", "goodbye PagerDuty", "got a new MacBook", "me pasé a Openbank", "cerré la
    # cuenta", "di de baja el gimnasio"
    r"|closed|cancel(?:l?ed|led)|went\s+back|gave\s+(?:\S+\s+){0,2}?back|returned|sold"
    r"|good-?bye|farewell|(?:got|bought|received|picked\s+up)\s+(?:a\s+|an\s+|my\s+)?new"
    r"|adios|(?:me|nos)\s+(?:pase|pasamos|cambie|cambiamos)|cerre|cancele|di\s+de\s+baja"
    r"|me\s+compre\s+(?:un|una)\s+nuev[oa]|devolvi"
    # a name changed, an old value said to be over, a figure moved: "renamed master to
    # main", "Heroku is history", "vendí el Ibiza", "retention went up to 90 days", "my new
    # phone", "Correction: ..."
    r"|renam(?:ed|ing)|(?:is|are|was|were|es|son)\s+history|(?:es|son)\s+historia|vendi|vendimos"
    r"|(?:went|goes|go|came|comes)\s+(?:up|down)\s+to|(?:increas|decreas|rais|lower|reduc|doubl"
    r"|halv|extend|shorten)(?:ed|ing)\s+(?:\S+\s+){0,6}?to|cut\s+(?:down|back)\s+to"
    r"|(?:sub(?:i|io|imos|ieron)|baj(?:e|o|amos|aron)|aument(?:e|o|amos|aron)"
    r"|reduj(?:e|o|imos|eron)|ampli(?:e|o|amos|aron)|(?:se\s+)?qued(?:o|aron))"
    r"\s+(?:\S+\s+){0,7}?(?:a|hasta|en)\s"
    r"(?=\S*\d|(?:dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|veinte|treinta|cuarenta"
    r"|cincuenta|sesenta|cien|doscientos|quinientos|mil)\b)"
    r"|(?:my|our)\s+new|(?:mi|nuestr[oa])\s+nuev[oa]|" + _WRONG +
    r"|^\W*(?:fix|erratum|errata|fe\s+de\s+erratas)\s*:"
    # a change said as news or as a commit's subject: "api moves to node 22", "chore(deps):
    # upgrade pg to 16"
    r"|(?:moves|switches|migrates|upgrades|downgrades)\s+(?:over\s+)?to\b"
    # a date that slipped: "mobile v2 slips to September 13"; and, in Spanish notes, the
    # present of the one who makes the change, with where it goes: "subo el umbral de CPU
    # al 90%", "paso las tareas a Things", "cambio las vacaciones al 14 de julio"
    r"|slip(?:s|ped)\s+(?:back\s+)?to\b"
    r"|(?:subo|bajo|paso|muevo|cambio|migro|traslado)\s+(?:\S+\s+){0,6}?(?:a|al|hasta)\s"
    # a rule or a limit loosened or tightened, a trial kept: "relaxed the Friday rule",
    # "tightened the review policy", "the 1-week experiment was made permanent",
    # "flexibilizamos la regla", "la prueba se queda definitiva"
    r"|(?:relax|tighten|loosen|lift)(?:ed|ing)\b|(?:made|became|is\s+now)\s+permanent"
    r"|flexibiliz(?:amos|o|aron|ado|ada)|endurec(?:imos|io|ieron|ido|ida)"
    r"|(?:se\s+)?qued(?:a|o|an|aron)\s+(?:como\s+)?definitiv[oa]s?"
    r"|^\W*(?:feat|fix|chore|build|ci|refactor|perf|deps|ops|infra)(?:\([^)]*\))?!?:\s*"
    r"(?:move|switch|migrate|upgrade|downgrade|replace|drop|remove|rename|swap|bump)\b"
    # a correction said at the start ("Actually the cache TTL is 5 minutes"), a value that
    # is the new one ("Cloudflare is the new DNS provider")
    r"|^\W*(?:actually|en\s+realidad)\b|(?:is|are)\s+the\s+new|(?:es|son)\s+(?:el|la)\s+nuev[oa]"
    r"|relocat(?:ed|ing)|stopped|left\s+\S+(?:\s+\S+)?\s+for|(?:is|are|was|were)\s+gone"
    r"|(?:is|are|was|were)\s+out\b(?!\s+(?:of|on|for|to|sick|today|this))"
    r"|\w+\s+out\s*(?=[,;:])|back\s+(?:on|to|with|at|in)|registered\s+with"
    r"|signed\s+up\s+(?:with|for|at)|(?:me\s+he\s+)?apunt(?:e|ado)\s+a|volvimos\s+a"
    r"|migration\s+(?:\S+\s+){0,6}?(?:complete|completed|done|finished)"
    r"|migracion\s+(?:\S+\s+){0,6}?(?:completada|terminada|hecha|finalizada)"
    # a change dated by its start: "since March, analytics are in PostHog", "from this
    # week", "desde marzo" (not "since we moved ...": a reason, the state taken as given)
    r"|" + _DATED + r")\b|->|\u2192"
    # and the phrases of the lexicon ("pulled forward to", "adoptamos", "I got that wrong")
    r"|" + _lexicon.CHANGE)
# (an arrow: "Postgres -> CockroachDB")

# Where the old value stands in a change: "from X", "replaced X", "instead of X", "off X",
# "dropped X", "de X a", "en lugar de X" (the word right after).
OLD_SLOT = lazy(
    r"\b(?:(?:cancele|cerre|vendi|deje)\s+(?:la|el|los|las)\s+(?:\w+\s+)?del?"  # "cerré la del X"
    r"|from|off|replac(?:ed|ing)|instead\s+of|dropp(?:ed|ing)|ditch(?:ed|ing)|swapp(?:ed|ing)"
    r"|delet(?:ed|ing)|remov(?:ed|ing)|trad(?:ed|ing)(?=\s+\S+(?:\s+\S+)?\s+(?:in\s+)?for\b)"
    r"|cancelamos|cancelaron|(?:^|(?<=[:;] ))(?:drop|ditch|stop\s+using)"
    r"|retir(?:ed|ing)|stopped\s+using|no\s+longer\s+(?:use|using|keep|run|on|in|with"
    r"|\w+\s+(?:on|in|with|for|from|by)|\w+)"  # "no longer pay for Heroku", "... enforce X"
    r"|got\s+rid\s+of|reemplazamos|sustituimos|dejamos(?:\s+de\s+usar)?|apagamos"
    r"|closed|cancel(?:l?ed|led)|good-?bye|bye|farewell|adios|cerre(?:\s+la\s+cuenta\s+de)?"
    r"|cancele|di(?:mos)?\s+de\s+baja(?:\s+(?:del?|en)\b)?|deje(?:\s+de\s+usar)?|returned|sold|stopped(?:\s+using)?"
    r"|(?:he|hemos|han)\s+(?:dejado(?:\s+de\s+usar)?|quitado|eliminado|apagado|vendido"
    r"|cerrado(?:\s+la\s+cuenta\s+de)?|cancelado)"
    r"|left|quit|renam(?:ed|ing)|vendi|vendimos"
    r"|last\s+day\s+(?:at|in|with)|ultimo\s+dia\s+(?:en|con)"
    # "not going back to zsh", "no vuelvo a Jira"
    r"|(?:not|never)\s+" + BACK_VERB + r"\s+back\s+to"
    r"|no\s+(?:vuelvo|volvemos|volvere|volveremos)\s+a"
    r"|en\s+(?:lugar|vez)\s+de|ya\s+no\s+(?:usamos|tenemos|\w+\s+(?:de|con|en)))\s+"
    # ("ya no tiramos de Kubernetes"; not "ya no mandamos los logs a X": its object)
    r"(?:the\s+|el\s+|la\s+|los\s+|las\s+|our\s+|a\s+|lo\s+del?\s+)?(\w[\w.+#-]*)"
    # "de MySQL a Postgres", "de 30 a 10" (not "el timeout de pagos a 10 segundos", "el
    # cron de limpieza a las 04:30")
    r"|\bde\s+(\w[\w.+#-]*)\s+a\b(?!\s+(?:las?\s+|los\s+)?\d)|\bde\s+(\d[\w.,:]*)\s+a\b"
    # "he's done with squashing"
    r"|" + _DONE_WITH + r"\s+(?:the\s+|our\s+)?(\w[\w.+#-]*)"
    # the old value in brackets: "TIMEOUT_MS=4500 (was 3000)", "(antes: 6379)"
    r"|" + _WAS + r"(\w[\w.+#-]*)"
    # a holder handing over: "Marta handed the mobile team to Iker"
    r"|(\w[\w.+#-]*)\s+" + _HANDED +
    # the holder going away: "Javier deja la empresa", "Ana leaves the team"
    r"|(\w[\w.+#-]*)\s+" + _LEAVES + r"\b"
    # "lo de Slack (con el cliente) se acabó"
    r"|\blo\s+de\s+(\w[\w.+#-]*)(?:\s+\S+){0,6}?\s+se\s+(?:acabo|termino)\b"
    # said of the old value itself: "Jest was removed", "Travis got turned off", "MySQL fue
    # reemplazado"
    r"|(\w[\w.+#-]*)(?:\s+(?:servers?|instances?|cluster|clusters|accounts?|boxes|nodes|setup"
    r"|stack|license|licence|plan|subscription|integration|bot|app|wiki|space|workspace|board"
    r"|servidores|cuenta))?"
    r"\s+(?:was|were|is|are|got|has\s+been|have\s+been|fue|fueron|quedo"
    r"|ha\s+sido)\s+(?:removed|dropped|retired|replaced|deprecated|cancell?ed|decommissioned"
    r"|sunset|phased\s+out|ripped\s+out|turned\s+off|shut\s+down|switched\s+off|renamed"
    r"|archived|read[\s-]only|archivad[oa]s?|(?:de|en)\s+solo\s+lectura"
    r"|renombrad[oa]s?|eliminad[oa]s?|retirad[oa]s?|reemplazad[oa]s?|sustituid[oa]s?|apagad[oa]s?"
    r"|cancelad[oa]s?)\b"
    # "the ThinkPad went back", "Nagios is gone", "Rancher out", "Vodafone contract
    # cancelled"
    r"|(\w[\w.+#-]*)\s+(?:went|goes|was\s+sent|got\s+sent)\s+back\b"
    r"|(\w[\w.+#-]*)\s+(?:is|are|was|were)\s+gone\b"
    # the old value before an arrow: "Memcached -> Redis", "master \u2192 main"
    r"|(\w[\w.+#-]*)\s*(?:->|=>|\u2192)"
    r"|(\w[\w.+#-]*)\s+(?:stepped|steps|has\s+stepped)\s+(?:down|aside|back)\b"
    r"|(\w[\w.+#-]*)\s+(?:is|are|was|were|es|son|fue)\s+(?:history|historia)\b"
    r"|(\w[\w.+#-]*)\s+(?:(?:is|are|was|were)\s+)?out\b(?=\s*[,;:.]|\s+in\s+favou?r|\s*$)"
    r"|(\w[\w.+#-]*)\s+(?:contract|account|plan|subscription|membership|instance|servers?"
    r"|cuenta|contrato|suscripcion)\s+(?:was\s+|is\s+|got\s+)?(?:cancell?ed|closed"
    r"|terminated|ended|shut\s+down|cancelad[oa]|cerrad[oa]|not\s+renewed|expired|lapsed"
    r"|no\s+renovad[oa])\b"
    # a note's shorthand, the participle alone: "Biome eliminado.", "jest removed;"
    r"|(\w[\w.+#-]*)\s+(?:removed|dropped|deleted|retired|deprecated|decommissioned"
    r"|eliminad[oa]s?|retirad[oa]s?|borrad[oa]s?|quitad[oa]s?)(?=\s*(?:[.;,)]|$))"
    # "jest superseded by vitest"
    r"|(\w[\w.+#-]*)\s+(?:superseded|supplanted|replaced)\s+by\b"
    # a person who went away: "Priya left the company", "Carmen se jubiló", "Ana renunció"
    r"|\b(?!(?:we|i|they|you|he|she|everyone|everybody|yo|nosotros)\b)"
    r"(\w[\w.+#-]*)\s+(?:left|quit|resigned|se\s+fue|se\s+jubilo|renuncio|dejo\s+la"
    r"\s+empresa)\b")

# Where the new value stands: "switched to UTC", "replaced X with Y", "X -> Y", "por Y".
NEW_SLOT = lazy(
    r"(?:\b(?:to|into|onto|with|by|por|hacia|a|al|new\s+home:?|nuevo\s+hogar:?"
    r"|(?:swapped|traded|exchanged|ditched|dropped|dumped|left)(?:\s+\S+){0,2}?\s+for"
    # "New payments lead is Sadia", "el nuevo responsable es Diego"
    r"|(?:new|nuev[oa]s?)\s+(?:[\w-]+\s+){0,3}?(?:is|are|es|son)"
    r"|back\s+on)|->|\u2192)\s+"
    r"(?:the\s+|el\s+|la\s+|los\s+|las\s+|our\s+)?([#@]?(?:~?/)?\w[\w.+#/-]*)")

# A new value said before the word of change: "the Keycloak migration", "Cognito took
# over", "la migración a X" is NEW_SLOT's. Group 1: up to two words before it.
NEW_AHEAD = lazy(
    r"(\w[\w.+#-]*(?:\s+\w[\w.+#-]*)?)\s+(?:migration|cut-?over|rollout|took\s+over"
    r"|taken\s+over|tomo\s+el\s+relevo)\b")
# A clause that says what went away ("ya no mandamos los logs a Papertrail"): its "a X" is
# no new value.
GONE_WORDS = lazy(
    r"\b(?:no\s+longer|ya\s+no|not|never|no\s+more|any\s*more|dropp(?:ed|ing)(?!" + FELL + ")"
    r"|removed"
    r"|retired|deleted|turned\s+(?:\S+\s+){0,3}?off|dejamos|done\s+with)\b")

# A change that did not happen, or not yet: plans, wishes, conditions, attempts undone
# (looked for up to the end of the change's own word, "not moving" included: "Postgres
# could not scale" after it is a reason).
# ("may" is the month after a number or a preposition of time, or before a number: "pushed
# back to 2 May", "in May", "May 14")
_MAY_MODAL = (r"(?<!\d\s)(?<!\d)(?<!\bin\s)(?<!\bon\s)(?<!\bby\s)(?<!\bto\s)(?<!\bof\s)"
              r"(?<!until\s)(?<!since\s)(?<!early\s)(?<!\blate\s)(?<!\bmid\s)(?<!\bmid-)"
              r"(?<!\bfrom\s)(?<!\bnext\s)(?<!\blast\s)may(?!\s*\d)")
# "plan" as a plan, not as a noun of something else ("sprint planning", "my phone plan",
# "the planning meeting"): a verb after its subject or before "to"/"on", a plan announced
# ("Plan: ...", "the plan is to", "plan for next quarter"), a change "planned for" a date.
_PLAN = (r"(?:we|i|they|you|to)\s+plan\b|plans?(?=\s*:|\s+(?:to|for|on)\b|\s+(?:is|was)\s+to\b)"
         r"|planning(?=\s+(?:to|on|an?|for)\b)|(?:are|am|is|was|were|re|m)\s+planning"
         r"|planned(?=\s*:|\s+(?:for|to)\b)|(?:is|are|was|were|been|s)\s+planned")
NOT_DONE = lazy(
    r"\b(?:might|" + _MAY_MODAL + r"|maybe|could|would|should|shall|will|won'?t|going\s+to|gonna|" + _PLAN + r"|want(?:s|ed)?\s+to|thinking\s+(?:of|about)|consider(?:ing|ed)?"
    r"|propos(?:e|ed|al)|suggest(?:ed|s)?|pending|if|unless|whether|tried|trying|attempted"
    r"|reverted"
    r"|rolled\s+back|gave\s+up|did\s*n'?t|did\s+not"
    r"|(?:not|(?:is|are|was|were|do|does)n'?t)\s+"  # "we are not moving billing"
    r"(?:yet|switch\w*|mov(?:e|es|ing)|migrat\w*|replac\w*|chang(?:e|es|ing))"
    # a reminder, a to-do: "Reminder: compare X with what I get now", "recordatorio: ..."
    r"|reminder|recordatorio|to-?do\b|remember\s+to|don'?t\s+forget|no\s+olvid(?:ar|es)"
    # ("never going back to X" is a value left for good, no hedge)
    r"|never(?!\s+(?:" + BACK_VERB + r"\s+)?back\b)"
    r"|podr\w+|quiz\w*|vamos\s+a|queremos|planeamos|pensamos|intentamos|revertimos"
    r"|probamos|probe|probaron|propuesta|propon\w*|propus\w*|suger\w*|sugier\w*|pendiente"
    r"|si|el\s+proximo|la\s+proxima|no\s+(?:cambiamos|migramos|movimos|movemos|pasamos)"
    # an idea put forward that nobody took up: "floated the idea of moving to X"
    # (not "idea" alone: "IntelliJ IDEA has replaced Sublime")
    r"|(?:the|an?|la|una)\s+ideas?\s+(?:of|to|de)|floated|pitched|nadie\s+(?:la|lo)\s+retomo"
    r"|nobody\s+(?:picked|followed|took)\s+(?:it|that)?)\b")

# A time still to come anywhere in the clause: "switching to pnpm next sprint". Not the
# day a decided change starts ("standup is at 10:15 starting next week", "a partir de la
# próxima semana"): by the time it is asked about, that day is past.
FUTURE = lazy(
    r"\b(?<!starting\s)(?<!from\s)(?<!as\sof\s)(?<!effective\s)(?<!beginning\s)"
    r"(?<!partir\sde\s)(?<!desde\s)"
    r"(?:next\s+(?:week|month|quarter|year|sprint|release|time)|tomorrow|soon|eventually"
    r"|later\s+this|el\s+proximo|la\s+proxima|pronto|manana)\b")

# The old value said to continue: "billing stays on Postgres", "Redis is still there",
# "the upgrade went fine", "sigue en MySQL".
STILL = lazy(
    r"\b(?:still|stay|stays|stayed|remain|remains|remained|unchanged|fine"
    r"|as\s+before|sigue|siguen|seguimos|todavia|aun|mantenemos|se\s+queda)\b")

# The reason given right after a change, in a clause of its own: "we switched login to
# Okta; Clerk could not keep up", "cambiamos la facturación a Postgres; MySQL no escalaba".
# What it names belongs to the change (a clause with a cue or a "still" is judged alone).
REASON = lazy(
    r"\b(?:could\s*n'?t|could\s+not|can'?t|cannot|not|too|never|no|nunca|demasiado)\b")

# A consequence joined to its reason: "X could not keep the order, so events go through Y".
_SO = (r",\s*(?:and\s+)?so\s+(?!(?:far|much|many|that|long)\b)"
       r"|,\s*(?:asi\s+que|por\s+eso|por\s+lo\s+que)\s+")
CONSEQUENCE = lazy(_SO)

# Where a note's clauses end: a change and a mention of something else said in one note
# ("Moved the standup to 10:00; Redis upgrade went fine") are judged apart.
CLAUSE = lazy(r"(?<!\bdr)(?<!\bdra)(?<!\bmr)(?<!\bmrs)(?<!\bms)(?<!\bsr)(?<!\bsra)(?<!\bst)"
              r"(?<!\bprof)(?<!\bjr)(?<!\bvs)(?<!\b[a-z])[.;!?]+(?=\s|$)|\n+"
              r"|\s+(?:but|pero)\s+"
              # a consequence said after its reason: "X could not keep up, so we moved to Y"
              r"|" + _SO)
# (not the dot of "3.12", of "Dr." or of "J.")

# Words before a dot that ends no sentence: titles and initials ("Dr. Kim", "J. Smith").
ABBREVIATIONS = frozenset("dr dra mr mrs ms sr sra st prof jr vs".split())

# Words of change that say what holds now wherever the value stands in the clause: "we're
# on Mattermost these days", "now the checkout runs on Split".
NOW_CUES = lazy(r"\b(?:now|nowadays|these\s+days|ahora|hoy\s+en\s+dia|" + _DATED + r")\b")

# A value taken up again: "went back to bash", "back in VS Code", "we deploy on Tuesdays
# again", "he vuelto a comer a las 14:00". Group 1: the words that put the value right
# after them (else the value is a name of the words around).
REVERT = lazy(
    r"\b(back\s+(?:to|on|in|with|at)|volv(?:i|imos|io|ieron)\s+a|(?:he|has|ha|hemos|han)"
    r"\s+vuelto\s+a|vuelvo\s+a|de\s+vuelta\s+(?:a|en|con))\s"
    r"|\b(?:again|once\s+more|otra\s+vez|de\s+nuevo)\b")

# A memory that says what something *is*: "The data warehouse is Redshift", "Our auth
# provider is Auth0", "Nginx is our reverse proxy", "Mi banco es BBVA". A later change of
# the same thing replaces that value (a note on how a thing is used, "we write the docs in
# Markdown", may be of another facet of it). Run on the memory's first clause, unfolded.
DEFINES = lazy(
    r"^\W*(?:(?:the|our|my|el|la|los|las|nuestro|nuestra|mi|mis)\s+)?[\w-]+(?:\s+[\w-]+){0,3}?"
    r"\s+(?:is|are|es|son|esta|están|está|runs?|lives?|sits?|corren?|viven?)\s+"
    r"(?:a\s+|an\s+|the\s+|un\s+|una\s+|el\s+|la\s+"
    r"|on\s+|in\s+|at\s+|en\s+)?(?:[a-záéíóú]+\s+)?"
    # or done by it, "are scraped by Prometheus", "son gestionados por Jira"
    r"(?:[a-z]+(?:ed|en|ado|ados|ada|adas|ido|idos|ida|idas)\s+(?:by|with|through|via|on|in|"
    r"at|to|por|con|en|a)\s+(?:the\s+|el\s+|la\s+)?)?[A-Z0-9][\w.+#-]*"
    r"|^\W*[A-Z][\w.+#-]*(?:\s+[A-Z0-9][\w.+#-]*){0,2}\s+(?:is|are|es|son)\s+"
    r"(?:our|my|the|nuestro|nuestra|mi|el|la)\s+\w")

# Where a new value may stand besides NEW_SLOT, for a change that does not name the old
# one: "now the checkout runs on Split", "ahora los workers funcionan con Nomad".
NEW_PLACE = lazy(
    r"\b(?:on|in|con|en)\s+(?:the\s+|el\s+|la\s+|los\s+|las\s+|our\s+)?(\w[\w.+#-]*)")

# Verbs that say how a thing is used, not what it is: a word like these shared by two
# memories does not make them about one thing ("deploys run on X", "QA runs the suite").
USE_VERBS = (
    "use uses used using run runs running ran build builds built store stores stored keep "
    "keeps kept go goes going went live lives lived serve serves served handle handles "
    "handled host hosts hosted work works worked make makes made get gets got put puts "
    "manage manages managed write writes wrote do does did ship ships shipped send sends "
    "sent "
    "usa usan usamos usar uso corre corren correr ejecuta ejecutan ejecutar guarda guardan "
    "guardamos guardar va van ir sirve sirven servir gestiona gestionan gestionar lleva "
    "llevan llevar tiene tienen tener hace hacen hacer")

# A word that says how a named thing serves, by where it stands: right before the name,
# or before a word of means and the name ("generated with JasperReports", "se generan con
# JasperReports", "hosted by Hetzner", "se reúne los martes"). Group 1 is that word, group
# 2 the name's first word (the caller checks that it reads as a name); a look-ahead, so
# that every word is tried.
WAY = lazy(
    r"\b(\w+)(?=\s+(?:(?:with|on|in|by|through|via|using|from|at|con|en|por|mediante|desde"
    r"|sobre)\s+)?(?:the\s+|el\s+|la\s+|los\s+|las\s+|our\s+|a\s+)?(\w[\w.+#-]*))")

# Weekdays and months, English and Spanish (folded): values of a schedule.
CALENDAR = frozenset(
    """monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays
    thursdays fridays saturdays sundays january february march april may june july august
    september october november december lunes martes miercoles jueves viernes sabado domingo
    enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre
    diciembre""".split())

# What is only planned, proposed or imagined: "we are planning to move X", "might switch",
# "if we sign, it would drop to 5", "propuesta: pasar a Y". Narrower than NOT_DONE (no
# "never", "if" or "did not", which settled facts say too). Run folded.
PLANNED = lazy(
    r"\b(?:would|might|plan(?:s|ning|ned)?\s+to|going\s+to|gonna|thinking\s+(?:of|about)"
    r"|consider(?:ing)?|propos(?:e|es|ed|al)|suggest(?:s|ed)?|want(?:s|ed)?\s+to|someday"
    r"|eventually|vamos\s+a|queremos|planeamos|pensamos|propuesta|propon\w*|podr\w+)\b")
# A value only put forward, not taken: "Friend recommended Fly.io for the blog. Maybe
# someday", "Sales demo of Datadog today", "evaluamos Teams, no lo vamos a adoptar".
TENTATIVE = lazy(
    r"\b(?:maybe|someday|recommend(?:s|ed|ing)?|suggest(?:s|ed|ion)?|pitch(?:ed|es)?"
    r"|propos(?:e|ed|al)|consider(?:ing|ed)?|evaluat(?:e|ed|ing|ion)|demo(?:ed)?|trial(?:led)?"
    r"|quiza|quizas|tal\s+vez|algun\s+dia|recomend\w*|propuesta|sugiri\w*|evaluamos"
    r"|evaluando|evaluacion)\b")
# The change a plan is about, in the base form a plan says it: "planning to move", "would
# have to drop to 5 minutes", "queremos pasar a" (not "I would love to go hiking").
PLANNED_CHANGE = lazy(
    r"\b(?:move|switch|migrate|drop|raise|lower|change|replace|adopt|upgrade|downgrade"
    r"|go\s+back|revert|cut|increase|decrease|reduce|extend|shorten|rename|retire"
    r"|mover|cambiar|migrar|pasar|subir|bajar|reemplazar|sustituir|renombrar)\b")
# A guess, not a fact: "Assumption: the deploy branch is main", "I assume ...", "supuse que
# el dominio era ...", "supongo que ..." (a later answer of the same thing settles it).
ASSUMED = lazy(
    r"\b(?:assumption|assumed|assuming|i\s+assume|i\s+guess|guessing|presumably|my\s+guess"
    r"|supuse|supongo|suponemos|asumo|asumi|asumimos|suposicion|imagino\s+que"
    r"|presumiblemente"
    # a belief said as one: "I think we use Linkerd?", "creo que es Jenkins"
    r"|i\s+(?:think|believe|suspect)|not\s+(?:sure|certain)|probably|creo\s+que"
    r"|me\s+parece\s+que|no\s+estoy\s+segur[oa]|probablemente)\b")

# A memory that says an earlier one was wrong: "Correction: ...", "Small fix: ...",
# "Actually ...", "I was wrong", "Me equivoqué". Run folded.
CORRECTION = lazy(
    r"\b(?:" + _WRONG + r"|erratum|errata)\b"
    r"|^\W*(?:actually|en\s+realidad|fix\s*:)"
    r"|" + _lexicon.CORRECTION)

# A change explained by the trouble the old value gave, after the new state: "email goes
# through Postmark since the SendGrid deliverability problems", "because of the Heroku
# outages", "desde los problemas con SendGrid", "tras la caída de Heroku". Run folded; the
# names of ``what`` are the value let go.
TROUBLE = lazy(
    r"\b(?:since|after|because\s+of|due\s+to|following|desde|tras|a\s+causa\s+de)\s+(?:the\s+|all\s+the\s+"
    r"|those\s+|los\s+|las\s+|el\s+|la\s+|our\s+)?"
    r"(?:(?P<what>(?:[\w.-]+\s+){1,3}?)(?:problems?|issues?|outages?|incidents?|bugs?|failures?"
    r"|mess|fiasco|debacle|breach|downtime|price\s+hikes?|problemas|caidas?|fallos?"
    r"|incidencias?|errores)\b"
    r"|(?:problems?|issues?|outages?|incidents?|bugs?|failures?|trouble|problemas|caidas?"
    r"|fallos?|incidencias?|errores|lios?)\s+(?:with|of|at|in|con|de|del|en)\s+"
    r"(?:the\s+|el\s+|la\s+)?(?P<what2>[\w.-]+))")

# Units of one dimension: a figure said in one of them changes a figure said in another
# ("expire after 15 minutes", later "the token lifetime is now 1 hour").
UNIT_KINDS = (
    """second seconds sec secs s minute minutes min mins hour hours hr hrs h day days week
    weeks month months year years segundo segundos minuto minutos hora horas dia dias semana
    semanas mes meses ano anos""",
    "kb mb gb tb kib mib gib tib byte bytes kilobytes megabytes gigabytes terabytes",
)


_SENTENCES = lazy(r"[.;!?](?=\s|$)|\n")


def hedged(folded: str) -> bool:
    """Whether the memory (``folded``) only plans, wishes, tries or puts in time to come
    what it says.

    A hedge anywhere hedges it, unless a sentence of its own says a change done (a word
    of change or of "now", no word of "still", and no hedge): the plan is then
    about something else ("ADRs now live in the monorepo. Confluence will be archived.").
    "We might move CI to Buildkite. For now it stays on Jenkins." says no change done.
    """
    if not (NOT_DONE.search(folded) or FUTURE.search(folded)):
        return False
    if CORRECTION.search(folded):  # a correction states what holds ("no, I told you it's
        return False  # release/stable - never deploy from trunk")
    for sentence in _SENTENCES.split(folded):
        if NOT_DONE.search(sentence) or FUTURE.search(sentence):
            continue
        if (CUE.search(sentence) or NOW_CUES.search(sentence)) and \
                not STILL.search(sentence):
            return False
    return True


_GOVERNS = 24  # characters before a word of change where a hedge governs it
# A change still to be made, in the verb's plain form: "might *move* CI", "la idea de
# *pasar a* Liquibase".
_CHANGE_TO_BE = lazy(
    r"\b(?:move|switch|migrate|replace|swap|change|upgrade|downgrade|drop|ditch|retire"
    r"|adopt|pasar\s+a|cambiar|migrar|mover|reemplazar|actualizar|sustituir)\b")


def only_plans(folded: str) -> bool:
    """Whether the memory (``folded``) speaks of a change, and only as a plan, a wish, an
    attempt or an idea: each sentence with a word of change puts a hedge before it or a
    time to come in it ("We might move CI to Buildkite", "floated the idea of moving to
    Liquibase"); "I moved to Berlin, maybe I'll get a bike" says a change done."""
    planned = False
    for sentence in _SENTENCES.split(folded):
        cue = CUE.search(sentence) or _CHANGE_TO_BE.search(sentence)
        if cue is None or STILL.search(sentence):
            continue  # ("for now it stays on Jenkins" is no change)
        # the hedge right before the word of change governs it ("might move", "the idea
        # of moving"); one further back may be of something else ("in May I moved")
        if not (FUTURE.search(sentence) or
                NOT_DONE.search(sentence, max(0, cue.start() - _GOVERNS), cue.end())):
            return False
        planned = True
    return planned
