"""Every rule over one text, overlaps resolved in favour of the most specific kind."""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

from ..lazy_re import lazy
from . import context, shapes
from .entropy import TOKEN, random_token
from .model import Finding
from .values import is_placeholder, preview, starts_word

_CASED = lazy(r"[A-Z]+|[^\x00-\x7f]")


def _lower_one(m: re.Match[str]) -> str:
    c = m.group(0)
    low = c.lower()
    return low if len(low) == len(c) else c


def _lowered(text: str) -> str:
    """``text`` lower-cased with every position kept (case-insensitive regexes are slow)."""
    low = text.lower()
    if len(low) != len(text):  # a few characters (İ) grow when lower-cased: keep those
        low = _CASED.sub(_lower_one, text)
    return low


# A signed mail's DKIM and ARC headers with their folded lines: `bh=` and `b=` are the
# message's public signature and body hash.
_MAIL_SIGNATURE = lazy(r"[^\n]*(?:\n[ \t][^\n]*)*")
_MAIL_HEADERS = ("dkim-signature:", "arc-seal:", "arc-message-signature:")


def _mail_signatures(low: str) -> Iterator[tuple[int, int]]:
    """The spans of those headers, each from its name at a line's start."""
    for name in _MAIL_HEADERS:
        i = low.find(name)
        while i >= 0:
            if i == 0 or low[i - 1] == "\n" or low.endswith("x-google-", 0, i):
                yield i, _MAIL_SIGNATURE.match(low, i + len(name)).end()
            i = low.find(name, i + 1)


def _public_spans(text: str, low: str) -> list[tuple[int, int]]:
    """Certificates, public keys, data: URIs and wrapped base64: their contents are public
    or encoded files, never flagged as random tokens."""
    spans = []
    if "-----BEGIN " in text:
        spans += [m.span() for m in shapes.PUBLIC_BLOCK.finditer(text)]
    if "base64," in text:
        spans += [m.span() for m in shapes.DATA_URI.finditer(text)]
    if "\n" in text:
        spans += [m.span() for m in shapes.WRAPPED_B64.finditer(text)]
    if "begin" in text:
        spans += [m.span() for m in shapes.UUENCODED.finditer(text)]
    if "signature:" in low or "arc-seal:" in low:
        spans += list(_mail_signatures(low))
    if "eyJ" in text:  # a JWT public by its role: none of its parts is a token either
        spans += [m.span() for m in shapes.JWT.finditer(text) if not shapes.private_jwt(m[0])]
    return spans


# ejson's `EJ[1:<key>:<nonce>:<box>]`, jasypt's `ENC(<base64>)`: ciphertext in the wrapper
# of the tool that made it.
# dotenvx's `encrypted:<base64>`; hiera-eyaml's `ENC[PKCS7,<base64>]`, wrapped over lines;
# Bitwarden's `2.<iv>|<data>|<mac>` in an export.
_WRAPPED_CIPHERTEXT = lazy(r"EJ\[\d+:[A-Za-z0-9+/=:]{16,}\]|ENC\([A-Za-z0-9+/=]{16,}\)")
# (each with a literal start of its own: an alternation without one tries every position)
_DOTENVX = lazy(r"encrypted:[A-Za-z0-9+/=]{16,}")
_EYAML = lazy(r"ENC\[PKCS7,[A-Za-z0-9+/=\s]{16,20000}\]")
_BITWARDEN = lazy(r"[0-7]\.[A-Za-z0-9+/]{22}==\|[A-Za-z0-9+/=|]{16,4096}")


_WORD_OR_DOT = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.")


def _ciphertext_spans(text: str) -> list[tuple[int, int]]:
    """Encrypted values committed on purpose (sops, SealedSecrets): nothing inside is a
    secret in the clear, whatever key names it."""
    spans = []
    if "ENC[" in text:
        spans += [m.span() for m in shapes.SOPS_VALUE.finditer(text)]
    if "EJ[" in text or "ENC(" in text:
        spans += [m.span() for m in _WRAPPED_CIPHERTEXT.finditer(text)]
    if "encrypted:" in text:
        spans += [m.span() for m in _DOTENVX.finditer(text)]
    if "ENC[PKCS7" in text:
        spans += [m.span() for m in _EYAML.finditer(text)]
    i = text.find("==|")
    while i >= 0:  # Bitwarden's `2.<iv>|...`: its iv ends 24 characters after the `2.`
        m = _BITWARDEN.match(text, i - 24) if i >= 24 else None
        if m is not None and (i == 24 or text[i - 25] not in _WORD_OR_DOT):
            spans.append(m.span())
        i = text.find("==|", i + 3)
    if "encryptedData" in text and shapes.SEALED_SECRET.search(text):
        spans += [m.span() for m in shapes.SEALED_DATA.finditer(text)]
    return spans


