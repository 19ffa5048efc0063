"""Secrets recognised by their shape: the prefixes providers give their keys, PEM blocks.

Each pattern starts with its literal prefix (a leading look-behind would stop the regex
engine from skipping ahead to the prefix and make each scan ten times slower); that the
token does not continue a longer word is checked after the match by the scanner.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .values import b64_decoded, mixed

_END = r"(?![A-Za-z0-9_\-])"
_END_ALNUM = r"(?![A-Za-z0-9_])"


@dataclass(frozen=True)
class Shape:
    kind: str
    regex: re.Pattern[str]
    prefix: Callable[[str], str]  # the part of the value that may be shown
    group: int = 0
    check: Callable[[str], bool] | None = None
    back: int = 0  # characters before the match that belong to the value (a fixed count)
    lead: re.Pattern[str] | None = None  # what must end just before the match, part of it


def _lit(n: int) -> Callable[[str], str]:
    return lambda v: v[:n]


def _upto(sep: str) -> Callable[[str], str]:
    return lambda v: v[: v.index(sep) + len(sep)] if sep in v else v[:4]


def _none(v: str) -> str:
    return ""


def _openai_prefix(tok: str) -> str:
    for p in ("sk-proj-", "sk-svcacct-", "sk-admin-", "sk-"):
        if tok.startswith(p):
            return p
    return "sk-"


def _digits(n: int) -> Callable[[str], bool]:
    return lambda v: sum(c.isdigit() for c in v) >= n


def _discord(v: str) -> bool:
    raw = b64_decoded(v.split(".", 1)[0])
    return raw is not None and raw.isdigit()


def _hexmix(v: str) -> bool:
    body = v[-32:]
    return any(c.isdigit() for c in body) and any(c.isalpha() for c in body)


def _c(p: str) -> re.Pattern[str]:
    return re.compile(p)


SHAPES: tuple[Shape, ...] = (
    Shape("aws_access_key", _c(r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])"), _lit(4)),
    Shape("github_token", _c(r"gh[pousr]_[A-Za-z0-9]{36,251}" + _END_ALNUM), _lit(4)),
    Shape("github_token", _c(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,}" + _END_ALNUM),
          _lit(11)),
    Shape("gitlab_token", _c(r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"
                             + _END), _upto("-"), check=mixed),
    Shape("slack_webhook", _c(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/"
                              r"[A-Za-z0-9]{6,}/[A-Za-z0-9]{6,}/[A-Za-z0-9]{16,}"),
          lambda v: v[: v.rfind("/") + 1]),
    Shape("slack_token", _c(r"xox[abposre]-[0-9]{6,}-[A-Za-z0-9\-]{8,}" + _END), _lit(5)),
    Shape("slack_token", _c(r"xapp-\d-[A-Z0-9]{9,}-\d+-[a-z0-9]{32,}" + _END), _lit(5)),
    Shape("stripe_key", _c(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _END_ALNUM), _lit(8)),
    Shape("stripe_key", _c(r"whsec_[A-Za-z0-9+/]{24,}={0,2}"), _lit(6)),
    Shape("anthropic_key", _c(r"sk-ant-[A-Za-z0-9_\-]{24,}" + _END), _lit(7), check=mixed),
    Shape("openai_key", _c(r"sk-(?!ant-)(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{32,}" + _END),
          _openai_prefix, check=lambda v: mixed(v) and _digits(2)(v)),
    Shape("google_api_key", _c(r"AIza[0-9A-Za-z_\-]{35}" + _END), _lit(4)),
    Shape("pypi_token", _c(r"pypi-AgE[A-Za-z0-9_\-]{50,}" + _END), _lit(5)),
    Shape("npm_token", _c(r"npm_[A-Za-z0-9]{36}" + _END_ALNUM), _lit(4), check=mixed),
    Shape("huggingface_token", _c(r"hf_[A-Za-z]{34,}" + _END_ALNUM), _lit(3),
          check=lambda v: sum(c.isupper() for c in v) >= 4),
    Shape("digitalocean_token", _c(r"do[por]_v1_[a-f0-9]{64}" + _END_ALNUM), _lit(7)),
    Shape("shopify_token", _c(r"shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}" + _END_ALNUM), _lit(6)),
    Shape("mailgun_key", _c(r"key-[a-f0-9]{32}" + _END_ALNUM), _lit(4), check=_hexmix),
    Shape("sendgrid_key", _c(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _END), _lit(3)),
    Shape("twilio_key", _c(r"SK[0-9a-f]{32}" + _END_ALNUM), _lit(2), check=_hexmix),
    Shape("square_token", _c(r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,})"
                             + _END), _lit(4)),
    Shape("vault_token", _c(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}" + _END), _lit(4), check=mixed),
    Shape("age_key", _c(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"), _lit(16)),
    Shape("atlassian_token", _c(r"ATATT3[A-Za-z0-9_\-=]{100,}"), _lit(6)),
    Shape("postman_key", _c(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"), _lit(5)),
    Shape("doppler_token", _c(r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._\-]{40,}"),
          _upto(".")),
    Shape("linear_key", _c(r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _END_ALNUM), _lit(8)),
    Shape("notion_token", _c(r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})" + _END_ALNUM),
          _lit(4), check=lambda v: mixed(v) and _digits(3)(v)),
    Shape("sentry_token", _c(r"sntr(?:ys|yu)_[A-Za-z0-9_\-=+/]{30,}"), _lit(7)),
    Shape("newrelic_key", _c(r"NR(?:AK|AA|II)-[A-Z0-9]{27}" + _END_ALNUM), _lit(5)),
    Shape("terraform_token", _c(r"\.atlasv1\.[A-Za-z0-9_\-=]{60,}"), _none, back=14),
    Shape("grafana_token", _c(r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}"
                              r"={0,2})"), _lit(5)),
    Shape("databricks_token", _c(r"dapi[a-f0-9]{32}(?:-\d)?" + _END_ALNUM), _lit(4),
          check=_hexmix),
    Shape("planetscale_token", _c(r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}"), _lit(11)),
    Shape("pulumi_token", _c(r"pul-[a-f0-9]{40}" + _END_ALNUM), _lit(4), check=_hexmix),
    Shape("discord_token", _c(r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\."
                              r"[A-Za-z0-9_\-]{27,}" + _END), _none, check=_discord),
    Shape("discord_webhook", _c(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
                                r"\d{5,}/[A-Za-z0-9_\-]{40,}"),
          lambda v: v[: v.rfind("/") + 1]),
    Shape("telegram_token", _c(r":AA[A-Za-z0-9_\-]{30,34}" + _END), _upto(":"),
          lead=_c(r"(?<![0-9])[0-9]{8,10}$")),
    Shape("azure_client_secret", _c(r"[0-9]Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
          _none, back=3),
    Shape("jwt", _c(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}" + _END),
          _lit(3)),
)

# Keys in a connection string or URL query whose value is the secret itself.
PRIVATE_KEY = re.compile(
    r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"
    r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|.*\Z)",
    re.DOTALL,
)
# A PEM body: optional `Name: value` header lines, then base64.
PEM_BODY = re.compile(r"(?:\s|\\[nr])*(?:[A-Za-z\-]+:[^\n]*\n\s*)*[A-Za-z0-9+/=]{16}")

# Blocks that are public by design: their base64 is not a secret.
PUBLIC_BLOCK = re.compile(
    r"-----BEGIN ((?:[A-Z0-9]+ )*(?:CERTIFICATE|PUBLIC KEY|PUBLIC KEY BLOCK|CERTIFICATE "
    r"REQUEST|NEW CERTIFICATE REQUEST|X509 CRL|SIGNATURE|PGP SIGNATURE|PGP MESSAGE|"
    r"ENCRYPTED MESSAGE|PKCS7|CMS|DH PARAMETERS|EC PARAMETERS))-----"
    r".*?(?:-----END \1-----|\Z)", re.DOTALL)
# ``data:image/png;base64,...`` and wrapped base64 (3+ lines of 60+ characters): encoded
# files (images, fixtures), not credentials, which are one line or sit in a PEM block.
DATA_URI = re.compile(r"data:[\w.+\-]+/[\w.+\-]+(?:;[\w=\-]+)*;base64,[A-Za-z0-9+/=\s]+")
WRAPPED_B64 = re.compile(r"(?m)(?:^[ \t]*[A-Za-z0-9+/]{60,}={0,2}[ \t]*\r?\n){2,}"
                         r"[ \t]*[A-Za-z0-9+/]{4,}={0,2}[ \t]*$")
