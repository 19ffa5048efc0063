"""Rules added after the eighth held-out set's blind measure: each case names the general
form it proves, in wording of its own (not the set's), with secrets that must be caught
and public, encoded, hashed or labelled lookalikes that must be left alone.

Every value is synthetic: drawn at run time from a seeded generator, never a real key.
"""

from __future__ import annotations

import base64
import json
import random

import pytest

from ihmt.secrets import find_secrets

from .secret_checks import assert_caught, assert_linear, drawer

RNG = random.Random(8047)
HEX = "0123456789abcdef"
B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
B32L = "abcdefghijklmnopqrstuvwxyz234567"
draw = drawer(RNG)
WORDS = ("amber canyon falcon harbor lantern meadow orchid pepper quartz ribbon saddle tunnel "
         "velvet walnut zebra copper").split()


def pw() -> str:
    return draw(6) + RNG.choice("!#%*^+?@~") + draw(7)


def b64(n: int) -> str:
    return base64.b64encode(RNG.randbytes(n)).decode()


def b64u(n: int) -> str:
    return base64.urlsafe_b64encode(RNG.randbytes(n)).decode().rstrip("=")


def words(n: int) -> str:
    return " ".join(RNG.choice(WORDS) for _ in range(n))


def sa_b64() -> str:
    """A service account's JSON, base64 whole, with a (fake) PEM body inside."""
    pem = "-----BEGIN PRIVATE KEY-----\n" + b64(600) + "\n-----END PRIVATE KEY-----\n"
    blob = {"type": "service_account", "project_id": "demo", "private_key": pem,
            "client_email": "bot@demo.iam.gserviceaccount.com"}
    return base64.b64encode(json.dumps(blob).encode()).decode()


def putty_private() -> str:
    return "\n".join(b64(48) for _ in range(6))


# ---------------------------------------------------------------------- caught
CAUGHT = [
    # program input with no key word beside the value
    ("jwt signing key literal", pw,
     "return jwt.sign({{ uid: account.id }}, '{}', {{ algorithm: 'HS256' }});"),
    ("python jwt.encode key literal", pw,
     "tok = jwt.encode(claims, \"{}\", algorithm=\"HS512\")"),
    ("k8s env entry named for a password", pw,
     "containers:\n  - env:\n      - name: GRAFANA_ADMIN_PASSWORD\n        value: '{}'\n"),
    ("powershell secure string", pw,
     "$pw = ConvertTo-SecureString -String '{}' -AsPlainText -Force"),
    ("discord client run", lambda: draw(24) + "." + draw(6) + "." + draw(30),
     "client = discord.Bot()\nclient.run('{}')"),
    ("hardhat accounts", lambda: draw(64, HEX),
     "mainnet: {{ url: RPC, accounts: [\"0x{}\"] }}"),
    ("pgbouncer userlist", pw,
     "# userlist.txt for the pooler\n\"reporter\" \"{}\""),
    ("putty private lines", putty_private,
     "PuTTY-User-Key-File-2: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n"
     + b64(36) + "\nPrivate-Lines: 6\n{}\nPrivate-MAC: " + draw(40, HEX)),
    ("base64 service account json", sa_b64,
     "gcloud_sa_b64 = {}"),
    ("invitation link token in the query", lambda: draw(36),
     "accept it here: https://team.example.net/org/invitation?code={} within a week"),
    ("asp.net machineKey", lambda: draw(64, HEX.upper()),
     "<machineKey decryptionKey=\"{}\" validation=\"SHA1\" />"),
    ("quoted Authorization after a space", lambda: base64.b64encode(
        ("probe:" + pw()).encode()).decode(),
     "proxy_set_header Authorization \"Basic {}\";"),
    ("net use share password", pw,
     "net use X: \\\\files01\\team {} /user:CORP\\svc-sync"),
    ("token echoed into az devops login", lambda: draw(24, B32L) + "7" + draw(27, B32L),
     "echo '{}' | az devops login --org https://dev.azure.com/contoso"),
    # sentences
    ("password was reset to", pw,
     "Heads up: the grafana admin password was reset to {} this morning."),
    ("password someone gave us is", pw,
     "the vpn password they sent me over email is {} until the rotation."),
    ("passphrase for X (with a colon inside) is", lambda: "_".join(
        RNG.choice(WORDS) for _ in range(4)) + "_" + draw(3, "0123456789"),
     "The passphrase for the archive key (borg repo ssh:nas/backups) is {}."),
    ("frase de paso", lambda: "_".join(RNG.choice(WORDS) for _ in range(4)) + "_42",
     "la frase de paso de la llave de firma es {}, no la compartas."),
    ("Q: asking for a password, A: on the next line", pw,
     "Q: do you know the wifi password for the lab?\nA: {} (guest network only)"),
    ("opens with a strong value", lambda: "Limon." + draw(4, "0123456789") + "!" + draw(2, "abcdefghjkmn"),
     "El excel de sueldos se desbloquea con {}, pedido a RRHH."),
    ("seed phrase after a named wallet", lambda: words(12),
     "old trezor wallet (test funds): {}"),
    ("seed phrase on the line after its noun", lambda: words(12),
     "recovery phrase of the cold wallet, kept offline:\n{}"),
    ("seed phrase given to a wallet provider", lambda: words(12),
     "provider: () => new HDWalletProvider('{}', RPC)"),
]


