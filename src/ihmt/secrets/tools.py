"""Secrets in the syntax of the tool that takes them, or read back from where it keeps
them: lftp's ``-u user,password``, Bundler's per-host ``user:password``, a cookie jar
written as a dictionary, the output of ``cat`` on a key file, a TOTP library given its
seed, a calendar's secret address, a URL whose scheme lost its colon.

Each rule yields ``(kind, start, end, preview)`` for the value only, as those of
:mod:`.context` do; keywords are found in the lower-cased text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..lazy_re import lazy
from .forms import Found, in_lines, lines_with
from .values import (
    entropy,
    is_placeholder,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    stand_in,
    starts_word,
)


def _plain(value: str) -> bool:
    """Not a placeholder, a variable or a template (``$(cmd)`` is a variable)."""
    return not stand_in(value)


# ---------------------------------------------------------------------- lftp
# `lftp -u user,password host`, `open -u user,'password' host` inside lftp.
_LFTP_USER = lazy(r"[ \t]-u[ \t]+[\"']?[^\s,\"'`]{1,128},([\"']?)([^\s\"'`]{1,200})")


def lftp_users(text: str, low: str) -> Iterator[Found]:
    if "lftp" not in low:
        return
    for m in in_lines(_LFTP_USER, text, ("lftp",), low):
        value = m.group(2)
        if _plain(value) and len(value) >= 4:
            yield "password", m.start(2), m.end(2), "-u …," + preview(value)


# ---------------------------------------------------------------------- Bundler
# `bundle config [set] [--global] gems.example.com user:password` and its environment form
# `BUNDLE_GEMS__EXAMPLE__COM=user:password` (dots of the host written `__`).
_BUNDLE_CONFIG = lazy(r"bundle[ \t]+config[ \t]+(?:set[ \t]+)?(?:--[a-z]+[ \t]+)?"
                      r"(?:https?://)?[a-z0-9\-]+(?:\.[a-z0-9\-]+)+/?[ \t]+"
                      r"([^\s:\"'`]{1,128}:[^\s\"'`@]{3,200})")
_BUNDLE_ENV = lazy(r"BUNDLE_[A-Z0-9_]{1,80}__[A-Z0-9]{2,20}[\"']?[ \t]*[=:][ \t]*[\"']?"
                   r"([^\s:\"'`]{1,128}:[^\s\"'`@]{3,200})")


def bundler_credentials(text: str, low: str) -> Iterator[Found]:
    found = []
    if "bundle" in low:
        found += [(m.start(1), m.end(1)) for m in in_lines(_BUNDLE_CONFIG, text, (
            "bundle",), low)]
    if "BUNDLE_" in text:
        found += [(m.start(1), m.end(1)) for m in in_lines(_BUNDLE_ENV, text, ("BUNDLE_",))]
    for s, e in found:
        value = text[s:e]
        pw = value.split(":", 1)[1]
        if _plain(pw) and _plain(value) and (mixed(pw) or len(pw) >= 8):
            yield "credential", s, e, "bundler " + preview(value)


# ---------------------------------------------------------------------- cookie jars
# `cookies = {"sessionid": "...", ...}`, `s.cookies.set("connect.sid", "...")`: quoted
# names and values on a line about cookies, or under a framework's session cookie name.
_QUOTED_PAIR = lazy(r"([\"'])([A-Za-z0-9_.\-]{1,64})\1[ \t]*[:,][ \t]*([\"'])([^\"'\s;]{16,4096})\3")
_SESSION_NAME = lazy(r"sess|sid|auth|token|jwt|remember|login|identity|credential")
_ANALYTICS_COOKIE = lazy(r"_hj|_ga|_gid|ajs_|_fbp|mp_|_pk_|_clck|_clsk|amp_|amplitude")
_FRAMEWORK_SESSIONS = ("phpsessid", "jsessionid", "asp.net_sessionid", "connect.sid",
                       "laravel_session", "_session_id", "sessionid", "ci_session")


def cookie_jars(text: str, low: str) -> Iterator[Found]:
    needles = tuple(n for n in ("cookie", *_FRAMEWORK_SESSIONS) if n in low)
    if not needles:
        return
    for s, e in lines_with(low, needles):
        if not any(low.find(p, s, e) >= 0 for p in _PAIR_MARKS):
            continue  # no quoted name followed by `:` or `,` on the line
        yield from _jar_pairs(text, low, s, e)


_PAIR_MARKS = ("\":", "':", "\",", "',")


def _jar_pairs(text: str, low: str, s: int, e: int) -> Iterator[Found]:
    for m in _QUOTED_PAIR.finditer(text, s, e):
        name, value = m.group(2), m.group(4)
        if not _SESSION_NAME.search(name.lower()) or _ANALYTICS_COOKIE.match(name):
            continue
        if name.lower() not in _FRAMEWORK_SESSIONS and "cookie" not in low[
                low.rfind("\n", 0, m.start()) + 1: m.start()]:
            continue  # a name like a session's only on a line about cookies
        if "csrf" in name.lower() or "xsrf" in name.lower() or not _plain(value):
            continue
        if (mixed(value) or len(value) >= 24) and entropy(value) >= 3.0:
            yield "session_cookie", m.start(4), m.end(4), f"{name}=" + preview(value)


def _matches_at(rx: object, text: str, low: str, word: str,
                shift: int = 0) -> Iterator[re.Match[str]]:
    """``rx`` matched where ``word`` occurs in ``low`` (``shift`` characters from it); it
    may run over several lines."""
    i = low.find(word)
    while i >= 0:
        m = rx.match(text, i + shift) if i + shift >= 0 else None  # type: ignore[attr-defined]
        if m is not None:
            yield m
        i = low.find(word, i + 1)


# ---------------------------------------------------------------------- cat of a key file
# `$ cat config/master.key` and the file's one line below it: the key itself.
_CAT = lazy(r"cat[ \t]+([^\s|;&<>]{1,200})[ \t]*\r?\n[ \t]*([^\s]{16,400})[ \t]*(?=\r?\n|$)")
_KEY_FILE = lazy(r"(?:\.key|secret[\w.\-]*|token[\w.\-]*|passw(?:or)?d[\w.\-]*|\.pass|"
                 r"credentials?|_rsa|_ed25519|_ecdsa)(?:\.txt)?$")


def cat_key_files(text: str, low: str) -> Iterator[Found]:
    if "cat" not in low:
        return
    for m in _matches_at(_CAT, text, low, "cat"):  # two lines: not one line at a time
        path, value = m.group(1).lower(), m.group(2)
        name = path.rsplit("/", 1)[-1]
        if not _KEY_FILE.search(name) or name.endswith((".pub", ".pem", ".crt")):
            continue
        if not starts_word(low, m.start()) or not _plain(value) or value.startswith("-----"):
            continue
        hexed = all(c in "0123456789abcdef" for c in value.lower())
        if random_looking(value) or hexed and len(value) >= 32 and mixed(value):
            yield "credential", m.start(2), m.end(2), f"cat {name}: " + preview(value)


# ---------------------------------------------------------------------- TOTP libraries
# `pyotp.TOTP("BASE32")`, `new OTPAuth.TOTP({ secret: "..." })`, `speakeasy.totp({secret:`:
# a one-time-password generator given its seed.
_TOTP_CALL = lazy(r"[th]otp[ \t]*\([ \t]*(?:\{[ \t]*)?(?:secret[ \t]*[:=][ \t]*)?([\"'])"
                  r"([a-z2-7]{16,128}=*)\1")


def totp_seeds(text: str, low: str) -> Iterator[Found]:
    for m in _matches_at(_TOTP_CALL, low, low, "otp", -1):
        value = text[m.start(2): m.end(2)]
        if _plain(value) and entropy(value) >= 3.0 and (value.isupper() or value.islower()):
            yield "password", m.start(2), m.end(2), "TOTP(" + preview(value) + ")"


# ---------------------------------------------------------------------- secret addresses
# A calendar's secret iCal address: `.../ical/<id>/private-<hex>/basic.ics`.
_PRIVATE_SEGMENT = lazy(r"/private-([A-Za-z0-9]{16,64})/")


def private_addresses(text: str, low: str) -> Iterator[Found]:
    if "/private-" not in low:
        return
    for m in in_lines(_PRIVATE_SEGMENT, text, ("/private-",)):
        value = m.group(1)
        line_start = text.rfind("\n", 0, m.start()) + 1
        if "://" in text[line_start: m.start()] and entropy(value) >= 3.0:
            yield "signed_url", m.start(1), m.end(1), "…/private-" + preview(value)


# ---------------------------------------------------------------------- scheme without ':'
# `postgres//user:password@host` as an error message quotes a malformed URL.
_NO_COLON_URL = lazy(r"[a-z][a-z0-9+.\-]{1,30}//[^\s:/@'\"<>]{1,128}:([^\s'\"<>/]{1,256})@"
                     r"[A-Za-z0-9\[][^\s/'\"<>@?#]{0,255}")


def colonless_urls(text: str, low: str) -> Iterator[Found]:
    if "//" not in text or "@" not in text:
        return
    for m in in_lines(_NO_COLON_URL, text, ("//",), low, must="@"):
        if text[m.start() + m.group(0).index("//") - 1] == ":" or not starts_word(text, m.start()):
            continue
        value = m.group(1)
        if _plain(value) and (looks_like_password(value) or random_looking(value)):
            yield "connection_string", m.start(1), m.end(1), "…//…:" + preview(value) + "@"


# ---------------------------------------------------------------------- credential objects
# `new AzureKeyCredential("<key>")`, `ApiKeyCredential("<key>")`,
# `StorageSharedKeyCredential("account", "<key>")`, `[]byte("<key>")` given to a key-named
# variable: a literal handed to what wraps a key.
_KEY_OBJECT = lazy(r"[a-z]*(?:key|token|secret)credential[ \t]*\((?:[ \t]*[\"'][^\"'\n]{1,100}[\"']"
                   r"[ \t]*,)?[ \t]*([\"'])([^\"'\n]{16,200})\1")
_BYTES_LITERAL = lazy(r"(?:\[\]byte|buffer\.from|bytes|encoding\.utf8\.getbytes)\([ \t]*([\"'`])"
                      r"([^\"'`\n]{16,200})\1")
_KEY_VARIABLE = lazy(r"([a-z0-9_]{0,40}(?:key|secret|token))[ \t]*:?=[ \t]*$")


def _key_literal(value: str) -> bool:
    """A literal shaped like a generated key (the call around it says it is one)."""
    hexed = all(c in "0123456789abcdef" for c in value.lower())
    return _plain(value) and (random_looking(value) or mixed(value) and entropy(value) >= 3.5
                              and (len(value) >= 32 or not hexed))


def key_objects(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_KEY_OBJECT, low, ("credential(",)):
        value = text[m.start(2): m.end(2)]
        if _key_literal(value):
            yield "credential", m.start(2), m.end(2), "…Credential(" + preview(value) + ")"
    for m in in_lines(_BYTES_LITERAL, low, ("byte(", "buffer.from(", "bytes(", "getbytes(")):
        name = _KEY_VARIABLE.search(low, max(0, m.start() - 60), m.start())
        value = text[m.start(2): m.end(2)]
        if name is not None and _key_literal(value) and starts_word(low, name.start()):
            yield "credential", m.start(2), m.end(2), f"{name.group(1)} = " + preview(value)


# ---------------------------------------------------------------------- JWK private members
# A JSON Web Key's private members (`d`, `p`, `q`, `dp`, `dq`, `qi`; `k` of a symmetric
# key), quoted or not (a JavaScript object), in a text that holds `kty`.
_JWK_PRIVATE = lazy(r"(?<![\w\-])[\"']?(?:d|p|q|dp|dq|qi|k)[\"']?[ \t]*:[ \t]*[\"']([A-Za-z0-9_\-]{16,})[\"']")


def jwk_members(text: str, low: str) -> Iterator[Found]:
    """Within a key's reach of each `kty` (a JWK is a few hundred characters, and its
    members may come before `kty`)."""
    scanned = 0
    i = low.find("kty")
    while i >= 0:
        lo, hi = max(scanned, i - 2000), min(len(text), i + 4000)
        for m in _JWK_PRIVATE.finditer(text, lo, hi):
            value = m.group(1)
            if not is_placeholder(value) and entropy(value) >= 3.5:
                yield "private_key", m.start(1), m.end(1), "JWK private member " + preview(value)
        scanned = hi
        i = low.find("kty", hi)


RULES = (lftp_users, bundler_credentials, cookie_jars, cat_key_files, totp_seeds,
         private_addresses, colonless_urls, key_objects, jwk_members)
