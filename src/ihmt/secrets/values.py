"""What a candidate value must be to count: not a placeholder, not a word, and how a value
is previewed in a message without showing it."""

from __future__ import annotations

import base64
import binascii
import math
import re
from collections import Counter

from ..lazy_re import lazy

# ---------------------------------------------------------------------- placeholders
_PLACEHOLDER_WORDS = {
    "", "none", "null", "nil", "true", "false", "undefined", "redacted", "hidden", "masked",
    "secret", "password", "passwd", "pass", "pw", "pwd", "token", "apikey", "api_key",
    "api-key", "key",
    "example", "sample", "placeholder", "dummy", "fake", "test", "string", "str", "bytes",
    "int", "bool", "optional", "any", "required", "empty", "unset", "omitted", "removed",
    "todo", "tbd", "n/a", "na", "secretstr", "object", "text", "varchar", "char",
}
# Words that say a value is a stand-in: `fake-key-0000`, `dummy_token`, `...EXAMPLE`.
_STAND_IN_WORDS = frozenset("fake dummy example sample placeholder notreal".split())
# The same words glued into a value: in capitals anywhere (documentation keys such as
# `wJalr...EXAMPLEKEY`; seven capitals in a row never come out of a random draw), or at the
# end with what they stand for (`...examplekey`, `dummytoken`).
_STAND_IN_GLUED = lazy(r"EXAMPLE|DUMMY|PLACEHOLDER|NOTREAL|(?i:(?:example|dummy|sample|"
                       r"placeholder|fake)(?:key|token|secret|pass(?:word)?|pw|id)?$)")
# Where a secret lives, given instead of it: a secret manager's reference (1Password's
# `op://`, Vault and helm-secrets' `vault:`, `ref+...://` of vals, cloud secret managers).
_STORE_REFERENCE = lazy(
    r"(?:op|vault|ref\+[a-z0-9]+|sm|gsm|gcpsm|awssm|azkv|keyvault|doppler|bws|infisical|akv|"
    r"k8s-secret)://|(?:vault|secretsmanager|ssm|keyvault):[a-z]|"
    r"arn:aws[\w-]*:(?:secretsmanager|ssm|kms):|@microsoft\.keyvault\(", re.IGNORECASE)
# What a value is in place of the secret itself: ciphertext in a wrapper that names its
# tool (ejson's `EJ[1:...]`, jasypt's `ENC(...)`), or a digest named by its algorithm
# (`hmac-sha256:...` in an audit log, an SSH key's `SHA256:...` fingerprint).
# dotenvx writes `encrypted:<base64>`; Bitwarden's exports hold `2.<iv>|<data>|<mac>`.
_SEALED_OR_HASHED = lazy(r"EJ\[\d+:|ENC\(|encrypted:[A-Za-z0-9+/]|[0-7]\.[A-Za-z0-9+/]{22}==\||"
                         r"(?i:(?:hmac-)?(?:sha(?:1|224|256|384|512)|md5):)")
_STAND_IN_SPLIT = lazy(r"[-_.:/ ]+")
_FILLER = frozenset("xX0*#.")
_PLACEHOLDER_RE = lazy(
    r"""^(?:
        <[^>]*>?                                 # <password>
      | \$\{.* | \$\(.* | \$[A-Za-z_]\w*         # ${TOKEN}, $(cmd), $DB_PASS
      | %[A-Za-z_]\w*% | \{\{.* | \{[^}]*\}      # %VAR%, {{ var }}, {name}
      | (?:os\.)?(?:environ|getenv)\b.*          # os.environ[...], os.getenv(...)
      | process\.env\b.* | ENV\[.* | env\(.*     # node, ruby, laravel
      | \[?redacted\b.* | \[?masked\b.* | \[hidden\]   # already redacted or masked
      | \[?your[_\- ].* | .*[_\-]here            # your_password, [YOUR KEY], API_KEY_HERE
      | .*\breplace[_\-]?me\b.*                  # replace-me-in-production
      | (?:x+|\*+|\.+|…+|•+|\#+|-+|_+|0+|1234(?:5678?)?)  # xxx, ***, ..., 0000
    )$""",
    re.IGNORECASE | re.VERBOSE,
)


