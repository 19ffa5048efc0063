"""Rules added after the sixth held-out set's blind measure: each case names the general
form it proves, in wording of its own (not the set's), with secrets that must be caught
and public or ordinary lookalikes that must be left alone.

Every value is synthetic: drawn at run time from a seeded generator, never a real key.
"""

from __future__ import annotations

import base64
import json
import random

import pytest

from ihmt.secrets import find_secrets

from .secret_checks import assert_caught, assert_linear, caught, drawer

RNG = random.Random(6641)
HEX = "0123456789abcdef"
LOWER_DIGITS = "abcdefghijklmnopqrstuvwxyz0123456789"
draw = drawer(RNG)


def pw() -> str:
    return draw(5) + RNG.choice("!#%*^+?@") + draw(6)


def b64(n: int) -> str:
    return base64.b64encode(RNG.randbytes(n)).decode()


def uuid() -> str:
    h = draw(32, HEX)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def jwt(claims: dict[str, object]) -> str:
    def part(d: dict[str, object]) -> str:
        return base64.urlsafe_b64encode(json.dumps(d).encode()).decode().rstrip("=")
    return f"{part({'alg': 'HS256', 'typ': 'JWT'})}.{part(claims)}.{draw(43)}"


# ---------------------------------------------------------------------- caught
CAUGHT = [
    # provider formats
    ("fly.io macaroon", lambda: f"FlyV1 fm2_{b64(90)},fm2_{b64(60)}",
     "deploy token for the staging app:\n{}\n"),
    ("launchdarkly server sdk key", lambda: f"sdk-{uuid()}",
     "launchdarkly:\n  server_key: {}"),
    ("mercado pago token", lambda: (f"APP_USR-{draw(16, '0123456789')}-{draw(6, '0123456789')}-"
                                    f"{draw(32, HEX)}-{draw(9, '0123456789')}"),
     "mp = mercadopago.SDK(\"{}\")"),
    # config idioms
    ("pagerduty integration key", lambda: draw(32, HEX),
     "pagerduty:\n  integration_key: {}"),
    ("dotenv value with brackets and equals", lambda: draw(8) + "(!=" + draw(10) + ")&" + draw(12),
     "export APP_SIGNING_SECRET={}\nexport LOG_LEVEL=info"),
    ("bare app password on a dotenv line", lambda: " ".join(
        "".join(RNG.choice("bcdfghjklmnpqrstvwxz") for _ in range(4)) for _ in range(4)),
     "SMTP_USER=reports@example.org\nSMTP_PASSWORD={}\nSMTP_PORT=587"),
    ("api key in a query named appid", lambda: draw(32, HEX),
     "curl 'https://api.weather.example/v3/now?q=Madrid&appid={}'"),
    ("api-key in a query", lambda: draw(24),
     "GET /search?api-key={}&q=books"),
    ("session cookie by name alone", lambda: draw(32, LOWER_DIGITS),
     "repro: set JSESSIONID={} in the browser and reload /checkout"),
    ("key header under another name", lambda: draw(22),
     "exporters:\n  otlp:\n    headers:\n      x-honeycomb-team: {}"),
    # program input
    ("login call with literals", pw,
     "smtp.login('noreply@example.org', '{}')"),
    ("requests basic auth tuple", pw,
     "r = requests.get(url, auth=(\"svc-report\", \"{}\"))"),
    ("echo into --password-stdin", pw,
     "printf '{}' | podman login quay.io -u robot --password-stdin"),
    ("echo into sudo -S", pw,
     "echo \"{}\" | sudo -S apt-get upgrade -y"),
    ("echo into a password file", pw,
     "echo '{}' > /tmp/db.passwd"),
    ("wifi qr payload", lambda: draw(7) + "." + draw(5),
     "qrencode -o guest.png 'WIFI:S:Guests;T:WPA;P:{};H:false;;'"),
    ("go mysql dsn", pw,
     "dsn := \"report:{}@tcp(db.internal:3306)/sales\""),
    ("oracle user/password@", pw,
     "rman target sys/{}@prodcdb"),
    ("incoming webhook path", lambda: draw(26, LOWER_DIGITS),
     "POST https://rocket.example.net/hooks/{} with the alert body"),
    ("keypair bytes array", lambda: ",".join(str(RNG.randrange(256)) for _ in range(64)),
     "my devnet wallet keypair:\n[{}]"),
    ("secret after a key id in a call", lambda: draw(40, HEX.upper() + "ghijkLMNOP"),
     "sess = boto3.Session('AKIA" + "".join(RNG.choice("ABCDEFGHJKLMNPQRSTUVWXYZ234567")
                                               for _ in range(16)) + "', '{}')"),
    # prose
    ("totp seed named in spanish", lambda: "".join(RNG.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
                                                    for _ in range(32)),
     "el secreto 2FA del panel de backups es {} (no lo pierdas)"),
    ("code list after a remark in parentheses", lambda: f"{draw(4, '0123456789')} "
                                                        f"{draw(4, '0123456789')}",
     "recovery codes (personal GitHub account):\n1) {}\n2) 1842 5530"),
    ("hyphenated capital codes in spanish", lambda: (
        "".join(RNG.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(4)) + "-"
        + "".join(RNG.choice("ABCDEFGHJKLMNPQRSTUVWXYZ") for _ in range(4))),
     "códigos de respaldo del correo: {}, KQWE-ZXCV"),
    ("value then 'that is the password'", lambda: draw(9) + "_" + draw(6),
     "ok, use {} - that is the staging db password"),
    ("qualified password without a copula", lambda: draw(6) + "$" + draw(4),
     "Anota la contraseña del portal {} antes de irte"),
]


