"""Words and phrases that say a change was made, or that something said before was wrong,
in English and Spanish: a lexicon written from general knowledge of how developers write
notes, chat messages, tickets and commit subjects, by a helper who saw none of the
rules, tests, walks or benchmarks (2026-12-05). Of the helper's lists, kept here: in
English, the phrases with a past tense or a participle, or a word such as "now",
"longer" or "wrong" (a bare or present verb, "move X to", "upgrades", is also how a
plan or a habit is said: "asked to move the standup", "the job moves old files"); in
Spanish, all but those that start with an infinitive or a gerund; and of either, only
what the older patterns of :mod:`ihmt.search.change_words` did not read already (they
hold guards a phrase lacks: "left the team meeting" is no one leaving).

Each phrase is lower case and without accents (it is matched on folded text). ``x``
stands for a few words of the thing ("brought x forward to"), ``n`` for a value; a
phrase is matched as whole words. :mod:`ihmt.search.change_words` adds them to its own
patterns: they widen what reads as a word of change, never what a change links.

A hook is a fresh process for every prompt: building the pattern from the lists takes it
about 15 ms, so the pattern is kept, built, in :mod:`ihmt.search.change_lexicon_rx`, which
``python -m ihmt.search.change_lexicon`` writes again after the lists change (a test checks
that the two agree). Only that module is imported when searching.
"""

from __future__ import annotations

import re


def _phrases(text: str) -> tuple[str, ...]:
    return tuple(p.strip() for p in text.split(" | ") if p.strip())


# Phrases of the lists left out of the pattern: they may say a change, but as often say
# something else: in a conversation (LoCoMo's dev turns, where they turned settled answers
# into doubts: "I chose to write about this", "let me know how it turns out", "we adopted
# another puppy", "we hiked", "I raised three kids"), or in a note of a state, a habit or a
# choice ("elegimos X", "capped at 50 MB", "logs are rotated daily", "renewed my passport"
# keeps the passport: bench.synthetic's notes, where they linked renewals as versions).
LEFT_OUT = frozenset({"hiked", "raised", "grown", "grew", "chose", "decided to", "turns out",
                      "it turns out", "not x but n", "ups", "oops", "it should be", "adopted",
                      "adopted x", "we adopted", "opened up", "elegimos", "capped", "rotated",
                      "renewed", "doubled"})

_WORDS, _VALUE = "x", "n"  # (as a phrase writes them)
# the units of the tree that are no letter: a space, a few words, a value; and the end
_UNITS = {"\0 ": r"\s+", "\0x": r"(?:\S+\s+){0,4}?", "\0n": r"\S+\s+"}
_SPACE, _END = "\0 ", ""


def pattern(*groups: tuple[str, ...]) -> str:
    """One regular expression (a string) that matches any phrase of ``groups`` as whole
    words (but those of :data:`LEFT_OUT`): ``x`` is up to four words, ``n`` one, and either
    at an end of a phrase is left out (the value is read elsewhere). The phrases are folded into a tree of their
    characters, so that a search tries a handful of first letters at each place, not two
    thousand phrases; of phrases that begin alike, the longest is tried first."""
    tree: dict = {}
    for p in {p for g in groups for p in g} - LEFT_OUT:
        words = p.split()
        while words and words[0] in (_WORDS, _VALUE):
            words = words[1:]
        while words and words[-1] in (_WORDS, _VALUE):
            words = words[:-1]
        units: list[str] = []
        for i, w in enumerate(words):
            if i and words[i - 1] not in (_WORDS, _VALUE):
                units.append(_SPACE)
            units.extend(["\0" + w] if w in (_WORDS, _VALUE) else list(w))
        if not units:
            continue
        node = tree
        for u in units:
            node = node.setdefault(u, {})
        node[_END] = {}
    return r"(?<!\w)" + _render(tree) + r"(?!\w)"


def _render(node: dict) -> str:
    alts = [_UNITS.get(u, re.escape(u)) + _render(child)
            for u, child in sorted(node.items()) if u != _END]
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
    if _END in node:  # a phrase ends here; a longer one is tried first
        return "(?:" + body + ")?" if len(alts) == 1 else body + "?"
    return body


