"""Secrets recognised by what surrounds them: a command line (``curl -u user:pw``,
``mysql -pPW``, ``--token X``), a URL with credentials, an ``Authorization`` header, a
netrc or pgpass line; with :mod:`.assign` (a key that names a secret: ``password =``,
``"api_key":``) and :mod:`.prose` (a sentence that gives one: "the wifi password is ...")
they make up :data:`RULES`.

Each rule yields ``(kind, start, end, preview)`` for the value only. Keywords are found in
the lower-cased text (case-insensitive regexes are several times slower) and the value is
read from the original.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_re import lazy
from . import forms, given, tools
from .assign import assignments, secret_key_name, xml_elements
from .prose import answers, named_values, pairs, prose, seed_phrases, use_as
from .values import (
    decodes_to_user_password,
    entropy,
    is_placeholder,
    is_public,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    stand_in,
    starts_word,
    variable_reference,
)

_UUID = lazy(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")

Found = tuple[str, int, int, str]


# ---------------------------------------------------------------------- AWS secret key
_AWS_SECRET = lazy(
    r"aws[a-z0-9_.\-]{0,24}secret[a-z0-9_.\-]{0,24}[\"']?\s*(?::=|=>|=|:)\s*"
    r"[\"']?([a-z0-9/+]{40})(?![a-z0-9/+=])"
)


def aws_secrets(text: str, low: str) -> Iterator[Found]:
    for m in _AWS_SECRET.finditer(low):
        value = text[m.start(1): m.end(1)]
        if starts_word(low, m.start()) and mixed(value) and not is_placeholder(value):
            yield "aws_secret_key", m.start(1), m.end(1), preview(value)


# ---------------------------------------------------------------------- URLs
# `scheme://user:password@host`, found from its `://` (the scheme is read backwards). The
# password may hold an `@` itself (people paste them unencoded): the last `@` before the
# host ends it. The user may be empty (`redis://:pw@host`), or an LDAP bind DN whose
# commas start its next component (`ldaps://cn=admin,dc=example,dc=org:pw@host`).
_CONNECTION = lazy(
    r"://((?:[^\s:/@'\"<>,]|,(?=[A-Za-z]+=)){0,128}):([^\s'\"<>/,]{1,256})@([A-Za-z0-9\[][^\s/'\"<>@?#]{0,255})"
)
_SCHEME_TAIL = lazy(r"[a-zA-Z][a-zA-Z0-9+.\-]{0,30}$")


def connection_strings(text: str, low: str) -> Iterator[Found]:
    for m in _CONNECTION.finditer(text):
        scheme = _SCHEME_TAIL.search(text, max(0, m.start() - 31), m.start())
        pw = m.group(2)
        if scheme is None or not starts_word(text, scheme.start()):
            continue
        if is_placeholder(pw) or pw.isdigit() and len(pw) <= 5:
            continue
        if m.group(1).startswith(("[masked", "[REDACTED")):
            continue  # https://[masked:github_token]@host: already masked
        kind = "connection_string"
        shown = f"{scheme.group(0)}://{m.group(1)}:{preview(pw)}@{m.group(3)}"
        yield kind, m.start(2), m.end(2), shown


_SIGNED = lazy(
    r"(?:[?&;](?:sig|signature|x-amz-signature|x-goog-signature|x-amz-security-token|"
    r"access_token|private_token|client_secret|api_key|apikey|api-key|appid|app_key|appkey|"
    r"token|key|secret)=|"
    r"(?:accountkey|sharedaccesskey|sharedaccesssignature)=)"
    r"([a-z0-9%+/=_\-.~]{16,})")


def signed_urls(text: str, low: str) -> Iterator[Found]:
    """``?sig=`` (Azure SAS), ``X-Amz-Signature=``, ``AccountKey=``, ``?access_token=``."""
    for m in _SIGNED.finditer(low):
        value = text[m.start(1): m.end(1)]
        if is_placeholder(value) or not mixed(value.replace("%", "")):
            continue
        if len(value) < 20 and entropy(value) < 3.5:
            continue
        name = text[m.start(): m.start(1)].strip("?&;=")
        yield "signed_url", m.start(1), m.end(1), f"{name}={preview(value)}"


# ---------------------------------------------------------------------- headers
# The scheme is any word before a space: besides Basic and Bearer, providers name their
# own (Okta's `SSWS`, Opsgenie's `GenieKey`, `Token`, `Klaviyo-API-Key` ...).
_AUTH_HEADER = lazy(
    r"(?:authorization|proxy-authorization)(?:[\"']?\s*[:=,]\s*[\"']?|[ \t]+[\"'])"
    r"(?:(basic|bearer|token|digest|apikey|api-key|key|sso-key)|([a-z][a-z0-9_\-]{1,24})"
    r"(?=[ \t]))?\s*([a-z0-9+/=._~\-:]{8,})")
_BEARER = lazy(r"bearer\s+([a-z0-9._~+/\-]{20,}=*)(?![a-z0-9._~+/\-])")


def _min_entropy(value: str) -> float:
    """Hex carries at most 4 bits a character, base64 6: the bar is lower for hex."""
    return 3.0 if all(c in "0123456789abcdefABCDEF" for c in value) else 3.3


def headers(text: str, low: str) -> Iterator[Found]:
    for m in _AUTH_HEADER.finditer(low):
        scheme = m.group(1) or m.group(2) or ""
        value = text[m.start(3): m.end(3)].rstrip("\"'")
        end = m.start(3) + len(value)
        if stand_in(value) or is_public(value):
            continue  # (a browser SDK's `authorization:` given its public tokenization key)
        if m.group(2) is not None and "=" in value.rstrip("="):
            continue  # `AWS4-HMAC-SHA256 Credential=...`: parameters of a signed request
        if scheme == "basic":
            if decodes_to_user_password(value):
                yield "basic_auth", m.start(3), end, "Basic " + preview(value)
            continue
        if len(value) >= 16 and mixed(value) and entropy(value) >= _min_entropy(value):
            yield "bearer_token", m.start(3), end, f"{scheme or 'Authorization'} " + preview(value)
    for m in _BEARER.finditer(low):
        value = text[m.start(1): m.end(1)]
        if (starts_word(low, m.start()) and mixed(value) and not is_placeholder(value)
                and entropy(value) >= 3.5):
            yield "bearer_token", m.start(1), m.end(1), "Bearer " + preview(value)


# `Cookie: sessionid=...; theme=dark`, `Set-Cookie: ...`, `curl --cookie "sid=..."`.
_COOKIE_HEADER = lazy(r"cookie(?:[ \t]*:[ \t]*|[ \t=]+[\"']?)")
_COOKIE_PAIR = lazy(r"([A-Za-z0-9_.\-]{1,64})=([^;\s\"',]{1,4096})")
_CURL_COOKIE = lazy(r"[ \t]-b[ \t]+[\"']?")
# Cookies set by analytics scripts (Hotjar, Google Analytics, Segment, Mixpanel, Matomo,
# Clarity, Amplitude): they count visits and log no one in.
_ANALYTICS_COOKIE = lazy(r"_hj|_ga|_gid|ajs_|_fbp|mp_|_pk_|_clck|_clsk|amp_|amplitude")
_SESSION_NAME = lazy(r"sess|sid|auth|token|jwt|remember|login|identity|credential")


# The session cookies of the common web frameworks, recognised by name alone (pasted from
# a browser's devtools without the `Cookie:` header around them).
_SESSION_COOKIE = lazy(r"(?:phpsessid|jsessionid|asp\.net_sessionid|connect\.sid|"
                       r"laravel_session|_session_id|sessionid|ci_session)=")


def cookies(text: str, low: str) -> Iterator[Found]:
    """The values of session and authentication cookies in a cookie header or flag."""
    if "sess" in low or "connect.sid" in low:
        for n in forms.in_lines(_SESSION_COOKIE, low, (
                "sessid", "sessionid", "connect.sid", "_session")):
            if starts_word(low, n.start()):
                end = low.find("\n", n.start())
                yield from _session_pairs(text, n.start(), len(text) if end < 0 else end)
    if " -b" in low and "curl" in low:  # curl's `-b 'name=value'` is `--cookie`
        for b in _CURL_COOKIE.finditer(low):
            if "curl" not in low[max(0, b.start() - 200): b.start()].rsplit("\n", 1)[-1]:
                continue
            line_end = low.find("\n", b.end())
            yield from _session_pairs(text, b.end(), len(text) if line_end < 0 else line_end)
    if "cookie" not in low:
        return
    scanned = 0  # each line is read once, however many `cookie` words it holds
    for h in _COOKIE_HEADER.finditer(low):
        if h.start() < scanned:
            continue
        before = low[max(0, h.start() - 4): h.start()]
        header = ":" in h.group(0) and (h.start() == 0 or before[-1:] in " \t\n\"'-")
        if not header and not before.endswith("--"):
            continue  # a `Cookie:` / `Set-Cookie:` header or curl's `--cookie`
        line_end = low.find("\n", h.end())
        scanned = len(text) if line_end < 0 else line_end
        yield from _session_pairs(text, h.end(), scanned)


def _session_pairs(text: str, start: int, end: int) -> Iterator[Found]:
    """The session and authentication cookies among ``name=value`` pairs in a span."""
    for m in _COOKIE_PAIR.finditer(text, start, end):
        name, value = m.group(1), m.group(2)
        if not _SESSION_NAME.search(name.lower()) or is_placeholder(value):
            continue
        if _ANALYTICS_COOKIE.match(name):
            continue  # `_hjSessionUser_<site>`, `_ga_<id>`: an analytics visitor id, no login
        if len(value) >= 16 and (mixed(value) or len(value) >= 24) and entropy(value) >= 3.0:
            yield "session_cookie", m.start(2), m.end(2), f"{name}=" + preview(value)


_DOCKER_AUTH = lazy(r"\"(?:auth|identitytoken|registrytoken)\"\s*:\s*\"([a-z0-9+/=_\-.]{8,})\"")


def docker_auth(text: str, low: str) -> Iterator[Found]:
    """``"auth": "<base64 of user:password>"`` in a Docker or Podman config."""
    for m in _DOCKER_AUTH.finditer(low):
        value = text[m.start(1): m.end(1)]
        if decodes_to_user_password(value) or (len(value) >= 20 and mixed(value)):
            yield "docker_auth", m.start(1), m.end(1), '"auth": ' + preview(value)


# ---------------------------------------------------------------------- command lines
# `--password X`, `--token=X`, `--api-key X`, `-p X` for the tools where -p is a password.
_FLAG = lazy(
    r"(--?(?:[a-z0-9]{1,16}-){0,3}(?:store|key|src|dest|srcstore|deststore|new|old|admin|db|"
    r"root|user|master|bind|login)?(?:password|passwd|passin|passout|pass|pwd|token|secret|api-?key|"
    r"auth-?token|access-?key|secret-?key|client-?secret|authtoken))(?:=|[ \t]+)"
    r"(?!-)([\"'][^\"'\n]{1,200}[\"']|[^\s\"'|;&<>]{1,200})")
# Short flags that take a password for some tools only: each letter, the tools that read it
# so, and whether the value may follow with a space (`-P PW`) or only glued (`-pPW`, where
# the MySQL family reads `-p db` as "ask, then use the database db").
_SHORT_FLAG = lazy(r"-([pPawt])([ \t]*)([\"'][^\"'\n]{1,200}[\"']|[^\s\"'`|;&<>]{1,200})")
_SHORT_TOOLS = {
    ("p", True): lazy(r"\b(?:sshpass|docker login|podman login|helm registry login|"
                      r"mongo|mongosh|mongodump|mongorestore|mongoexport|mongoimport|"
                      r"rabbitmqadmin|influx|cqlsh|altool)\b"),
    ("p", False): lazy(r"\b(?:mysql|mysqldump|mysqladmin|mariadb|mariadb-dump|mysqlimport|"
                       r"7z|7za|7zz|rar|unrar)\b"),
    ("P", True): lazy(r"\b(?:sqlcmd|bcp|osql|isql|ipmitool|zip|unzip|vncpasswd)\b"),
    ("a", True): lazy(r"\b(?:redis-cli|keydb-cli|valkey-cli)\b"),
    ("t", True): lazy(r"\b(?:codecov|doctl)\b"),
    ("w", True): lazy(r"\bldap(?:search|add|modify|delete|whoami|passwd|compare|modrdn|"
                      r"exop)\b"),
}
# `-p` is a password for a few tools: `-pPW` (no space) for the MySQL family, where
# `-p db` asks for the password and names the database; `-p PW` for the others.
# `smbclient -U user%password`, `rpcclient -U user%password`: Samba's user and password.
_SAMBA_USER = lazy(r"(?:-u|--user)[ \t=]*[\"']?[^\s%\"'`:,]{1,128}%([^\s\"'`]{1,200})")
# Commands that take a password as a positional argument.
_PW_ARG = r"[ \t]+([\"'][^\"'\n]{1,200}[\"']|[^\s\"'`|;&<>]{1,200})"
_POSITIONAL = tuple(lazy(p + _PW_ARG) for p in (
    r"rabbitmqctl[ \t]+(?:add_user|change_password)[ \t]+\S+",
    r"htpasswd[ \t]+(?:-[a-z]*b[a-z]*[ \t]+)(?:-[a-z]+[ \t]+)*\S+[ \t]+\S+",
    r"net[ \t]+user[ \t]+\S+",
    r"sshpass[ \t]+-p",
    r"net[ \t]+use[ \t]+(?:[a-z*]:[ \t]+)?\\\\[^\s\\]+\\\S+",  # net use Z: \\host\share PW
    # ... /user:DOMAIN\name PW: the password right after the user it belongs to
    r"net[ \t]+use[ \t]+(?:[a-z*]:[ \t]+)?\\\\[^\s\\]+\\\S+[ \t]+/u(?:ser)?:\S+",
    # poetry config http-basic.<repo> <user> <password>
    r"poetry[ \t]+config[ \t]+http-basic\.\S+[ \t]+\S+"))
_POSITIONAL_WORDS = ("rabbitmqctl", "htpasswd", "net", "sshpass", "net use", "net use",
                     "http-basic")
# `npm config set //host/:_authToken VALUE`, `yarn config set npmAuthToken VALUE`,
# `git config --global github.token VALUE`: a setting named for a secret, then its value.
_CONFIG_SET = lazy(r"config[ \t]+(?:set[ \t]+|(?:--[a-z]+[ \t]+)+)"
                   r"([^\s=]{1,120})[ \t]+([\"'][^\"'\n]{1,200}[\"']|[^\s\"'`|;&<>]{1,200})")
# `snyk auth VALUE`, `vault login VALUE`: a CLI's auth subcommand given the token itself.
_AUTH_VALUE = lazy(r"[ \t]+([A-Za-z0-9][A-Za-z0-9_\-.]{15,200})(?![^\s|;&<>])")
_CURL_USER = lazy(
    r"(?:-u|--user|--proxy-user|-U|-a|--auth)[ \t=]*[\"']?([^\s:\"'`]{1,128}):([^\s\"'`]{1,200})")
_ADD_TOKEN = lazy(r"(?:add-authtoken|login --with-token|set-token|auth init -t)"
                        r"[ \t]+([^\s\"'|;&<>-][^\s\"'|;&<>]{7,200})")


_ADD_TOKEN_WORDS = ("add-authtoken", "with-token", "set-token", "auth init")


def _unquote(text: str, start: int, end: int) -> tuple[str, int, int]:
    v = text[start:end]
    if len(v) >= 2 and v[0] in "\"'" and v[-1] == v[0]:
        return v[1:-1], start + 1, end - 1
    return v, start, end


def _flag_value_ok(value: str, password: bool, quote: str = "") -> bool:
    if is_placeholder(value) or value.startswith(("{", "<", "/", "~", "./", "@")):
        return False
    if quote != "'" and variable_reference(value):  # '$...' is literal in a shell
        return False
    if "(" in value or value.endswith((".txt", ".json", ".pem", ".key", ".env", ".yaml")):
        return False
    if password:
        return len(value) >= 4 and not value.isalpha() or len(value) >= 8
    return len(value) >= 12 and mixed(value)


_FLAG_BEFORE = frozenset(" \t\n\r;|&(`")


def command_before(low: str, pos: int) -> str:
    """The command a flag at ``pos`` belongs to, up to the flag: its line and the lines
    before it that it continues (a shell's `\\`, PowerShell's backtick, cmd's `^` at a
    line's end), at most 400 characters back."""
    lo = max(0, pos - 400)
    start = low.rfind("\n", lo, pos)
    while start > lo:
        if not low[max(lo, start - 3): start].rstrip(" \t\r").endswith(("\\", "`", "^")):
            break
        start = low.rfind("\n", lo, start)
    return low[start + 1: pos] if start >= 0 else low[lo: pos]


def command_lines(text: str, low: str) -> Iterator[Found]:
    for m in _FLAG.finditer(low):
        if m.start() and low[m.start() - 1] not in _FLAG_BEFORE:
            continue
        flag = m.group(1)
        if flag.endswith(("-file", "-stdin", "-env", "-path")):
            continue
        value, s, e = _unquote(text, m.start(2), m.end(2))
        if flag.endswith(("passin", "passout", "pass")) and value.startswith(("pass:", "env:")):
            if value.startswith("env:"):
                continue  # openssl `-passout env:VAR`: a reference
            value, s = value[5:], s + 5  # openssl `-passout pass:PW`
        password = "pass" in flag or "pwd" in flag
        if _flag_value_ok(value, password, text[m.start(2)]):
            yield ("password" if password else "credential"), s, e, f"{flag} {preview(value)}"
    if " -" in text or "\t-" in text:
        for m in _SHORT_FLAG.finditer(text):
            if not m.start() or text[m.start() - 1] not in " \t":
                continue
            letter, spaced = m.group(1), bool(m.group(2))
            line = command_before(low, m.start())
            tools = _SHORT_TOOLS.get((letter, spaced))
            if letter == "p" and spaced and tools is not None and not tools.search(line):
                tools = None
            if tools is None and (letter, True) in _SHORT_TOOLS and not spaced:
                tools = _SHORT_TOOLS[(letter, True)]  # `-Ppw`, `-awd`: glued works too
            if tools is None or not tools.search(line):
                continue
            value, s, e = _unquote(text, m.start(3), m.end(3))
            password = letter != "t"  # `-t` is a token (codecov, doctl)
            if _flag_value_ok(value, password, text[m.start(3)]):
                yield "password" if password else "credential", s, e, f"-{letter} " + preview(value)
    if "%" in text:
        for m in _SAMBA_USER.finditer(low):
            value, s, e = text[m.start(1): m.end(1)], m.start(1), m.end(1)
            if _flag_value_ok(value, True):
                yield "password", s, e, "-U …%" + preview(value)
    for word, rx in zip(_POSITIONAL_WORDS, _POSITIONAL):
        if word not in low:
            continue
        for m in rx.finditer(low):
            if not starts_word(low, m.start()):
                continue
            value, s, e = _unquote(text, m.start(1), m.end(1))
            if _flag_value_ok(value, True, text[m.start(1)]):
                yield "password", s, e, preview(value)
    if "config set" in low or "config --" in low:
        for m in _CONFIG_SET.finditer(low):
            if not starts_word(low, m.start()):
                continue
            name = text[m.start(1): m.end(1)]
            tail = re.split(r"[/:.]", name)[-1]
            if not secret_key_name(tail):
                continue
            value, s, e = _unquote(text, m.start(2), m.end(2))
            password = bool(re.search(r"(?i)pass|pwd", tail))
            if _flag_value_ok(value, password, text[m.start(2)]):
                yield "password" if password else "credential", s, e, preview(value)
    for word in (" auth", " login"):
        i = low.find(word)
        while i > 0:
            m = _AUTH_VALUE.match(text, i + len(word))
            if m is not None and text[i - 1].isalnum():  # `snyk auth X`, `vault login X`
                value, s, e = m.group(1), m.start(1), m.end(1)
                if _UUID.fullmatch(value) or random_looking(value):
                    yield "credential", s, e, preview(value)
            i = low.find(word, i + 1)
    for m in _CURL_USER.finditer(low):
        if m.start() and low[m.start() - 1] not in _FLAG_BEFORE:
            continue
        if "[masked" in m.group(1) or "[redacted" in m.group(1):
            continue  # `-U user%[masked:password]`: what masking left
        value, s, e = text[m.start(2): m.end(2)], m.start(2), m.end(2)
        if (not is_placeholder(value) and not variable_reference(value)
                and not value.startswith(("{", "<")) and len(value) >= 4):
            yield "password", s, e, f"-u {text[m.start(1):m.end(1)]}:{preview(value)}"
    if "token" not in low or not any(w in low for w in _ADD_TOKEN_WORDS):
        return
    for m in _ADD_TOKEN.finditer(low):
        value, s, e = text[m.start(1): m.end(1)], m.start(1), m.end(1)
        if _flag_value_ok(value, False):
            yield "credential", s, e, preview(value)


# ---------------------------------------------------------------------- files
_NETRC = lazy(r"machine\s+\S+\s+(?:login\s+\S+\s+)?password\s+(\S+)|"
                    r"login\s+\S+\s+password\s+(\S+)")
_PGPASS = lazy(r"(?m):(?:\d{2,5}|\*):[^\s:]+:[^\s:]+:(\S{4,})[ \t]*$")
_PGPASS_HOST = lazy(r"(?:^|\s)[A-Za-z0-9.\-*_\[\]]+$")
# Hex fields joined by colons: a certificate's serial, a fingerprint, a MAC address, a
# request id (`E2F8:25206:8B5C68D:...`); a pgpass line has words for its user and database.
_HEX_FIELDS = lazy(r"[0-9A-Fa-f]+(?::[0-9A-Fa-f]+)+:?")
_XML_VALUE = lazy(r"value=\"([^\"]{4,300})\"")
_XML_KEY = lazy(r"(?:key|name)=\"[^\"]{0,60}(?:password|passwd|pwd|secret|token|apikey"
                      r"|api_key|connectionstring)[^\"]{0,30}\"\s+$")
_K8S_SECRET = lazy(r"(?m)^kind:\s*secret\s*$")
_K8S_DATA = lazy(r"(?m)^(?:data|stringdata):\s*$((?:\n[ \t]+[^\n]*)+)")
_K8S_ITEM = lazy(r"\n[ \t]+[\w.\-]+:[ \t]*([a-z0-9+/=._\-]{4,})[ \t]*(?=\n|$)")


def files(text: str, low: str) -> Iterator[Found]:
    if "password" in low and ("machine" in low or "login" in low):
        yield from _netrc(text, low)
    if ":" in text:
        for m in _PGPASS.finditer(text):
            if not _PGPASS_HOST.search(text, max(0, m.start() - 80), m.start()):
                continue
            value = m.group(1)
            lo = max(0, m.start() - 120)
            word_start = max(lo - 1, *(text.rfind(c, lo, m.start()) for c in " \t\n")) + 1
            if _HEX_FIELDS.fullmatch(text[word_start: m.end()]):
                continue
            if looks_like_password(value) or (len(value) >= 8 and mixed(value)):
                yield "password", m.start(1), m.end(1), "pgpass " + preview(value)
    if 'value="' in low:
        for m in _XML_VALUE.finditer(low):
            key = _XML_KEY.search(low, max(0, m.start() - 120), m.start())
            if not key or "csrf" in key.group(0) or "xsrf" in key.group(0):
                continue  # an anti-forgery token: per request, not a credential
            value = text[m.start(1): m.end(1)]
            if (not is_placeholder(value) and not variable_reference(value)
                    and not value.startswith(("{", "%"))):
                yield "password", m.start(1), m.end(1), 'value="' + preview(value) + '"'
    if "secret" in low and _K8S_SECRET.search(low):
        for block in _K8S_DATA.finditer(low):
            for m in _K8S_ITEM.finditer(low, block.start(1), block.end(1)):
                value = text[m.start(1): m.end(1)]
                if not is_placeholder(value):
                    yield "credential", m.start(1), m.end(1), "Secret data " + preview(value)


def _netrc(text: str, low: str) -> Iterator[Found]:
    for m in _NETRC.finditer(low):
        g = 1 if m.group(1) is not None else 2
        value = text[m.start(g): m.end(g)]
        if not is_placeholder(value) and not variable_reference(value):
            yield "password", m.start(g), m.end(g), "netrc password " + preview(value)


RULES = (aws_secrets, connection_strings, signed_urls, headers, cookies, docker_auth,
         command_lines, files, assignments, xml_elements, prose, use_as, pairs, named_values,
         seed_phrases, answers, *forms.RULES, *given.RULES, *tools.RULES)
