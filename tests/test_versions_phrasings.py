"""Histories in phrasings of their own (not the benchmark's templates, not the rules'):
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