# A change made or happened, said in English.
CHANGE_EN = _phrases(
    "modified | updated | adjusted | tweaked | revised | amended | altered | reworked | "
    "refactored | redesigned | restructured | reorganized | reorganised | reorged | "
    "rearchitected | re-architected | resized | upsized | downsized | rightsized | "
    "right-sized | rescheduled | postponed | delayed | deferred | reassigned | "
    "transferred | promoted | demoted | reimplemented | re-implemented | rebranded | "
    "relabeled | relabelled | reclassified | recategorized | retagged | re-tagged | "
    "retitled | renumbered | reworded | re-pointed | repointed | rehomed | re-homed | "
    "rehosted | re-hosted | re-platformed | replatformed | redirected | rerouted | "
    "re-routed | redeployed | reparented | re-parented | raised | lowered | extended | "
    "shortened | lengthened | increased | reduced | decreased | doubled | halved | "
    "tripled | quadrupled | slashed | trimmed | widened | narrowed | broadened | expanded "
    "| restricted | capped | uncapped | throttled | repriced | re-priced | discounted | "
    "hiked | adopted | standardized on | standardised on | settled on | consolidated | "
    "centralized | decentralized | unified | decoupled | sharded | resharded | re-sharded "
    "| repartitioned | rebalanced | reindexed | re-indexed | rekeyed | re-keyed | rotated "
    "| regenerated | reissued | renewed | relicensed | re-licensed | reinstated | "
    "reopened | archived | unarchived | restored | resumed | paused | suspended | "
    "unfrozen | froze | frozen | enabled | disabled | re-enabled | reenabled | activated "
    "| deactivated | toggled | flipped | transitioned | superseded | obsoleted | rescoped "
    "| re-scoped | descoped | de-scoped | reprioritized | re-prioritized | deprioritized "
    "| de-prioritized | re-estimated | unpinned | onboarded | offboarded | hired | "
    "appointed | revoked | granted | open sourced | open-sourced | rebased onto | "
    "reverted to | shipped | launched | released | rolled out | deployed to | grew | "
    "grown | rose to | risen to | fell to | fallen to | updated to | updated x to n | has "
    "been updated | got updated | pinned to | pinned x to n | repinned | locked to | "
    "resized to | resized x to n | upsized to | downsized to | scaled up | scaled down | "
    "scaled out | scaled in | scaled to | scaled x to n | scaled x up to n | scaled x "
    "down to n | autoscaled to | rescheduled to | rescheduled for | got rescheduled | has "
    "been rescheduled | postponed to | postponed until | got postponed | has been "
    "postponed | delayed to | delayed until | delayed by | got delayed | deferred to | "
    "deferred until | pulled forward | pulled forward to | pulled x forward to n | pulled "
    "in | pulled in to | pulled x in to n | pushed back | pushed back by | pushed out | "
    "pushed out to | pushed to | pushed x to n | got pushed | got pushed back | brought "
    "forward | brought forward to | brought x forward to n | brought up to | brought x up "
    "to n | shifted to | shifted x to n | slipped to | slipped by | advanced to | "
    "reimplemented in | rebranded as | previously called | re-pointed to | repointed to | "
    "repointed at | re-pointed at | redirected to | rerouted to | rehomed to | rehomed "
    "under | rehosted on | rehosted to | redeployed to | re-platformed to | replatformed "
    "to | replatformed onto | re-platformed onto | consolidated into | consolidated onto "
    "| merged into | merged with | folded into | absorbed into | combined into | combined "
    "with | unified into | collapsed into | split into | split out | split off | split x "
    "into n | broken up into | broken out into | broke out | carved out | extracted into "
    "| extracted to | pulled out into | separated into | raised from | raised the limit | "
    "lowered the limit | increased by | increased from | reduced by | reduced from | "
    "decreased by | tripled to | cut to | cut by | cut x to n | trimmed to | trimmed down "
    "| pared down | capped at | capped x at n | limited to | restricted to | limit raised "
    "| limit lowered | limit increased | limit reduced | quota increased | quota raised | "
    "quota reduced | throttled to | rate limited to | rate-limited to | timeout increased "
    "| timeout reduced | extended until | extended by | deadline extended | shortened by "
    "| dialed up | dialed down | dialled up | dialled down | turned up | turned down | "
    "ramped up | ramped down | ramped to | ramped up to | rolled out to | rolled out to "
    "n% | grew to | grown to | expanded to | narrowed to | narrowed down to | widened to "
    "| went up | went down | went up by | went down by | jumped to | climbed to | price "
    "increased | price went up | marked down | marked up | took ownership | took "
    "ownership of | handed over | handed off | handed off to | handed to | ownership "
    "transferred | transferred to | transferred x to n | reassigned to | reassigned x to "
    "n | got reassigned | promoted to | got promoted | has been promoted | was promoted | "
    "demoted to | got demoted | stepped in as | stepped up as | succeeded by | joined the "
    "team | has joined | has left | rotated off | rotated onto | adopted x | we adopted | "
    "has adopted | standardized on x | standardised on x | settled on x | opted for | "
    "decided to | decided on | agreed on | landed on | chose | picked x over n | made the "
    "default | made default | enabled by default | disabled by default | made mandatory | "
    "made required | made optional | added support for | used to be | turned into | cut "
    "over | failed over | failed over to | flipped to | flipped the flag | flipped over | "
    "turned on | toggled on | toggled off | feature flag enabled | flag flipped | went "
    "live | went ga | landed in | promoted to prod | promoted to production | rolled to "
    "prod | stood up | killed off | brought back | put on hold | frozen at | superseded "
    "by | obsoleted by | made public | made private | access granted | access revoked | "
    "opened up | opened up to | locked down | reverted x to n | called off | uncancelled "
    "| rescheduled the | set to n | set x to n | has been set to | was set to"
)


