"""Rules that generalise beyond the corpus they were first fitted to: each case here was
missed (or wrongly flagged) by the detector before issue 23's second pass, and names the
general cause it proves (a form, a context, a shape), not one sample.

Every value is synthetic: drawn at run time from a seeded generator, never a real key.
"""

from __future__ import annotations

import random
import string

import pytest
from bench.secrets import covered, evaluate_fresh
from bench.secrets_fresh import fresh_cases

from ihmt.secrets import find_secrets, mask

from .secret_checks import B62, assert_caught, assert_linear, assert_named, drawer

RNG = random.Random(2326)
HEX = "0123456789abcdef"


draw = drawer(RNG)


def pw() -> str:
    """A generated password with a symbol: what people paste into notes."""
    return draw(5) + RNG.choice("!#%*@^+?") + draw(6)




# (cause, value, text with {} where the value goes)
SECRETS = [
    # key = value forms
    ("camelCase key", draw(24), "const apiSecret = '{}';"),
    ("camelCase key", draw(20), "wgPrivateKey: {}"),
    ("PHP variable", pw(), "$db_password = '{}';"),
    ("a dot ending a value inside a structure", draw(8) + ".", "Server=db;User ID=sa;Password={};"),
    ("a dot ending a config line", draw(9) + ".", "database:\n  password: {}"),
    ("a value starting with %", "%" + draw(14), "POSTGRES_PASSWORD={}"),
    ("a random value with %s in it", draw(10) + "%s" + draw(12) + "(&", "SIGNING_KEY='{}'"),
    ("a base64 value with slashes", draw(6) + "Hxqz/wkvP" + draw(8) + "/" + draw(4) + "=",
     "encryption_key: {}"),
    ("dotted random parts", "a" + draw(11) + "_" + draw(4) + ".k" + draw(13), "SESSION_SECRET={}"),
    ("a header written as one string", draw(24), 'curl -H "X-API-Key: {}" https://api.example'),
    ("a long value with a dot", draw(200, B62 + "_-") + "." + draw(200, B62 + "_-"),
     "REFRESH_TOKEN={}"),
    ("a mixed-case $ value is no variable", "$" + draw(12), "<password>{}</password>"),
    ("a $ value in single quotes", "$" + draw(6) + "-" + draw(8), "sshpass -p '{}' ssh ci@10.0.0.9"),
    # headers, cookies, XML
    ("session cookie", draw(32, string.ascii_lowercase + string.digits),
     "Cookie: sessionid={}; theme=dark"),
    ("XML element", pw(), "<credentials>\n  <password>{}</password>\n</credentials>"),
    # prose
    ("changed ... to", pw(), "I changed the root password on nas01 to {} yesterday"),
    ("cambié ... a", pw(), "le cambié la clave a {} al servidor de pruebas"),
    ("quedó en", pw(), "La clave de acceso a la VPN quedó en {}"),
    ("an adjective after the key", pw(), "contraseña nueva para el portal del banco → {}"),
    ("a parenthesis before the copula", pw(), "The new VPN passphrase, as of Monday, is {}."),
    ("a PIN", "".join(RNG.choice(string.digits) for _ in range(6)), "PIN for the office alarm: {}"),
    ("Google app password", " ".join(draw(4, string.ascii_lowercase) for _ in range(4)),
     "gmail app password for the alerts mailer: {}"),
    ("use X as the passphrase", "orbit-lantern-velvet-" + draw(2, string.digits),
     "Use {} as the passphrase for the backup drive"),
    ("user / password", pw(), "Login for the staging Grafana -> admin / {}"),
    ("user:password", pw(), "credentials: jenny@example.com:{}"),
    ("random letters, no word", "ztcjvphysc", "wifi password at the cabin is {}"),
    ("a noun naming a secret", draw(24), "twilio api key is set; the secret {} goes in the vault"),
    ("a noun naming a secret", draw(24), "okta api token {} for the sync job"),
]

# Providers' formats: caught and named for their provider (before, either missed or
# reported as a random-looking token, which tells the user nothing).
FORMATS = [
    ("aws_session_token", "FwoGZXIvYXdzE" + draw(200, B62 + "+/"), "sts gave {} for the role"),
    ("google_oauth", "ya29." + draw(120, B62 + "_-"), "token {}"),
    ("google_oauth", "GOCSPX-" + draw(28, B62 + "_-"), "client secret in {}"),
    ("supabase_token", "sbp_" + draw(40, HEX), "see {}"),
    ("mailchimp_key", draw(32, HEX) + "-us21", "mailchimp {}"),
    ("mailgun_key", draw(32, HEX) + "-" + draw(8, HEX) + "-" + draw(8, HEX), "mailgun {}"),
    ("firebase_key", "AAAA" + draw(7, B62 + "_-") + ":APA91b" + draw(134, B62 + "_-"), "fcm {}"),
    ("airtable_token", "pat" + draw(14) + "." + draw(64, HEX), "airtable {}"),
    ("mapbox_token", "sk.eyJ1Ijoi" + draw(50, B62 + "_-") + "." + draw(22, B62 + "_-"), "map {}"),
    ("django_secret", "django-insecure-" + draw(50, string.ascii_lowercase + string.digits
                                                 + "!@#%^&*(-_=+)"), "SECRET_KEY = '{}'"),
    ("tailscale_key", "tskey-auth-" + draw(12) + "-" + draw(30), "tailscale up --authkey={}"),
    ("docker_token", "dckr_pat_" + draw(27, B62 + "_-"), "docker hub {}"),
    ("groq_key", "gsk_" + draw(52), "groq {}"),
    ("pinecone_key", "pcsk_" + draw(60, B62 + "_"), "pinecone {}"),
    ("braintree_token", "access_token$production$" + draw(16, string.ascii_lowercase
                                                          + string.digits) + "$" + draw(32, HEX),
     "braintree {}"),
]