@pytest.mark.parametrize("cause,make,template", CAUGHT, ids=[c[0] for c in CAUGHT])
def test_eighth_set_forms_are_caught(cause: str, make: object, template: str) -> None:
    assert_caught(cause, make(), template)  # type: ignore[operator]


def test_a_weak_default_alone_is_still_masked() -> None:
    """The standing policy, where the eighth set's differs: a weak default with no comment
    calling it a stand-in is masked (`-storepass changeit`, `POSTGRES_PASSWORD=postgres`)."""
    assert find_secrets("keytool -importcert -keystore ca.jks -storepass changeit -file ca.pem")
    assert find_secrets("docker run -e POSTGRES_PASSWORD=postgres postgres:16")


# ---------------------------------------------------------------------- left alone
def grpc_frame() -> str:
    return base64.b64encode(b"\0\0\0\0" + bytes([RNG.randrange(20, 200)]) + RNG.randbytes(80)).decode()


ORDINARY = [
    # ciphertext in its tool's wrapper, or a KMS blob
    lambda: f'{{"smtp_password": "EJ[1:{b64(32)}:{b64(24)}:{b64(40)}]"}}',
    lambda: f"mail.password=ENC({b64(48)})",
    lambda: f"BlobValue: AQICAH{b64(150)}",
    # digests and fingerprints named by their algorithm
    lambda: f'{{"auth": {{"client_token": "hmac-sha256:{draw(64, HEX)}"}}}}',
    lambda: f"la huella es SHA256:{b64(32).rstrip('=')}, compárala",
    lambda: f"Content-Digest: sha-512=:{b64(64)}:",
    # public keys and public wallet data
    lambda: f"imported the watch-only zpub6{draw(105, B58)} into the node",
    lambda: f"<key>SUPublicDSAKey</key>\n<string>{b64(32)}</string>",
    # per-request values, analytics ids, signatures
    lambda: f"X-CSRF-Token: {b64(96)}",
    lambda: ("Set-Cookie: _hjSessionUser_" + draw(7, "0123456789") + "="
             + base64.urlsafe_b64encode(json.dumps(
                 {"id": draw(8, HEX), "created": 1700000000000, "existing": True}).encode()
             ).decode().rstrip("=") + "; Path=/"),
    lambda: f"INFO auth callback: state={b64u(24)} ok",
    lambda: f"sigstore annotation signature: MEUCIQ{b64(30)}AiA{b64(30)}",
    lambda: f"untrusted comment: signature from signify key\n{b64(74)}",
    # encoded data and paths
    lambda: f"content-type: application/grpc-web-text\n\n{grpc_frame()}",
    lambda: f'<link href="/_next/static/{b64u(15)}/_ssgManifest.js" rel="preload">',
    lambda: f"cert at https://certs.example.amazonaws.com/SigningService-{draw(32, HEX)}.pem",
    lambda: ("https://idp.example.org/sso?SAMLRequest=" + "%2B".join(draw(60) for _ in range(6))
             + "&RelayState=x"),
    # published test vectors, cited by RFC
    lambda: ("# RFC 7539 test vector (section 2.4.2)\n"
             f"key = \"{draw(64, HEX)}\""),
    lambda: f'analytics.load("{draw(32)}");',
    # nginx directives are no passwords
    lambda: "location / {\n    proxy_pass http://10.0.0.5:8080;\n}",
]


@pytest.mark.parametrize("make", ORDINARY, ids=[str(i) for i in range(len(ORDINARY))])
def test_eighth_set_lookalikes_are_left_alone(make: object) -> None:
    text = make()  # type: ignore[operator]
    assert find_secrets(text) == [], (text, find_secrets(text))


def test_new_rules_stay_linear() -> None:
    assert_linear("jwt.sign(a, 'b'\nname: x\nvalue: y\nQ: pw?\nA: z\n")
    assert_linear("Private-Lines: 1\nAAAA\n")
    assert_linear("https://h/invite?" + "a=b&" * 5)