# ... in Spanish.
CHANGE_ES = _phrases(
    "trasladado | trasladada | mudado | mudada | actualizamos | actualizaron | se "
    "actualizo | actualizado | actualizada | hemos actualizado | se ha actualizado | "
    "aumentamos | aumentaron | se aumento | aumentado | aumentada | hemos aumentado | se "
    "ha aumentado | incrementamos | incrementaron | se incremento | incrementado | "
    "incrementada | hemos incrementado | se ha incrementado | ampliamos | ampliaron | se "
    "amplio | ampliado | ampliada | hemos ampliado | se ha ampliado | acortamos | "
    "acortaron | se acorto | acortado | acortada | hemos acortado | se ha acortado | "
    "recortamos | recortaron | se recorto | recortado | recortada | hemos recortado | se "
    "ha recortado | limitamos | limitaron | se limito | limitado | limitada | hemos "
    "limitado | se ha limitado | relajamos | relajaron | se relajo | relajado | relajada "
    "| hemos relajado | se ha relajado | ajustamos | ajustaron | se ajusto | ajustado | "
    "ajustada | hemos ajustado | se ha ajustado | modificamos | modificaron | se modifico "
    "| modificado | modificada | hemos modificado | se ha modificado | redimensionamos | "
    "redimensionaron | se redimensiono | redimensionado | redimensionada | hemos "
    "redimensionado | se ha redimensionado | escalamos | escalaron | se escalo | escalado "
    "| escalada | hemos escalado | se ha escalado | adelantamos | adelantaron | se "
    "adelanto | adelantado | adelantada | hemos adelantado | se ha adelantado | "
    "retrasamos | retrasaron | se retraso | retrasado | retrasada | hemos retrasado | se "
    "ha retrasado | atrasamos | atrasaron | se atraso | atrasado | atrasada | hemos "
    "atrasado | se ha atrasado | postergamos | postergaron | se postergo | postergado | "
    "postergada | hemos postergado | se ha postergado | aplazamos | aplazaron | se aplazo "
    "| aplazado | aplazada | hemos aplazado | se ha aplazado | reprogramamos | "
    "reprogramaron | se reprogramo | reprogramado | reprogramada | hemos reprogramado | "
    "se ha reprogramado | reagendamos | reagendaron | se reagendo | reagendado | "
    "reagendada | hemos reagendado | se ha reagendado | se cancelo | cancelado | "
    "cancelada | renombramos | renombraron | se renombro | renombrado | renombrada | "
    "hemos renombrado | se ha renombrado | rebautizamos | rebautizaron | se rebautizo | "
    "rebautizado | rebautizada | hemos rebautizado | se ha rebautizado | reasignamos | "
    "reasignaron | se reasigno | reasignado | reasignada | hemos reasignado | se ha "
    "reasignado | asignamos | asignaron | se asigno | asignado | asignada | hemos "
    "asignado | se ha asignado | traspasamos | traspasaron | se traspaso | traspasado | "
    "traspasada | hemos traspasado | se ha traspasado | adoptamos | adoptaron | se adopto "
    "| adoptado | adoptada | hemos adoptado | se ha adoptado | estandarizamos | "
    "estandarizaron | se estandarizo | estandarizado | estandarizada | hemos "
    "estandarizado | se ha estandarizado | unificamos | unificaron | se unifico | "
    "unificado | unificada | hemos unificado | se ha unificado | consolidamos | "
    "consolidaron | se consolido | consolidado | consolidada | hemos consolidado | se ha "
    "consolidado | fusionamos | fusionaron | se fusiono | fusionado | fusionada | hemos "
    "fusionado | se ha fusionado | juntamos | juntaron | se junto | juntado | juntada | "
    "hemos juntado | se ha juntado | portamos | portaron | portado | hemos portado | se "
    "ha portado | refactorizamos | refactorizaron | se refactorizo | refactorizado | "
    "refactorizada | hemos refactorizado | se ha refactorizado | redisenamos | "
    "redisenaron | se rediseno | redisenado | redisenada | hemos redisenado | se ha "
    "redisenado | reestructuramos | reestructuraron | se reestructuro | reestructurado | "
    "reestructurada | hemos reestructurado | se ha reestructurado | reorganizamos | "
    "reorganizaron | se reorganizo | reorganizado | reorganizada | hemos reorganizado | "
    "se ha reorganizado | lanzamos | lanzaron | se lanzo | lanzado | lanzada | hemos "
    "lanzado | se ha lanzado | publicamos | publicaron | se publico | publicado | "
    "publicada | hemos publicado | se ha publicado | liberamos | liberaron | se libero | "
    "liberado | liberada | hemos liberado | se ha liberado | activamos | activaron | se "
    "activo | activado | activada | hemos activado | se ha activado | habilitamos | "
    "habilitaron | se habilito | habilitado | habilitada | hemos habilitado | se ha "
    "habilitado | deshabilitamos | deshabilitaron | se deshabilito | deshabilitado | "
    "deshabilitada | hemos deshabilitado | se ha deshabilitado | desactivamos | "
    "desactivaron | se desactivo | desactivado | desactivada | hemos desactivado | se ha "
    "desactivado | eliminado | eliminada | quitado | quitada | borrado | borrada | hemos "
    "borrado | se ha borrado | retiramos | retiraron | se retiro | retirado | retirada | "
    "hemos retirado | se ha retirado | deprecamos | deprecaron | se depreco | deprecado | "
    "deprecada | hemos deprecado | se ha deprecado | desmantelamos | desmantelaron | se "
    "desmantelo | desmantelado | desmantelada | hemos desmantelado | se ha desmantelado | "
    "congelamos | congelaron | se congelo | congelado | congelada | hemos congelado | se "
    "ha congelado | descongelamos | descongelaron | se descongelo | descongelado | "
    "descongelada | hemos descongelado | se ha descongelado | duplicamos | duplicaron | "
    "se duplico | duplicado | duplicada | hemos duplicado | se ha duplicado | triplicamos "
    "| triplicaron | se triplico | triplicado | triplicada | hemos triplicado | se ha "
    "triplicado | prorrogamos | prorrogaron | se prorrogo | prorrogado | prorrogada | "
    "hemos prorrogado | se ha prorrogado | alargamos | alargaron | se alargo | alargado | "
    "alargada | hemos alargado | se ha alargado | fijamos | fijaron | fijado | fijada | "
    "hemos fijado | se ha fijado | renovamos | renovaron | se renovo | renovado | "
    "renovada | hemos renovado | se ha renovado | relevamos | relevaron | se relevo | "
    "relevado | relevada | hemos relevado | se ha relevado | reubicamos | reubicaron | se "
    "reubico | reubicado | reubicada | hemos reubicado | se ha reubicado | centralizamos "
    "| centralizaron | se centralizo | centralizado | centralizada | hemos centralizado | "
    "se ha centralizado | descentralizamos | descentralizaron | se descentralizo | "
    "descentralizado | descentralizada | hemos descentralizado | se ha descentralizado | "
    "particionamos | particionaron | se particiono | particionado | particionada | hemos "
    "particionado | se ha particionado | rebalanceamos | rebalancearon | se rebalanceo | "
    "rebalanceado | rebalanceada | hemos rebalanceado | se ha rebalanceado | reindexamos "
    "| reindexaron | se reindexo | reindexado | reindexada | hemos reindexado | se ha "
    "reindexado | simplificamos | simplificaron | se simplifico | simplificado | "
    "simplificada | hemos simplificado | se ha simplificado | archivamos | archivaron | "
    "se archivo | archivado | archivada | hemos archivado | se ha archivado | restauramos "
    "| restauraron | se restauro | restaurado | restaurada | hemos restaurado | se ha "
    "restaurado | reactivamos | reactivaron | se reactivo | reactivado | reactivada | "
    "hemos reactivado | se ha reactivado | pausamos | pausaron | se pauso | pausado | "
    "pausada | hemos pausado | se ha pausado | reanudamos | reanudaron | se reanudo | "
    "reanudado | reanudada | hemos reanudado | se ha reanudado | retomamos | retomaron | "
    "se retomo | retomado | retomada | hemos retomado | se ha retomado | anulamos | "
    "anularon | se anulo | anulado | anulada | hemos anulado | se ha anulado | revocamos "
    "| revocaron | se revoco | revocado | revocada | hemos revocado | se ha revocado | "
    "otorgamos | otorgaron | se otorgo | otorgado | otorgada | hemos otorgado | se ha "
    "otorgado | contratamos | contrataron | se contrato | contratado | contratada | hemos "
    "contratado | se ha contratado | incorporamos | incorporaron | se incorporo | "
    "incorporado | incorporada | hemos incorporado | se ha incorporado | degradamos | "
    "degradaron | se degrado | degradado | degradada | hemos degradado | se ha degradado "
    "| desplegamos | desplegaron | se desplego | desplegado | desplegada | hemos "
    "desplegado | se ha desplegado | reapuntamos | reapuntaron | se reapunto | reapuntado "
    "| reapuntada | hemos reapuntado | se ha reapuntado | redireccionamos | "
    "redireccionaron | se redirecciono | redireccionado | redireccionada | hemos "
    "redireccionado | se ha redireccionado | abaratamos | abarataron | se abarato | "
    "abaratado | abaratada | hemos abaratado | se ha abaratado | reorientamos | "
    "reorientaron | se reoriento | reorientado | reorientada | hemos reorientado | se ha "
    "reorientado | reescalamos | reescalaron | se reescalo | reescalado | reescalada | "
    "hemos reescalado | se ha reescalado | recalendarizamos | recalendarizaron | se "
    "recalendarizo | recalendarizado | recalendarizada | hemos recalendarizado | se ha "
    "recalendarizado | repriorizamos | repriorizaron | se repriorizo | repriorizado | "
    "repriorizada | hemos repriorizado | se ha repriorizado | movido | extendimos | "
    "extendieron | se extendio | extendido | hemos extendido | se ha extendido | "
    "suspendimos | suspendieron | se suspendio | suspendido | hemos suspendido | se ha "
    "suspendido | encendimos | encendieron | se encendio | encendido | hemos encendido | "
    "se ha encendido | dividimos | dividieron | se dividio | dividido | hemos dividido | "
    "se ha dividido | disminuimos | disminuyeron | se disminuyo | disminuido | hemos "
    "disminuido | se ha disminuido | redujimos | redujeron | se redujo | reducido | hemos "
    "reducido | se ha reducido | reescribimos | reescribieron | se reescribio | "
    "transferimos | transfirieron | se transfirio | transferido | hemos transferido | se "
    "ha transferido | promovimos | promovieron | se promovio | promovido | hemos "
    "promovido | se ha promovido | pospusimos | pospusieron | se pospuso | pospuesto | "
    "hemos pospuesto | se ha pospuesto | redirigimos | redirigieron | se redirigio | "
    "redirigido | hemos redirigido | se ha redirigido | revertimos | revirtieron | se "
    "revirtio | revertido | hemos revertido | se ha revertido | restringimos | "
    "restringieron | se restringio | restringido | hemos restringido | se ha restringido "
    "| reabrimos | reabrieron | se reabrio | reabierto | hemos reabierto | se ha "
    "reabierto | convertimos | convirtieron | se convirtio | convertido | hemos "
    "convertido | se ha convertido | encarecimos | encarecieron | se encarecio | "
    "encarecido | hemos encarecido | se ha encarecido | establecimos | establecieron | se "
    "establecio | establecido | hemos establecido | se ha establecido | extrajimos | "
    "extrajeron | se extrajo | extraido | hemos extraido | se ha extraido | ascendimos | "
    "ascendieron | ascendio | ascendido | hemos ascendido | se ha ascendido | subimos | "
    "subieron | se subio | subido | rehicimos | rehicieron | se rehizo | rehecho | hemos "
    "rehecho | se ha rehecho | resolvimos cambiar | decidieron cambiar | se decidio "
    "cambiar | decidido cambiar | hemos decidido cambiar | se ha decidido cambiar | "
    "cambia a | cambian a | pasa a | pasan a | pasa a ser | pasan a ser | se paso para | "
    "se muda a | mudado a | se mueve a | se mueve al | movido a | se traslada a | "
    "trasladado a | se reubico en | reubicado en | reubicamos en | ahora queda | se "
    "anadio soporte para | dejo de | dejo de ser | dejaron de | deja de | antes era | "
    "antes eran | antes estaba | antes se llamaba | antes usabamos | anteriormente | "
    "antiguamente | antes conocido como | que antes era | a favor de | en favor de | se "
    "convirtio en | se convierte en | se volvio | quedo en | queda en | quedo fijado en | "
    "queda fijado en | quedo para el | queda para el | quedo como | queda como | subimos "
    "a | subio a | sube a | suben a | subido a | bajamos | bajamos a | bajaron | bajaron "
    "a | se bajo | se bajo a | bajo a | baja a | bajan a | bajado a | bajamos a la mitad "
    "| subimos de version | subimos la version | se subio la version | bajamos de version "
    "| bajamos la version | subimos x a la n | actualizamos a la n | actualizado a la "
    "version | actualizamos x a n | actualizado a | actualiza a | fijamos la version | "
    "fijamos x en n | fijado en | fijado a | pineamos | pineado a | pineada a | revertido "
    "a | revertimos a | hicimos rollback a | hicimos rollback | rollback a | hicimos "
    "upgrade | hicimos el upgrade | hicimos upgrade a | hicimos downgrade | hicimos "
    "downgrade a | upgradeamos | bumpeamos | bumpeado a | deployamos | se deployo | "
    "deployado | mergeamos | se mergeo | mergeado en | migra a | se migra a | aumentado a "
    "| aumento a | aumenta a | incrementado a | incrementamos x a n | se incrementa a | "
    "reducido a | reducimos x a n | se reduce a | reducido a la mitad | se redujo a la "
    "mitad | reducido en | disminuido a | disminuyo a | se disminuye a | se amplia | se "
    "amplia a | se amplio a | ampliado a | ampliado hasta | se amplio el plazo | "
    "ampliamos el plazo | se extiende hasta | extendido hasta | se extendio hasta | "
    "prorrogado hasta | se prorroga hasta | se acorta | acortado a | se acorto a | "
    "recortado a | se recorta a | limitado a | se limita a | restringido a | se duplica | "
    "se triplica | se redujo a | redimensionado a | redimensionamos x a n | escalado a | "
    "escalamos x a n | escalamos a | se escalo a | escala a | crecio a | crecio hasta | "
    "crece a | ha crecido | ha crecido a | cayo a | ha caido a | descendio a | se elevo a "
    "| elevamos | se elevo | elevado a | subio el precio | bajo el precio | subieron los "
    "precios | bajaron los precios | nuevo precio | se actualizo el precio | precio "
    "actualizado | se adelanta | se adelanta a | se adelanto a | se adelanto a n | "
    "adelantado a | adelantamos x a n | se ha adelantado a | se retrasa | se retrasa a | "
    "se retraso a | retrasado a | retrasamos x a n | se atrasa | se atraso a | atrasado a "
    "| se pospone | se pospone a | se pospone hasta | se pospuso a | se pospuso al | se "
    "pospuso para | se pospuso hasta | pospuesto a | pospuesto hasta | pospuesta | se "
    "aplaza | se aplazo a | se aplazo hasta | aplazado a | aplazado hasta | se posterga | "
    "se postergo a | postergado a | postergado para | se reprograma | se reprogramo para "
    "| reprogramado para | reprogramada para | reagendado para | se reagendo para | se "
    "corre | se corrio a | se corrio para | corrimos la reunion | la reunion pasa a | se "
    "cancela | se suspende | nueva fecha | nuevo horario | nueva hora | nueva sala | "
    "nueva ubicacion | la nueva fecha es | se hace cargo | se hizo cargo | se ha hecho "
    "cargo | se hace cargo de | asume | asumio | ha asumido | asume el rol | asumio el "
    "rol | tomo el control | toma el control | tomo las riendas | nuevo responsable | "
    "nueva responsable | se incorpora | se incorporo al equipo | se sumo al equipo | se "
    "suma al equipo | se une al equipo | se unio al equipo | entra en el equipo | entro "
    "en el equipo | salio del equipo | salio de la empresa | fue contratado | fue "
    "contratada | contratamos a | fue despedido | fue despedida | ascendido a | fue "
    "ascendido | fue ascendida | ascendio a | promovido a | fue promovido | fue promovida "
    "| paso al equipo | se paso al equipo | reasignado a | reasignada a | se reasigno a | "
    "reasignamos a | transferido a | se transfirio a | traspasado a | se traspaso a | "
    "relevado por | releva a | pasa a depender de | adoptamos x | se adopto x | nos "
    "estandarizamos en | estandarizamos en | estandarizado en | nos quedamos con | "
    "optamos por | se opto por | elegimos | se eligio | nos decidimos por | decidimos | "
    "se decidio | hemos decidido | acordamos | se acordo | quedamos en que | finalmente "
    "usamos | al final usamos | al final nos quedamos con | unificado en | consolidado en "
    "| consolidamos en | fusionado con | fusionado en | fusionamos x con n | fusionamos x "
    "en n | integrado en | integramos en | dividido en | dividimos x en n | separado en | "
    "separamos en | partimos en | partido en | extraido a | se extrajo a | sacamos a un "
    "servicio aparte | reescribimos en | portado a | portamos a | refactorizado a | "
    "convertido a | convertimos a | se convirtio a | desplegado en | desplegamos en | "
    "salio en produccion | ya esta en produccion | en produccion desde | salio a "
    "produccion | subimos a produccion | se puso en produccion | puesto en produccion | "
    "entro en produccion | ya esta desplegado | ya esta actualizado | ya quedo | se "
    "activo por defecto | activado por defecto | desactivado por defecto | habilitado por "
    "defecto | por defecto pasa a ser | dimos de baja | se dio de baja | dado de baja | "
    "dada de baja | dimos de alta | se dio de alta | dado de alta | quedo obsoleto | "
    "queda obsoleto | obsoleto desde | deprecado en favor de | deprecado a favor de | "
    "apuntamos a | se apunto a | reapuntado a | redirigido a | redirigimos a | "
    "redireccionado a | redireccionamos a | rotamos | rotado | rotamos las claves | "
    "renovado hasta | se congelo en | congelado en | hicimos el corte a | hicimos "
    "failover a | conmutamos a | se conmuto a"
)