ORDINARY = [
    ("a hash named by its algorithm", 'hash = "sha256-' + draw(43, B62 + "+/") + '=";'),
    ("SRI integrity", "sha512-" + draw(86, B62 + "+/") + "== is the integrity of left-pad"),
    ("JWK public members", '{"keys":[{"kty":"RSA","kid":"' + draw(43, B62 + "_-") + '","n":"'
     + draw(342, B62 + "_-") + '","e":"AQAB"}]}'),
    ("a site key", '<div class="g-recaptcha" data-sitekey="6L' + draw(38, B62 + "_-") + '"></div>'),
    ("a value labelled as an id", "x-amz-id-2: " + draw(76, B62 + "+/")),
    ("a value labelled as an id", "node id " + draw(32)),
    ("a reST role", "To stream the body, pass :class:`Reader` as the source."),
]


@pytest.mark.parametrize(("cause", "value", "template"), SECRETS,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(SECRETS)])
def test_secret_is_caught(cause: str, value: str, template: str) -> None:
    assert_caught(cause, value, template)


@pytest.mark.parametrize(("kind", "value", "template"), FORMATS,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(FORMATS)])
def test_providers_format_is_named(kind: str, value: str, template: str) -> None:
    assert_named(kind, value, template)


@pytest.mark.parametrize(("cause", "text"), ORDINARY, ids=[c for c, _ in ORDINARY])
def test_ordinary_text_is_not_flagged(cause: str, text: str) -> None:
    assert find_secrets(text) == [], cause


def test_words_and_names_stay_unflagged_in_the_new_forms() -> None:
    """A guard on the rules above (it passes on the old code too): the new forms judge
    their value, and words, names, references, ids and slugs still pass."""
    for text in [
        "I changed the password to something stronger",
        "le cambié la clave a otra más segura",
        "Login for the staging Grafana is via SSO, no local accounts.",
        "account: prod/eu-west-1",
        "admin / admin is what the appliance ships with",
        "Use your SSO password as the password for the wiki",
        "PIN for the office alarm: ask the office manager",
        "the API key is in the vault",
        "api_key = settings.OPENAI_API_KEY",
        "KMS key " + "0b3c4d5e-1111-4222-8333-123456789abc" + " scheduled for rotation",
        'assembly publicKeyToken="' + draw(16, HEX) + '"',
        "Cookie: theme=dark; lang=es",
        "<password>${DB_PASSWORD}</password>",
        "PASSWORD=$PGPASS",
        "<username>svc_build</username>",
    ]:
        assert find_secrets(text) == [], text


def test_the_fresh_split_meets_the_targets() -> None:
    """The held-out set written before the rules were read (bench.secrets_fresh), at its
    default seed and two others: on the code before this pass, 133/152 caught (87.5 %) and
    4/261 flagged (1.5 %) at the default seed."""
    secrets, ordinary = fresh_cases()
    assert len(secrets) >= 80 and len({c.kind for c in secrets}) >= 35 and len(ordinary) >= 200
    for seed in (23, 7, 11):
        r = evaluate_fresh(seed)
        assert r["caught_rate"] >= 0.95, r["missed_cases"]
        assert r["false_positive_rate"] <= 0.01, r["false_positive_cases"]


def test_masking_the_fresh_split_removes_every_caught_value() -> None:
    secrets, _ = fresh_cases()
    for case in secrets:
        shown = mask(case.text)
        for s, e in case.spans:
            if covered(find_secrets(case.text), s, e):
                assert case.text[s:e] not in shown.text
        assert mask(shown.text).count == 0, shown.text


@pytest.mark.parametrize("unit", [
    "token: ", "cookie: ", "Cookie: a=b; ", "login: a/", "</", "<password>", "pin: ",
    " as the password ", "secret ", "api key is ", "password on x to ", "$db_password = '",
])
def test_the_new_rules_stay_linear(unit: str) -> None:
    """A guard on the rules above, as `test_pathological_inputs_stay_linear` is on the
    others: four times the input costs about four times the time (quadratic would be 16x).
    Before its fix, `cookie: ` repeated took 65 s for 160 KB."""
    assert_linear(unit)
