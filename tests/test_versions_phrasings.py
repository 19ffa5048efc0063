"""Histories and traps in phrasings of their own (not the benchmark's templates, not the rules'):
journal notes, terse notes, changes said without the attribute's words, and a distractor
after the change in each (news about the old value, a rejection, something watched or
read, somebody else's move). The newest version must lead, FOUND; a question naming a year
before the change gets the first version."""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt import Memory

# (question about now, question about the past or None, versions oldest first, distractors)
HISTORIES = [
 # (question_now, past_q or None, [(date,text)...], distractors [(date,text)])
 ("where do I work?", "where did I work in 2022?", [("2022-02-03","Spent the morning onboarding at Hooli, nice people."),("2024-07-01","Handed in my badge at Hooli. Monday I start at Vehement Capital.")], [("2025-01-02","Vehement Capital's offices have great coffee.")]),
 ("¿dónde trabajo?", None, [("2021-05-05","Llevo dos años en Soylent como analista."),("2024-09-10","Firmé el contrato con Gringotts; empiezo el lunes.")], [("2025-02-01","Comí con gente de Soylent, los echo de menos.")]),
 ("where do I live?", "where did I live in 2021?", [("2021-03-03","Our flat in Porto has a tiny balcony."),("2023-08-08","Boxes everywhere: the move to Bilbao is done.")], [("2024-06-06","Weekend trip to Porto to see the old neighbours.")]),
 ("¿dónde vivo?", None, [("2020-01-01","Vivo en Zaragoza con mi pareja."),("2024-04-04","Ya estamos instalados en Gijón, el piso nuevo es precioso.")], [("2025-01-05","Visité Zaragoza por el Pilar.")]),
 ("who is my manager?", "who was my manager in 2022?", [("2022-01-10","Weekly 1:1 with my manager Sofia Lind went well."),("2024-02-02","Sofia moved to another org; Kenji Mori is my new manager.")], [("2025-03-03","Sofia Lind gave a great talk at the conference.")]),
 ("¿quién es mi jefe?", None, [("2022-01-10","Mi jefe, Luis Prado, aprobó las vacaciones."),("2024-02-02","Tras la reorganización dependo de Marta Oliva.")], [("2025-03-03","El jefe de cocina del restaurante es Iñaki.")]),
 ("which editor do I use?", "which editor did I use in 2022?", [("2022-05-05","Tuned my init.el again; Emacs is home."),("2024-05-05","Finally moved to neovim, lua config is so much nicer.")], [("2025-01-01","Helped a friend set up Emacs on his laptop.")]),
 ("¿qué editor uso?", None, [("2022-05-05","Trabajo siempre con Vim."),("2024-05-05","He vuelto a VSCode por las extensiones.")], [("2025-01-01","Leí un artículo sobre Emacs.")]),
 ("what CI do we use?", "what CI did we use in 2022?", [("2022-03-03","Our builds go through Travis, slow but fine."),("2024-03-03","Travis is retired; CircleCI runs all our jobs now.")], [("2025-02-02","We considered Buildkite but stayed on CircleCI.")]),
 ("¿qué CI usamos?", None, [("2022-03-03","Las builds pasan por Jenkins."),("2024-03-03","Apagamos Jenkins; todo corre en GitLab CI.")], [("2025-02-02","Probamos Drone para CI pero no nos convenció.")]),
 ("which Python version do our services use?", None, [("2022-03-03","All services are pinned to Python 3.9."),("2024-03-03","Upgraded every service to Python 3.12 this sprint.")], [("2025-02-02","An old notebook still needs Python 3.9 to run.")]),
 ("how do I get to the office?", "how did I get to the office in 2022?", [("2022-03-03","Forty minutes on the bus each morning to reach the office."),("2024-03-03","Bought an e-bike; I ride it to work every day now.")], [("2025-02-02","The bus drivers are on strike tomorrow.")]),
 ("¿cómo voy a la oficina?", None, [("2022-03-03","Cojo el metro para ir a la oficina."),("2024-03-03","Ahora voy andando a la oficina, vivo cerca.")], [("2025-02-02","El metro cierra por obras en agosto.")]),
 ("when is standup?", "when was standup in 2022?", [("2022-03-03","Standup happens at 9:00 sharp."),("2024-03-03","We shifted standup to 11:00 for the US folks.")], [("2025-02-02","Someone suggested a 8:30 standup; nobody liked it.")]),
 ("¿a qué hora es la daily?", None, [("2022-03-03","La daily es a las 9:15."),("2024-03-03","Movimos la daily a las 12:00.")], [("2025-02-02","Alguien propuso la daily a las 8:00, pero no.")]),
 ("what package manager do we use?", None, [("2022-03-03","We install everything with yarn."),("2024-03-03","Moved the monorepo from yarn to pnpm.")], [("2025-02-02","Tried bun on a side project, not for us.")]),
 ("where do I work?", None, [("2022-02-03","I'm a data engineer at Pied Piper."),("2024-07-01","Said goodbye to Pied Piper; now I'm at Aviato.")], [("2025-01-02","Pied Piper's new logo is ugly.")]),
 ("who do I report to?", None, [("2022-01-10","I report to Greta Holm."),("2024-02-02","My new boss is Amir Saleh since the team merged.")], [("2025-03-03","Greta Holm retired and moved to Spain.")]),
 ("where do I live?", None, [("2021-03-03","Home is a small house in Leeds."),("2023-08-08","We relocated to Bristol for the new job.")], [("2024-06-06","We considered moving to Bath but decided against it.")]),
 ("which editor do I use?", None, [("2022-05-05","PyCharm is my daily driver."),("2024-05-05","Switched over to Zed last week.")], [("2025-01-01","Zed from the design team shared mockups.")]),
 ("where do I work?", "where was I working in 2021?", [("2021-01-11","Payroll at Massive Dynamic finally fixed my tax code."),("2023-10-02","Resigned from Massive Dynamic; I join Oscorp on the first.")], [("2024-02-02","Read a story about Oscorp layoffs.")]),
 ("¿dónde trabajo?", "¿dónde trabajaba en 2021?", [("2021-01-11","En Dunder Mifflin me pagan bien, pero el jefe es raro."),("2023-10-02","Renuncié a Dunder Mifflin y entré en Wernham Hogg.")], [("2024-02-02","Pensé en aplicar a Initech, pero no.")]),
 ("where do I live?", None, [("2021-01-11","Rent in Munich is killing me."),("2023-10-02","Our new address is in Hamburg, near the harbour.")], [("2024-02-02","Flew to Munich for a conference.")]),
 ("¿dónde vivo?", "¿dónde vivía en 2021?", [("2021-01-11","Mi casa en Toledo tiene un patio enorme."),("2023-10-02","Nos mudamos a Cádiz, por fin cerca del mar.")], [("2024-02-02","Fin de semana en Toledo con amigos.")]),
 ("who is my manager?", None, [("2021-01-11","Had my review with my boss, Irene Vogel."),("2023-10-02","Irene left the company; Paolo Conti is now my manager.")], [("2024-02-02","Paolo Conti's daughter started school.")]),
 ("¿quién es mi jefe?", None, [("2021-01-11","Mi responsable directa es Carmen Ruiz."),("2023-10-02","Ahora mi jefe es Daniel Soto, Carmen se jubiló.")], [("2024-02-02","La responsable de la cafetería es Nuria.")]),
 ("which editor do I use?", None, [("2021-01-11","All my coding happens in Sublime Text."),("2023-10-02","Left Sublime behind, I'm on VS Code now.")], [("2024-02-02","Watched a talk about Emacs org mode.")]),
 ("¿qué editor uso?", None, [("2021-01-11","Programo en Atom desde hace años."),("2023-10-02","Atom murió, así que ahora uso Zed.")], [("2024-02-02","Comí con Kate del equipo de ventas.")]),
 ("what CI do we use?", None, [("2021-01-11","TeamCity builds our release artifacts."),("2023-10-02","Our pipelines were moved off TeamCity onto Buildkite.")], [("2024-02-02","Someone proposed Jenkins again; no thanks.")]),
 ("which Python version do our services use?", "which Python did our services use in 2021?", [("2021-01-11","The services run Python 3.8 in production."),("2023-10-02","Production services are on Python 3.11 after the upgrade.")], [("2024-02-02","A legacy cron still uses Python 3.8.")]),
 ("how do I get to the office?", None, [("2021-01-11","I take the tram to the office."),("2023-10-02","Moved closer; now I walk to the office.")], [("2024-02-02","The tram line got a new paint job.")]),
 ("¿cómo voy al trabajo?", None, [("2021-01-11","Voy al trabajo en moto."),("2023-10-02","Vendí la moto y ahora voy en tren al trabajo.")], [("2024-02-02","El tren a Sevilla salió tarde.")]),
 ("when is standup?", None, [("2021-01-11","Our daily standup starts at 10:00."),("2023-10-02","From next week standup is at 9:45.")], [("2024-02-02","Meeting about budgets ran long.")]),
 ("what package manager do we use?", None, [("2021-01-11","Our JS repos use npm."),("2023-10-02","We replaced npm with pnpm across all repos.")], [("2024-02-02","Looked at yarn berry, decided against it.")]),
 ("where do I work?", None, [("2021-01-11","I work for Globex as a QA lead."),("2023-10-02","My first week at Umbrella went great.")], [("2024-02-02","Globex is hiring again, saw it on LinkedIn.")]),
 ("¿para qué empresa trabajo?", None, [("2021-01-11","Soy diseñadora en Acme."),("2023-10-02","Desde octubre trabajo para Contoso.")], [("2024-02-02","Acme sacó un producto nuevo.")]),
]