# An earlier statement said to be wrong, in English.
CORRECTION_EN = _phrases(
    "i stand corrected | got that wrong | got it wrong | i got that wrong | i had that "
    "wrong | my bad | my mistake | my apologies | corrected: | that was a typo | typo | "
    "typo in | typo on my part | was a typo | fat-fingered | fat fingered | sorry, i "
    "meant | i meant | meant to say | i meant to say | should have said | should've said "
    "| shouldve said | should read | should say | should be n not | should be n, not | it "
    "should be | disregard | please disregard | disregard my previous | ignore my "
    "previous | ignore the above | ignore that | ignore my last | to clarify | to correct "
    "| let me correct | correcting myself | erratum | errata | retract | retracting | i "
    "retract | i take that back | take that back | walk that back | walking back | i "
    "misread | misread | i misremembered | misremembered | i misstated | misstated | i "
    "mixed up | mixed up | got mixed up | confused x with | i confused | wrong number | "
    "wrong date | wrong version | wrong link | wrong ticket | wrong channel | that's "
    "incorrect | thats incorrect | that was incorrect | was incorrect | is incorrect | "
    "not correct | was wrong | is wrong | that's wrong | thats wrong | that was wrong | "
    "that's not right | thats not right | that wasn't right | that wasnt right | "
    "incorrectly stated | incorrectly said | mistakenly | erroneously | in error | by "
    "mistake | contrary to what i said | contrary to my earlier | unlike what i said | "
    "earlier i said | i said earlier | as i wrongly said | previously stated | i "
    "previously said | not n as i said | not n as stated | not as previously stated | not "
    "as i said | fixing my earlier | fix my previous | oops | whoops | sorry, wrong | "
    "false alarm | turns out | it turns out | on second look | on closer look | after "
    "double checking | after double-checking | double-checked and | double checked and | "
    "my previous message was wrong | my earlier message | my last message was wrong | i "
    "was off | was off by | off by one | amending | amended: | revised: | edit: | s/x/n | "
    "apologies for the confusion | sorry for the confusion | not x but n | i was thinking "
    "of | my memory was wrong"
)


