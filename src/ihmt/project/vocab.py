"""The generic vocabulary of code that find_code reads questions with.

Questions say what code does in plain words ("the time left", "a regular expression",
"join with dashes"); code says it in abbreviations, compounds and literals (``eta``,
``regex``, ``"-".join``). Nothing here names a project: these are words any programmer
would accept as the same thing in code, kept short because each one is a guess the ranker
makes on every project.
"""

from __future__ import annotations

import re

# Groups of words that stand for each other in code: abbreviations and their words, common
# synonyms. Each group is symmetric; a word found only through its group counts less than
# itself (rank.EQUIV_WEIGHT).
EQUIVALENTS: tuple[str, ...] = (
    "eta remaining remain estimate", "ansi escape", "style styling", "color colour",
    "grey gray", "remove strip drop delete discard", "opt option flag",
    "arg argument param parameter", "argv arguments", "dir directory folder",
    "len length size", "count number num", "str string", "fmt format", "bool boolean",
    "msg message", "err error", "exc exception", "env environment",
    "cfg conf config configuration settings", "idx index", "pos position offset",
    "pct percent percentage", "tmp temp temporary", "regex regexp pattern",
    "hex hexadecimal", "rgb triplet", "sha hash digest checksum fingerprint",
    "fsync flush", "max maximum largest widest longest latest",
    "min minimum smallest shortest earliest", "lower lowercase", "upper uppercase",
    "rand random", "proc process subprocess", "cmd command", "tty terminal console isatty",
    "dedupe unique distinct", "init initialize", "sep separator delimiter",
    "ws whitespace", "char character", "col column", "src source",
    "dst dest destination", "prev previous", "cur current", "ctx context", "buf buffer",
    "fn func function callable", "cb callback", "obj object", "attr attribute",
    "val value", "ts timestamp", "url link hyperlink", "repo repository", "lib library",
    "pkg package", "auth authentication", "secret credential password",
    "join concat concatenate combine", "split divide chop", "print echo",
    "check validate verify", "detect guess infer", "convert transform",
    "cut crop truncate clip", "sum total", "avg mean average", "db database",
    "win windows", "bg background", "fg foreground", "kwargs keyword", "start begin",
    "end finish", "last final", "first initial", "end endswith", "start startswith",
    "suffix trailing endswith", "prefix leading startswith", "digit isdigit",
    "alphanumeric isalnum", "whitespace isspace", "instance isinstance",
    # verbs and adjectives a question uses where code uses another
    "pick choose select", "loop iterate iteration", "legacy old outdated",
    "remaining remain left", "append add", "merge union combine", "order sort arrange",
    "recent latest newest", "check detect", "parse read decode", "encode serialize",
    "trim strip", "pad fill", "wrap fold", "tag label", "word token", "entropy random",
)

# Phrases a question spells in several words for what code writes as one: each is read as
# one more query word, the identifier, beside its own words.
PHRASES: dict[str, str] = {
    "regular expression": "regex", "regular expressions": "regex",
    "red green blue": "rgb", "day of the week": "weekday", "time left": "eta",
    "time remaining": "eta", "command line": "argv", "file name": "filename",
    "line ending": "newline", "line endings": "newline", "new line": "newline",
    "white space": "whitespace", "lower case": "lowercase", "upper case": "uppercase",
    "time stamp": "timestamp", "time zone": "timezone", "look up": "lookup",
    "user name": "username", "key word": "keyword", "end of file": "eof",
}
_PHRASE_RX = re.compile(r"\b(" + "|".join(sorted(map(re.escape, PHRASES), key=len,
                                                  reverse=True)) + r")\b", re.I)

# String literals of punctuation, read as the words a question uses for them: the code
# '"-".join(parts)' joins with dashes.
_LITERAL_WORDS = {
    "-": "dash hyphen", "_": "underscore", ",": "comma", ".": "dot period", ":": "colon",
    ";": "semicolon", "/": "slash", "\\\\": "backslash", "|": "pipe", " ": "space",
    "\\t": "tab", "\\n": "newline line", "\\r\\n": "newline", "*": "star asterisk",
    "#": "hash", "=": "equals", "...": "ellipsis", "…": "ellipsis",
}
_LITERAL_RX = re.compile(r"""(?<![\w\\])(["'])(.{1,4}?)\1""")


def phrase_words(text: str) -> list[str]:
    """The identifiers that phrases of ``text`` stand for ('regular expressions' -> regex)."""
    return [PHRASES[m.group(1).lower()] for m in _PHRASE_RX.finditer(text)]


def literal_words(code: str) -> list[str]:
    """Words for the short punctuation literals of ``code`` ('"-"' -> dash, hyphen)."""
    out: list[str] = []
    for m in _LITERAL_RX.finditer(code):
        w = _LITERAL_WORDS.get(m.group(2))
        if w:
            out.extend(w.split())
    return out
