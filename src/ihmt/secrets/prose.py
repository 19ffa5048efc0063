"""Secrets given in sentences: "the wifi password is ...", "password for the NAS: ...",
"la contraseña es ...".
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from .assign import IDENT_CHAIN, reference
from .values import looks_like_password, preview, starts_word

Found = tuple[str, int, int, str]


_PROSE_KEY = re.compile(
    r"pass(?:words?|wd|phrase|code|wort)?|pwd?|pin code|contrase(?:ñ|n)a|clave|"
    r"mot de passe|kennwort|senha|wachtwoord|(?:recovery|backup|2fa|mfa|totp|otp) "
    r"(?:seed|code|key)s?")
_CONNECT = re.compile(
    r"(?:\s+(?:for|of|at|on|to|in|del|de|para|du|für|da|do|van)\s[^\n.;!?:=]{0,40}?)?"
    r"(?:[,;]?\s+(?:changed|rotated|updated|reset|again|today|yesterday|and|so|it))"
    r"{0,4}[,;]?"
    r"(?:\s(?:(?:is|was|are|it'?s|it’s) now|is|was|are|were|now|becomes|es|era|est|ist|é|"
    r"=|->|→|it'?s|it’s)"
    r"|\s?[:=]|\s(?:changed|set|reset|updated|rotated|cambiada|cambió) (?:it )?to)\s+")
_PROSE_VALUE = re.compile(r"([\"'`“‘])([^\"'`”’\n]{4,128})[\"'`”’]|(\S{4,128})")


def prose(text: str, low: str) -> Iterator[Found]:
    """"the wifi password is X", "password for the NAS: X", "la contraseña es X"."""
    for m in _PROSE_KEY.finditer(low):
        if not starts_word(low, m.start()) or (m.end() < len(low) and (
                low[m.end()].isalnum() or low[m.end()] in "_-")):
            continue
        pos = m.end()
        c = _CONNECT.match(low, pos)
        if c is not None:
            pos = c.end()
        else:
            # "user ana, password <value>": the value right after the word
            if not low.startswith(" ", pos):
                continue
            pos += 1
        v = _PROSE_VALUE.match(text, pos)
        if v is None:
            continue
        g = 2 if v.group(2) is not None else 3
        value = v.group(g)
        s = v.start(g)
        if g == 3:
            value = value.rstrip(".,;:)]\"'`")
        if c is None and not (looks_like_password(value) and any(ch.isdigit() for ch in value)):
            continue
        if not looks_like_password(value) or value.startswith(("$", "{", "<", "http", "/", "~")):
            continue
        if re.search(r"[(\[{}\]]", value) or IDENT_CHAIN.fullmatch(value) and (
                "_" in value or "." in value and reference(value)):
            continue  # code: `password = getpass.getpass(...)`, `pw = form.pw`
        if re.fullmatch(r"\d{1,2}[:/.]\d{2}(?:[:/.]\d{2,4})?", value):
            continue  # a time or a date
        yield "password", s, s + len(value), m.group(0) + " " + preview(value)