@pytest.mark.parametrize("cause,make,template", CAUGHT, ids=[c[0] for c in CAUGHT])
def test_sixth_set_forms_are_caught(cause: str, make: object, template: str) -> None:
    assert_caught(cause, make(), template)  # type: ignore[operator]


def test_every_code_of_a_numbered_list_is_caught() -> None:
    codes = [f"{draw(4, '0123456789')} {draw(4, '0123456789')}" for _ in range(5)]
    text = "2fa backup codes:\n" + "\n".join(f"{i}. {c}" for i, c in enumerate(codes, 1))
    assert all(caught(text, c) for c in codes), find_secrets(text)


# ---------------------------------------------------------------------- left alone
ORDINARY = [
    ("pkce challenge and state in a long login url", lambda: (
        "https://login.example.com/oauth2/v1/authorize?client_id=" + draw(20)
        + "&response_type=code&redirect_uri=https%3A%2F%2Fshop.example.com%2Fsso%2Fdone"
        + "&scope=openid%20email%20offline_access&state=" + draw(22) + "&nonce=" + draw(22)
        + "&code_challenge=" + draw(43) + "&code_challenge_method=S256")),
    ("certificate serial in openssl text", lambda: (
        "    Serial Number:\n        " + ":".join(draw(2, HEX) for _ in range(16))
        + "\n    Signature Algorithm: ecdsa-with-SHA384")),
    ("signify public key file", lambda: (
        "untrusted comment: signify public key\nRWQ" + draw(53))),
    ("certificate pins", lambda: (
        f"pin-sha256 list: sha256/{b64(32)} and sha256/{b64(32)}")),
    ("supabase anon jwt", lambda: (
        "const supabase = createClient(url, '" + jwt({"iss": "supabase", "ref": draw(20),
                                                     "role": "anon"}) + "')")),
    ("search-only key said so", lambda: (
        "ALGOLIA_KEY = '" + draw(32, HEX) + "'  # search-only, safe in the browser")),
    ("posthog project key", lambda: "posthog.init('phc_" + draw(43) + "')"),
    ("blockchain address", lambda: "send the test USDC to address " + draw(44)),
    ("go build id", lambda: "buildid: " + "/".join(draw(20) for _ in range(4))),
    ("sops value", lambda: (
        "api_token: ENC[AES256_GCM,data:" + b64(30) + ",iv:" + b64(32) + ",tag:" + b64(16)
        + ",type:str]")),
    ("sealed secret", lambda: (
        "kind: SealedSecret\nspec:\n  encryptedData:\n    password: Ag" + b64(300)
        + "\n    api_token: Ag" + b64(300) + "\n  template:\n    type: Opaque")),
    ("credential file path", lambda: (
        "LoadCredential=tls-key-password:/run/keys/tls-key-password")),
    ("file path with a cache key", lambda: (
        "open '/var/cache/thumbs/" + draw(43) + "/512.png' failed")),
    ("checksum annotation", lambda: "  checksum/secret: " + draw(64, HEX)),
    ("secret name in an ARN", lambda: (
        "the task reads arn:aws:secretsmanager:us-east-1:123456789012:secret:" + draw(6)
        + "/db-" + draw(6))),
    ("routing key that is a name", lambda: "routing_key: billing.invoice.v2"),
    ("webhook list in an api path", lambda: "GET https://api.example.com/repos/acme/app/hooks/12345678"),
    ("numbers that are not a keypair", lambda: (
        "histogram: [" + ",".join(str(RNG.randrange(256)) for _ in range(64)) + "]")),
    ("echo of a word into a pipe", lambda: "echo 'hello' | sudo -S true  # check sudo"),
    ("login call with a variable", lambda: "server.login(user, password)"),
    ("password for a thing, no value", lambda: "Change the password for the admin account today."),
    ("codes that are words", lambda: "recovery codes: stored in the team vault"),
    ("try and that's the policy", lambda: "try again later, that's the rate limit policy"),
]


@pytest.mark.parametrize("cause,make", ORDINARY, ids=[c[0] for c in ORDINARY])
def test_sixth_set_lookalikes_are_left_alone(cause: str, make: object) -> None:
    text = make()  # type: ignore[operator]
    assert find_secrets(text) == [], (cause, find_secrets(text))


def test_the_new_forms_stay_linear() -> None:
    for unit in ("echo 'a' | ", "WIFI:P:", "x:y@tcp(", "/hooks/", "[1,2,", "codes (a):\n1. ",
                 "sqlplus a/", "auth=(\"a\", \"b\"", "ENC[A,data:", "sha256/"):
        assert_linear(unit)
