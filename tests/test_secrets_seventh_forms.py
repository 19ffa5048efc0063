"""Rules added after the seventh held-out set's blind measure: each case names the general
form it proves, in wording of its own (not the set's), with secrets that must be caught
and public, encoded or placeholder lookalikes that must be left alone.

Every value is synthetic: drawn at run time from a seeded generator, never a real key.
"""

from __future__ import annotations

import base64
import random

import pytest

from ihmt.secrets import find_secrets

from .secret_checks import assert_caught, assert_linear, drawer

RNG = random.Random(7043)
HEX = "0123456789abcdef"
draw = drawer(RNG)


def pw() -> str:
    return draw(6) + RNG.choice("!#%*^+?@~") + draw(7)


def pw_eq() -> str:
    """A generated password with `=` inside, which used to cut a bare value short."""
    return draw(6) + "=" + RNG.choice("!#%*^+?") + draw(8)


def b64(n: int) -> str:
    return base64.b64encode(RNG.randbytes(n)).decode()


def b64u(n: int) -> str:
    return base64.urlsafe_b64encode(RNG.randbytes(n)).decode().rstrip("=")


# ---------------------------------------------------------------------- caught
CAUGHT = [
    # config values
    ("yaml password with '=' inside", pw_eq,
     "inventory:\n  hosts:\n    db1:\n      vault_db_password: {}\n      port: 5432"),
    ("namespaced yaml key", pw_eq,
     "settings:\n  billing:smtpPassword: {}\n  billing:region: eu-west-1"),
    ("yaml key: value with '=' is not a type annotation", pw_eq,
     "data:\n  ADMIN_PASS: {}\n"),
    ("quoted KEY=value given to a command", pw,
     "docker run -e 'PG_PASS={}' postgres:16"),
    ("deploy key under env", lambda: draw(40),
     "  variables:\n    STAGING_DEPLOY_KEY: {}\n"),
    ("config directive without '='", pw,
     "# sentinel.conf\nsentinel monitor main 10.1.2.3 6379 2\nmasterpass {}\n"),
    ("groovy setting with a quoted value", pw,
     "signing {{\n    keystorePassword '{}'\n}}"),
    ("builder setter with a literal", pw,
     "Pool pool = Pool.builder()\n    .user(\"etl\")\n    .password(\"{}\")\n    .build();"),
    ("pre-shared key line", pw,
     "10.8.0.1 10.9.0.1 : PSK \"{}\""),
    # program input
    ("cqlsh -p", pw, "cqlsh -u ops -p {} cass-node-2"),
    ("httpie --auth user:pw", pw, "https --auth ci-bot:{} GET api.example.org/builds"),
    ("echo into gpg --passphrase-fd 0", pw,
     "printf '{}' | gpg --batch --passphrase-fd 0 --decrypt vault.tgz.gpg > vault.tgz"),
    # shapes
    ("openvpn static key", lambda: "\n".join(draw(32, HEX) for _ in range(16)),
     "<tls-crypt>\n-----BEGIN OpenVPN Static key V1-----\n{}\n"
     "-----END OpenVPN Static key V1-----\n</tls-crypt>"),
    ("zapier catch hook", lambda: draw(7, "abcdefghijklmnopqrstuvwxyz0123456789"),
     "the form posts to https://hooks.zapier.com/hooks/catch/482913/{}/"),
    ("ifttt maker key", lambda: b64u(16),
     "curl -X POST https://maker.ifttt.com/trigger/garage/json/with/key/{}"),
    ("alchemy endpoint key", lambda: b64u(24),
     "RPC=https://polygon-mainnet.g.alchemy.com/v2/{}"),
    ("invite link with a plain token", lambda: draw(32),
     "here is the invite: https://chat.example.org/invite/{}"),
]


@pytest.mark.parametrize("cause,make,template", CAUGHT, ids=[c[0] for c in CAUGHT])
def test_seventh_set_forms_are_caught(cause: str, make: object, template: str) -> None:
    assert_caught(cause, make(), template)  # type: ignore[operator]