def _shape_match(text: str, i: int, shape: shapes.Shape,
                 m: re.Match[str]) -> Iterator[tuple[int, str, int, int, str]]:
    start = m.start(shape.group) - shape.back
    if shape.lead is not None:
        lead = shape.lead.search(text, max(0, start - 16), start)
        if lead is None:
            return
        start = lead.start()
    if start < 0 or (shape.lead is None and not starts_word(text, start)):
        return
    value = text[start: m.end(shape.group)]
    if shape.check is not None and not shape.check(value):
        return
    if is_placeholder(value):
        return
    yield 1 + i, shape.kind, start, m.end(shape.group), preview(value, shape.prefix(value))


# A value published with a label that says so, on its line or one of the two above: a
# test vector cited from an RFC by number (RFC 8032's Ed25519 key, RFC 8439's ChaCha20
# key), or the signature lines of a minisign/signify file under their comment lines.
# Only the generic kinds give way: a provider's shape is a secret whatever its label.
_LABELLED_PUBLIC = lazy(r"(?i)\brfc[ \t\-]?\d{3,5}\b[^\n]{0,120}\btest[ \t\-]?vectors?\b|"
                        r"\btest[ \t\-]?vectors?\b[^\n]{0,120}\brfc[ \t\-]?\d{3,5}\b|"
                        r"^(?:un)?trusted comment:")
_GENERIC = frozenset({"high_entropy", "credential", "password"})


def _labelled_public(text: str, start: int) -> bool:
    lo = start
    for _ in range(3):
        lo = text.rfind("\n", 0, lo - 1) + 1 if lo > 0 else 0
        if lo == 0:
            break
    for line in text[lo: start].split("\n"):
        if _LABELLED_PUBLIC.search(line):
            return True
    return False


def _candidates(text: str) -> Iterator[tuple[int, str, int, int, str]]:
    """(priority, kind, start, end, preview) for every match; lower priority wins overlaps."""
    if "PRIVATE KEY" in text:
        for m in shapes.PRIVATE_KEY.finditer(text):
            header_end = text.index("-----", m.start() + 5) + 5
            if not shapes.PEM_BODY.match(text, header_end):
                continue  # the marker alone, as in code that looks for it
            yield 0, "private_key", m.start(), m.end(), text[m.start(): header_end] + "…"
    if "OpenVPN Static key" in text:  # a shared key for tls-auth: private, in its own block
        for m in shapes.OPENVPN_KEY.finditer(text):
            yield 0, "private_key", m.start(1), m.end(1), "OpenVPN Static key…"
    for i, shape in shapes.SCANNED:
        if shape.needles and not any(n in text for n in shape.needles):
            continue
        for m in shape.regex.finditer(text):
            yield from _shape_match(text, i, shape, m)
    for run in shapes.RUN.finditer(text):
        pos = run.start()
        for i, needle, shape in shapes.BY_START.get(text[pos: pos + 2], ()):
            if text.startswith(needle, pos):
                m = shape.regex.match(text, pos)
                if m is not None:
                    yield from _shape_match(text, i, shape, m)
    base = 1 + len(shapes.SHAPES)
    low = _lowered(text)
    for j, rule in enumerate(context.RULES):
        for kind, s, e, shown in rule(text, low):
            yield base + j, kind, s, e, shown
    public = _public_spans(text, low)
    for m in TOKEN.finditer(text):
        if any(s <= m.start() < e for s, e in public):
            continue
        tok = m.group(0)
        start = m.start() + len(tok) - len(tok.lstrip("/"))  # `ipfs://Qm...`: not the slashes
        tok = tok.lstrip("/")
        if random_token(tok, text[max(0, start - 200): start], text[m.end(): m.end() + 120]):
            yield base + len(context.RULES), "high_entropy", start, m.end(), preview(tok)


def find_secrets(text: str) -> list[Finding]:
    """Every value in ``text`` that looks like a credential, in order of position.

    Overlapping matches are resolved in favour of the most specific kind (a GitHub token
    assigned to ``token =`` is reported once, as a GitHub token).
    """
    if not isinstance(text, str) or not text:
        return []
    cands = sorted(_candidates(text), key=lambda c: (c[0], c[2]))
    sealed = _ciphertext_spans(text)
    if sealed:
        cands = [c for c in cands if not any(s <= c[2] and c[3] <= e for s, e in sealed)]
    starts: list[int] = []  # accepted spans, disjoint, sorted by start
    ends: list[int] = []
    chosen: list[tuple[str, int, int, str]] = []
    labelled = ("rfc" in text.lower() or "trusted comment:" in text)
    for _, kind, start, end, shown in cands:
        if end <= start:
            continue
        if labelled and kind in _GENERIC and _labelled_public(text, start):
            continue
        i = bisect_right(starts, start)
        if (i > 0 and ends[i - 1] > start) or (i < len(starts) and starts[i] < end):
            continue
        starts.insert(i, start)
        ends.insert(i, end)
        chosen.append((kind, start, end, shown))
    chosen.sort(key=lambda c: c[1])
    out: list[Finding] = []
    line, pos = 1, 0
    for kind, s, e, p in chosen:  # in order: count the newlines once
        line += text.count("\n", pos, s)
        pos = s
        out.append(Finding(kind, s, e, p, line))
    return out