# ... in Spanish.
CORRECTION_ES = _phrases(
    "me he equivocado | estaba equivocado | estaba equivocada | estaba mal | esta mal | "
    "estaba errado | estaba errada | fallo mio | culpa mia | mi error | perdon, queria "
    "decir | queria decir | quise decir | quise poner | queria poner | donde dice | debe "
    "decir | deberia decir | donde pone | deberia poner | fe de erratas | errata | fue "
    "una errata | era una errata | era un typo | fue un typo | typo | corrijo | me "
    "corrijo | corrijo lo anterior | rectifico | rectificacion | rectificando | retiro lo "
    "dicho | retiro lo que dije | ignorar lo anterior | ignoren lo anterior | ignora lo "
    "anterior | ignorad lo anterior | ignora el mensaje anterior | ignoren el mensaje "
    "anterior | no hagan caso | no hagas caso | no hagais caso | descarten lo anterior | "
    "me he confundido | confundi x con | me he liado | me cole | me he colado | lo dije "
    "mal | lo puse mal | puse mal | dije mal | anote mal | lei mal | entendi mal | me "
    "exprese mal | mal dicho | lo escribi mal | escribi mal | no es n sino | no era n "
    "sino | perdon, digo | digo, | o sea, no | aclaro | aclaracion | para aclarar | "
    "aclaro que | contrario a lo que dije | a diferencia de lo que dije | lo que dije "
    "antes | dije antes que | anteriormente indique | indique mal | por error | "
    "erroneamente | equivocadamente | incorrecto | era incorrecto | es incorrecto | no es "
    "correcto | no era correcto | no es asi | no era asi | ups | uy, | perdon, era | "
    "falsa alarma | resulta que | revisando bien | tras revisar | al revisar | despues de "
    "revisar | lo comprobe y | mi mensaje anterior | el mensaje anterior estaba mal | "
    "disculpen la confusion | perdon por la confusion | disculpas por la confusion | "
    "numero equivocado | fecha equivocada | version equivocada | link equivocado | enlace "
    "equivocado"
)