@pytest.mark.parametrize("now,past,versions,others", HISTORIES,
                         ids=[f"{i}-{h[0][:24]}" for i, h in enumerate(HISTORIES)])
def test_the_newest_version_leads_and_a_past_question_gets_the_first(
        tmp_path: Path, now: str, past: str | None, versions: list[tuple[str, str]],
        others: list[tuple[str, str]]) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    ids = {t: mem.save(t, date=d).ids[0] for d, t in sorted(versions + others)}
    res = mem.search(now)
    assert res.status == "FOUND" and res.best.id == ids[versions[-1][1]], \
        [h.text for h in res.hits]
    if past:
        res = mem.search(past)
        assert res.best.id == ids[versions[0][1]], [h.text for h in res.hits]


# (question about now, versions oldest first, a memory after every version that must not
# lead: a rejection, a plan, a wish, a condition, news, somebody else's state, a passing
# mention of the old value)
TRAPS = [
 ("where do I work?", [("2022-01-01","I work at Initech."),("2024-01-01","Joined Hooli as a platform engineer.")], "Recruiter from Pied Piper called; I passed on it."),
 ("where do I work?", [("2022-01-01","I work at Initech."),("2024-01-01","Joined Hooli as a platform engineer.")], "Still get Initech newsletters in my inbox."),
 ("¿dónde trabajo?", [("2022-01-01","Trabajo en Initech."),("2024-01-01","Me contrataron en Hooli.")], "Me ofrecieron un puesto en Globex, pero lo rechacé."),
 ("¿dónde trabajo?", [("2022-01-01","Trabajo en Initech."),("2024-01-01","Me contrataron en Hooli.")], "Cené con excompañeros de Initech."),
 ("where do I live?", [("2022-01-01","I live in Porto."),("2024-01-01","We moved to Lyon in spring.")], "Flew back to Porto for a wedding."),
 ("where do I live?", [("2022-01-01","I live in Porto."),("2024-01-01","We moved to Lyon in spring.")], "Looked at apartments in Geneva, way too expensive, so no."),
 ("¿dónde vivo?", [("2022-01-01","Vivo en Oviedo."),("2024-01-01","Me mudé a Murcia.")], "Estuve de visita en Oviedo el finde."),
 ("¿dónde vivo?", [("2022-01-01","Vivo en Oviedo."),("2024-01-01","Me mudé a Murcia.")], "Nos planteamos mudarnos a Málaga, pero lo descartamos."),
 ("who is my manager?", [("2022-01-01","My manager is Ana Ruiz."),("2024-01-01","I now report to Ben Cole.")], "Ran into Ana Ruiz at the airport."),
 ("who is my manager?", [("2022-01-01","My manager is Ana Ruiz."),("2024-01-01","I now report to Ben Cole.")], "There was talk of Carla Diaz becoming my manager; it did not happen."),
 ("¿quién es mi jefe?", [("2022-01-01","Mi jefa es Ana Ruiz."),("2024-01-01","Ahora reporto a Ben Cole.")], "Se habló de que Carla Díaz fuera mi jefa, pero no pasó."),
 ("which editor do I use?", [("2022-01-01","My editor is Vim."),("2024-01-01","Moved to VS Code for the remote dev features.")], "Opened Vim once today to fix a server config."),
 ("which editor do I use?", [("2022-01-01","My editor is Vim."),("2024-01-01","Moved to VS Code for the remote dev features.")], "Gave Emacs another shot; still not my thing."),
 ("¿qué editor uso?", [("2022-01-01","Mi editor es Vim."),("2024-01-01","Me pasé a VS Code.")], "Probé Emacs otra vez y no me convenció."),
 ("what CI do we use?", [("2022-01-01","Jenkins runs our builds."),("2024-01-01","We migrated every pipeline to GitHub Actions.")], "Someone pitched Buildkite at the retro; we are staying put."),
 ("what CI do we use?", [("2022-01-01","Jenkins runs our builds."),("2024-01-01","We migrated every pipeline to GitHub Actions.")], "Archived the last Jenkins job configs in the wiki."),
 ("¿qué CI usamos?", [("2022-01-01","Jenkins ejecuta las builds."),("2024-01-01","Migramos todo a GitHub Actions.")], "Alguien sugirió volver a Jenkins; ni hablar."),
 ("which Python version do our services use?", [("2022-01-01","Services run on Python 3.10."),("2024-01-01","Upgraded the services to Python 3.12.")], "We will probably try Python 3.13 next year."),
 ("how do I get to the office?", [("2022-01-01","I drive to the office."),("2024-01-01","I take the train to the office now.")], "Considered cycling to work but the route is dangerous."),
 ("how do I get to the office?", [("2022-01-01","I drive to the office."),("2024-01-01","I take the train to the office now.")], "Drove to the office once this month because of the strike."),
 ("when is standup?", [("2022-01-01","Standup is at 9:30."),("2024-01-01","Standup moved to 10:00.")], "Someone asked to move standup to 8:45; rejected."),
 ("what package manager do we use?", [("2022-01-01","We use npm."),("2024-01-01","Switched the repos to pnpm.")], "Experimented with bun for an afternoon; we won't adopt it."),
 ("where do I work?", [("2022-01-01","I work at Initech."),("2024-01-01","First week at Hooli done.")], "Hooli's competitor Globex tried to poach me; not interested."),
 ("where do I work?", [("2022-01-01","I work at Initech."),("2024-01-01","First week at Hooli done.")], "Interview with Stark Industries went well, but I'm not leaving."),
 ("¿dónde trabajo?", [("2022-01-01","Trabajo en Initech."),("2024-01-01","Me contrataron en Hooli.")], "Me llamó una reclutadora de Globex; le dije que no me interesa."),
 ("where do I live?", [("2022-01-01","I live in Porto."),("2024-01-01","Settled in Lyon at last.")], "Dreaming of a cabin in Norway someday."),
 ("where do I live?", [("2022-01-01","I live in Porto."),("2024-01-01","Settled in Lyon at last.")], "My sister just moved to Dublin."),
 ("¿dónde vivo?", [("2022-01-01","Vivo en Oviedo."),("2024-01-01","Me mudé a Murcia.")], "Ojalá algún día viva en Lisboa."),
 ("¿dónde vivo?", [("2022-01-01","Vivo en Oviedo."),("2024-01-01","Me mudé a Murcia.")], "Mi hermano se mudó a Bilbao."),
 ("who is my manager?", [("2022-01-01","My manager is Ana Ruiz."),("2024-01-01","I now report to Ben Cole.")], "Ana Ruiz says hi from her new team."),
 ("who is my manager?", [("2022-01-01","My manager is Ana Ruiz."),("2024-01-01","I now report to Ben Cole.")], "If Ben leaves, Priya Shah could become my manager."),
 ("which editor do I use?", [("2022-01-01","My editor is Vim."),("2024-01-01","Moved to VS Code for the remote dev features.")], "Watched a colleague fly through Emacs; impressive, but no."),
 ("which editor do I use?", [("2022-01-01","My editor is Vim."),("2024-01-01","Moved to VS Code for the remote dev features.")], "I'd love to learn Emacs one day."),
 ("¿qué editor uso?", [("2022-01-01","Mi editor es Vim."),("2024-01-01","Me pasé a VS Code.")], "Ojalá tuviera tiempo para aprender Emacs."),
 ("what CI do we use?", [("2022-01-01","Jenkins runs our builds."),("2024-01-01","We migrated every pipeline to GitHub Actions.")], "Vendor demo of CircleCI; nobody was convinced."),
 ("what CI do we use?", [("2022-01-01","Jenkins runs our builds."),("2024-01-01","We migrated every pipeline to GitHub Actions.")], "In case GitHub Actions goes down, we could fall back to Drone."),
 ("which Python version do our services use?", [("2022-01-01","Services run on Python 3.10."),("2024-01-01","Upgraded the services to Python 3.12.")], "Python 3.14 release notes look interesting."),
 ("how do I get to the office?", [("2022-01-01","I drive to the office."),("2024-01-01","I take the train to the office now.")], "If the trains strike again I'll have to drive."),
 ("how do I get to the office?", [("2022-01-01","I drive to the office."),("2024-01-01","I take the train to the office now.")], "My colleague bikes to the office every day."),
 ("when is standup?", [("2022-01-01","Standup is at 9:30."),("2024-01-01","Standup moved to 10:00.")], "Would be nice to have standup at 11:00 instead."),
 ("what package manager do we use?", [("2022-01-01","We use npm."),("2024-01-01","Switched the repos to pnpm.")], "A blog post says yarn 4 is faster; not switching."),
 ("¿qué CI usamos?", [("2022-01-01","Jenkins ejecuta las builds."),("2024-01-01","Migramos todo a GitHub Actions.")], "Si GitHub Actions falla, podríamos usar Drone."),
]


