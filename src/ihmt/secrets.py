"""Spotting secrets (keys, tokens, passwords) in text before it becomes a memory.

Memories are plain files that agents read back into their context, so a key pasted into a
save would be copied into every later session that happens to search near it. This module
finds what looks like a credential so that a save can be refused (or redacted) with a
message saying what looked secret and where.

Two kinds of evidence are used:

* the shape of a token: providers give their keys a recognisable prefix (``ghp_``,
  ``AKIA``, ``sk-ant-``, ``xoxb-`` ...), private keys come in PEM blocks, JWTs are three
  base64url parts starting with ``eyJ``;
* the context of a value: ``password = "..."``, ``token: ...``, ``scheme://user:pw@host``,
  ``Authorization: Bearer ...``, and, as a last resort, a long token whose characters look
  random (high Shannon entropy, frequent switches between letters and digits) that is not
  a checksum, a commit id or a UUID.

Every pattern is a linear regular expression without nested quantifiers, so scanning is
proportional to the text's length (a 100 KB note takes a few milliseconds). Placeholders
(``<password>``, ``${TOKEN}``, ``os.environ[...]``, ``xxx``, ``REDACTED`` ...) are not
secrets and are ignored: a note that says *where* a secret lives is exactly what should be
saved instead.
"""

from __future__ import annotations

import base64
import binascii
import math
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass

__all__ = ["KINDS", "Finding", "describe", "find_secrets", "redact"]


@dataclass(frozen=True)
class Finding:
    """One value that looks secret: ``text[start:end]`` is the value itself.

    ``preview`` shows enough to recognise it (a known prefix, a few characters) and never
    the whole value; ``line`` is 1-based.
    """

    kind: str
    start: int
    end: int
    preview: str
    line: int = 1


# Human names of the kinds, used in messages (and the list of kinds this module knows).
KINDS: dict[str, str] = {
    "private_key": "private key block",
    "aws_access_key": "AWS access key id",
    "aws_secret_key": "AWS secret access key",
    "github_token": "GitHub token",
    "gitlab_token": "GitLab token",
    "slack_token": "Slack token",
    "slack_webhook": "Slack webhook URL",
    "stripe_key": "Stripe live key",
    "anthropic_key": "Anthropic API key",
    "openai_key": "OpenAI API key",
    "google_api_key": "Google API key",
    "pypi_token": "PyPI token",
    "npm_token": "npm token",
    "huggingface_token": "Hugging Face token",
    "jwt": "JSON Web Token",
    "connection_string": "password in a connection string",
    "bearer_token": "bearer token",
    "password": "password",
    "credential": "secret value",
    "high_entropy": "random-looking token",
}

_TOKEN_END = r"(?![A-Za-z0-9_\-])"

# ---------------------------------------------------------------------- placeholders
_PLACEHOLDER_WORDS = {
    "", "none", "null", "nil", "true", "false", "undefined", "redacted", "hidden", "masked",
    "secret", "password", "passwd", "pass", "pw", "pwd", "token", "apikey", "api_key",
    "api-key", "key",
    "example", "sample", "placeholder", "dummy", "fake", "test", "string", "str", "bytes",
    "int", "bool", "optional", "any", "required", "empty", "unset", "omitted", "removed",
    "todo", "tbd", "n/a", "na", "secretstr", "object", "text", "varchar", "char",
}
_PLACEHOLDER_RE = re.compile(
    r"""^(?:
        <[^>]*>                                  # <password>
      | \$\{[^}]*\}? | \$\(.*\)? | \$[A-Za-z_]\w*   # ${TOKEN}, $(cmd), $DB_PASS
      | %[A-Za-z_]\w*% | \{\{.*\}\}? | \{[^}]*\}   # %VAR%, {{ var }}, {name}
      | (?:os\.)?(?:environ|getenv)\b.*          # os.environ[...], os.getenv(...)
      | process\.env\b.* | ENV\[.* | env\(.*     # node, ruby, laravel
      | \[?redacted\b.* | \[hidden\]             # already redacted
      | your[_\- ].* | .*[_\-]here               # your_password, API_KEY_HERE
      | (?:x+|\*+|\.+|…+|•+|\#+|-+|_+|0+|1234(?:5678?)?)  # xxx, ***, ..., 0000
    )$""",
    re.IGNORECASE | re.VERBOSE,
)


