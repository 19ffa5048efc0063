"""Secrets given by the form of a program's input rather than by a key word: the arguments
of a call that logs in, a literal echoed into a command that reads a password on stdin,
a Wi-Fi QR payload, a driver's DSN, an Oracle ``user/password@``, a webhook's path, a
keypair file of bytes, and the secret passed beside a key id it belongs to.

Each rule yields ``(kind, start, end, preview)`` for the value only, as those of
:mod:`.context` do; keywords are found in the lower-cased text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_re import lazy
from .values import (
    entropy,
    is_placeholder,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    starts_word,
    variable_reference,
)

Found = tuple[str, int, int, str]


def lines_with(low: str, needles: tuple[str, ...]) -> list[tuple[int, int]]:
    """The spans of the lines that hold one of ``needles``, in order: these rules' regexes
    start with no literal, so they run over those lines only (``str.find`` is far cheaper
    than a regex trying every position of a long text)."""
    spans = set()
    for needle in needles:
        i = low.find(needle)
        while i >= 0:
            s = low.rfind("\n", 0, i) + 1
            e = low.find("\n", i)
            e = len(low) if e < 0 else e
            spans.add((s, e))
            i = low.find(needle, e)
    return sorted(spans)



def _quoted(group: int) -> str:
    """A quoted literal whose quote is capture group ``group`` (its text the next one)."""
    return rf"([\"'])([^\"'\n]{{1,200}})\{group}"


def _password_literal(value: str, quote: str = "\"") -> bool:
    """A literal that reads as a password: not a placeholder, a reference or a word."""
    if is_placeholder(value) or value.startswith(("{", "<", "$(")):
        return False
    if quote != "'" and variable_reference(value):
        return False
    return random_looking(value) or (looks_like_password(value)
                                     and any(c.isdigit() for c in value)
                                     and any(not c.isalnum() for c in value)
                                     or len(value) >= 8 and mixed(value)
                                     and any(c.isdigit() for c in value)
                                     and any(c.isalpha() for c in value))


# ---------------------------------------------------------------------- calls
# `new NetworkCredential("user", "pw")`, `client.login("user", "pw")`, `HTTPBasicAuth(...)`,
# `auth=("user", "pw")`: a user then a password, both literals, given to something that
# logs in.
_LOGIN_CALL = lazy(
    r"(?:networkcredential|usernamepasswordcredentials|passwordauthentication|"
    r"httpbasicauth|httpdigestauth|basicauth|\.login|\.authenticate|\.auth|\bauth[ \t]*=)"
    r"[ \t]*\(?[ \t]*\(" r"[ \t]*([\"'])[^\"'\n]{1,128}\1[ \t]*,[ \t]*" + _quoted(2))


def login_calls(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_LOGIN_CALL, low, ("credential", "login", "auth")):
        value, s = text[m.start(3): m.end(3)], m.start(3)
        if _password_literal(value, m.group(2)):
            yield "password", s, m.end(3), "login(…, " + preview(value) + ")"


# ---------------------------------------------------------------------- shell
# `echo 'pw' | sudo -S ...`, `echo "pw" | docker login --password-stdin`, `echo 'pw' >
# ~/.vault_pass`: a literal that a command reads as its password, or that is written to a
# file named for one.
_ECHO = lazy(r"\b(?:echo|printf)[ \t]+(?:-[ne]+[ \t]+)?" + _quoted(1) + r"[ \t]*(\||>>?)([^\n]*)")
_READS_PASSWORD = lazy(r"--password-stdin|--pass(?:word)?-?stdin|--passphrase-fd[ \t=]+0\b|\bsudo[ \t]+(?:-\w+[ \t]+)*-s\b|"
                       r"\bchpasswd\b|\bpasswd[ \t]+--stdin\b|\bkinit\b|--stdin-pass|"
                       r"\baz[ \t]+devops[ \t]+login\b")
_SECRET_FILE = lazy(r"^[ \t]*[^\s|;&]*(?:pass|pwd|secret|token|cred|\.key\b|cookie\b)")


def echoed(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_ECHO, low, ("echo", "printf")):
        rest = m.group(4)
        target = (_READS_PASSWORD.search(rest) if m.group(3) == "|"
                  else _SECRET_FILE.search(rest))
        if target is None:
            continue
        value, s = text[m.start(2): m.end(2)], m.start(2)
        if len(value) >= 6 and _password_literal(value, m.group(1)):
            yield "password", s, m.end(2), "echo " + preview(value)


# ---------------------------------------------------------------------- directives
# A setting named for a password given its value without `=` or `:`: a config directive
# alone on its line (`requirepass X` in redis.conf, Gradle's `storePassword 'X'`), a
# setter call (`.password("X")` in a builder), a pre-shared key (`: PSK "X"`, ipsec.secrets).
_DIRECTIVE = lazy(r"(?m)^[ \t]*([A-Za-z_]*(?:pass(?:word|wd|phrase)?|secret)[A-Za-z_]*)[ \t]+"
                  r"([\"']?)([^\s\"']{4,200})\2[ \t]*;?[ \t]*$", re.IGNORECASE)
_SETTER = lazy(r"\.(?:password|passwd|passphrase|secret)[ \t]*\([ \t]*" + _quoted(1) + r"[ \t]*\)")
_PSK = lazy(r":[ \t]*PSK[ \t]+" + _quoted(1))


def directives(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_DIRECTIVE, text, ("pass", "secret"), low):
        value, s = m.group(3), m.start(3)
        if "://" in value:
            continue  # nginx's `proxy_pass http://...`: where requests go, not a password
        if _password_literal(value, m.group(2) or "'"):
            yield "password", s, m.end(3), m.group(1) + " " + preview(value)
    for rx, needle in ((_SETTER, "("), (_PSK, "psk")):
        for m in in_lines(rx, text, (".password", ".passwd", ".passphrase", ".secret")
                          if needle == "(" else (" psk ",), low):
            value, s = m.group(2), m.start(2)
            if _password_literal(value, m.group(1)):
                yield "password", s, m.end(2), "…(" + preview(value) + ")"


# ---------------------------------------------------------------------- Wi-Fi QR
# `WIFI:T:WPA;S:<ssid>;P:<password>;;`, the payload of the QR codes phones scan to join a
# network; `\;` escapes a semicolon inside a field.
_WIFI_FIELD = lazy(r"[:;]P:((?:\\.|[^;\\\n]){1,128});")


def wifi_qr(text: str, low: str) -> Iterator[Found]:
    if "WIFI:" not in text:
        return
    for m in in_lines(_WIFI_FIELD, text, ("WIFI:",)):
        head = text.rfind("WIFI:", max(0, m.start() - 200), m.start() + 1)
        if head < 0 or "\n" in text[head: m.start()]:
            continue
        value = m.group(1)
        if not is_placeholder(value) and len(value) >= 8:
            yield "password", m.start(1), m.end(1), "WIFI:…P:" + preview(value)


# ---------------------------------------------------------------------- DSNs
# Go's MySQL driver: `user:password@tcp(host:port)/db`, `@unix(/path)`.
_GO_DSN = lazy(r"[A-Za-z0-9_.\-]{1,64}:([^\s\"'`]{1,200})@(?:tcp6?|udp|unix)\(")
# Oracle's `user/password@connect_identifier` after the tools and commands that take one.
_ORACLE = lazy(r"\b(?:sqlplus|rman|expdp|impdp|sqlldr|dgmgrl|exp|imp|conn|connect)"
               r"(?:[ \t]+(?:-\w+|target|auxiliary|catalog))*[ \t]+[\"']?[A-Za-z0-9_$#]{1,30}/"
               r"([^\s\"'/]{1,128})@")


def dsns(text: str, low: str) -> Iterator[Found]:
    if "@tcp" in low or "@unix(" in low or "@udp(" in low:
        for m in in_lines(_GO_DSN, text, ("@tcp", "@unix(", "@udp("), low):
            value = m.group(1)
            if starts_word(text, m.start()) and not is_placeholder(value) and len(value) >= 4:
                yield "connection_string", m.start(1), m.end(1), "…:" + preview(value) + "@"
    if "/" in text and "@" in text:
        for m in in_lines(_ORACLE, low, ("/",), low, must="@"):
            value = text[m.start(1): m.end(1)]
            if not is_placeholder(value) and not variable_reference(value) and len(value) >= 4:
                yield "connection_string", m.start(1), m.end(1), "…/" + preview(value) + "@"


# ---------------------------------------------------------------------- webhook paths
# `https://chat.example/hooks/<id>`: Mattermost, Rocket.Chat and many self-hosted chats take
# incoming messages at a path whose random part is the only credential.
_HOOK_PATH = lazy(r"https?://[^\s/\"'<>]+/hooks/([A-Za-z0-9]{20,64}(?:/[A-Za-z0-9_\-]{16,})?)"
                  r"(?![A-Za-z0-9_\-])")


def webhook_paths(text: str, low: str) -> Iterator[Found]:
    if "/hooks/" not in text:
        return
    for m in _HOOK_PATH.finditer(text):
        value = m.group(1)
        if mixed(value) and entropy(value) >= 3.5:
            yield "webhook", m.start(1), m.end(1), "…/hooks/" + preview(value)


# ---------------------------------------------------------------------- keypair bytes
# A keypair saved as a JSON array of its 64 bytes (Solana's `id.json`, ed25519 seeds and
# public key together), under a word that says it is one.
_BYTES64 = lazy(r"\[[ \t\n]*((?:\d{1,3}[ \t]*,[ \t\n]*){63}\d{1,3})[ \t\n]*\]")
_KEYPAIR_WORDS = lazy(r"keypair|key pair|solana|wallet|secret|private|signer|id\.json")


def keypair_bytes(text: str, low: str) -> Iterator[Found]:
    if "," not in text or "[" not in text:
        return
    for m in _BYTES64.finditer(text):
        numbers = [int(n) for n in m.group(1).replace("\n", "").split(",")]
        if max(numbers) > 255 or len(set(numbers)) < 24:
            continue  # not bytes, or not random ones
        if not _KEYPAIR_WORDS.search(low, max(0, m.start() - 200), m.start()):
            continue
        yield "crypto_private_key", m.start(1), m.end(1), "[…]"


# ---------------------------------------------------------------------- key id + secret
# `Client("SK<32 hex>", "<secret>", ...)`, `boto3.Session("AKIA...", "<secret>")`: the literal
# right after a key id in a call is the secret that goes with it.
_ID_THEN_SECRET = lazy(r"([\"'])(?:A(?:KIA|SIA)[A-Z0-9]{16}|SK[0-9a-f]{32})\1[ \t]*,[ \t]*"
                       r"([\"'])([A-Za-z0-9+/=_\-]{16,128})\2")


def paired_secrets(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_ID_THEN_SECRET, text, ("AKIA", "ASIA", "\"SK", "'SK")):
        value = m.group(3)
        if random_looking(value) and not is_placeholder(value):
            yield "credential", m.start(3), m.end(3), "…, " + preview(value)


# ---------------------------------------------------------------------- headers
# Headers whose name does not say "key" although their value is one.
_KEY_HEADERS = lazy(r"\b(x-honeycomb-team|x-sf-token|signalfx-access-token|x-pm-token|"
                    r"x-dd-api-key|dd-api-key)[ \t]*[:=][ \t]*([A-Za-z0-9_\-]{16,128})")


def key_headers(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_KEY_HEADERS, low, ("honeycomb", "sf-token", "signalfx", "pm-token",
                                             "dd-api-key")):
        value = text[m.start(2): m.end(2)]
        if mixed(value) and not is_placeholder(value):
            yield "credential", m.start(2), m.end(2), f"{m.group(1)}: " + preview(value)


def in_lines(rx: object, subject: str, needles: tuple[str, ...], low: str | None = None,
              must: str = "") -> Iterator[re.Match[str]]:
    """``rx``'s matches in ``subject`` on the lines (of ``low``) that hold a needle and,
    when given, ``must`` too."""
    low = subject if low is None else low
    for s, e in lines_with(low, needles):
        if not must or low.find(must, s, e) >= 0:
            yield from rx.finditer(subject, s, e)  # type: ignore[attr-defined]


RULES = (login_calls, echoed, directives, wifi_qr, dsns, webhook_paths, keypair_bytes, paired_secrets,
         key_headers)