@pytest.mark.parametrize("now,versions,trap", TRAPS,
                         ids=[f"{i}-{t[2][:28]}" for i, t in enumerate(TRAPS)])
def test_a_later_mention_that_states_nothing_does_not_lead(
        tmp_path: Path, now: str, versions: list[tuple[str, str]], trap: str) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    ids = [mem.save(t, date=d).ids[0] for d, t in versions]
    mem.save(trap, date="2025-06-01")
    res = mem.search(now)
    assert res.best.id == ids[-1], [h.text for h in res.hits]


# A third set, written after the rules above and measured before any rule was changed for
# it (current 11 of 12, traps 8 of 14; see BENCHMARKS.md). Rules were then added for the
# trap families it showed (turning an offer down, staying, somebody close in the plural, a
# blog); the two it still misses are marked.
KNOWN_MISSES = {"Ya soy parte del equipo de Fabrikam.",
                "Tested Neovim over the weekend, back to IntelliJ IDEA on Monday."}
THIRD_NOW = [
 ("where do I work?", [("2021-06-01","Day 300 at Contoso and I still like the work."),("2024-02-12","Contract signed with Fabrikam, I begin next Monday.")], [("2025-01-01","Lunch with the Contoso crew, good gossip.")]),
 ("¿dónde trabajo?", [("2021-06-01","En la oficina de Contoso hace frío."),("2024-02-12","Ya soy parte del equipo de Fabrikam.")], []),
 ("where do I live?", [("2021-06-01","Our place in Ghent is tiny but cozy."),("2024-02-12","Keys to the new house in Antwerp are ours!")], [("2025-01-01","Took the kids to Ghent for the festival.")]),
 ("¿dónde vivo?", [("2021-06-01","Vivo en Santander desde hace años."),("2024-02-12","Ya tengo las llaves del piso de Burgos y estamos allí.")], []),
 ("who is my manager?", [("2021-06-01","Lena Park is my manager."),("2024-02-12","New manager as of today: Omar Nasser.")], [("2025-01-01","Lena Park posted photos from her trip.")]),
 ("¿quién es mi jefe?", [("2021-06-01","Mi jefe es Tomás Vidal."),("2024-02-12","Cambio de jefa: ahora es Rocío Luna.")], []),
 ("which editor do I use?", [("2021-06-01","Coding in Sublime Text, as always."),("2024-02-12","IntelliJ IDEA has fully replaced Sublime for me.")], []),
 ("what CI do we use?", [("2021-06-01","Builds run on Bamboo."),("2024-02-12","Bamboo decommissioned, GitLab CI took over the pipelines.")], []),
 ("which Python version do our services use?", [("2021-06-01","Prod runs Python 3.9 for the services."),("2024-02-12","Services are on Python 3.11 since the migration.")], []),
 ("how do I get to the office?", [("2021-06-01","Forty-minute drive to the office each day."),("2024-02-12","These days I walk to the office, ten minutes.")], []),
 ("¿cómo voy a la oficina?", [("2021-06-01","Voy a la oficina en autobús."),("2024-02-12","Me compré una bici y ahora voy pedaleando a la oficina.")], []),
 ("when is standup?", [("2021-06-01","Standup at 9:00 every weekday."),("2024-02-12","Standup is now at 9:30.")], []),
]
THIRD_TRAPS = [
 ("where do I work?", [("2021-06-01","I work at Contoso."),("2024-02-12","I joined Fabrikam this month.")], "Got an offer from Northwind; turning it down."),
 ("where do I work?", [("2021-06-01","I work at Contoso."),("2024-02-12","I joined Fabrikam this month.")], "Contoso alumni dinner was fun."),
 ("¿dónde trabajo?", [("2021-06-01","Trabajo en Contoso."),("2024-02-12","Me incorporé a Fabrikam.")], "Northwind me hizo una oferta, pero sigo donde estoy."),
 ("where do I live?", [("2021-06-01","I live in Ghent."),("2024-02-12","We moved to Antwerp.")], "House hunting in Brussels was a waste of time; we stay."),
 ("where do I live?", [("2021-06-01","I live in Ghent."),("2024-02-12","We moved to Antwerp.")], "My parents live in Bruges now."),
 ("¿dónde vivo?", [("2021-06-01","Vivo en Santander."),("2024-02-12","Nos mudamos a Burgos.")], "Mis padres se han ido a vivir a León."),
 ("who is my manager?", [("2021-06-01","My manager is Lena Park."),("2024-02-12","I report to Omar Nasser now.")], "Lena Park is now managing the data team."),
 ("which editor do I use?", [("2021-06-01","My editor is Sublime Text."),("2024-02-12","Switched to IntelliJ IDEA.")], "Tested Neovim over the weekend, back to IntelliJ IDEA on Monday."),
 ("what CI do we use?", [("2021-06-01","Builds run on Bamboo."),("2024-02-12","We moved the pipelines to GitLab CI.")], "Bamboo license renewal email arrived; ignored it."),
 ("which Python version do our services use?", [("2021-06-01","Services run Python 3.9."),("2024-02-12","Services upgraded to Python 3.11.")], "Python 3.13 free-threading benchmarks on a blog look promising."),
 ("how do I get to the office?", [("2021-06-01","I drive to the office."),("2024-02-12","I walk to the office now.")], "Rented a car for the holidays."),
 ("when is standup?", [("2021-06-01","Standup at 9:00."),("2024-02-12","Standup is now at 9:30.")], "Product wants standup at 8:30; the team said no."),
 ("what package manager do we use?", [("2021-06-01","We use pip with requirements files."),("2024-02-12","We replaced pip with uv everywhere.")], "Poetry came up in a discussion again, we are not going back."),
 ("¿qué editor uso?", [("2021-06-01","Uso Sublime Text."),("2024-02-12","Me pasé a IntelliJ IDEA.")], "Un compañero me enseñó su configuración de Neovim."),
]


def _mark(case: tuple, key: str) -> object:
    return pytest.param(*case, marks=pytest.mark.xfail(strict=True, reason="known miss")) \
        if key in KNOWN_MISSES else case


@pytest.mark.parametrize("now,versions,others", [
    _mark(c, c[1][-1][1]) for c in THIRD_NOW])
def test_third_set_the_newest_leads(tmp_path: Path, now: str,
                                    versions: list[tuple[str, str]],
                                    others: list[tuple[str, str]]) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    ids = {t: mem.save(t, date=d).ids[0] for d, t in sorted(versions + others)}
    res = mem.search(now)
    assert res.status == "FOUND" and res.best.id == ids[versions[-1][1]]


@pytest.mark.parametrize("now,versions,trap", [_mark(t, t[2]) for t in THIRD_TRAPS])
def test_third_set_a_trap_does_not_lead(tmp_path: Path, now: str,
                                        versions: list[tuple[str, str]], trap: str) -> None:
    mem = Memory.open(tmp_path / "m", create=True)
    ids = [mem.save(t, date=d).ids[0] for d, t in versions]
    mem.save(trap, date="2025-06-01")
    assert mem.search(now).best.id == ids[-1]