def _is_placeholder(value: str) -> bool:
    v = value.strip().strip("\"'`")
    if v.lower() in _PLACEHOLDER_WORDS:
        return True
    if _PLACEHOLDER_RE.match(v):
        return True
    # One character repeated (xxxxxxxx, ********), an ellipsis inside (sk-...abcd), or no
    # letter or digit at all (":****").
    return (len(set(v.lower())) == 1 or "..." in v or "…" in v
            or not any(c.isalnum() for c in v))


# ---------------------------------------------------------------------- masking
def _mask(value: str, prefix: str = "") -> str:
    """``prefix`` (not secret: it only names the provider) and a sliver of the rest.

    The rest shows at most a quarter of its characters, never more than four: the last
    ones for random tokens (how providers' dashboards display keys), the first ones for
    passwords, which are often words.
    """
    body = value[len(prefix):] if prefix and value.startswith(prefix) else value
    if prefix and value.startswith(prefix):
        tail = min(4, len(body) // 4)
        return prefix + "…" + (body[-tail:] if tail else "")
    head = min(3, len(body) // 4)
    return body[:head] + "…"


# ---------------------------------------------------------------------- token shapes
@dataclass(frozen=True)
class _Shape:
    kind: str
    regex: re.Pattern[str]
    prefix: Callable[[re.Match[str]], str]
    group: int = 0
    check: Callable[[str], bool] | None = None


def _lit(n: int) -> Callable[[re.Match[str]], str]:
    return lambda m: m.group(0)[:n]


def _mixed(value: str) -> bool:
    """At least two of lower case, upper case and digits: random, not a word or a slug."""
    classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
               + any(c.isdigit() for c in value))
    return classes >= 2


def _openai_prefix(m: re.Match[str]) -> str:
    tok = m.group(0)
    for p in ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"):
        if tok.startswith(p):
            return p
    return "sk-"


# Patterns start with their literal prefix (a leading look-behind would stop the regex
# engine from skipping ahead to the prefix and make each scan ten times slower); that the
# token does not continue a longer word is checked after the match (see _starts_word).
_SHAPES: tuple[_Shape, ...] = (
    _Shape("aws_access_key",
           re.compile(r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])"), _lit(4)),
    _Shape("github_token",
           re.compile(r"gh[pousr]_[A-Za-z0-9]{36,251}(?![A-Za-z0-9_])"), _lit(4)),
    _Shape("github_token",
           re.compile(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,}(?![A-Za-z0-9_])"), _lit(11)),
    _Shape("gitlab_token",
           re.compile(r"gl(?:pat|dt|rt|ptt|cbt|oas)-[A-Za-z0-9_\-]{20,}" + _TOKEN_END),
           lambda m: m.group(0)[: m.group(0).index("-") + 1], check=_mixed),
    _Shape("slack_webhook",
           re.compile(r"https://hooks\.slack\.com/(?:services|workflows)/"
                      r"[A-Za-z0-9]{6,}/[A-Za-z0-9]{6,}/[A-Za-z0-9]{16,}"),
           lambda m: m.group(0)[: m.group(0).rfind("/") + 1]),
    _Shape("slack_token",
           re.compile(r"xox[abposr]-[0-9]{6,}-[A-Za-z0-9\-]{8,}" + _TOKEN_END), _lit(5)),
    _Shape("stripe_key",
           re.compile(r"[sr]k_live_[A-Za-z0-9]{16,}(?![A-Za-z0-9_])"), _lit(8)),
    _Shape("anthropic_key",
           re.compile(r"sk-ant-[A-Za-z0-9_\-]{24,}" + _TOKEN_END), _lit(7), check=_mixed),
    _Shape("openai_key",
           re.compile(r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}" + _TOKEN_END),
           _openai_prefix, check=lambda v: _mixed(v) and sum(c.isdigit() for c in v) >= 2),
    _Shape("google_api_key",
           re.compile(r"AIza[0-9A-Za-z_\-]{35}" + _TOKEN_END), _lit(4)),
    _Shape("pypi_token",
           re.compile(r"pypi-AgE[A-Za-z0-9_\-]{50,}" + _TOKEN_END), _lit(5)),
    _Shape("npm_token",
           re.compile(r"npm_[A-Za-z0-9]{36}(?![A-Za-z0-9_])"), _lit(4), check=_mixed),
    _Shape("huggingface_token",
           re.compile(r"hf_[A-Za-z]{34,}(?![A-Za-z0-9_])"), _lit(3),
           check=lambda v: sum(c.isupper() for c in v) >= 4),
    _Shape("jwt",
           re.compile(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}"
                      + _TOKEN_END),
           _lit(3)),
)
_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def _starts_word(text: str, i: int) -> bool:
    """True when position ``i`` does not continue a longer identifier or token."""
    return i == 0 or text[i - 1] not in _WORD_CHARS


_PRIVATE_KEY = re.compile(
    r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"
    r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|.*\Z)",
    re.DOTALL,
)