# A second list (2026-12-06), by another helper who saw nothing of the project: how people
# note that a thing or a service of their own changed (a gym, a bank, a carrier, a laptop,
# a course, a subscription). Kept by the same measure; left out besides: bare beginnings
# ("bought", "got", "joined", "started using": how a conversation tells of anything new),
# choices ("opted for", "me decanté por", "me quedé con": also how a kept value is said),
# and what a chat says of anything ("never again", "finished with", "dumped").
PERSONAL_EN = _phrases(
    "terminated | terminated my contract with | ended my contract with | let n expire | "
    "let n lapse | let my n lapse | didn't renew | did not renew | didnt renew | "
    "cut ties with | parted ways with | pulled the plug on | scrapped | binned | "
    "uninstalled | handed in my notice | traded n for | traded in n for | exchanged n for | "
    "gave up n for | made the jump to | jumped ship to | took the plunge with | "
    "ported my number to | opened an account at | opened an account with | enrolled at | "
    "enrolled in | subscribed to | started a new job at | started a new role at | "
    "landed a job at | all in on"
)
PERSONAL_ES = _phrases(
    "me borre de | me desapunte de | me desuscribi de | me sali de | me fui de | "
    "renuncie a | dimiti | no renove | rescindi | he rescindido | termine con | corte con | "
    "me deshice de | desinstale | cause baja | me apunte a | me apunte en | me inscribi en | "
    "me matricule en | me suscribi a | me hice socio de | me hice socia de | "
    "me hice cliente de | contrate | abri una cuenta en | abri cuenta en | "
    "porte mi numero a | hice la portabilidad a | me porte a | estrene | me di de alta en | "
    "me incorpore a | me uni a | me sume a | reemplace | ya estoy con | ya estoy en | "
    "por fin con | por fin en | llevo un mes con | llevo unas semanas con | hoy en dia"
)
PERSONAL_CORRECTION = _phrases(
    "scratch that | ignore what i said about | it was never | olvida lo de | "
    "olvidate de lo que dije | i told you | as i told you | te dije | ya te dije | "
    "como te dije | te lo dije | ya te lo dije"
)