def is_placeholder(value: str) -> bool:
    v = value.strip().strip("\"'`")
    if v.lower() in _PLACEHOLDER_WORDS:
        return True
    if _PLACEHOLDER_RE.match(v):
        return True
    # One character repeated (xxxxxxxx, ********), an ellipsis inside (sk-...abcd), or no
    # letter or digit at all (":****").
    if (len(set(v.lower())) == 1 or "..." in v or "…" in v
            or not any(c.isalnum() for c in v)):
        return True
    # A stand-in word in the value, or a real prefix with a filler body (`sk_test_xxxx...`,
    # `AKIAXXXXXXXXXXXXXXXX`, a zero UUID): half the value one filler character.
    low = v.lower()
    if low.endswith("example") or _STAND_IN_WORDS.intersection(_STAND_IN_SPLIT.split(low)):
        return True
    if _STAND_IN_GLUED.search(v) or _STORE_REFERENCE.match(v) or _SEALED_OR_HASHED.match(v):
        return True
    if len(v) >= 12:
        top, n = Counter(v).most_common(1)[0]
        if top in _FILLER and n * 2 >= len(v):
            return True
    return False


# A comment after a value, on its line, that says it stands in for the real one.
_SAID_STAND_IN = lazy(r"(?i)[\"'`]?[ \t]*(?:#|//|--|;)[^\n]{0,120}?\b(?:placeholder|sample|example|"
                      r"dummy|fake|demo|default|throwaway|not (?:a )?real)\b")


def said_stand_in(text: str, value: str, end: int) -> bool:
    """True when a weak ``value`` ending at ``end`` is followed by a comment calling it a
    placeholder, a sample or a default (`password: admin  # the demo image's default`). A
    random value is judged by itself: a real key stays one whatever its comment says."""
    return not random_looking(value) and _SAID_STAND_IN.match(text, end, end + 200) is not None


# Values that are public by design although they look like keys: Stripe publishable keys,
# Mapbox public tokens, PostHog project keys (sent by every browser that loads the page),
# age recipients, SSH public key bodies.
# Extended public keys of a wallet (`xpub`, `ypub`, `zpub`, testnet `tpub`/`upub`/`vpub`)
# watch an account and cannot spend (their `xprv` counterparts are secrets). AWS KMS
# ciphertext blobs (`AQICAH...`, `AQIBAH...`) are committed on purpose.
PUBLIC_PREFIXES = ("pk_live_", "pk_test_", "pk.ey", "phc_", "age1", "AAAAC3Nza", "AAAAB3Nza",
                   "AAAAE2VjZHNh", "AAAAGnNr", "xpub6", "ypub6", "zpub6", "tpubD", "upub5",
                   "vpub5", "AQICAH", "AQIBAH")


# Browser-side keys in their vendors' documented formats: Datadog RUM client tokens
# (`pub` + 32 hex), Statsig client SDK keys (`client-`), Braintree tokenization keys
# (`production_<8>_<16>`, `sandbox_...`).
_PUBLIC_FORMS = lazy(r"pub[0-9a-f]{32}|client-[A-Za-z0-9]{32,}|"
                     r"(?:production|sandbox)_[a-z0-9]{8}_[a-z0-9]{16}")


def is_public(value: str) -> bool:
    return value.startswith(PUBLIC_PREFIXES) or _PUBLIC_FORMS.fullmatch(value) is not None


_WORD_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")


def starts_word(text: str, i: int) -> bool:
    """True when position ``i`` does not continue a longer identifier or token."""
    return i == 0 or text[i - 1] not in _WORD_CHARS


# ---------------------------------------------------------------------- character classes
def mixed(value: str) -> bool:
    """At least two of lower case, upper case and digits: random, not a word or a slug."""
    classes = (any(c.islower() for c in value) + any(c.isupper() for c in value)
               + any(c.isdigit() for c in value))
    return classes >= 2