# A PEM body: optional `Name: value` header lines, then base64.
_PEM_BODY = re.compile(r"(?:\s|\\[nr])*(?:[A-Za-z\-]+:[^\n]*\n\s*)*[A-Za-z0-9+/=]{16}")

# Matched in the lower-cased text: `aws...secret...= <40 chars>` (value from the original).
_AWS_SECRET = re.compile(
    r"aws[a-z0-9_.\-]{0,24}secret[a-z0-9_.\-]{0,24}[\"']?\s*(?::=|=>|=|:)\s*"
    r"[\"']?([a-z0-9/+]{40})(?![a-z0-9/+=])"
)

# `scheme://user:password@host`, found from its `://` (the scheme is read backwards).
_CONNECTION = re.compile(
    r"://([^\s:/@'\"<>,]{1,128}):([^\s@'\"<>/:,]{1,256})@([^\s/'\"<>@?#]{1,256})"
)
_SCHEME_TAIL = re.compile(r"[a-zA-Z][a-zA-Z0-9+.\-]{0,30}$")

_BEARER = re.compile(r"bearer\s+([a-z0-9._~+/\-]{20,}=*)(?![a-z0-9._~+/\-])")

# `password = "..."`, `DB_PASSWORD=...`, `"api_key": "..."`, `token: ...`: the keyword is
# found in the lower-cased text, the key around it is read back to its start, and what
# follows is matched by _ASSIGN_TAIL at the keyword's end.
_KEYWORD = re.compile(r"pass(?:word|wd|phrase)|secret|key|token|credential")
_SECRET_KEY_NAME = re.compile(
    r"pass(?:word|wd|phrase)$|(?:^|[_.\-])(?:secret|"
    r"(?:secret|api|access|private|signing|encryption|master)[_\-]?key|apikey|"
    r"(?:auth|access|refresh|bearer|session|api|bot|id)?[_\-]?token|credentials?)$",
    re.IGNORECASE,
)
_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")
# Group 1: separator, 2: quote, 3: quoted value, 4: bare value.
_ASSIGN_TAIL = re.compile(
    r"[\"']?([ \t]*(?::[ \t]*[A-Za-z_][A-Za-z0-9_\[\], |.]{0,40}?[ \t]*=|:=|=>|=|:)(?!=)[ \t]*)"
    r"(?:([\"'`])([^\"'`\n\r]{1,300})\2|([^\s\"'`,;)\]}=]{1,300}={0,2}))"
)
_PASSWORD_KEY = re.compile(r"(?i)pass(?:word|wd|phrase)")

_NAMES_A_SECRET = re.compile(r"(?i)pass(?:word|wd)|secret|token|key|credential")
_TYPE_WORDS = {"str", "string", "int", "bytes", "bool", "optional", "any", "none", "secretstr",
               "text", "list", "dict", "object", "float", "number", "boolean", "char", "void"}
_IDENT_CHAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")

