"""Secrets given to a key that names one: ``password = "..."``, ``DB_PASSWORD=...``,
``"api_key": "..."``, ``token: ...``, ``<password>...</password>``.

The keyword is found in the lower-cased text, the key around it is read back to its start,
and the value after the separator is judged: literals count, code, references, types,
templates and placeholders do not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_re import lazy
from .values import (
    app_password,
    is_placeholder,
    is_public,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    said_stand_in,
    spaced_phrase,
    switch_rate,
    variable_reference,
)

Found = tuple[str, int, int, str]


# `password = "..."`, `DB_PASSWORD=...`, `"api_key": "..."`, `token: ...`: the keyword is
# found in the lower-cased text, the key around it is read back to its start, and what
# follows is matched by _ASSIGN_TAIL at the keyword's end.
KEYWORD = lazy(r"pass(?:word|wd|[_\-]?phrase)?|pwd|psk|secret|keys?|token|credential|auth|salt")
_SECRET_KEY_NAME = lazy(
    r"pass(?:word|wd|[_\-]?phrase)$|(?:^|[_.\-])(?:pass|pwd|psk|secret|"
    r"(?:secret|api|access|private|signing|encryption|master|account|auth|app|application|"
    r"license|storage|service|admin|root|shared|webhook|deploy|validation|decryption|"
    r"logged[_\-]?in|nonce|hmac)[_\-]?keys?|apikey|authtoken|hmac[_\-]?secret|"
    # an application's salts for its tokens and cookies (WordPress, Strapi): HMAC keys
    r"(?:auth|logged[_\-]?in|nonce|token|session|cookie|jwt|app|secret|signing)[_\-]?salt|"
    r"(?:auth|access|refresh|bearer|session|api|bot|id|app|user|admin|deploy|service|"
    r"personal|oauth|github|gitlab|slack|vault|npm|pypi)?[_\-]?token|credentials?|auth)$",
    re.IGNORECASE,
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# Group 1: separator, 2: quote, 3: quoted value, 4: bare value.
_ASSIGN_TAIL = lazy(
    r"[\"']?\]?([ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_\[\], |.]{0,40}?[ \t]*=(?=[ \t\"'`])|:=|=>|=|:)"
    r"(?!=)[ \t]*)"
    r"(?:([\"'`])([^\"'`\n\r]{1,4096})\2|([^\s\"'`,;)\]}=]{1,4096}={0,2}))"
)
_PASSWORD_KEY = lazy(r"(?i)pass(?:word|wd|phrase)?|pwd|psk")
# A value that names a secret rather than holding one ("api_key_name", "apiKey"); `key`
# only as a part of a name, not inside a word (Monkey.Dragon25).
_NAMES_A_SECRET = lazy(r"(?i:pass(?:word|wd)|secret|token|credential)|(?:^|[_.\-])"
                             r"(?:key|KEY)|Key|KEY")
_TYPE_WORDS = {"str", "string", "int", "bytes", "bool", "optional", "any", "none", "secretstr",
               "text", "list", "dict", "object", "float", "number", "boolean", "char", "void"}
IDENT_CHAIN = lazy(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_TEMPLATE = lazy(r"\$\{|\$\(|\{\{|\{%|%\(|^%\w+%$|^[{<(\[]|^[\w.]+\(|\)$")
# A capitalised word inside a name: a type has two (``SecretStr``, ``PrivateKey``), a
# password that starts with a capital (``Saffron7557_``) has one.
_CAP_WORD = lazy(r"[A-Z][a-z]")
_HUMP = lazy(r"(?<=[a-z0-9])(?=[A-Z])")
_PUBLIC_NAME = lazy(r"(?i)public|publishable")
# What may stand before a YAML key on its line: a list dash, a namespace (`app:dbPassword`).
_YAML_LEAD = lazy(r"-?|[\w.\-]+:")
# Tokens that page through a listing or resume a sync: cursors, not credentials.
_PAGING_NAME = lazy(r"(?i)page[_\-]?token|continuation[_\-]?token|(?:^|[_\-])next[_\-]?token|"
                    r"sync[_\-]?token|cursor")
_ANTI_FORGERY = lazy(r"(?i)csrf|xsrf")
# A key that is one part of a colon-separated name (`arn:aws:secretsmanager:...:secret:x`,
# `urn:...:token:...`): the resource's name, not a value given to it.
NAME_PATH = lazy(r"(?i)(?:^|[\s\"'`(=])(?:arn|urn):[^\s\"'`]*$")
# `checksum/secret: <sha256>`: a key qualified by a prefix that says its value is a hash
# (Helm's pod annotations that roll a deployment when a Secret changes).
HASH_PREFIX = lazy(r"(?i)(?:checksum|hash|digest|sha\d*)/$")
# `define('DB_PASSWORD', '...')`, `os.environ.setdefault("API_TOKEN", "...")`: a call whose
# first argument names the secret and whose second is its literal value.
_CALL_TAIL = lazy(r"([\"'])[ \t]*,[ \t]*([\"'])([^\"'\n\r]{1,4096})\2[ \t]*[),]")
_CALL_OPEN = lazy(r"\([ \t]*$")
_HEX_VALUE = lazy(r"[0-9a-fA-F]+")
# Keys named for a service's integration that hold its secret without saying so:
# PagerDuty's `routing_key` and `integration_key`.
_SERVICE_KEY_NAME = lazy(r"(?i)(?:^|[_.\-])(?:routing|integration)[_\-]?key$")


def secret_key_name(key: str) -> bool:
    """True when ``key`` names a secret: ``DB_PASSWORD``, ``api-key``, and in camelCase
    (``apiSecret``, ``PrivateKey``) read as its words."""
    if _PUBLIC_NAME.search(key):
        return False  # publicKeyToken, public_key, NEXT_PUBLIC_*: public by their name
    if _PAGING_NAME.search(_HUMP.sub("_", key)):
        return False  # next_page_token, nextPageToken: a cursor into a listing
    if _ANTI_FORGERY.search(key):
        return False  # X-XSRF-TOKEN, csrf_token: one session's anti-forgery value, per request
    return bool(_SECRET_KEY_NAME.search(key) or _SECRET_KEY_NAME.search(_HUMP.sub("_", key)))


_OBJECTS = frozenset(
    "self this cls settings config cfg conf os env environ args options opts secrets request "
    "req params props process app ctx context vault creds credentials values data user "
    "account auth client module pkg window document import st".split())


def reference(value: str) -> bool:
    """``settings.API_KEY``, ``self.db.pw``: an attribute, not ``Dragon.winter20`` nor a
    token made of dotted random parts (``sk.eyJ1Ijoi....``)."""
    parts = value.split(".")
    if any(random_looking(p) for p in parts):
        return False
    return (parts[0].lower() in _OBJECTS or any("_" in p or p.isupper() and len(p) > 1
                                                  for p in parts)
            or not any(c.isdigit() for c in parts[-1]))


_WORD_NUMBER = lazy(r"[a-z]{3,}[0-9]+")
_CAPS_WORD = lazy(r"[A-Z]{3,}")


def _mixed_convention(value: str) -> bool:
    """``cobalt2.DRIFT``, ``tundra41_PEPPER``: a lower-case word run into digits beside a
    word in capitals. Names keep one convention (``settings.API_KEY``, ``db_2``); a
    password made of words flips case and carries a number."""
    parts = re.split(r"[._]", value)
    return (any(_WORD_NUMBER.fullmatch(p) for p in parts)
            and any(_CAPS_WORD.fullmatch(p) for p in parts))


# A change shown as `"old" -> "new"` (a Terraform plan, a diff of settings): the new
# value is given to the same key.
_CHANGED_TO = lazy(r"[ \t]*(?:->|=>|→)[ \t]*([\"'])([^\"'\n\r]{1,4096})\1")


def assignments(text: str, low: str) -> Iterator[Found]:
    for m in KEYWORD.finditer(low):
        found = _assignment(text, m.start(), m.end())
        if found is not None:
            yield found
            kind, _, end, _ = found
            c = _CHANGED_TO.match(text, end + 1) if text[end: end + 1] in "\"'" else None
            if c is not None:
                value = c.group(2)
                if not (is_placeholder(value) or variable_reference(value)
                        or re.search(r"\s", value)) and (
                        random_looking(value) or kind == "password"
                        and looks_like_password(value)):
                    yield kind, c.start(2), c.end(2), "-> " + preview(value)


def _assignment(text: str, kw_start: int, kw_end: int) -> Found | None:
    """A literal value given to a secret-named key, or None for code and placeholders."""
    if kw_end < len(text) and text[kw_end].isalnum():
        return None  # max_tokens, keyboard, secretary
    start = kw_start
    while start > 0 and text[start - 1] in _KEY_CHARS and kw_end - start < 80:
        start -= 1
    key = text[start:kw_end].lstrip(".-_")
    weak = not secret_key_name(key)
    if weak and not _SERVICE_KEY_NAME.search(key):
        return None
    sigil = text[start - 1] if start > 0 else ""
    if sigil and sigil in "{%":
        return None  # ${DB_PASSWORD:?unset}, %DB_PASSWORD%: a reference, not a value
    if sigil == ":" and NAME_PATH.search(text, max(0, start - 200), start):
        return None  # arn:aws:secretsmanager:eu-west-1:...:secret:prod/db
    if sigil == "/" and HASH_PREFIX.search(text, max(0, start - 10), start):
        return None  # checksum/secret: a digest of the Secret, not the Secret
    m = _ASSIGN_TAIL.match(text, kw_end)
    if m is None:
        if sigil in ("'", '"'):
            return _call_argument(text, key, start, kw_end)
        return None
    sep = m.group(1)
    if sigil == "$" and not ("=" in sep and m.group(3) is not None):
        return None  # $DB_PASSWORD read in a shell; `$db_password = '...'` (PHP) is a value
    password = bool(_PASSWORD_KEY.search(key))
    kind = "password" if password else "credential"
    if m.group(3) is not None:
        value, start, end = m.group(3), m.start(3), m.end(3)
        if password and app_password(value):
            return kind, start, end, key + sep.strip()[:1] + preview(value)
        if is_placeholder(value) or re.search(r"\s", value):
            return None  # prose in quotes
        if not random_looking(value) and (re.search(r"\{[\w.]*\}|%[sdr]", value)
                                          or _TEMPLATE.search(value)):
            return None  # f-strings, templates, format strings
        if m.group(2) != "'" and variable_reference(value):
            return None  # "$DB_PASS" expands in a shell; '$...' does not
        if _CONCATENATED.match(text, m.end(3) + 1) and not random_looking(value):
            return None  # `"not-" + suffix`: a piece of an expression, not the value
        if _NAMES_A_SECRET.search(value) and not any(c.isdigit() for c in value):
            return None  # "challengePassword", "api_key_name": names, not values
        if value.rstrip("?").lower() in _TYPE_WORDS:
            return None  # {"password": "string?"}: a schema
    else:
        value, start, end = m.group(4), m.start(4), m.end(4)
        whole_line = False
        if text[kw_end - len(key) - 1: kw_end - len(key)] in ("?", "&"):
            value = value.split("&", 1)[0]  # a URL query: `&` starts the next parameter
        elif (sep == "=" and _line_lead(text, kw_end - len(key)) in ("", "export")
              or sep.strip() == ":" and password
              and _YAML_LEAD.fullmatch(_line_lead(text, kw_end - len(key)))):
            if password:
                grouped = _APP_GROUPS.match(text, start)
                if grouped is not None and app_password(grouped.group(1)):
                    return kind, start, grouped.end(1), key + "=" + preview(grouped.group(1))
            whole = _TO_SPACE.match(text, start)
            if whole.end() > end and random_looking(whole.group(0)):
                value, whole_line = whole.group(0), True  # `KEY=a!b(c)d=e` in a dotenv file: to the line's end
        if password and sep == "=" and _libpq(text, kw_end - len(key)):
            value = _TO_QUOTE.match(text, start).group(0)  # `password=a=b` in a libpq string
            whole_line = True
        elif password and "=" in sep and value.endswith("=") and not whole_line:
            # `Password=ab=cd;` (ADO.NET), `pass_phrase = ab=cd` (INI): a password holding
            # `=` runs to the next `;`, quote or space
            whole = _TO_SEMICOLON.match(text, start).group(0)
            if len(whole) > len(value) and looks_like_password(whole) and "(" not in whole:
                value, whole_line = whole, True
        elif (password and sep == "=" and _line_lead(text, kw_end - len(key)) in ("", "export")
              and text[end: end + 1] == " "):
            phrase = spaced_phrase(text, start, False)  # `X_PASSWORD=word word word word 12`
            if phrase is not None:
                return kind, start, phrase.end(), key + "=" + preview(phrase.group(0))
        if value.endswith(":") and text[start + len(value): start + len(value) + 1] == "`":
            return None  # a reST role in a docstring: "pass :data:`CLIENT`"
        value = _trim_end(text, value, start, kw_end - len(key))
        end = start + len(value)
        bare = value.rstrip("?")  # "string?" in a schema
        if not bare or is_placeholder(bare) or bare.lower() in _TYPE_WORDS:
            return None
        if variable_reference(value) or not whole_line and (
                _TEMPLATE.search(value) or re.search(r"[\[\]{}<>]", value)):
            return None  # a call, an index, a template, an env reference
        key_start = kw_end - len(key)
        q = text[key_start - 1: key_start] if key_start > 0 else ""
        if (q in ("'", '"') and text[end: end + 1] == q and sep == sep.strip()
                and not (sep == "=" and password and random_looking(value))
                and not (sep == "=" and _AFTER_FLAG.search(
                    text, max(0, key_start - 80), key_start - 1))):
            return None  # "passwd:gecos": one string literal, not an assignment
            # (but `-e 'db_password=X'`: a flag's quoted `key=value`)
        if IDENT_CHAIN.fullmatch(value) and not random_looking(value) and not (
                password and _mixed_convention(value)):
            if _NAMES_A_SECRET.search(value) or "." in value and reference(value):
                return None  # settings.API_KEY, ssl_keyfile_password=ssl_keyfile_password
            if ("=" not in sep and value[0].isupper() and switch_rate(value) < 0.3
                    and len(_CAP_WORD.findall(value)) >= 2):
                return None  # `private_key: Ed25519PrivateKey`: a type annotation
            if sum(c.isdigit() for c in value) < 3:
                rest = text[end: end + 60].split("\n", 1)[0]
                if "=" in sep:
                    code = sep != sep.strip()  # `token = tokens` in code; `TOKEN=x` in a shell
                else:  # `token: str = ...`, `Token: see the vault`
                    code = bool(re.match(r"\s*(?:[=|\[,)]|\w)", rest))
                if code:
                    return None  # a variable, a type annotation, a sentence
        if value.isdigit() and len(value) < 6:
            return None
        if _PATH.fullmatch(value) or _ABSOLUTE_PATH.fullmatch(value) and not random_looking(
                value):
            return None  # `--from-file=password=./db.pass`: where the secret is, not it
        if value.startswith("!") and _YAML_TAG.fullmatch(value):
            return None  # `password: !vault |`: a YAML tag, its value below
        if ("/" in value and not password and re.search(r"[a-z]{3,}/[a-z]{3,}", value)
                and not random_looking(value)):
            return None  # app.kubernetes.io/name, a path
    if is_public(value):
        return None
    if len(value) < (4 if password else 8):
        return None
    if not password and not (mixed(value) or len(value) >= 24):
        return None  # token = "return" in a lexer, secret = "session" in a config
    if not password and _CAPITALISED.fullmatch(value):
        return None  # `token: Settings → API`: a word of a menu or a sentence
    if not password and len(value) < 16 and _HEX_VALUE.fullmatch(value):
        return None  # `?token=6d3f77d3`: a short hex is a cache buster or an id, not a key
    if weak and not (random_looking(value) or len(value) >= 32 and mixed(value)
                     and _HEX_VALUE.fullmatch(value)):
        return None  # a routing key may be a name (`orders.created`): only a random one
    if said_stand_in(text, value, end):
        return None  # `password: admin  # the demo image's default`: said to be a stand-in
    shown = key + sep.strip()[:1]
    return kind, start, end, shown + preview(value)


def _call_argument(text: str, key: str, key_start: int, kw_end: int) -> Found | None:
    """``define('DB_PASSWORD', 'value')``: the literal second argument of a call whose
    first argument is the quoted key. Only a value shaped like a password or a key counts
    (``("password", "Contraseña")`` is a label)."""
    quote = text[key_start - 1]
    if not _CALL_OPEN.search(text, max(0, key_start - 12), key_start - 1):
        return None
    m = _CALL_TAIL.match(text, kw_end)
    if m is None or m.group(1) != quote:
        return None
    value, start, end = m.group(3), m.start(3), m.end(3)
    if (is_placeholder(value) or variable_reference(value) or re.search(r"\s", value)
            or _TEMPLATE.search(value) and not random_looking(value)):
        return None  # a reference, a template, words (`("password", "api token")`); a
        # generated key may end in `)` (WordPress's salts draw from punctuation)
    if IDENT_CHAIN.fullmatch(value) and not random_looking(value) and (
            sum(c.isdigit() for c in value) < 3 and switch_rate(value) < 0.45
            or _NAMES_A_SECRET.search(value)):
        return None  # a name: `field_serializer('password', 'password_bytes')`
    password = bool(_PASSWORD_KEY.search(key))
    if not (random_looking(value) or password and looks_like_password(value)
            and any(not c.isalpha() for c in value)):
        return None
    return ("password" if password else "credential"), start, end, f"{key}, " + preview(value)


_PATH = lazy(r"(?:\.{1,2}|~)/[\w.\-/]*")
_CONCATENATED = lazy(r"[ \t]*\+[ \t]*[\"'`\w]")
_CAPITALISED = lazy(r"[A-Z][a-z]+")
_TO_QUOTE = lazy(r"[^\s\"']{0,256}")
_TO_SEMICOLON = lazy(r"[^\s\"';`]{0,256}")
# A libpq keyword/value string (`host=... dbname=... user=... password=...`): the value
# runs to the next space, `=` and all.
_LIBPQ = lazy(r"(?:^|[\s\"'])(?:host|hostaddr|dbname|user|port|sslmode)=[^\s=]+[ \t]")


def _libpq(text: str, key_start: int) -> bool:
    """True when the key at ``key_start`` follows other settings of a libpq string on its
    line, after a space."""
    if key_start == 0 or text[key_start - 1] not in " \t":
        return False
    lo = text.rfind("\n", max(0, key_start - 300), key_start) + 1
    return _LIBPQ.search(text, lo, key_start) is not None
_TO_SPACE = lazy(r"\S*")
# A Google app password written bare, as its page shows it, alone on a dotenv line.
_APP_GROUPS = lazy(r"([a-z]{4}(?: [a-z]{4}){3})[ \t]*(?:\r?\n|$)")


def _line_lead(text: str, key_start: int) -> str:
    """What stands before a key on its line (bounded: a long line is not a config line)."""
    lo = max(0, key_start - 40)
    nl = text.rfind("\n", lo, key_start)
    if nl < 0 and lo > 0:
        return "…"
    return text[nl + 1: key_start].strip()
# `LoadCredential=db-password:/etc/credstore/db-password`: a file of two folders or more.
_ABSOLUTE_PATH = lazy(r"/[A-Za-z_][\w.\-]*(?:/[\w.\-]+)+")
_YAML_TAG = lazy(r"!{1,2}[A-Za-z_][\w.\-/:]*")


def _trim_end(text: str, value: str, start: int, key_start: int) -> str:
    """A bare value without the full stop or colon that ends a sentence ("the password is
    in the vault: see below."), kept where it cannot end one: inside a structure (before a
    connection string's `;` or a query's `&`) or at the end of a config line that the key
    begins, where a generated password may well end in a dot."""
    trimmed = value.rstrip(".:")
    if trimmed == value:
        return value
    after = text[start + len(value): start + len(value) + 1]
    if after and not after.isspace():
        return value
    lo = max(0, key_start - 40)  # bounded: a scan back to the text's start is quadratic
    nl = text.rfind("\n", lo, key_start)
    if _AFTER_FLAG.search(text, max(lo, nl + 1), key_start) and after in ("", "\n", "\r"):
        return value  # `helm ... --set auth.password=X.`, `docker run -e PW=X.`: a command
    if nl < 0 and lo > 0:
        return trimmed  # the key is far from any line start: prose, not a config line
    lead = text[nl + 1:key_start].strip()
    if lead in ("", "-", "export", "set", "$env:", "ENV") and after in ("", "\n", "\r"):
        return value
    return trimmed


# A command-line flag that takes `key=value` right before the key: `--set `, `-e `.
_AFTER_FLAG = lazy(r"(?:^|[ \t])--?[A-Za-z][A-Za-z0-9\-]*[ \t]+$")


# `<password>...</password>`, `<ApiKey>...</ApiKey>`: an XML element named for a secret.
_XML_CLOSE = lazy(r">([^<>\n]{1,4096})</((?:[A-Za-z_][\w.\-]*:)?([A-Za-z_][\w.\-]{0,60}))>")


def xml_elements(text: str, low: str) -> Iterator[Found]:
    if "</" not in text:
        return
    for m in _XML_CLOSE.finditer(text):
        tag, name = m.group(2), m.group(3)
        opening = text.rfind("<", max(0, m.start() - len(tag) - 200), m.start())
        if opening < 0 or not text.startswith(tag, opening + 1):
            continue
        after = text[opening + 1 + len(tag): opening + 2 + len(tag)]
        if after not in (">", " ") or not secret_key_name(name):
            continue
        value = m.group(1).strip()
        s = m.start(1) + m.group(1).index(value) if value else m.start(1)
        password = bool(_PASSWORD_KEY.search(name))
        if not value or is_placeholder(value) and not _dollar_literal(value) or _TEMPLATE.search(
                value) or variable_reference(value):
            continue
        if len(value) < (4 if password else 8) or not password and not mixed(value):
            continue
        kind = "password" if password else "credential"
        yield kind, s, s + len(value), f"<{name}>" + preview(value)


def _dollar_literal(value: str) -> bool:
    """``$wcaSwqIf0CR`` in a config file: shaped like ``$VAR`` but mixed case, a password."""
    return value.startswith("$") and not variable_reference(value)