def test_a_weak_default_alone_is_still_masked() -> None:
    """The standing policy: `changeme` given as a real value is masked; only a comment that
    calls it a placeholder or a default lets it pass."""
    assert find_secrets("db_password: changeme")
    assert find_secrets('password = "hunter2"')


# ---------------------------------------------------------------------- left alone
def _cert_b64() -> str:
    """Base64 of DER that starts as an X.509 v3 certificate does (then noise)."""
    head = bytes([0x30, 0x82, 0x03, 0x1A, 0x30, 0x82, 0x02, 0x02, 0xA0, 0x03, 0x02, 0x01,
                  0x02, 0x02, 0x14])
    return base64.b64encode(head + RNG.randbytes(240)).decode()


ORDINARY = [
    # signatures, validators and per-request values
    lambda: f"X-Hub-Signature-256: sha256={draw(64, HEX)}",
    lambda: f"webhook-signature: v1,{b64(32)}\nwebhook-id: msg_{draw(20)}",
    lambda: f"X-Acme-Hmac-Sha256: {b64(32)}",
    lambda: f"Public-Key-Pins: pin-sha256=\"{b64(32)}\"; max-age=600",
    lambda: f"ETag: \"{draw(8, HEX)}-{b64u(24)}\"",
    lambda: f'<input type="hidden" name="csrf_token" value="{b64(48)}">',
    lambda: f"g-recaptcha-response={b64u(90)}&email=a%40b.org",
    lambda: (f"GET /oauth2/auth?client_id=web&code_challenge={b64u(32)}"
             "&code_challenge_method=S256 HTTP/1.1"),
    # public keys and certificates
    lambda: f"web push public key (shipped in the bundle): {b64u(65)}",
    lambda: f'"x509": "{_cert_b64()}"',
    lambda: f"ingest = init('{draw(32)}');  // browser write key, public by design",
    # ids and cursors
    lambda: f"redirected to /pay/cs_test_{draw(58)}#fid",
    lambda: f'{{"items": [], "nextPageToken": "{b64u(48)}"}}',
    lambda: f'{{"cursor": "{b64u(40)}", "limit": 50}}',
    # ciphertext and encoded data
    lambda: f"aws kms decrypt --ciphertext-blob fileb://x.bin\n# CiphertextBlob was:\n{b64(180)}",
    lambda: f"config/master.yml.enc\n{b64(150)}--{b64(12)}--{b64(16)}",
    lambda: f"deploy:\n  api_key:\n    secure: {b64(256)}",
    lambda: f"request body (base64): {b64(66)}",
    lambda: "const mod = await WebAssembly.instantiate(decode('"
            + base64.b64encode(b"\0asm\x01\0\0\0" + RNG.randbytes(90)).decode() + "'));",
    lambda: f"begin-base64 600 blob.bin\n{b64(45)}\n{b64(45)}\n====\nend",
    # placeholders, weak values said to be stand-ins, prompts
    lambda: "SESSION_SECRET=replace-me-before-deploy",
    lambda: "WEBHOOK=https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXX",
    lambda: '<setting name="ClientSecret" value="[YOUR SECRET]" />',
    lambda: "db_password: letmein   # sample value from the tutorial",
    lambda: "REDIS_PASSWORD=redis  // demo default, local only",
    lambda: "psql -h db -U app\nEnter password for user app: \napp=> select 1;",
]


@pytest.mark.parametrize("make", ORDINARY, ids=[str(i) for i in range(len(ORDINARY))])
def test_seventh_set_lookalikes_are_left_alone(make: object) -> None:
    text = make()  # type: ignore[operator]
    assert find_secrets(text) == [], (text, find_secrets(text))


def test_new_rules_stay_linear() -> None:
    assert_linear("requirepass x\nstorePassword 'y'\n: PSK \"z\"\n.password(\"w\")\n")
    assert_linear("begin 644 a\nM" + "x" * 60 + "\n")
    assert_linear("-----BEGIN OpenVPN Static key V1-----\n" + "ab" * 16 + "\n")