# High-entropy candidates: base64 / base64url / hex runs of at least 32 characters.
_TOKEN = re.compile(r"(?<![A-Za-z0-9+/_\-])[A-Za-z0-9+/_\-]{32,}={0,2}(?![A-Za-z0-9+/_\-=])")
_HEX = re.compile(r"[0-9a-fA-F]+")
_WORD_SEGMENT = re.compile(r"[a-z]{2,}|[A-Z][a-z]+|[a-z]+[._\-][a-z]+|v?\d+(?:\.\d+)*")
_UUID = re.compile(r"[0-9a-fA-F]{8}-(?:[0-9a-fA-F]{4}-){3}[0-9a-fA-F]{12}")
_SECRET_CONTEXT = re.compile(
    r"(?i)secret|passw|token|api[_\- ]?key|private|credential|auth|bearer|signing|"
    r"webhook|session|cookie|\bkey\b"
)
_HASH_CONTEXT = re.compile(
    r"(?i)\b(?:(?:commit|revert|merg|cherry|rebas|bisect|deploy|releas|rollback|roll back|"
    r"checkout|hotfix|fix|patch|pin|tag|build|image|digest|checksum|hash|fingerprint|"
    r"revision|integrity|etag|version|object|blob|parent|nonce|salt|hmac)\w*"
    r"|sha\d*|md5|rev|tree|head|git|ref|refs|id|ids|in|at|to|from)\b"
    r"|sha\d+[:\-]$|@$"
)


def _entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def _switch_rate(s: str) -> float:
    """How often consecutive characters change class (lower/upper/digit/other): about 0.6
    for random base62, 0.1-0.3 for words, CamelCase names and paths."""
    def cls(c: str) -> int:
        return 0 if c.islower() else 1 if c.isupper() else 2 if c.isdigit() else 3
    prev = cls(s[0])
    changes = 0
    for c in s[1:]:
        k = cls(c)
        changes += k != prev
        prev = k
    return changes / max(1, len(s) - 1)


_RUN_SEP = re.compile(r"[+/_\-=]")


def _longest_run(s: str) -> int:
    return max(map(len, _RUN_SEP.split(s)))


def _encoded_text(core: str) -> bool:
    """True when a base64 token decodes to readable text (an encoded sentence or JSON, as
    in documentation), which a random key never does."""
    if not re.fullmatch(r"[A-Za-z0-9+/_\-]+", core):
        return False
    padded = core.replace("-", "+").replace("_", "/")
    padded += "=" * (-len(padded) % 4)
    try:
        raw = base64.b64decode(padded, validate=True)
    except (ValueError, binascii.Error):
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return bool(raw) and printable / len(raw) > 0.9


def _random_token(tok: str, before: str, after: str) -> bool:
    """True when ``tok`` looks like a random secret rather than a hash, id, name or path."""
    core = tok.rstrip("=")
    if len(core) < 32 or _longest_run(core) < 16:
        return False
    segments = core.split("/")
    if len(segments) >= 3 and sum(_WORD_SEGMENT.fullmatch(s) is not None for s in segments) >= 2:
        # a path or URL (github.com/org/repo/blob/<sha>/src): judge each part on its own
        return any(_random_token(seg, before + "/".join(segments[:i]) + "/", after)
                   for i, seg in enumerate(segments) if len(seg) >= 32)
    if _UUID.search(core):
        return False
    # What surrounds the token: the rest of its line and the end of the line before.
    ctx_before = before[-90:]
    ctx_after = after.split("\n", 1)[0][:30]
    if _HEX.fullmatch(core):
        # Hex strings are nearly always hashes (commits, checksums, test vectors): flag one
        # only when its context speaks of a secret and not of a hash.
        if _HASH_CONTEXT.search(ctx_before) or _HASH_CONTEXT.search(ctx_after):
            return False
        if not _SECRET_CONTEXT.search(ctx_before.rsplit("\n", 1)[-1] + " " + ctx_after):
            return False
        return _entropy(core) >= 3.0 and _switch_rate(core) >= 0.3
    if re.search(r"(?i)sha\d+[:\-]$|integrity\W*$|base64,$", ctx_before):
        return False
    has_lower = any(c.islower() for c in core)
    has_upper = any(c.isupper() for c in core)
    digits = sum(c.isdigit() for c in core)
    if not (has_lower and has_upper and digits >= 1):
        return False
    threshold = min(4.5, 0.82 * math.log2(len(core)) + 0.3)
    if _entropy(core) < threshold or _switch_rate(core) < 0.42:
        return False
    return not _encoded_text(core)


