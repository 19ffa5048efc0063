"""Answers the thirteenth walk (written blind, measured once before it was read) showed
served stale or refused, in words of their own:

- the newest of versions a change linked answers what its earlier versions were asked by:
  "the EU shop bills through Stripe now" answers "which tool generates invoices for the EU
  shop?" as the note it changed did, though it says no "invoices" (before, NOT FOUND
  "shares only 'shop'");
- a question about "the user" (as an agent asks it) is the user's own question;
- the user's own things and services (laptop, phone, phone number, car, family doctor,
  dentist, gym, bank, internet provider, diet) are answered from their version group, as
  the home and the employer are: a change said in words the question does not use ("IT
  handed me a Framework 13" for "what laptop do I have?") leads the note it replaced;
- a group of such a thing answers only where its newest member that may lead is its only
  one or says a change done; otherwise no older member answers in its place, and an
  older one the ordinary ranking puts first is no sure answer when the newest names
  another value;
- a note about a third person's things ("Lena sold her car and cycles now") is no member of
  the user's group;
- a note names its subject with its qualifier where the subject first stands: a later
  mention inside the new value ("moved to Gorgias saved templates") makes it no other thing;
- "X de Y de Z" qualifies each word by the next ("retención de backups de preproducción"
  is no news of the backups of production), and "de staging bajada a" is no word of change
  about staging (only "from"/"de" + the old value said so);
- a change said of "it" or "they" changes the thing named in the clause before ("Friday
  retros kept clashing with the freeze. From now on it happens on the first Tuesday");
- a note found by the answer's own words that moves the one thing both name to another day
  ("el concierto se aplaza al 21 de junio" after "El concierto de Marta es el 3 de mayo")
  flags the earlier date: no confident answer with it;
- "May" after a number or a preposition of time, or before a number, is the month, no
  hedge ("the defence got pushed back to 2 May");
- a hyphenated description made of the earlier's own words ("three-week sprints" after
  "sprints are three weeks long") is no word that makes the subject another thing;
- a question word the answer holds only in another word of its group ("RAM" for "memory
  limit", "vacation" for "holiday") counts for half in the test for NOT FOUND;
- a verb of use the best memory lacks ("what do we *use* for error tracking?", "how long
  do we *keep* logs?") weighs a quarter in the test for NOT FOUND, as the word for the
  kind of answer does, where that memory names something the question does not;
- unpacking in a city is living there;
- forms an agent saves a change in: the old value in brackets ("TIMEOUT_MS=4500 (was
  3000)", a setting written NAME=N), a user's correction ("no, I told you it's 8443 …, not
  8080"), a charge handed over ("Marta handed the mobile team to Iker"; not "handed the
  report to Iker"), a path changed ("Export path changed -> /mnt/exports");
- a guess ("Assumption: the deploy branch is main", "supuse que el dominio era …") gives
  way to a later answer of the same thing, a correction first ("User correction: no, I
  told you it's release/stable - never deploy from trunk": a correction is no hedge);
- "from Nov 15 to Nov 22" lets the 15th go, not November, and "from 25 September for 9
  days" (when a period starts) lets nothing go: a later trip is no new launch date; a
  release's tag ("v5", "v2.8") is an identifier: another release's date moved is no news
  of this one's;
- Spanish "ya" before a verb of being or use says the state reached ("las facturas ya
  salen por Holded", "ya estamos en Kubernetes");
- a commit's subject says what the commit did ("commit 4be21a: move the nightly reindex to
  03:15"), and a commit's hash names no thing whose number the change would be.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.search.intent import fact_intent

from .conftest import newer_leads as _newer_leads
from .conftest import office_store
from .conftest import stands as _stands

_store = office_store

def test_a_linked_version_answers_by_the_words_of_what_it_changed(tmp_path: Path) -> None:
    old = "Invoices for the EU shop are generated with Zoho Invoice."
    new = "Switched the EU shop over to Stripe Billing last week, Zoho was too slow."
    m = _store(tmp_path, (old, "2023-03-01"),
               ("The US shop's invoices are generated with QuickBooks.", "2023-03-01"),
               (new, "2024-05-02"))
    res = m.search("Which tool generates the invoices of the EU shop?")
    _newer_leads(res, new, old)
    assert res.status != "NOT_FOUND"


@pytest.mark.parametrize(("question", "attribute"), [
    ("What laptop do I have?", "computer"),
    ("What machine am I working on these days?", "computer"),
    ("¿Qué portátil tengo?", "computer"),
    ("What's my phone number?", "phone number"),
    ("¿Cuál es mi número de móvil?", "phone number"),
    ("What phone do I have?", "phone"),
    ("What do I drive?", "car"),
    ("¿Qué coche tengo ahora?", "car"),
    ("Who is my family doctor?", "doctor"),
    ("¿Quién es mi médico de cabecera?", "doctor"),
    ("Who's my dentist?", "dentist"),
    ("Which gym do I go to?", "gym"),
    ("¿Cuál es mi banco?", "bank"),
    ("Who is our internet provider?", "internet"),
    ("¿Qué compañía de internet tenemos?", "internet"),
    ("What am I eating these days, diet-wise?", "diet"),
    # an agent asks of "the user" as the user asks of themselves
    ("In which city is the user based?", "location"),
    ("Who is the user's boss?", "manager"),
    ("What laptop does the user have?", "computer"),
    ("Where does the user work?", "employer"),
])
def test_questions_of_the_users_own_things(question: str, attribute: str) -> None:
    assert fact_intent(question) == attribute


@pytest.mark.parametrize("question", [
    "What laptop does Priya use?", "Which gym does the sales team go to?",
    "What is the phone number of the office?", "Which bank holds the payroll account?",
    "What car does my sister drive?", "Which machine runs the nightly build?",
])
def test_questions_of_somebody_elses_things_are_no_such_question(question: str) -> None:
    assert fact_intent(question) is None


def test_a_new_laptop_said_in_other_words_leads(tmp_path: Path) -> None:
    old = "Work laptop: Dell Latitude 7440, 16 GB."
    new = "IT finally replaced my old machine with a Framework 13 - so much lighter."
    m = _store(tmp_path, (old, "2023-01-10"), (new, "2024-09-03"),
               ("The QA device lab got two new Galaxy S24 phones.", "2024-10-01"))
    res = m.search("What laptop do I have?")
    assert res.hits[0].text == new
    assert res.status == "FOUND"
    assert next(h for h in res.hits if h.text == old).outdated


def test_a_car_changed_in_spanish_without_the_word_car(tmp_path: Path) -> None:
    old = "Mi coche es un Opel Corsa del 2011."
    new = "Vendí el Corsa por fin; ahora conduzco un Kia Niro eléctrico."
    m = _store(tmp_path, (old, "2022-05-01"), (new, "2024-02-11"))
    res = m.search("¿Qué coche tengo?")
    assert res.hits[0].text == new
    assert res.status == "FOUND"


def test_a_dentist_is_no_family_doctor(tmp_path: Path) -> None:
    gp = "Mi médico de cabecera es la doctora Llorente, en el centro de salud de Delicias."
    dentist = "He cambiado de dentista: ahora me atiende el doctor Sanz en la clínica dental."
    m = _store(tmp_path, (gp, "2022-02-01"), (dentist, "2024-01-15"))
    res = m.search("¿Quién es mi médico de cabecera?")
    _stands(res, gp)


def test_a_new_number_leads_and_a_new_handset_gives_none(tmp_path: Path) -> None:
    old = "My mobile number: +34 612 345 678."
    new = "Changed carrier and got a new number: +34 699 000 111."
    handset = "My new phone is a Pixel 9, the old one's battery died."
    m = _store(tmp_path, (old, "2022-04-01"), (new, "2023-06-01"), (handset, "2024-03-01"))
    res = m.search("What's my phone number?")
    _newer_leads(res, new, old)


def test_somebody_elses_commute_is_no_change_of_mine(tmp_path: Path) -> None:
    mine = "I get to the office by train, 40 minutes door to door."
    theirs = "Lena sold her car and now cycles to work."
    m = _store(tmp_path, (mine, "2022-09-01"), (theirs, "2024-04-01"))
    res = m.search("How do I get to work?")
    _stands(res, mine)


def test_a_newest_mention_that_says_no_change_leaves_the_answer_to_the_ranking(
        tmp_path: Path) -> None:
    # (a guard of the rule: without it, the group's newest member would lead)
    old = "My bank is Triodos; salary goes in on the 25th."
    mention = "Bank holiday on Monday: the Triodos branch on Calle Mayor opens Tuesday at 9."
    m = _store(tmp_path, (old, "2022-04-01"), (mention, "2024-05-01"))
    res = m.search("Which bank am I with?")
    _stands(res, old)


def test_a_later_mention_inside_the_new_value_is_no_qualifier(tmp_path: Path) -> None:
    old = "The support desk keeps its reply templates in Freshdesk canned responses."
    new = "After the renewal quote the reply templates moved to Gorgias saved templates."
    m = _store(tmp_path, (old, "2023-01-09"), (new, "2023-08-14"),
               ("Sales keeps its email sequences in Outreach.", "2023-09-01"))
    res = m.search("Where does the support desk keep its reply templates?")
    _newer_leads(res, new, old)


def test_a_change_of_the_preproduction_backups_is_no_news_of_production(
        tmp_path: Path) -> None:
    first = "Los backups de producción se guardan 14 días."
    now = "luis: ya he subido la retención de backups de prod a 60 días, lo pidió el cliente"
    other = "Retención de backups de preproducción bajada a 5 días."
    m = _store(tmp_path, (first, "2023-04-12"), (now, "2023-10-18"), (other, "2023-11-02"))
    res = m.search("¿Cuánto tiempo guardamos los backups de producción?")
    _stands(res, now)


def test_a_change_said_of_it_changes_what_the_clause_before_named(tmp_path: Path) -> None:
    old = "The monthly retro is on the last Friday afternoon."
    new = ("Friday retros kept clashing with the release freeze. From now on it happens on "
           "the first Tuesday.")
    m = _store(tmp_path, (old, "2022-09-19"), (new, "2023-02-27"),
               ("Quarterly planning moved to the second Monday.", "2023-03-06"))
    res = m.search("When is the monthly retro?")
    _newer_leads(res, new, old)


def test_a_date_moved_in_a_note_that_does_not_name_the_person_flags_the_old_one(
        tmp_path: Path) -> None:
    old = "El concierto de Marta es el 3 de mayo."
    m = _store(tmp_path, (old, "2023-03-01"),
               ("Cambio de planes: el concierto se aplaza al 21 de junio por la lluvia.",
                "2023-04-10"),
               ("La cena de empresa es el 2 de junio.", "2023-04-22"))
    res = m.search("¿Cuándo toca Marta?")
    assert res.status != "FOUND" or res.hits[0].text != old
    assert next(h for h in res.hits if h.text == old).outdated


def test_may_after_a_number_is_the_month(tmp_path: Path) -> None:
    old = "Omar's thesis defence is on 14 March."
    new = "Bad news: the defence got pushed back to 2 May, one examiner is ill."
    m = _store(tmp_path, (old, "2023-03-01"), (new, "2023-03-05"),
               ("The lab party is on 20 April.", "2023-03-08"))
    res = m.search("When does Omar defend his thesis?")
    _newer_leads(res, new, old)
    from ihmt.search.change_words import NOT_DONE
    assert NOT_DONE.search("we may move ci to drone")
    assert not NOT_DONE.search("the launch slipped to may 14")


def test_a_description_in_the_earliers_words_is_no_qualifier() -> None:
    from ihmt.search.change_links import sibling
    from ihmt.search.change_notes import read_note, use_verbs

    o = read_note("Our sprints are three weeks long, starting Tuesdays.", "english")
    n = read_note("We abandoned three-week sprints; two-week cycles now.", "english")
    assert not sibling(n, o, {"sprint"}, use_verbs("english"), "english")
    other = read_note("Mobile sprints are two weeks long now.", "english")
    assert sibling(other, o, {"sprint"}, use_verbs("english"), "english")


@pytest.mark.parametrize("subject", [
    "commit 4be21a: move the nightly reindex to 03:15 so it stops overlapping the dump",
    "commit 4be21a: the nightly reindex moved to 03:15 so it stops overlapping the dump",
])
def test_a_commit_subject_changes_what_it_names(tmp_path: Path, subject: str) -> None:
    old = "The nightly reindex job runs at 01:00."
    m = _store(tmp_path, (old, "2023-01-30"), (subject, "2023-09-14"),
               ("Tip: the reindex logs are in /var/log/search.", "2023-09-20"))
    res = m.search("When does the nightly reindex run?")
    _newer_leads(res, subject, old)


def test_a_ticket_title_is_no_commit() -> None:
    from ihmt.search.change_words import CUE
    assert CUE.search("commit: 'mueve el cron de limpieza a las 04:30'")
    assert CUE.search("feat(api): raise the public rate limit to 300")
    assert not CUE.search("mob-812: move v3 release to 18 april")


@pytest.mark.parametrize(("question", "note"), [
    ("How much RAM can the scheduler use?", "The scheduler has a 512 MB memory limit."),
    ("When is my vacation?", "My holiday starts on 12 August."),
])
def test_a_word_said_in_another_word_of_its_group_is_no_stray_match(
        tmp_path: Path, question: str, note: str) -> None:
    m = _store(tmp_path, (note, "2024-01-01"))
    res = m.search(question)
    assert res.hits[0].text == note
    assert res.status != "NOT_FOUND"


@pytest.mark.parametrize(("question", "note"), [
    ("What do we use for error tracking?", "Errors from the backend go to Sentry."),
    ("How long do we keep logs?", "Logs are retained for 30 days."),
    ("Who handles on-call this week?", "Priya is on call until Sunday."),
])
def test_a_verb_of_use_the_answer_lacks_is_how_the_question_asks(
        tmp_path: Path, question: str, note: str) -> None:
    m = _store(tmp_path, (note, "2024-01-01"))
    res = m.search(question)
    assert res.hits[0].text == note
    assert res.status == "FOUND"


def test_unpacking_in_a_city_is_living_there(tmp_path: Path) -> None:
    old = "Moved into a flat in Bristol; the rent is fine."
    new = "Finished unpacking in Glasgow - the new place looks over the river."
    m = _store(tmp_path, (old, "2022-06-10"), (new, "2024-05-27"))
    res = m.search("What city am I living in now?")
    assert res.hits[0].text == new


@pytest.mark.parametrize(("question", "old", "new"), [
    ("What is RETRY_LIMIT in the billing worker?",
     "Billing worker: RETRY_LIMIT=5 for the card processor.",
     "billing worker: RETRY_LIMIT=8 (was 5) since the processor flaps."),
    ("Which port does the metrics API use?", "The metrics API listens on port 9100.",
     "User: no, I told you it's 9464 for the metrics API, not 9100."),
    ("Who leads the data team?", "Sofia leads the data team.",
     "Sofia handed the data team to Ravi before her sabbatical; he leads it now."),
    ("Where do the nightly backups go?", "The nightly backups are written to /srv/backups.",
     "Backup path changed -> /mnt/cold/backups (the old volume was full)."),
])
def test_forms_an_agent_saves_a_change_in(tmp_path: Path, question: str, old: str,
                                          new: str) -> None:
    m = _store(tmp_path, (old, "2023-01-01"), (new, "2024-02-01"))
    res = m.search(question)
    _newer_leads(res, new, old)


def test_a_report_handed_to_someone_hands_no_charge(tmp_path: Path) -> None:
    old = "Sofia leads the data team."
    m = _store(tmp_path, (old, "2023-01-01"),
               ("Sofia handed the data team's Q3 report to Ravi for review.", "2024-02-01"))
    res = m.search("Who leads the data team?")
    _stands(res, old)


@pytest.mark.parametrize(("question", "guess", "fix"), [
    ("Which branch do production deploys go out from?",
     "Assumption: deploys go out from the main branch (no docs found).",
     "User correction: no, I told you prod deploys go from release/prod - never from main."),
    ("¿Cuál es el dominio de producción?", "Supuse que el dominio de producción era tienda.es.",
     "Usuario: no, te lo dije, el dominio de producción es tienda-app.com."),
])
def test_a_guess_gives_way_to_the_answer_settled_after_it(tmp_path: Path, question: str,
                                                          guess: str, fix: str) -> None:
    m = _store(tmp_path, (guess, "2023-07-18"), (fix, "2023-07-19"))
    res = m.search(question)
    _newer_leads(res, fix, guess)


def test_another_releases_freeze_moved_is_no_news_of_this_one(tmp_path: Path) -> None:
    mine = "Code freeze for v7 starts Mar 12."
    m = _store(tmp_path, (mine, "2024-02-01"),
               ("Mobile v3.4 freeze moved from Mar 5 to Mar 14.", "2024-02-05"))
    res = m.search("When does the v7 code freeze begin?")
    _stands(res, mine)


def test_a_period_that_starts_on_a_day_is_no_new_date_of_another_thing(
        tmp_path: Path) -> None:
    launch = "The launch of the Vega billing service slipped: new date is 25 May 2024."
    m = _store(tmp_path, ("The launch of the Vega billing service is planned for 2 May 2024.",
                          "2024-03-01"), (launch, "2024-04-20"),
               ("Holiday in Porto with Ines from 25 October 2024 for 8 days.", "2024-10-25"),
               ("Holiday in Rome with Ana from October 25, 2025 for 6 days.", "2025-10-25"))
    res = m.search("current launch date of the Vega billing service")
    assert res.hits[0].text == launch
    from ihmt.search.change_notes import read_note
    assert not read_note("Trip to Lima from October 25, 2024 for 15 days.", "english").gone
    assert read_note("The demo moved from 3 June to 10 June.", "english").gone == {"3"}


def test_ya_before_a_present_verb_says_the_state_reached(tmp_path: Path) -> None:
    old = "Los SMS de verificación salen por Twilio."
    new = "Nota: los SMS de verificación ya salen por Vonage; la cuenta vieja se cierra en mayo."
    m = _store(tmp_path, (old, "2022-03-03"),
               ("Pasamos las notificaciones push a OneSignal.", "2022-12-12"),
               (new, "2024-03-18"))
    res = m.search("¿Qué proveedor envía los SMS de verificación?")
    assert res.hits[0].text == new


def test_an_agent_asking_of_the_user_gets_the_newest_home(tmp_path: Path) -> None:
    old = "User lives in Porto (UTC+0); no meetings before 9 their time."
    new = "User relocated to Vienna last month - schedule in CET now."
    m = _store(tmp_path, (old, "2023-02-01"), (new, "2024-09-01"),
               ("User's cofounder moved from Austin to Denver.", "2024-10-01"))
    res = m.search("In which city is the user based?")
    assert res.hits[0].text == new


def test_an_older_bank_is_no_sure_answer_after_a_note_naming_another(tmp_path: Path) -> None:
    old = "My bank is Triodos; salary goes in on the 25th."
    m = _store(tmp_path, (old, "2022-04-01"),
               ("Bank: ING Direct, the debit card arrived on Friday.", "2024-05-01"))
    res = m.search("Which bank am I with for my salary?")
    assert res.hits[0].text == old
    assert res.status != "FOUND"
    assert any("ING Direct" in n for n in res.hits[0].notices)