_WORDLIKE = lazy(r"[A-Za-zÀ-ÿ]+(?:[-'][A-Za-zÀ-ÿ]+)*")
_CONSONANT_RUN = lazy(r"[bcdfghjklmnpqrstvwxz]{5}")


def looks_like_password(value: str) -> bool:
    """A value given as a password in prose: not a plain word (``on``, ``rotated``,
    ``Falcon``), but something with a digit or a symbol in it, or mixed case inside."""
    if len(value) < 6 or len(value) > 128 or is_placeholder(value):
        return False
    if value.isdigit():
        return len(value) >= 8
    if _WORDLIKE.fullmatch(value):
        inner_upper = any(c.isupper() for c in value[1:])
        if inner_upper and any(c.islower() for c in value) and len(value) >= 8:
            return True
        # Letters drawn at random (``ztcjvphysc``) rather than a word: words of English and
        # Spanish seldom run five consonants together (``strengths`` is one that does).
        return len(value) >= 8 and _CONSONANT_RUN.search(value.lower()) is not None
    has_alpha = any(c.isalpha() for c in value)
    return has_alpha and not re.fullmatch(r"v?\d+(?:\.\d+)+[a-z]*|\d+[a-zA-Z]{1,3}", value)


_APP_PASSWORD = lazy(r"[a-z]{4}(?: [a-z]{4}){3}")
_NOT_VOWEL = lazy(r"[b-df-hj-np-tv-xz]{3}")


def app_password(value: str) -> bool:
    """Four groups of four random letters, as Google shows an app password: one group at
    least runs three consonants together, which four words of a sentence seldom do."""
    return (_APP_PASSWORD.fullmatch(value) is not None
            and _NOT_VOWEL.search(value) is not None)


_VARIABLE = lazy(r"\$(?:\{|\(|[A-Z_][A-Z0-9_]*(?![A-Za-z0-9_])|[a-z_][a-z0-9_]*(?![A-Za-z0-9_]))")


def variable_reference(value: str) -> bool:
    """``$DB_PASS``, ``${TOKEN}``, ``$(cmd)``, ``$HOME/x``: a shell or template variable,
    not ``$5G0cI1...`` or ``$cU1XT-Aui...``, passwords that happen to start with a dollar
    (variable names are one case, upper or lower)."""
    return _VARIABLE.match(value) is not None


def stand_in(value: str) -> bool:
    """A placeholder, a variable reference or a template (``{...}``, ``<...>``): what a
    text writes where a secret would go, not a secret."""
    return is_placeholder(value) or variable_reference(value) or value.startswith(("{", "<"))


def random_looking(value: str) -> bool:
    """Characters that look drawn at random (a key, a generated password) rather than a
    name, a word, a path or a version: letters and digits mixed, changing class often.

    Used to overrule the heuristics that read a value as code (``db_pass``, ``cfg.pw``,
    ``a/b``, ``%s``): those never hold a random run like ``zF4hRa4TxS/zwJRlv``."""
    if len(value) < 12:
        return False
    digits = sum(c.isdigit() for c in value)
    letters = sum(c.isalpha() for c in value)
    if digits >= 2 and letters >= 4 and switch_rate(value) >= 0.45 and entropy(value) >= 3.3:
        return True
    # A long run of mixed case that changes case constantly, with few digits or none.
    return (len(value) >= 24 and any(c.islower() for c in value)
            and any(c.isupper() for c in value) and switch_rate(value) >= 0.5
            and entropy(value) >= 4.0)


def entropy(s: str) -> float:
    n = len(s)
    return -sum(c / n * math.log2(c / n) for c in Counter(s).values())


def switch_rate(s: str) -> float:
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


def b64_decoded(value: str) -> bytes | None:
    """``value`` decoded as base64 (standard or url-safe), or None."""
    if not re.fullmatch(r"[A-Za-z0-9+/_\-]+={0,2}", value):
        return None
    core = value.rstrip("=").replace("-", "+").replace("_", "/")
    core += "=" * (-len(core) % 4)
    try:
        return base64.b64decode(core, validate=True)
    except (ValueError, binascii.Error):
        return None


