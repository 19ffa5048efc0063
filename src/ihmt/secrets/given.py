"""Secrets given where a program takes them, with no key word beside the value: the key a
JWT is signed with, a Kubernetes env entry named for a password, PowerShell's
``ConvertTo-SecureString``, a Discord client's ``run``, the accounts of a Hardhat network,
pgbouncer's ``userlist.txt``, a PuTTY key's private lines, a service account's JSON in
base64, and the token in an invitation or reset link's query.

Each rule yields ``(kind, start, end, preview)`` for the value only, as those of
:mod:`.context` do; keywords are found in the lower-cased text.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..lazy_re import lazy
from .assign import secret_key_name
from .forms import Found, in_lines
from .values import (
    b64_decoded,
    entropy,
    is_placeholder,
    looks_like_password,
    mixed,
    preview,
    random_looking,
    stand_in,
    variable_reference,
)


def _literal(value: str) -> bool:
    """A literal shaped like a password or a key: not a placeholder, a reference or a word."""
    if stand_in(value):
        return False
    return random_looking(value) or (looks_like_password(value)
                                     and any(c.isdigit() for c in value)
                                     and any(not c.isalnum() for c in value))


# ---------------------------------------------------------------------- signing calls
# `jwt.sign(payload, "<key>", ...)` (Node), `jwt.encode(claims, "<key>", algorithm=...)`
# (Python): the literal after the payload is the signing key.
_JWT_CALL = lazy(r"\bjwt\.(?:sign|encode)[ \t]*\((?:[^\"'(){}\n]|\{[^{}\n]*\}|\([^()\n]*\))*?,"
                 r"[ \t]*([\"'])([^\"'\n]{8,200})\1")


def signing_calls(text: str, low: str) -> Iterator[Found]:
    for m in in_lines(_JWT_CALL, text, ("jwt.sign", "jwt.encode"), low):
        value = m.group(2)
        if _literal(value):
            yield "credential", m.start(2), m.end(2), "jwt.sign(…, " + preview(value) + ")"


# ---------------------------------------------------------------------- env entries
# A container's env list: `- name: DB_PASSWORD` and, on the next line, `value: "<pw>"`.
_ENV_ENTRY = lazy(r"name:[ \t]*[\"']?([A-Za-z_][A-Za-z0-9_.\-]{0,80})[\"']?[ \t]*\r?\n"
                  r"[ \t]*value:[ \t]*([\"']?)([^\s\"']{1,400})\2[ \t]*(?=\r?\n|$)")


def env_entries(text: str, low: str) -> Iterator[Found]:
    if "value:" not in low:
        return
    for m in _ENV_ENTRY.finditer(text):  # two lines: not one line at a time
        name, value = m.group(1), m.group(3)
        if not secret_key_name(name) or is_placeholder(value) or variable_reference(value):
            continue
        password = "pass" in name.lower() or "pwd" in name.lower()
        if (password and (looks_like_password(value) or len(value) >= 8 and mixed(value))
                or random_looking(value)):
            yield ("password" if password else "credential"), m.start(3), m.end(3), \
                f"{name}: " + preview(value)


# ---------------------------------------------------------------------- PowerShell
_SECURE_STRING = lazy(r"convertto-securestring[ \t]+(?:-string[ \t]+)?([\"'])([^\"'\n]{4,200})\1"
                      r"[^\n]*-asplaintext")


def secure_strings(text: str, low: str) -> Iterator[Found]:
    if "convertto-securestring" not in low:
        return
    for m in _SECURE_STRING.finditer(low):
        value = text[m.start(2): m.end(2)]
        if not is_placeholder(value) and not (m.group(1) == '"' and variable_reference(value)):
            yield "password", m.start(2), m.end(2), "ConvertTo-SecureString " + preview(value)


# ---------------------------------------------------------------------- Discord
# A Discord client started with its bot token: three dotted parts, whatever the first
# part decodes to.
_DISCORD_RUN = lazy(r"\.(?:run|login|start)[ \t]*\([ \t]*([\"'])([A-Za-z0-9_\-]{20,30}\."
                    r"[A-Za-z0-9_\-]{6,7}\.[A-Za-z0-9_\-]{27,40})\1")


def discord_runs(text: str, low: str) -> Iterator[Found]:
    if "discord" not in low:
        return
    for m in in_lines(_DISCORD_RUN, text, (".run", ".login", ".start")):
        yield "discord_token", m.start(2), m.end(2), preview(m.group(2))


# ---------------------------------------------------------------------- wallets
# A network's `accounts: ["0x<64 hex>"]` (Hardhat, Foundry): the private keys it signs with.
_ACCOUNTS = lazy(r"accounts[\"']?[ \t]*[:=][ \t]*\[[ \t]*[\"'](?:0x)?([0-9a-fA-F]{64})[\"']")


def wallet_accounts(text: str, low: str) -> Iterator[Found]:
    if "accounts" not in low:
        return
    for m in in_lines(_ACCOUNTS, text, ("accounts",), low):
        value = m.group(1)
        if len(set(value)) >= 10:
            yield "crypto_private_key", m.start(1), m.end(1), "accounts: [0x…]"


# ---------------------------------------------------------------------- pgbouncer
# `userlist.txt`: `"user" "password"` a line; a stored hash (`md5...`, `SCRAM-SHA-256$`)
# is not the password.
_USERLIST = lazy(r"(?m)^[ \t]*\"[^\"\n]{1,64}\"[ \t]+\"([^\"\n]{4,200})\"[ \t]*$")


def userlists(text: str, low: str) -> Iterator[Found]:
    if "userlist" not in low:
        return
    for m in _USERLIST.finditer(text):
        value = m.group(1)
        if value.startswith(("md5", "SCRAM-SHA-256$")) or is_placeholder(value):
            continue
        yield "password", m.start(1), m.end(1), "userlist " + preview(value)


# ---------------------------------------------------------------------- PuTTY
_PUTTY_PRIVATE = lazy(r"Private-Lines:[ \t]*\d+[ \t]*\r?\n((?:[A-Za-z0-9+/=]{4,80}\r?\n?)+)")


def putty_keys(text: str, low: str) -> Iterator[Found]:
    if "PuTTY-User-Key-File" not in text:
        return
    for m in _PUTTY_PRIVATE.finditer(text):
        end = m.end(1)
        while end > m.start(1) and text[end - 1] in "\r\n":
            end -= 1
        yield "private_key", m.start(1), end, "PuTTY Private-Lines…"


# ---------------------------------------------------------------------- encoded JSON keys
# A service account's JSON, base64-encoded whole for a CI variable: `eyJ...` that decodes to
# an object holding a private key.
_B64_JSON = lazy(r"(?<![A-Za-z0-9+/_\-])eyJ[A-Za-z0-9+/_\-]{200,}={0,2}")


def encoded_keys(text: str, low: str) -> Iterator[Found]:
    if "eyJ" not in text:
        return
    for m in _B64_JSON.finditer(text):
        raw = b64_decoded(m.group(0))
        if raw and (b"PRIVATE KEY" in raw or b'"private_key"' in raw):
            yield "private_key", m.start(), m.end(), "base64 JSON with a private key…"


# ---------------------------------------------------------------------- invitation links
# `https://host/invite/accept?t=<token>`, `/reset-password?code=<token>`: a path that says
# the link is a capability, its token in the query under any name.
_CAPABILITY_QUERY = lazy(r"https?://[^\s/\"'<>]{1,255}/(?:[^\s?#\"'<>]{0,200}/)?(?:invite|invitation|"
                         r"join|reset|reset[_\-]?password|magic[_\-]?link|magic)(?:/[\w\-]{1,20})?"
                         r"\?(?:[^\s#&\"'<>]{0,200}&){0,8}?[A-Za-z_]{1,16}=([A-Za-z0-9_\-.~]{20,200})")


def capability_queries(text: str, low: str) -> Iterator[Found]:
    if "?" not in text or not any(w in low for w in ("invit", "join", "reset", "magic")):
        return
    for m in in_lines(_CAPABILITY_QUERY, text, ("://",)):
        value = m.group(1)
        if mixed(value) and entropy(value) >= 3.5 and not is_placeholder(value):
            yield "signed_url", m.start(1), m.end(1), "invitation link " + preview(value)


RULES = (signing_calls, env_entries, secure_strings, discord_runs, wallet_accounts, userlists,
         putty_keys, encoded_keys, capability_queries)