# ---------------------------------------------------------------------- scanning
def _lowered(text: str) -> str:
    """``text`` lower-cased with every position kept (case-insensitive regexes are slow)."""
    low = text.lower()
    if len(low) != len(text):  # a few characters (İ) grow when lower-cased
        low = "".join(c.lower() if len(c.lower()) == 1 else c for c in text)
    return low


def _candidates(text: str) -> Iterator[tuple[int, str, int, int, str]]:
    """(priority, kind, start, end, preview) for every match; lower priority wins overlaps."""
    for m in _PRIVATE_KEY.finditer(text):
        header_end = text.index("-----", m.start() + 5) + 5
        if not _PEM_BODY.match(text, header_end):
            continue  # the marker alone, as in code that looks for it
        yield 0, "private_key", m.start(), m.end(), text[m.start(): header_end] + "…"
    for i, shape in enumerate(_SHAPES):
        for m in shape.regex.finditer(text):
            value = m.group(shape.group)
            if not _starts_word(text, m.start()):
                continue
            if shape.check is not None and not shape.check(value):
                continue
            if _is_placeholder(value):
                continue
            yield 1 + i, shape.kind, m.start(shape.group), m.end(shape.group), _mask(
                value, shape.prefix(m))
    base = 1 + len(_SHAPES)
    low = _lowered(text)
    for m in _AWS_SECRET.finditer(low):
        value = text[m.start(1): m.end(1)]
        if _starts_word(low, m.start()) and _mixed(value) and not _is_placeholder(value):
            yield base, "aws_secret_key", m.start(1), m.end(1), _mask(value)
    for m in _CONNECTION.finditer(text):
        scheme = _SCHEME_TAIL.search(text, max(0, m.start() - 31), m.start())
        pw = m.group(2)
        if scheme is None or not _starts_word(text, scheme.start()):
            continue
        if _is_placeholder(pw) or pw.isdigit() and len(pw) <= 5:
            continue
        preview = f"{scheme.group(0)}://{m.group(1)}:{_mask(pw)}@{m.group(3)}"
        yield base + 1, "connection_string", m.start(2), m.end(2), preview
    for m in _BEARER.finditer(low):
        value = text[m.start(1): m.end(1)]
        if (_starts_word(low, m.start()) and _mixed(value) and not _is_placeholder(value)
                and _entropy(value) >= 3.5):
            yield base + 2, "bearer_token", m.start(1), m.end(1), "Bearer " + _mask(value)
    for m in _KEYWORD.finditer(low):
        found = _assignment(text, m.start(), m.end())
        if found is not None:
            yield (base + 3, *found)
    for m in _TOKEN.finditer(text):
        tok = m.group(0)
        if _random_token(tok, text[max(0, m.start() - 80): m.start()], text[m.end(): m.end() + 40]):
            yield base + 4, "high_entropy", m.start(), m.end(), _mask(tok)


