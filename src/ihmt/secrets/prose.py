"""Secrets given in sentences: "the wifi password is ...", "password for the NAS: ...",
"la contraseña es ...", "I changed the root password to ...", "use ... as the passphrase",
"login for the router: admin / ...", "the API key is ...".

Each rule reads a keyword in the lower-cased text, then what may join it to a value (a
copula, a colon, a preposition and its object, a parenthesis), then judges the value by
its shape: a word is not a password, a random run is a key.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterator

from ..lazy_re import lazy
from .assign import HASH_PREFIX, IDENT_CHAIN, NAME_PATH, reference
from .forms import lines_with
from .values import (
    SENTENCE_WORDS,
    app_password,
    entropy,
    is_placeholder,
    is_public,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    said_stand_in,
    spaced_phrase,
    starts_word,
    variable_reference,
)

Found = tuple[str, int, int, str]

_PROSE_KEY = lazy(
    r"pass(?:words?|wd|phrase|code|wort)?|pwd?|pin(?: code)?|contrase(?:ñ|n)a|"
    r"psk|pre-?shared key|clave precompartida|"
    r"(?:semilla|secreto|clave|c(?:ó|o)digos?)(?: de)? (?:totp|2fa|mfa|otp|doble factor|"
    r"recuperaci(?:ó|o)n|respaldo|configuraci(?:ó|o)n)|clave|"
    r"mot de passe|kennwort|senha|wachtwoord|frase (?:de paso|secreta|de contrase(?:ñ|n)a)|"
    r"(?:recovery|backup|2fa|mfa|totp|otp|authenticator)(?: setup| secret)?[ \-](?:seed|code|key)s?")
# What joins the keyword to its value: an adjective ("contraseña nueva"), what it is for
# ("for the NAS", "de la base de datos"), a parenthesis ("as of Monday"), then a copula,
# an arrow or a colon.
_CONNECT = lazy(
    r"(?:\s+(?:new|old|current|temporary|default|initial|nueva|nuevo|actual|temporal|"
    r"provisional|inicial|privada|privado|secreta|secreto|maestra|maestro))?"
    r"(?:\s+(?:for|of|at|on|to|in|del|de|para|du|für|da|do|van)\s"
    r"(?:[^\n.;!?:=()]|\.(?=\w)|\([^()\n]{1,60}\)(?=\s(?:is|es|was|era)\s)){0,64}?)?"
    r"(?:\s*\([^()\n]{1,60}\)(?=\s?[:=]))?"
    # who gave it: "the password they gave us on the phone is ..."
    r"(?:\s+(?:that\s+)?(?:they|we|you|he|she|i|someone)\s+(?:gave|sent|told|shared|chose|"
    r"picked|set|use|used)(?:\s+(?:us|me|you|him|her|them))?"
    r"(?:\s+(?:on|over|by|in|via)\s+(?:the\s+)?[a-z]+)?)?"
    r"(?:,[^,\n]{1,30},)?"
    r"(?:[,;]?\s+(?:changed|rotated|updated|reset|again|today|yesterday|and|so|it))"
    r"{0,4}[,;]?"
    r"(?:\s(?:was|is|has been|had been|got|were)\s(?:changed|set|reset|updated|rotated)\s"
    r"(?:back\s)?to"
    r"|\s(?:(?:is|was|are|it'?s|it’s) now|is|was|are|were|now|becomes|es|era|est|ist|é|"
    r"ahora es|es ahora|(?:quedó|queda|quedo) (?:en|como)|será|"
    r"=|->|→|it'?s|it’s)"
    r"|\s?[:=]|\s(?:changed|set|reset|updated|rotated|cambiada|cambió) (?:it )?to)\s+"
    # "is literally X", "es simplemente X"
    r"(?:(?:literally|just|simply|still|actually|literalmente|simplemente|todavía)\s+)?")
# "I changed the root password on nas01 to ...", "le cambié la clave a ...": `to` joins
# the key to its value only after a verb of change earlier in the sentence.
_TO = lazy(r"(?:\s+(?:for|of|at|on|in|del|de|para)\s[^\n.;!?:=]{0,40}?)?\s+(?:to|a)\s+")
# A program's prompt for a password, answered unseen: what follows on the next line is the
# program's next output.
_PROMPT = lazy(r"(?:^|\n)[ \t]*(?:enter|re-?enter|retype|confirm|verify)[ \t]+(?:the[ \t]+|your[ \t]+|"
               r"new[ \t]+|pem[ \t]+)*$")
_CHANGE_VERB = lazy(
    r"\b(?:chang(?:e|ed|ing)|set(?:ting)?|reset|updated?|rotated?|switched|cambi(?:é|e|ó|o|amos|"
    r"ar|ado)|pus(?:e|imos|o)|pongo)\b")
_PROSE_VALUE = lazy(r"([\"'`“‘])([^\"'`”’\n]{4,128})[\"'`”’]|(\S{4,128})")
# Google's app passwords: four groups of four letters.
_GROUPED = lazy(r"[a-z]{4}(?: [a-z]{4}){3}(?![A-Za-z0-9])")
_BASE32 = lazy(r"[A-Z2-7]{16,}=*")
# A TOTP seed as authenticator apps show it: groups of four base32 characters.
_BASE32_GROUPS = lazy(r"[A-Z2-7]{4}(?: [A-Z2-7]{4}){3,15}(?![A-Za-z0-9])")
_BASE32_GROUPS_LOW = lazy(r"[a-z2-7]{4}(?: [a-z2-7]{4}){3,15}(?![A-Za-z0-9])")
_OPEN_PAREN = lazy(r" \((?=[^\s)]{4,128}\))")
# Words joined into a passphrase and ended by digits: `maple_lemon_copper_1`.
_WORD_PASSPHRASE = lazy(r"[a-z]{3,}(?:[._\-][a-z]{3,}){2,}[._\-]?\d{1,4}", re.IGNORECASE)
# Four words or more joined by hyphens or dots, as diceware passphrases are written
# (underscores join the words of a name in code: `read_from_env_file`).
_DICEWARE = lazy(r"[a-z]{3,}(?:([-.])[a-z]{3,})(?:\1[a-z]{3,}){2,}", re.IGNORECASE)


def prose(text: str, low: str) -> Iterator[Found]:
    """"the wifi password is X", "password for the NAS: X", "la contraseña es X"."""
    for m in _PROSE_KEY.finditer(low):
        key = m.group(0)
        if not starts_word(low, m.start()) and not (
                _names_codes(key) and low[m.start() - 1] in "-_"):
            continue  # (`github-recovery-codes.txt`: a file named for its codes)
        if m.end() < len(low) and (low[m.end()].isalnum() or low[m.end()] in "_-"):
            continue
        pos = m.end()
        changed = _changed_before(low, m.start())
        c = _CONNECT.match(low, pos)
        if c is not None and "\n" in low[pos: c.end()] and _PROMPT.search(
                low, max(0, m.start() - 30), m.start()):
            continue  # "Enter password:" then the next line: a terminal does not echo it
        if c is None and changed:
            c = _TO.match(low, pos)
        if c is None and low.startswith(" (", pos):
            c = _OPEN_PAREN.match(low, pos)  # "the router password (X) over the phone"
        found = _value_after(text, key, c.end() if c is not None else pos, c is not None)
        if found is None and c is None:
            found = _qualified_value(text, low, key, pos)
        if found is None and c is None:
            a = _ADJECTIVE.match(low, pos)  # "contraseña temporal X", "temporary password X"
            if a is not None:
                found = _value_after(text, key, a.end(), False)
        listed = False
        if found is None and _names_codes(key):
            found, listed = _listed_code(text, low, key, pos), True
        if found is None and c is not None and changed:
            # "reset the password to X until SSO is back": the copula's join read past the
            # value; after a verb of change, `to` joins the key to it.
            t = _TO.match(low, pos)
            if t is not None and t.end() != c.end():
                found = _value_after(text, key, t.end(), True)
        if found is None or said_stand_in(text, text[found[1]: found[2]], found[2]):
            continue
        more = list(_more_codes(text, key, found)) if _names_codes(key) else []
        if listed and not more:
            continue  # a label's next line is a list of codes only when it has two or more
        yield found
        yield from more


_ADJECTIVE = lazy(r"[ \t]+(?:new|temporary|temp|initial|default|one-time|temporal|provisoria|"
                  r"provisorio|provisional|inicial|nueva|nuevo)(?=[ \t])")
# The label of a list of codes, then the list on the next line (a blank line between).
_TO_NEXT_LINE = lazy(r"[^\n]{0,160}\r?\n(?:[ \t]*\r?\n)?[ \t]*")


def _listed_code(text: str, low: str, key: str, pos: int) -> Found | None:
    """The first code of a list that starts on the line after its label (`Backup codes
    for ana@x (Google)`, a file `github-recovery-codes.txt`), when it is code-shaped."""
    n = _TO_NEXT_LINE.match(low, pos)
    code = _CODE.match(text, n.end()) if n is not None else None
    if code is None or not _code_shaped(code.group(1)):
        return None
    return "password", code.start(1), code.end(1), key + " " + preview(code.group(1))


# A recovery key given as groups of digits (BitLocker's eight groups of six).
_DIGIT_GROUPS = lazy(r"\d{4,8}(?:-\d{4,8}){3,11}(?![\w\-])")


def _value_after(text: str, key: str, pos: int, joined: bool) -> Found | None:
    """The value given to ``key`` at ``pos`` (after its join when ``joined``), or None."""
    if not joined:
        # "user ana, password <value>": the value right after the word
        if not text.startswith(" ", pos):
            return None
        pos += 1
    grouped = _GROUPED.match(text, pos) if joined else None
    if grouped is not None and ("pass" in key or key.startswith(("contrase", "clave"))
                                and app_password(grouped.group(0))):
        return "password", pos, grouped.end(), key + " " + preview(grouped.group(0))
    if joined and not (key.startswith("pin") or _names_seed(key) or _names_codes(key)):
        phrase = spaced_phrase(text, pos, "phrase" in key or "frase" in key)
        if phrase is not None:
            return "password", pos, phrase.end(), key + " " + preview(phrase.group(0))
    if joined and (_names_seed(key) or _names_codes(key)):
        digits = _DIGIT_GROUPS.match(text, pos)
        if digits is not None:
            return "password", pos, digits.end(), key + " " + preview(digits.group(0))
    if _names_codes(key) and joined:
        code = _CODE.match(text, pos)
        if code is not None and _code_shaped(code.group(1)):
            return "password", code.start(1), code.end(1), key + " " + preview(code.group(1))
    v = _PROSE_VALUE.match(text, pos)
    if v is None:
        return None
    g = 2 if v.group(2) is not None else 3
    value = v.group(g)
    s = v.start(g)
    if g == 3:
        # A full stop may end the sentence or the password: mask it with the value.
        value = value.rstrip(",;:)]\"'`")
    if key.startswith("pin"):
        if joined and re.fullmatch(r"\d{4,12}\.?", value):
            return "password", s, s + len(value), key + " " + preview(value)
        return None
    if _names_seed(key) and joined:
        groups = _BASE32_GROUPS.match(text, pos) or _base32_lower_groups(text, pos)
        if groups is not None:
            return "password", pos, groups.end(), key + " " + preview(groups.group(0))
    if (_names_seed(key) or _names_codes(key)) and joined and (
            _BASE32.fullmatch(value) or random_looking(value)):
        return "password", s, s + len(value), key + " " + preview(value)
    if not _password_value(value, joined):
        return None
    return "password", s, s + len(value), key + " " + preview(value)


_SEED_KEY = lazy(r"(?:seed|key)s?$|^(?:semilla|secreto|clave) ")
# One recovery code, after an optional list marker: groups of letters or digits joined by
# a space or a hyphen (`1234 5678`, `ABCD-EFGH`, `a1b2c3d4`).
_CODE = lazy(r"(?:(?:[-*•]|\d{1,2}[.)])[ \t]+)?([A-Za-z0-9]{3,10}(?:[ \-][A-Za-z0-9]{3,10}){0,3})"
             r"(?![A-Za-z0-9])")


def _names_seed(key: str) -> bool:
    return _SEED_KEY.search(key) is not None and key != "clave"


def _names_codes(key: str) -> bool:
    return key.endswith("codes") or key.startswith(("códigos", "codigos"))


def _code_shaped(code: str) -> bool:
    """A recovery code rather than words: digits in it (six or more, or mixed with
    letters of one case), or groups of capitals joined by hyphens."""
    digits = sum(c.isdigit() for c in code)
    letters = code.replace(" ", "").replace("-", "")
    if digits:
        return digits >= 6 or (not letters.isdigit() and (letters.islower() or letters.isupper()))
    return "-" in code and letters.isupper() and " " not in code


def _base32_lower_groups(text: str, pos: int) -> re.Match[str] | None:
    """A TOTP seed in lower-case groups of four (``lqzq af2b ...``), as some apps show it:
    with a digit, which words have not."""
    g = _BASE32_GROUPS_LOW.match(text, pos)
    return g if g is not None and any(c.isdigit() for c in g.group(0)) else None


# The rest of a list of codes: one per line or after commas, each shaped as the first.
# A note after a code on its line ("(used)") is skipped; two columns are split by spaces.
_NEXT_ITEM = lazy(r"(?:[ \t]*(?:\([^()\n]{0,40}\)[ \t]*)?(?:[,;]|\r?\n)[ \t]*|[ \t]{2,})"
                  r"(?:(?:[-*•]|\d{1,2}[.)])[ \t]+)?(?=\S)")
_SHAPE = str.maketrans(string.ascii_letters + string.digits, "x" * 62)


def _more_codes(text: str, key: str, first: Found) -> Iterator[Found]:
    """Every code of a list of recovery codes, not the first only (one per line or after
    commas); a code counts when it has the first one's shape: its length, and where its
    separators are."""
    _, s, e, _ = first
    shape = text[s:e].translate(_SHAPE)
    for _ in range(64):
        m = _NEXT_ITEM.match(text, e)
        if m is None:
            return
        s, e = m.end(), m.end() + len(shape)
        if text[s:e].translate(_SHAPE) != shape or text[e: e + 1].isalnum():
            return
        yield "password", s, e, key + " " + preview(text[s:e])


# "contraseña de administración X", "password for root X": what the password is for, in a
# word or two without digits, then the value with no copula; only a value with a digit and
# a symbol or mixed case counts without one.
_QUALIFIER_WORDS = lazy(r"\s+(?:de|del|for|of|para)(?:\s+(?:la|el|los|las|the))?\s+[^\s\d:=,.]{2,24}"
                        r"(?=[ \t])")


def _qualified_value(text: str, low: str, key: str, pos: int) -> Found | None:
    q = _QUALIFIER_WORDS.match(low, pos)
    if q is None:
        return None
    found = _value_after(text, key, q.end(), False)
    if found is None:
        return None
    value = text[found[1]: found[2]]
    strong = not value.isalnum() or (any(c.islower() for c in value)
                                      and any(c.isupper() for c in value))
    return found if strong else None


def _changed_before(low: str, start: int) -> bool:
    """A verb of change in the sentence before ``start``, within 80 characters."""
    lo = max(0, start - 80)
    cut = max(low.rfind(ch, lo, start) for ch in ".!?\n")
    return _CHANGE_VERB.search(low, max(lo, cut + 1), start) is not None


def _password_value(value: str, joined: bool) -> bool:
    """True when ``value``, given as a password, is one: not a word, code, a path, a date."""
    core = value.rstrip(".")
    if not joined and not (looks_like_password(core) and any(ch.isdigit() for ch in core)):
        return False
    if joined and _DICEWARE.fullmatch(core):
        return True  # four words or more joined by hyphens: a diceware passphrase
    if not looks_like_password(core) or core.startswith(("{", "<", "http", "/", "~/")):
        return False
    if re.fullmatch(r"~[\w.\-]*", core):
        return False  # ~ana, a home folder (a password may start with a tilde)
    if variable_reference(core):
        return False
    if re.search(r"[(\[{}\]]", core):
        return False  # code: `password = getpass.getpass(...)`
    if re.fullmatch(r"!{1,2}[A-Za-z_][\w.\-/:]*", core):
        return False  # `password: !vault |`: a YAML tag
    if re.match(r"[A-Za-z_][\w.\-]*=(?!=*$)", core) and not random_looking(core):
        return False  # `password_file=/etc/db.pass`: the next setting (not `Camino1991=`)
    if joined and _WORD_PASSPHRASE.fullmatch(core):
        return True  # words and a number: a passphrase, not `user_password`
    if IDENT_CHAIN.fullmatch(core) and not random_looking(core) and (
            "_" in core and sum(ch.isdigit() for ch in core) < 2
            or "." in core and reference(core)):
        return False  # `pw = form.pw`, `password = user_password`
    return not re.fullmatch(r"\d{1,2}[:/.]\d{2}(?:[:/.]\d{2,4})?", core)  # a time or a date


# ---------------------------------------------------------------------- "use X as the password"
_AS_PASSWORD = lazy(
    r" (?:as|como)\s+(?:(?:the|my|a|your|our|la|el|mi|tu|su)\s+)?(?:(?:new|nueva|nuevo)\s+)?"
    r"(pass(?:word|phrase|code)?|pw|pwd|pin|contraseña|clave)\b")
_USE_BEFORE = lazy(r"\b(?:use|using|usa|usar|usé|usamos|pon|puse|try(?: with)?|"
                  r"prueba(?: con)?|probá(?: con)?)\s+([\"'`“]?)([^\s\"'`”]{4,128}?)\1"
                  r"[?.!,;]?(?:\s+[\-–—])?\s*$")
# "try X? that's the new root pw", "usa X, es la contraseña nueva": the value, then a
# sentence that says what it was.
_IS_THE_PASSWORD = lazy(
    r"\b(?:that'?s|that’s|that is|it'?s|it’s|which is|es|esa es|"
    r"esta es)\s+(?:the|my|our|la|el|mi|nuestra)\s+(?:(?:new|nueva|nuevo)\s+)?"
    r"(?:[a-z]{2,12}\s+){0,2}"
    r"(pass(?:word|phrase|code)?|pw|pwd|contraseña|clave)\b")
_PASSPHRASE = lazy(r"[a-zà-ÿ]+(?:[-_.][a-zà-ÿ0-9]+){2,}", re.IGNORECASE)


def use_as(text: str, low: str) -> Iterator[Found]:
    """"use X as the passphrase", "usa X como contraseña": the value comes first."""
    tails = list(_AS_PASSWORD.finditer(low))
    for s, e in lines_with(low, ("pw", "password", "passphrase", "passcode", "contraseña",
                                 "clave")):
        tails += _IS_THE_PASSWORD.finditer(low, s, e)
    for m in tails:
        u = _USE_BEFORE.search(low, max(0, m.start() - 150), m.start())
        if u is None:
            continue
        value, s = text[u.start(2): u.end(2)], u.start(2)
        if _password_value(value, True) or (len(value) >= 15 and _PASSPHRASE.fullmatch(value)):
            yield "password", s, u.end(2), m.group(1) + " " + preview(value)


# ---------------------------------------------------------------------- user and password
_PAIR_KEY = lazy(r"(?:log[ -]?ins?|sign[ -]in|credentials|creds|credenciales|acceso|"
                       r"cuenta|account)(?![a-z0-9_])")
# Verbs of logging in, past tense, read only where one of their stems occurs.
_LOGIN_VERB = lazy(r"(?:(?:logged|signed)[ -]in|entr(?:é|ó|amos)|ingres(?:é|ó|amos))(?![a-z0-9_])")
_LOGIN_STEMS = ("logged", "signed", "entr", "ingres")
_PAIR = lazy(
    r"(?:\s+(?:for|to|of|on|at|para|de|del|en)\s[^\n:=>→]{0,40}?)?"
    r"\s*(?::|->|→|=|\sis\s|\ses\s)\s*"
    r"([a-z0-9._%+\-@]{1,64})(\s+/\s+|/|:|[ \t]+:[ \t]+)(\S{4,128})")
_SLUG = lazy(r"[a-z0-9]+(?:[-_.][a-z0-9]+)+")
# A part that runs letters into digits (`jacket56`): a password's, not a region's (`eu-west-1`).
_LETTERS_DIGITS = lazy(r"[A-Za-z]{2,}[0-9]{2,}")
# "laptop login jmartin / X": no colon, but a user and a value either side of a spaced slash.
_PAIR_SPACED = lazy(r"[ \t]+([a-z0-9._%+\-@]{1,64})([ \t]+/[ \t]+)(\S{4,128})")
# "log in to staging as ana@x / X", "entré con admin / X": as whom, then a spaced slash.
_PAIR_AS = lazy(r"(?:[ \t]+(?:to|into|on|at|en|a)[ \t][^\n:=>→/]{0,40}?)?[ \t]+(?:as|with|con|como)"
                r"[ \t]+([a-z0-9._%+\-@]{1,64})([ \t]+/[ \t]+)(\S{4,128})")


def pairs(text: str, low: str) -> Iterator[Found]:
    """"Login for the router: admin / X", "credentials: ana@acme.io:X"."""
    keys = list(_PAIR_KEY.finditer(low))
    for stem in _LOGIN_STEMS:
        i = low.find(stem)
        while i >= 0:
            verb = _LOGIN_VERB.match(low, i)
            if verb is not None:
                keys.append(verb)
            i = low.find(stem, i + 1)
    for k in keys:
        if not starts_word(low, k.start()):
            continue
        m = (_PAIR.match(low, k.end()) or _PAIR_SPACED.match(low, k.end())
             or _PAIR_AS.match(low, k.end()))
        if m is None:
            continue
        user, sep = m.group(1), m.group(2)
        value = text[m.start(3): m.end(3)].rstrip(",;)]\"'`")
        if user.isdigit() or user in ("http", "https", "ftp", "ssh") or is_placeholder(value):
            continue
        if not _password_value(value, True):
            continue
        if (sep == "/" or sep.strip() == ":" and sep != ":" and not _LETTERS_DIGITS.search(
                value)) and _SLUG.fullmatch(value.lower()) and not random_looking(value):
            continue  # a path or a region after "account:" (prod/eu-west-1, prod : eu-west-1)
        s = m.start(3)
        yield "password", s, s + len(value), f"{user}{sep.strip()}{preview(value)}"


# ---------------------------------------------------------------------- "the API key is X"
_NOUN = lazy(r"key|token|secret|pat\b")
# What may qualify the noun, read backwards from it: "API key", "access token", "bot
# token", "client secret". A bare "key" names too many things (a KMS key, a sort key,
# "key takeaway") to count without one.
_QUALIFIER = lazy(
    r"(?<![a-z0-9_\-])(?:api|access|auth|bot|app|server|signing|client|private|license|master|"
    r"deploy|service|refresh|session|integration|webhook|admin|root|secret|personal access|"
    r"unseal|recovery)"
    r"[ \-]?$")
_NOUN_JOIN = lazy(
    r"(?:[ \t]#?\d{1,2}(?=[ \t]*[:=]))?"  # "Unseal Key 2: X": one of several, numbered
    r"(?:\s+(?:for|of|para|de|del)\s[^\n:=>→.]{0,40}?)?"
    r"(?:(\s*(?::|=|->|→)\s*|\s+(?:is|was|es|era)\s+(?:now\s+)?)|(\s+))")
_NOUN_VALUE = lazy(r"[A-Za-z0-9+/=_\-.:~$%]{16,4096}")
_UUID = lazy(r"[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}", re.IGNORECASE)
_HEX = lazy(r"(?:0x)?[0-9a-fA-F]+")
_NOT_A_KEY = ("http", "/", "~", "sha", "SHA", "h1:", "md5", "MD5")


def named_values(text: str, low: str) -> Iterator[Found]:
    """A random value right after a noun that names a secret: "the API key is X",
    "twilio secret X", "okta api token X". Words, hashes and ids do not count."""
    for m in _NOUN.finditer(low):
        end = m.end()
        if end < len(low) and (low[end].isalnum() or low[end] in "_-"):
            continue  # tokens, keyboard, token_type
        q = _QUALIFIER.search(low, max(0, m.start() - 20), m.start())
        start = q.start() if q is not None else m.start()
        if q is None and (m.group(0) == "key" or not starts_word(low, start)):
            continue
        if re.search(r"(?:public|publishable|site|pk)[ _-]?$", low[max(0, start - 13): start]):
            continue  # public by design
        if low[start - 1: start] == ":" and NAME_PATH.search(text, max(0, start - 200), start):
            continue  # arn:aws:secretsmanager:...:secret:<name>: the secret's name
        if HASH_PREFIX.search(low, max(0, start - 10), start):
            continue  # checksum/secret: <sha256>
        j = _NOUN_JOIN.match(low, end)
        if j is None:
            continue
        v = _NOUN_VALUE.match(text, j.end())
        if v is None:
            continue
        value = v.group(0).rstrip(".,;:)")
        if (is_placeholder(value) or value.startswith(_NOT_A_KEY) or is_public(value)
                or variable_reference(value)):
            continue
        if IDENT_CHAIN.fullmatch(value) and not random_looking(value):
            continue  # a name or an attribute: `api_key = settings.OPENAI_API_KEY`
        strong = j.group(1) is not None
        hexed = _HEX.fullmatch(value) is not None
        if strong:
            ok = (random_looking(value) or _UUID.fullmatch(value) is not None
                  or hexed and len(value) >= 32 and mixed(value)
                  or len(value) >= 20 and mixed(value) and entropy(value) >= 3.5)
        else:
            ok = random_looking(value) and not hexed and _UUID.search(value) is None
        if ok:
            s = v.start()
            yield "credential", s, s + len(value), low[start:end] + " " + preview(value)


# ---------------------------------------------------------------------- seed phrases
# "recovery phrase: w1 w2 ... w12", "MNEMONIC=\"...\"", "frase semilla: ...": a wallet's
# words, 12 to 24 of them (BIP-39 uses multiples of three), lower case, no small words of
# a sentence between them.
# A wallet named (`metamask wallet: ...`, `new HDWalletProvider("...")`) may be given its
# words with no noun for them.
_SEED_NOUNS = ("phrase", "words", "mnemonic", "semilla", "recuperación", "recuperacion",
               "wallet", "hdwalletprovider")
# What must come before "phrase" or "words" for them to name a wallet's words.
_SEED_BEFORE = lazy(r"(?:seed|recovery|backup|wallet|secret)[ _\-]?$")
_SEED_JOIN = lazy(r"[^\n:=]{0,60}?(?:[ \t]*[:=]|[ \t]+(?:is|es|era|was)|[ \t]*\((?=[ \t]*[\"'`]))"
                  r"[ \t]*(?:\r?\n[ \t]*)?[\"'`]?[ \t]*")
_SEED_WORDS = lazy(r"[a-z]{3,8}(?:[ \t]+[a-z]{3,8}){11,23}(?![a-z])")

def seed_phrases(text: str, low: str) -> Iterator[Found]:
    """A recovery (seed) phrase after a word that names one."""
    for noun in _SEED_NOUNS:
        i = low.find(noun)
        while i >= 0:
            end = i + len(noun)
            if noun in ("phrase", "words") and not _SEED_BEFORE.search(low, max(0, i - 10), i):
                i = low.find(noun, end)
                continue
            yield from _seed_after(text, low, noun, end)
            i = low.find(noun, end)


def _seed_after(text: str, low: str, noun: str, pos: int) -> Iterator[Found]:
    if pos < len(low) and low[pos].isalnum():
        return  # "phrases", "wordsmith"
    j = _SEED_JOIN.match(low, pos)
    w = _SEED_WORDS.match(text, j.end()) if j is not None else None
    if w is None:
        return
    words = list(re.finditer(r"[a-z]+", w.group(0)))
    n = len(words) - len(words) % 3
    if any(x.group(0) in SENTENCE_WORDS for x in words[:n]):
        return
    end = w.start() + words[n - 1].end()
    yield "seed_phrase", w.start(), end, noun + " " + preview(words[0].group(0))


# ---------------------------------------------------------------------- answers
# "Q: what's the root pw on the NAS?" then "A: <value>": a question that asks for a
# password, answered on the next line.
_ASKED = lazy(r"[ \t]*(?:q|question|p|pregunta)[ \t]*[:.)\-][^\n?]*?"
              r"\b(?:pass(?:word|wd|phrase)?|pwd?|contrase(?:ñ|n)a|clave)\b[^\n]*\?[ \t]*\r?\n"
              r"[ \t]*(?:a|answer|r|respuesta)[ \t]*[:.)\-][ \t]*(\S{4,128})")
# "the PDF opens with <value>", "el zip se abre con <value>": what unlocks a file, in a
# sentence with no key word; only a value with a digit and a symbol counts.
_OPENS_WITH = lazy(r"\b(?:opens|unlocks|se abre|se desbloquea|abre)[ \t]+(?:with|con)[ \t]+(\S{6,128})")


def answers(text: str, low: str) -> Iterator[Found]:
    # tried at the start of each line holding a "?" (a regex anchored at every line start
    # of a long text costs more than finding the lines)
    for s, _ in lines_with(low, ("?",)):
        m = _ASKED.match(low, s)
        if m is not None:
            value = text[m.start(1): m.end(1)].rstrip(",;)")
            if _password_value(value, False) and not said_stand_in(
                    text, value, m.start(1) + len(value)):
                yield "password", m.start(1), m.start(1) + len(value), "A: " + preview(value)
    for s, e in lines_with(low, ("opens", "unlocks", "abre", "desbloquea")):
        for m in _OPENS_WITH.finditer(low, s, e):
            value = text[m.start(1): m.end(1)].rstrip(",;:)")
            if value.endswith(".") and not value[:-1].endswith("."):
                value = value[:-1]
            if random_looking(value) or (looks_like_password(value)
                                         and any(c.isdigit() for c in value)
                                         and any(not c.isalnum() and c not in "._-/"
                                                 for c in value)):
                yield "password", m.start(1), m.start(1) + len(value), "opens with " + preview(value)
