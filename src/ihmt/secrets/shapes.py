"""Secrets recognised by their shape: the prefixes providers give their keys, PEM blocks.

Each pattern starts with its literal prefix (a leading look-behind would stop the regex
engine from skipping ahead to the prefix and make each scan ten times slower); that the
token does not continue a longer word is checked after the match by the scanner.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ..lazy_re import lazy
from .values import b64_decoded, is_placeholder, mixed

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
    # Literal strings one of which every match contains: a text without any of them is not
    # scanned with this shape at all (``in`` is far cheaper than a regex pass).
    needles: tuple[str, ...] = ()
    # Scanned with a pass of its own, not dispatched from the word runs (see RUN): shapes
    # whose value may break its first run of word characters early (``ya29.``, ``SG.``,
    # ``https://``), read backwards, or have no literal start.
    scan: bool = False

    def __post_init__(self) -> None:
        if not self.needles:
            lit = literal_prefix(self.regex.pattern)
            if len(lit) >= 2:
                object.__setattr__(self, "needles", (lit,))
        if not self.needles or self.back or self.lead is not None or self.group:
            object.__setattr__(self, "scan", True)


def _filler_path(url: str) -> bool:
    """A webhook URL from documentation: its last segment is filler (`XXXX...`, `0000...`)."""
    return is_placeholder(url.rsplit("/", 1)[-1])


def literal_prefix(pattern: str) -> str:
    """The literal characters a regex pattern starts with (``\\.`` read as ``.``)."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and i + 1 < len(pattern) and not pattern[i + 1].isalnum():
            out.append(pattern[i + 1])
            i += 2
            continue
        if c in "\\.^$*+?{}[]()|":
            break
        out.append(c)
        i += 1
    if i < len(pattern) and pattern[i] in "*?{" and out:
        out.pop()  # `ab?`: the last character is optional
    return "".join(out)


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
    return lazy(p)


def _hex_before(n: int, tail: str) -> Callable[[str], bool]:
    """The value is ``n`` hex characters (letters and digits both) then ``tail``'s shape."""
    rx = lazy(rf"[a-f0-9]{{{n}}}{tail}")
    return lambda v: rx.fullmatch(v) is not None and _hexmix(v[:n])


def _random(v: str) -> bool:
    return mixed(v) and _digits(2)(v)


def private_jwt(v: str) -> bool:
    """Any JWT but one whose claims give it the ``anon`` role: Supabase's anon key, which a
    web page ships to every browser (its ``service_role`` twin is a secret)."""
    raw = b64_decoded(v.split(".")[1])
    return raw is None or _ANON_ROLE.search(raw) is None


_ANON_ROLE = re.compile(rb'"role"\s*:\s*"anon"')
JWT = _c(r"eyJ[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}\.[A-Za-z0-9_\-]{10,}" + _END)


def _encoded_private_key(v: str) -> bool:
    """Base64 of a PEM block whose first line says PRIVATE KEY (a kubeconfig's
    ``client-key-data``, a key passed in an environment variable); certificates and
    public keys are encoded the same way and stay public."""
    head = b64_decoded(v[:96])
    return head is not None and b"PRIVATE KEY" in head.split(b"\n", 1)[0]