def _assignment(text: str, kw_start: int, kw_end: int) -> tuple[str, int, int, str] | None:
    """A literal value given to a secret-named key, or None for code and placeholders."""
    if kw_end < len(text) and text[kw_end].isalnum():
        return None  # max_tokens, keyboard, secretary
    start = kw_start
    while start > 0 and text[start - 1] in _KEY_CHARS and kw_end - start < 80:
        start -= 1
    key = text[start:kw_end].lstrip(".-_")
    if not _SECRET_KEY_NAME.search(key):
        return None
    m = _ASSIGN_TAIL.match(text, kw_end)
    if m is None:
        return None
    sep = m.group(1)
    password = bool(_PASSWORD_KEY.search(key))
    kind = "password" if password else "credential"
    if m.group(3) is not None:
        value, start, end = m.group(3), m.start(3), m.end(3)
        if _is_placeholder(value) or re.search(r"[{}]|%[sdr]|\s", value):
            return None  # f-strings, templates, prose in quotes
        if _NAMES_A_SECRET.search(value) and not any(c.isdigit() for c in value):
            return None  # "challengePassword", "api_key_name": names, not values
        if value.rstrip("?").lower() in _TYPE_WORDS:
            return None  # {"password": "string?"}: a schema
    else:
        value, start, end = m.group(4), m.start(4), m.end(4)
        value = value.rstrip(".:")  # prose: "the password is in the vault: see below."
        end = start + len(value)
        bare = value.rstrip("?")  # "string?" in a schema
        if not bare or _is_placeholder(bare) or bare.lower() in _TYPE_WORDS:
            return None
        if re.search(r"[(\[{<>$%]", value):
            return None  # a call, an index, a template, an env reference
        key_start = kw_end - len(key)
        q = text[key_start - 1: key_start] if key_start > 0 else ""
        if q in ("'", '"') and text[end: end + 1] == q:
            return None  # "passwd:gecos": one string literal, not an assignment
        if _IDENT_CHAIN.fullmatch(value):
            if "." in value or _NAMES_A_SECRET.search(value):
                return None  # settings.API_KEY, ssl_keyfile_password=ssl_keyfile_password
            if "=" not in sep and value[0].isupper() and _switch_rate(value) < 0.3:
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
    if len(value) < (4 if password else 8):
        return None
    if not password and not (_mixed(value) or len(value) >= 24):
        return None  # token = "return" in a lexer, secret = "session" in a config
    shown = key + sep.strip()[:1]
    return kind, start, end, shown + _mask(value)


def find_secrets(text: str) -> list[Finding]:
    """Every value in ``text`` that looks like a credential, in order of position.

    Overlapping matches are resolved in favour of the most specific kind (a GitHub token
    assigned to ``token =`` is reported once, as a GitHub token).
    """
    if not isinstance(text, str) or not text:
        return []
    cands = sorted(_candidates(text), key=lambda c: (c[0], c[2]))
    starts: list[int] = []  # accepted spans, disjoint, sorted by start
    ends: list[int] = []
    chosen: list[tuple[str, int, int, str]] = []
    for _, kind, start, end, preview in cands:
        i = bisect_right(starts, start)
        if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
            continue
        starts.insert(i, start)
        ends.insert(i, end)
        chosen.append((kind, start, end, preview))
    chosen.sort(key=lambda c: c[1])
    out: list[Finding] = []
    line, pos = 1, 0
    for kind, s, e, p in chosen:  # in order: count the newlines once
        line += text.count("\n", pos, s)
        pos = s
        out.append(Finding(kind, s, e, p, line))
    return out


def redact(text: str) -> tuple[str, list[Finding]]:
    """``text`` with each secret replaced by ``[REDACTED:<kind>]``, and what was replaced.

    Offsets in the findings refer to the original text.
    """
    findings = find_secrets(text)
    if not findings:
        return text, []
    parts: list[str] = []
    pos = 0
    for f in findings:
        parts.append(text[pos: f.start])
        parts.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    parts.append(text[pos:])
    return "".join(parts), findings


def describe(findings: list[Finding], *, limit: int = 5) -> str:
    """The message a refused save carries: what looked secret, where, and what to do.

    Written for the person (or agent) who tried to save: it names each value by its kind,
    line and a masked preview, then says how to save the rest.
    """
    if not findings:
        return ""
    n = len(findings)
    items = [f"{KINDS.get(f.kind, f.kind)} on line {f.line} ({f.preview})"
             for f in findings[:limit]]
    if n > limit:
        items.append(f"and {n - limit} more")
    what = "a secret" if n == 1 else f"{n} secrets"
    return (
        f"Not saved: the content looks like it contains {what}: {'; '.join(items)}. "
        "Memories are plain files that later sessions read back, so keys, tokens and "
        "passwords must not go in them. Save it again without the value: remove it or say "
        "where it lives instead (for example 'the deploy token is in 1Password, item CI' or "
        "'read from $GITHUB_TOKEN'). To keep the text with each value replaced by "
        "[REDACTED:<kind>], set \"secrets\": \"redact\" in ihmt.config.json; if this is not a "
        "secret (a test fixture, a public example), set \"secrets\": \"off\" for that store."
    )