# What each built pattern is made of.
CORRECTION_GROUPS = (CORRECTION_EN, CORRECTION_ES, PERSONAL_CORRECTION)
CHANGE_GROUPS = (CHANGE_EN, CHANGE_ES, PERSONAL_EN, PERSONAL_ES, *CORRECTION_GROUPS)


def _source(name: str, rx: str) -> str:
    """``NAME = (...)``: ``rx`` as raw strings cut after its bars, each line short."""
    lines, line = [], ""
    for piece in rx.split("|"):
        piece = piece + "|"
        if line and len(line) + len(piece) > 84:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line[:-1])
    body = "\n".join(f'    r"{x}"' for x in lines)
    return f"{name} = (\n{body}\n)\n"


def main() -> None:
    """Write :mod:`ihmt.search.change_lexicon_rx` from the lists."""
    from pathlib import Path

    out = Path(__file__).with_name("change_lexicon_rx.py")
    out.write_text(
        '"""The patterns of :mod:`ihmt.search.change_lexicon`, built: written by\n'
        '``python -m ihmt.search.change_lexicon``; do not edit."""\n\n'
        + _source("CHANGE", pattern(*CHANGE_GROUPS))
        + "\n" + _source("CORRECTION", pattern(*CORRECTION_GROUPS)),
        encoding="utf-8")


if __name__ == "__main__":
    main()