def decodes_to_text(value: str) -> bool:
    raw = b64_decoded(value)
    if not raw:
        return False
    printable = sum(32 <= b < 127 or b in (9, 10, 13) for b in raw)
    return printable / len(raw) > 0.9


# The first bytes of file formats that travel as base64 (images, documents, archives,
# fonts, media, markup): such a run is an encoded file, not a key.
_FILE_MAGIC = (b"\x89PNG", b"\xff\xd8\xff", b"GIF8", b"%PDF", b"PK\x03\x04", b"\x1f\x8b",
               b"wOF2", b"wOFF", b"RIFF", b"OggS", b"ID3", b"BM6", b"II*\x00", b"MM\x00*",
               b"\x00\x00\x00\x18ftyp", b"\x00\x00\x00\x20ftyp", b"\x00\x00\x01\x00",
               b"SQLite format", b"<?xml", b"<svg", b"<html", b"<!DOCTYPE", b"<samlp:", b"<saml:",
               b"MSCF", b"7z\xbc\xaf", b"\xd0\xcf\x11\xe0", b"fLaC", b"\x1aE\xdf\xa3",
               b"\x00asm", b"Salted_",  # OpenSSL's `enc` output (CryptoJS's too): `Salted__`, salt, ciphertext
               b"\x00\x00\x00")  # a length-prefixed binary frame (gRPC-web): three zero bytes


def encoded_file(value: str) -> bool:
    """True when ``value``'s first characters decode (as base64) to a file's signature."""
    head = value[:32]
    head = head[: len(head) - len(head) % 4]
    raw = b64_decoded(head)
    return raw is not None and raw.startswith(_FILE_MAGIC)


def decodes_to_user_password(value: str) -> bool:
    """Base64 of ``user:password`` (HTTP Basic, Docker's ``auth``)."""
    raw = b64_decoded(value)
    if not raw or b":" not in raw:
        return False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    user, _, pw = text.partition(":")
    return bool(user) and len(pw) >= 3 and text.isprintable() and not is_placeholder(pw)


# Small words of a sentence: a run of words holding one is prose, not a passphrase.
SENTENCE_WORDS = frozenset(
    "the and for with that this you your are not was were our have has its from into then "
    "them they what when where will would should never always just only also but los las "
    "una uno con por para que del the una sin muy".split())
# A passphrase of words written with spaces: three words or more and a number, or four
# longer words alone to the end of the line.
_SPACED_PHRASE = lazy(r"[a-zà-ÿ]{3,12}(?: [a-zà-ÿ]{3,12}){2,9}(?: \d{1,6})?(?=[ \t]*(?:\r?\n|$))")


def spaced_phrase(text: str, pos: int, phrase: bool = True) -> re.Match[str] | None:
    """A passphrase of spaced words at ``pos``: three words or more and a number, or (a
    passphrase named so) four longer words alone; no small word of a sentence among them."""
    p = _SPACED_PHRASE.match(text, pos)
    if p is None:
        return None
    words = p.group(0).split(" ")
    if any(w in SENTENCE_WORDS for w in words):
        return None
    numbered = words[-1].isdigit()
    if not phrase:  # a password of spaced words: four or more and a number
        return p if numbered and len(words) >= 5 else None
    return p if numbered or len(words) >= 4 and all(len(w) >= 4 for w in words) else None


# ---------------------------------------------------------------------- previews
def preview(value: str, prefix: str = "") -> str:
    """``prefix`` (not secret: it only names the provider) and a sliver of the rest.

    The rest shows at most a quarter of its characters, never more than four: the last
    ones for random tokens (how providers' dashboards display keys), the first ones for
    passwords, which are often words.
    """
    if prefix and value.startswith(prefix):
        body = value[len(prefix):]
        tail = min(4, len(body) // 4)
        return prefix + "…" + (body[-tail:] if tail else "")
    head = min(3, len(value) // 4)
    return value[:head] + "…"
