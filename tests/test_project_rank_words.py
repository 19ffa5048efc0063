"""find_code reads a question with the vocabulary of code: a helper whose name the question
says in other words, phrases written as one identifier, punctuation literals, and names
made of two words."""

from __future__ import annotations

from pathlib import Path

import pytest

from ihmt.project import ProjectIndex
from ihmt.project.rank import SymbolRanker, symbol_fields
from ihmt.project.vocab import literal_words, phrase_words

# A larger function whose docstring shares more of the question's words than the helper
# whose name the question says through equivalences ('beginning' ~ start, 'flag' ~ option).
OPTIONS = '''\
def join_options(options):
    """Given a list of option strings, join them and tell whether any option prefix is a
    slash: the value of each option is kept like a flag, with its first character."""
    prefix = ""
    out = []
    for opt in options:
        prefix = opt[:1]
        out.append(opt)
    return ", ".join(out), prefix == "/"


def _start_of_option(value):
    return value[:1] in "-+"
'''

NAMES = '''\
def name_of(node):
    """The name of a node as the user wrote it, for the words of a label."""
    return node.name.lower()


def _posixify(name):
    return "-".join(name.split()).lower()
'''

PATTERNS = '''\
class PatternHighlighter:
    """Highlights text by several patterns: each pattern joined into one is matched."""

    patterns = []

    def highlight(self, text, pattern):
        for match in pattern.finditer(text):
            text.stylize(match.group(0), pattern)
        return text


def _combine_regex(*regexes):
    return "|".join(regexes)
'''

DATES = '''\
def week_start(d):
    """The monday before the given date, at the start of its week."""
    return d


def day_count(a, b):
    """Days between two dates."""
    return (b - a).days


def weekday(d):
    return d.isoweekday()
'''


# Unrelated code beside each case, so that word weights (idf) are those of a project
# ('name' is a common word of code).
FILLER = "".join(
    f"def task_{i}(items, name, limit):\n"
    f"    \"\"\"Process the items of batch {i} called name, within the limit.\"\"\"\n"
    f"    return [item for item in items if item < limit and item != name]\n\n\n"
    for i in range(12))


def _index(tmp_path: Path, **files: str) -> ProjectIndex:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "filler.py").write_text(FILLER, encoding="utf-8")
    for name, text in files.items():
        (root / f"{name}.py").write_text(text, encoding="utf-8")
    ix = ProjectIndex(root, tmp_path / "projects")
    ix.sync()
    return ix


def _first(ix: ProjectIndex, query: str) -> str:
    ans = ix.locate(query)
    assert ans.hits, query
    return ans.hits[0].name


def test_a_helper_whose_name_the_question_says_in_other_words_wins(tmp_path: Path) -> None:
    ix = _index(tmp_path, options=OPTIONS)
    assert _first(ix, "does a value look like the beginning of a flag") == "_start_of_option"


def test_a_name_the_question_only_mentions_in_passing_is_not_the_answer(tmp_path: Path) -> None:
    r = SymbolRanker({"files": {}}, "english")
    r.df = {"name": 40, "lower": 3, "join": 3, "dash": 1}
    r.syms = [("a", {})] * 50
    said = {t: w for c in r.concepts("lower-case a name and join its words with dashes")
            for t, w in c.terms.items()}
    total = sum(max(r.idf(t) * w for t, w in c.terms.items())
                for c in r.concepts("lower-case a name and join its words with dashes"))
    # 'name' says all of a symbol called ``name`` but carries little of the question.
    assert r.name_match(["name"], said, total) < 0.5 * r.name_match(["lower", "join"], said,
                                                                      total)


def test_punctuation_literals_read_as_words(tmp_path: Path) -> None:
    assert literal_words('return "-".join(parts) + "\\n"') == ["dash", "hyphen", "newline",
                                                                  "line"]
    ix = _index(tmp_path, names=NAMES)
    assert _first(ix, "lower-case a name and join its words with dashes") == "_posixify"


def test_a_phrase_is_also_the_identifier_code_writes_for_it(tmp_path: Path) -> None:
    assert phrase_words("join several Regular Expressions, then red green blue") == [
        "regex", "rgb"]
    ix = _index(tmp_path, patterns=PATTERNS)
    assert _first(ix, "join several regular expressions into one pattern") == "_combine_regex"


def test_a_name_of_two_words_written_as_one_is_found_by_its_words(tmp_path: Path) -> None:
    ix = _index(tmp_path, dates=DATES)
    r = ix.ranker()
    assert r._halves("weekday") == ["week", "day"]
    assert r._halves("count") == []  # 'co'/'unt' are not words of this project's names
    assert _first(ix, "which day in the week a date is") == "weekday"


VALUES = "".join(
    f"def scale_{i}(value, factor):\n"
    f"    \"\"\"Scale the value by a factor, step {i}.\"\"\"\n"
    f"    return value * factor\n\n\n" for i in range(10)) + '''\
def clamp(val, low, high):
    return max(low, min(high, val))
'''


def test_a_rare_abbreviation_does_not_make_a_common_word_weigh_more(tmp_path: Path) -> None:
    ix = _index(tmp_path, values=VALUES)
    r = ix.ranker()
    (c,) = r.concepts("value")
    assert 0 < c.terms["val"] < 1.0 and r.idf("val") > r.idf("valu")
    assert r.weight(c) == pytest.approx(r.idf("valu"))
    by_name = {x.sym["name"]: x for x in r.rank("value")}
    # Found only through 'val', clamp is not worth more than a symbol saying 'value'.
    assert by_name["clamp"].score <= by_name["scale_0"].score


def test_a_number_ends_a_word_of_an_identifier() -> None:
    f = symbol_fields("def checksum(text):\n    return hashlib.sha256(text).hexdigest()\n",
                      "checksum", "english")
    assert {"sha256", "sha", "256"} <= set(f["k"].split())


SCATTERED = '''\
def _scrub_b(text):
    """Codes of a terminal: remove what the text needs to control."""
    return text


def _scrub_a(text):
    """Remove the control codes of a text, as a terminal would."""
    return text
'''


def test_question_words_next_to_each_other_in_a_docstring_count_more(tmp_path: Path) -> None:
    ix = _index(tmp_path, scrub=SCATTERED)
    # The same words in both; 'remove the control codes' keeps them together in one only.
    ans = ix.locate("remove control codes from a text")
    assert ans.hits[0].name == "_scrub_a" and ans.status == "FOUND"


GUESS = '''\
def convert_type(ty, default=None):
    """Turn a type or a default value into a parameter type; when no type is given,
    look at the default value, which may be none."""
    return ty or type(default)


def _guess_type(default):
    """The parameter type of a default value."""
    return type(default)
'''


def test_a_clear_name_is_found_beside_a_close_rival(tmp_path: Path) -> None:
    ix = _index(tmp_path, guess=GUESS)
    ans = ix.locate("infer the parameter type from the default value when none is given")
    assert ans.hits[0].name == "_guess_type"
    assert ans.status == "FOUND"


def test_a_name_said_in_more_words_is_stronger_evidence() -> None:
    r = SymbolRanker({"files": {}}, "english")
    r.syms = [("a", {})] * 100
    r.df = {"bell": 5, "ring": 5, "strip": 5, "control": 5}
    said = {"bell": 1.0, "ring": 1.0, "strip": 1.0, "control": 1.0}
    # Both names said in full and heavy enough; one word is an example more often than
    # it is the answer ('such as bell'), two words say what the code does.
    assert r.name_match(["bell"], said, 3.0) < r.name_match(["strip", "control"], said, 3.0)