# Providers' formats beyond the first list, each a documented prefix and body: cloud and
# CI platforms, AI APIs, payment, messaging and developer tools.
MORE_SHAPES: tuple[Shape, ...] = (
    # (URL-encoded in a presigned URL's `X-Amz-Security-Token=`: `%2B`, `%2F`, `%3D`)
    Shape("aws_session_token", _c(r"(?:FwoGZXIvYXdzE|IQoJb3JpZ2luX2Vj)(?:[A-Za-z0-9+/=]|%[0-9A-Fa-f]{2}){100,}"),
          _lit(6), needles=("FwoGZXIvYXdzE", "IQoJb3JpZ2luX2Vj")),
    Shape("google_oauth", _c(r"ya29\.[A-Za-z0-9_\-]{50,}" + _END), _lit(5), scan=True),
    Shape("google_oauth", _c(r"1//0[A-Za-z0-9_\-]{40,}" + _END), _lit(4), check=_random,
          scan=True),
    Shape("google_oauth", _c(r"GOCSPX-[A-Za-z0-9_\-]{28}" + _END), _lit(7)),
    Shape("gcp_hmac_key", _c(r"GOOG1[A-Z0-9]{56}" + _END_ALNUM), _lit(5)),
    Shape("alibaba_key", _c(r"LTAI[A-Za-z0-9]{12,20}" + _END_ALNUM), _lit(4), check=_random),
    Shape("tencent_key", _c(r"AKID[A-Za-z0-9]{32}" + _END_ALNUM), _lit(4), check=_random),
    Shape("cloudflare_key", _c(r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}" + _END_ALNUM), _lit(5),
          scan=True),
    Shape("heroku_token", _c(r"HRKU-[A-Za-z0-9_\-]{20,}" + _END), _lit(5), check=_random),
    Shape("supabase_token", _c(r"sbp_[a-f0-9]{40}" + _END_ALNUM), _lit(4), check=_hexmix),
    Shape("supabase_token", _c(r"sb_secret_[A-Za-z0-9_\-]{20,}" + _END), _lit(10)),
    Shape("netlify_token", _c(r"nfp_[A-Za-z0-9]{36}" + _END_ALNUM), _lit(4), check=_random),
    Shape("render_token", _c(r"rnd_[A-Za-z0-9]{32}" + _END_ALNUM), _lit(4), check=_random),
    Shape("fly_token", _c(r"fo1_[A-Za-z0-9_\-]{43}" + _END), _lit(4)),
    # Fly.io's macaroon tokens: `FlyV1 ` then one or more comma-joined `fm1_`/`fm2_` parts.
    Shape("fly_token", _c(r"FlyV1 fm\d_[A-Za-z0-9+/=_\-]{40,}(?:,fm\d_[A-Za-z0-9+/=_\-]{40,})*"),
          _lit(10), needles=("FlyV1 fm",), scan=True),
    # LaunchDarkly's server-side SDK keys (the client-side id is public, the `sdk-` key not).
    Shape("launchdarkly_key", _c(r"sdk-[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}" + _END_ALNUM),
          _lit(4)),
    # Mercado Pago access tokens: `APP_USR-` (production) or `TEST-`, the application's
    # number, a date, 32 hex characters, the user's number.
    Shape("mercadopago_token", _c(r"(?:APP_USR|TEST)-\d{10,20}-\d{6}-[a-f0-9]{32}-\d{6,12}"
                                  + _END_ALNUM), _upto("-"), needles=("APP_USR-", "TEST-")),
    Shape("docker_token", _c(r"dckr_(?:pat|oat)_[A-Za-z0-9_\-]{27,}" + _END), _lit(9)),
    Shape("jfrog_token", _c(r"AKCp[A-Za-z0-9]{60,}" + _END_ALNUM), _lit(4), check=_random),
    Shape("jfrog_token", _c(r"cmVmdGtuOjAxOj[A-Za-z0-9]{40,}" + _END_ALNUM), _lit(8)),
    Shape("buildkite_token", _c(r"bkua_[a-f0-9]{40}" + _END_ALNUM), _lit(5), check=_hexmix),
    Shape("bitbucket_token", _c(r"ATBB[A-Za-z0-9_=.\-]{28,}" + _END), _lit(4), check=_random),
    Shape("rubygems_token", _c(r"rubygems_[a-f0-9]{48}" + _END_ALNUM), _lit(9)),
    Shape("nuget_key", _c(r"oy2[a-z0-9]{43}" + _END_ALNUM), _lit(3), check=_random),
    Shape("tailscale_key", _c(r"tskey-[a-z]+-[A-Za-z0-9]{6,}-[A-Za-z0-9]{20,}" + _END),
          _upto("-")),
    Shape("onepassword_token", _c(r"ops_eyJ[A-Za-z0-9+/=_\-]{100,}"), _lit(4)),
    Shape("dynatrace_token", _c(r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}" + _END_ALNUM), _lit(7),
          scan=True),
    Shape("contentful_token", _c(r"CFPAT-[A-Za-z0-9_\-]{43}" + _END), _lit(6)),
    Shape("prefect_token", _c(r"pnu_[A-Za-z0-9]{36}" + _END_ALNUM), _lit(4), check=_random),
    Shape("posthog_key", _c(r"phx_[A-Za-z0-9]{43}" + _END_ALNUM), _lit(4), check=_random),
    Shape("readme_key", _c(r"rdme_[a-z0-9]{70}" + _END_ALNUM), _lit(5)),
    Shape("newrelic_key", _c(r"NRAL" + _END_ALNUM), _none, back=36,
          check=_hex_before(36, "NRAL")),
    Shape("mailchimp_key", _c(r"-us[0-9]{1,2}" + _END), _none, back=32,
          check=_hex_before(32, r"-us[0-9]{1,2}")),
    Shape("mailgun_key", _c(r"-[a-f0-9]{8}-[a-f0-9]{8}" + _END_ALNUM), _none, back=32,
          check=_hex_before(32, r"-[a-f0-9]{8}-[a-f0-9]{8}")),
    Shape("brevo_key", _c(r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}" + _END_ALNUM), _lit(8)),
    Shape("firebase_key", _c(r":APA91b[A-Za-z0-9_\-]{100,}" + _END), _lit(4), back=11,
          check=lambda v: v.startswith("AAAA")),
    Shape("twitter_token", _c(r"AAAAAAAAAAAAAAAAAAAAA[A-Za-z0-9%]{50,}" + _END_ALNUM), _none),
    Shape("facebook_token", _c(r"EAA[A-Za-z0-9]{90,}" + _END_ALNUM), _lit(3), check=_random),
    Shape("intercom_token", _c(r"dG9rOj[A-Za-z0-9_=\-]{40,}" + _END), _lit(6)),
    Shape("mapbox_token", _c(r"sk\.eyJ[A-Za-z0-9_\-]{20,}\.[A-Za-z0-9_\-]{20,}" + _END), _lit(3),
          scan=True),
    Shape("airtable_token", _c(r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}" + _END_ALNUM), _lit(3)),
    Shape("figma_token", _c(r"figd_[A-Za-z0-9_\-]{40,}" + _END), _lit(5)),
    Shape("dropbox_token", _c(r"sl\.(?:u\.)?[A-Za-z0-9_\-]{130,}" + _END), _lit(3),
          check=_random, scan=True),
    Shape("groq_key", _c(r"gsk_[A-Za-z0-9]{52}" + _END_ALNUM), _lit(4)),
    Shape("xai_key", _c(r"xai-[A-Za-z0-9]{80}" + _END_ALNUM), _lit(4)),
    Shape("perplexity_key", _c(r"pplx-[A-Za-z0-9]{48}" + _END_ALNUM), _lit(5)),
    Shape("replicate_token", _c(r"r8_[A-Za-z0-9]{37}" + _END_ALNUM), _lit(3), check=_random),
    Shape("elevenlabs_key", _c(r"sk_[a-f0-9]{48}" + _END_ALNUM), _lit(3), check=_hexmix),
    Shape("pinecone_key", _c(r"pcsk_[A-Za-z0-9_]{50,}" + _END_ALNUM), _lit(5)),
    Shape("langsmith_key", _c(r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}" + _END_ALNUM), _lit(8)),
    Shape("resend_key", _c(r"re_[A-Za-z0-9_]{30,}" + _END_ALNUM), _lit(3),
          check=lambda v: _random(v[3:]) and any(c.isupper() for c in v)),
    Shape("adafruit_key", _c(r"aio_[A-Za-z0-9]{28}" + _END_ALNUM), _lit(4), check=_random),
    Shape("easypost_key", _c(r"EZAK[A-Za-z0-9]{54}" + _END_ALNUM), _lit(4)),
    Shape("braintree_token", _c(r"access_token\$(?:production|sandbox)\$[a-z0-9]{16}\$"
                                r"[a-f0-9]{32}"), _upto("$")),
    Shape("plaid_token", _c(r"access-(?:sandbox|development|production)-[a-f0-9]{8}-"
                            r"(?:[a-f0-9]{4}-){3}[a-f0-9]{12}"), _upto("-")),
    Shape("flutterwave_key", _c(r"FLWSECK(?:_TEST)?-[a-f0-9]{32}-X"), _lit(8)),
    Shape("shippo_token", _c(r"shippo_(?:live|test)_[a-f0-9]{40}" + _END_ALNUM), _lit(12)),
    Shape("django_secret", _c(r"django-insecure-[^\s'\"`]{30,}"), _lit(16)),
    Shape("crypto_private_key", _c(r"xprv[1-9A-HJ-NP-Za-km-z]{107,108}" + _END_ALNUM), _lit(4)),
    # A Nostr identity's secret key in bech32 (`nsec1...`; its `npub1` twin is public).
    Shape("crypto_private_key", _c(r"nsec1[02-9ac-hj-np-z]{58}" + _END_ALNUM), _lit(5)),
    # Amazon Bedrock API keys: long-term `ABSK` + base64 of "BedrockAPIKey-...", short-term
    # `bedrock-api-key-` + base64.
    Shape("bedrock_key", _c(r"ABSKQmVkcm9ja0FQSUtleS[A-Za-z0-9+/]{20,}={0,2}"), _lit(4),
          needles=("ABSKQmVk",), scan=True),
    Shape("bedrock_key", _c(r"bedrock-api-key-[A-Za-z0-9+/]{40,}={0,2}"), _lit(16),
          needles=("bedrock-api-key-",), scan=True),
    # Paddle Billing API keys (`pdl_live_apikey_`, `pdl_sdbx_apikey_`).
    Shape("paddle_key", _c(r"pdl_(?:live|sdbx|test)_apikey_[A-Za-z0-9_]{30,}" + _END_ALNUM),
          _upto("apikey_")),
    # A minisign secret key file's key line: algorithm `Ed`, KDF `Sc` (encrypted) or none,
    # checksum `B2`, in base64 (`RWRTY0Iy`, `RWQAAEIy`); its public key starts `RWQ` + other.
    Shape("private_key", _c(r"RW(?:RTY0Iy|QAAEIy)[A-Za-z0-9+/]{100,}={0,2}"), _lit(8),
          needles=("RWRTY0Iy", "RWQAAEIy"), scan=True),
    # "-----BEGIN" in base64: the block's label is read from the decoded head.
    Shape("private_key", _c(r"LS0tLS1CRUdJTi[A-Za-z0-9+/]{40,}={0,2}"), _lit(14),
          check=_encoded_private_key),
)


SHAPES: tuple[Shape, ...] = (
    Shape("aws_access_key", _c(r"A(?:KIA|SIA)[A-Z0-9]{16}(?![A-Za-z0-9])"), _lit(4),
          needles=("AKIA", "ASIA")),
    Shape("github_token", _c(r"gh[pousr]_[A-Za-z0-9]{36,251}" + _END_ALNUM), _lit(4)),
    Shape("github_token", _c(r"github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59,}" + _END_ALNUM),
          _lit(11)),
    Shape("gitlab_token", _c(r"gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_\-]{20,}"
                             + _END), _upto("-"), check=mixed),
    Shape("gitlab_token", _c(r"GR1348941[A-Za-z0-9_\-]{20,}" + _END), _lit(9), check=mixed),
    Shape("slack_webhook", _c(r"https://hooks\.slack\.com/(?:services|workflows|triggers)/"
                              r"[A-Za-z0-9]{6,}/[A-Za-z0-9]{6,}/[A-Za-z0-9]{16,}"),
          lambda v: v[: v.rfind("/") + 1], check=lambda v: not _filler_path(v), scan=True),
    # Microsoft Teams incoming webhooks (Office 365 connectors): the path is the credential.
    Shape("teams_webhook", _c(r"https://(?:[A-Za-z0-9\-]+\.webhook\.office\.com/webhookb2|"
                              r"outlook\.office(?:365)?\.com/webhook)/[A-Za-z0-9@\-]{20,}"
                              r"/IncomingWebhook/[A-Za-z0-9\-]{16,}(?:/[A-Za-z0-9_\-]{16,})*"),
          lambda v: v[: v.find("/", 8) + 1], needles=(".webhook.office.com/", "outlook.office"),
          scan=True),
    # URLs whose path carries the key: Zapier's catch hooks, IFTTT's Maker key, Alchemy and
    # Infura RPC endpoints.
    Shape("webhook", _c(r"https://hooks\.zapier\.com/hooks/catch/\d+/[A-Za-z0-9]{5,}"),
          lambda v: v[: v.rfind("/") + 1], check=lambda v: not _filler_path(v),
          needles=("hooks.zapier.com/",), scan=True),
    Shape("webhook", _c(r"https://maker\.ifttt\.com/(?:trigger/[\w\-]+/(?:json/)?)?with/key/"
                        r"[A-Za-z0-9_\-]{16,}"), lambda v: v[: v.rfind("/") + 1],
          check=lambda v: not _filler_path(v), needles=("maker.ifttt.com/",), scan=True),
    Shape("credential", _c(r"https://[\w\-]+\.(?:g\.alchemy\.com|alchemyapi\.io)/v2/"
                           r"[A-Za-z0-9_\-]{24,}|https://[\w\-]+\.infura\.io/v3/[0-9a-f]{32}"),
          lambda v: v[: v.rfind("/") + 1], check=lambda v: not _filler_path(v),
          needles=("alchemy", ".infura.io/"), scan=True),
    Shape("slack_token", _c(r"xox[abposrec]-[0-9]{6,}-[A-Za-z0-9\-]{8,}" + _END), _lit(5)),
    # The `d` cookie of a Slack browser session, URL-encoded base64 after `xoxd-`.
    Shape("slack_token", _c(r"xoxd-[A-Za-z0-9%+/=_\-]{40,}"), _lit(5), scan=True),
    Shape("slack_token", _c(r"xapp-\d-[A-Z0-9]{9,}-\d+-[a-z0-9]{32,}" + _END), _lit(5)),
    Shape("slack_token", _c(r"xoxe(?:\.xox[bp])?-\d-[A-Za-z0-9]{60,}" + _END), _upto("-"),
          scan=True),
    Shape("stripe_key", _c(r"(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}" + _END_ALNUM), _lit(8),
          needles=("sk_", "rk_")),
    Shape("stripe_key", _c(r"whsec_[A-Za-z0-9+/]{24,}={0,2}"), _lit(6), scan=True),
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
    Shape("sendgrid_key", _c(r"SG\.[A-Za-z0-9_\-]{22}\.[A-Za-z0-9_\-]{43}" + _END), _lit(3),
          scan=True),
    Shape("twilio_key", _c(r"SK[0-9a-f]{32}" + _END_ALNUM), _lit(2), check=_hexmix),
    Shape("square_token", _c(r"(?:EAAA[A-Za-z0-9_\-]{60}|sq0(?:atp|csp)-[A-Za-z0-9_\-]{22,})"
                             + _END), _lit(4), needles=("EAAA", "sq0")),
    Shape("vault_token", _c(r"hv[sbr]\.[A-Za-z0-9_\-]{24,}" + _END), _lit(4), check=mixed,
          scan=True),
    Shape("age_key", _c(r"AGE-SECRET-KEY-1[0-9A-Z]{58}"), _lit(16)),
    Shape("atlassian_token", _c(r"AT(?:ATT|CTT)3[A-Za-z0-9_\-=]{100,}"), _lit(6),
          needles=("ATATT3", "ATCTT3")),
    Shape("postman_key", _c(r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"), _lit(5)),
    Shape("doppler_token", _c(r"dp\.(?:pt|st|sa|ct|scim|audit)\.[A-Za-z0-9._\-]{40,}"),
          _upto("."), scan=True),
    Shape("linear_key", _c(r"lin_(?:api|oauth)_[A-Za-z0-9]{40}" + _END_ALNUM), _lit(8)),
    Shape("notion_token", _c(r"(?:ntn_[A-Za-z0-9]{40,}|secret_[A-Za-z0-9]{43})" + _END_ALNUM),
          _lit(4), check=lambda v: mixed(v) and _digits(3)(v), needles=("ntn_", "secret_")),
    Shape("sentry_token", _c(r"sntr(?:ys|yu)_[A-Za-z0-9_\-=+/]{30,}"), _lit(7)),
    Shape("newrelic_key", _c(r"NR(?:AK|AA|II)-[A-Z0-9]{27}" + _END_ALNUM), _lit(5)),
    Shape("terraform_token", _c(r"\.atlasv1\.[A-Za-z0-9_\-=]{60,}"), _none, back=14),
    Shape("grafana_token", _c(r"(?:glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}|glc_[A-Za-z0-9+/]{32,}"
                              r"={0,2})"), _lit(5), needles=("glsa_", "glc_")),
    Shape("databricks_token", _c(r"dapi[a-f0-9]{32}(?:-\d)?" + _END_ALNUM), _lit(4),
          check=_hexmix),
    Shape("planetscale_token", _c(r"pscale_(?:tkn|pw|oauth)_[A-Za-z0-9_\-.]{32,}"), _lit(11)),
    Shape("pulumi_token", _c(r"pul-[a-f0-9]{40}" + _END_ALNUM), _lit(4), check=_hexmix),
    Shape("discord_token", _c(r"[MNO][A-Za-z0-9_\-]{23,27}\.[A-Za-z0-9_\-]{6,7}\."
                              r"[A-Za-z0-9_\-]{27,}" + _END), _none, check=_discord),
    Shape("discord_webhook", _c(r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/"
                                r"\d{5,}/[A-Za-z0-9_\-]{40,}"),
          lambda v: v[: v.rfind("/") + 1], scan=True),
    Shape("telegram_token", _c(r":AA[A-Za-z0-9_\-]{30,34}" + _END), _upto(":"),
          lead=_c(r"(?<![0-9])[0-9]{8,10}$")),
    Shape("azure_client_secret", _c(r"[0-9]Q~[A-Za-z0-9_~.\-]{31,34}(?![A-Za-z0-9_~.\-])"),
          _none, back=3, needles=("Q~",)),
    Shape("jwt", JWT, _lit(3), check=private_jwt),
    *MORE_SHAPES,
)

SCANNED = tuple((i, sh) for i, sh in enumerate(SHAPES) if sh.scan)
# Every other shape starts with a literal and its value with a run of 12 word characters
# or more: one pass over such runs finds them all, each dispatched by its first two
# characters to the shapes whose literal it starts with (one regex pass per shape would
# cost ~2 ms/MB each).
RUN = lazy(r"[A-Za-z0-9_\-]{12,}")
BY_START: dict[str, tuple[tuple[int, str, Shape], ...]] = {}
for _i, _sh in enumerate(SHAPES):
    if not _sh.scan:
        for _n in _sh.needles:
            BY_START[_n[:2]] = (*BY_START.get(_n[:2], ()), (_i, _n, _sh))

PRIVATE_KEY = lazy(
    r"-----BEGIN ([A-Z0-9]+ )*PRIVATE KEY( BLOCK)?-----"
    r"(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|.*\Z)",
    re.DOTALL,
)
# OpenVPN's static key (tls-auth, tls-crypt): 2048 bits in hex lines between its markers.
OPENVPN_KEY = lazy(r"-----BEGIN OpenVPN Static key V\d-----\s*\n([0-9a-fA-F\s]{64,4096}?)\s*"
                   r"-----END OpenVPN Static key V\d-----")
# A PEM body: optional `Name: value` header lines, then base64.
PEM_BODY = lazy(r"(?:\s|\\[nr])*(?:[A-Za-z\-]+:[^\n]*\n\s*)*[A-Za-z0-9+/=]{16}")

# Blocks that are public by design: their base64 is not a secret.
PUBLIC_BLOCK = lazy(
    r"-----BEGIN ((?:[A-Z0-9]+ )*(?:CERTIFICATE|PUBLIC KEY|PUBLIC KEY BLOCK|CERTIFICATE "
    r"REQUEST|NEW CERTIFICATE REQUEST|X509 CRL|SIGNATURE|PGP SIGNATURE|PGP MESSAGE|"
    r"ENCRYPTED MESSAGE|PKCS7|CMS|DH PARAMETERS|EC PARAMETERS|AGE ENCRYPTED FILE))-----"
    r".*?(?:-----END \1-----|\Z)", re.DOTALL)
# ``data:image/png;base64,...`` and wrapped base64 (3+ lines of 60+ characters): encoded
# files (images, fixtures), not credentials, which are one line or sit in a PEM block.
DATA_URI = lazy(r"data:[\w.+\-]+/[\w.+\-]+(?:;[\w=\-]+)*;base64,[A-Za-z0-9+/=\s]+")
# Ciphertext made to be committed: a sops value (`ENC[AES256_GCM,data:...,type:str]`) and
# the `encryptedData` of a Bitnami SealedSecret; only the cluster's key opens them.
SOPS_VALUE = lazy(r"ENC\[[A-Z0-9_]+,data:[^\[\]\n]*\]")
SEALED_SECRET = lazy(r"(?m)^kind:[ \t]*SealedSecret\b")
SEALED_DATA = lazy(r"(?m)^([ \t]*)encryptedData:[ \t]*\r?\n(?:\1[ \t]+[^\n]*(?:\n|$))+")
# A uuencoded file (`begin 644 name` ... `end`, or `begin-base64`): an encoded file.
UUENCODED = lazy(r"(?m)^begin(?:-base64)?[ \t]+[0-7]{3,4}[ \t]+[^\n]{1,200}\n(?:[^\n]{0,90}\n){1,4000}?end$")
WRAPPED_B64 = lazy(r"(?m)(?:^[ \t]*[A-Za-z0-9+/]{60,}={0,2}[ \t]*\r?\n){2,}"
                         r"[ \t]*[A-Za-z0-9+/]{4,}={0,2}[ \t]*$")
