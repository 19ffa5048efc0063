"""A seeded corpus of fake secrets and ordinary notes, to measure the secrets detector.

Every value is made up at run time from a seeded generator: nothing here is a real key,
and no literal in this file has the full shape of one. The corpus is written from how
credentials turn up in what agents save (a .env pasted in a note, a command line with a
password, a sentence saying what the wifi password is, a config file, a log line), not
from the detector's rules: formats, quoting, context words and the prose around a value
vary, and each kind appears in several of them.

``secret_cases()`` returns ``(kind, value, text)``: ``value`` must be masked in ``text``.
``ordinary_cases()`` returns ``(kind, text)``: notes and snippets with no secret in them,
many with things that look like one (public keys, certificates, hashes, ids, URLs,
placeholders, code that handles tokens).
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid

SEED = 20261202
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
B62 = LOWER + UPPER + DIGITS
HEX = "0123456789abcdef"
B32 = UPPER + "234567"


class _Gen:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)

    def s(self, n: int, alphabet: str = B62) -> str:
        while True:
            out = "".join(self.r.choice(alphabet) for _ in range(n))
            if alphabet != B62 or n < 8 or (any(c.isdigit() for c in out)
                                             and any(c.isupper() for c in out)
                                             and any(c.islower() for c in out)):
                return out

    def pick(self, seq):  # type: ignore[no-untyped-def]
        return self.r.choice(seq)

    def b64(self, nbytes: int) -> str:
        return base64.b64encode(self.r.randbytes(nbytes)).decode()

    def b64url(self, nbytes: int) -> str:
        return base64.urlsafe_b64encode(self.r.randbytes(nbytes)).decode().rstrip("=")

    def password(self) -> str:
        """Passwords as people choose them: words, digits, a symbol; or random."""
        words = ["winter", "Falcon", "purple", "Monkey", "sunset", "Dragon", "coffee",
                 "Tango", "lemon", "Harbor", "maple", "Rocket", "velvet", "Quartz"]
        style = self.r.randrange(4)
        if style == 0:
            return self.pick(words) + str(self.r.randrange(10, 9999)) + self.pick("!#$%&*?")
        if style == 1:
            return "-".join(self.pick(words).lower() for _ in range(3)) + str(self.r.randrange(9))
        if style == 2:
            return self.s(self.r.randrange(10, 20), B62 + "!@#%^&*_+")
        return self.pick(words) + self.pick("@.") + self.pick(words) + str(self.r.randrange(99))

    def user(self) -> str:
        return self.pick(["admin", "deploy", "svc_billing", "ana", "root", "ci-bot",
                          "reporting", "jmartin", "app", "backup"])

    def host(self) -> str:
        return self.pick(["db.internal", "10.0.3.17", "pg-prod-2.corp.example",
                          "cache.staging.local", "mq.example.net", "mysql-01",
                          "cluster0.ab1cd.example.net", "localhost"])


def _jwt(g: _Gen, payload: dict) -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).decode().rstrip("=")
    return part({"alg": g.pick(["HS256", "RS256"]), "typ": "JWT"}) + "." + part(payload) \
        + "." + g.b64url(32)


# ---------------------------------------------------------------------- secrets
def secret_cases(seed: int = SEED) -> list[tuple[str, str, str]]:
    g = _Gen(seed)
    out: list[tuple[str, str, str]] = []

    def add(kind: str, value: str, *templates: str) -> None:
        for t in templates:
            out.append((kind, value, t.replace("{}", value)))

    def many(kind: str, make, templates: list[str]) -> None:  # type: ignore[no-untyped-def]
        for t in templates:
            v = make()
            out.append((kind, v, t.replace("{}", v)))

    # --- cloud providers
    many("aws_access_key", lambda: "AKIA" + g.s(16, UPPER + DIGITS), [
        "aws configure: access key {} region eu-west-1",
        "[default]\naws_access_key_id = {}\nregion = us-east-1",
        "export AWS_ACCESS_KEY_ID={}",
    ])
    many("aws_secret_key", lambda: g.s(40, B62 + "/+"), [
        "[prod]\naws_access_key_id = AKIA" + g.s(16, UPPER + DIGITS) + "\naws_secret_access_key = {}",
        'AWS_SECRET_ACCESS_KEY="{}"',
        "The CI user's secret access key is {} (created in March).",
    ])
    many("aws_presigned_url", lambda: g.s(64, HEX), [
        "download link: https://bucket.s3.amazonaws.com/report.pdf?X-Amz-Algorithm=AWS4-HMAC-"
        "SHA256&X-Amz-Credential=AKIA" + g.s(16, UPPER + DIGITS) + "%2F20261101%2Fus-east-1%2Fs3"
        "%2Faws4_request&X-Amz-Date=20261101T120000Z&X-Amz-Expires=3600&X-Amz-Signature={}",
    ])
    many("azure_sas", lambda: g.b64(32).replace("+", "%2B").replace("/", "%2F").replace(
        "=", "%3D"), [
        "blob url https://acct.blob.core.windows.net/backups/db.bak?sv=2022-11-02&ss=b&srt=o"
        "&sp=r&se=2026-12-31T00:00:00Z&st=2026-11-01T00:00:00Z&spr=https&sig={}",
        "SAS token for the container: sv=2021-08-06&sr=c&sp=rl&sig={}",
    ])
    many("azure_storage_key", lambda: g.b64(64), [
        "DefaultEndpointsProtocol=https;AccountName=prodlogs;AccountKey={};EndpointSuffix="
        "core.windows.net",
        "storage account key: {}",
    ])
    many("azure_client_secret", lambda: g.s(3) + "8Q~" + g.s(34, B62 + "._~-"), [
        'AZURE_CLIENT_SECRET="{}"',
        "app registration secret value {} expires 2027-01",
    ])
    many("gcp_service_account", lambda: "-----BEGIN PRIVATE KEY-----\\n" + g.b64(90)
         + "\\n" + g.b64(90) + "\\n-----END PRIVATE KEY-----", [
        '{"type": "service_account", "project_id": "acme-prod", "private_key_id": "'
        + g.s(40, HEX) + '", "private_key": "{}\\n", "client_email": "ci@acme-prod.iam.gserviceaccount.com"}',
    ])
    many("google_api_key", lambda: "AIza" + g.s(35, B62 + "-_"), [
        "maps key {} restricted to our domain",
        "GOOGLE_API_KEY={}",
    ])
    many("digitalocean_token", lambda: "dop_v1_" + g.s(64, HEX), [
        "doctl auth init -t {}",
        "DIGITALOCEAN_TOKEN={}",
    ])
    many("heroku_or_uuid_key", lambda: str(uuid.UUID(int=g.r.getrandbits(128))), [
        "HEROKU_API_KEY={}",
    ])
    # --- source hosting and registries
    many("github_token", lambda: "ghp_" + g.s(36), [
        "git remote set-url origin https://{}@github.com/acme/api.git",
        "CI pushes tags with the token {}",
        "gh auth login --with-token <<< {}",
    ])
    many("github_token", lambda: "github_pat_" + g.s(22) + "_" + g.s(59), [
        "fine-grained PAT for the release bot: {}",
    ])
    many("github_token", lambda: "ghs_" + g.s(36), ["installation token {} (expires in 1h)"])
    many("gitlab_token", lambda: "glpat-" + g.s(20, B62 + "-_"), [
        "GITLAB_TOKEN: {}",
        "runner registered with personal token {}",
    ])
    many("npm_token", lambda: "npm_" + g.s(36), [
        "//registry.npmjs.org/:_authToken={}",
        "NPM_TOKEN={} npm publish",
    ])
    many("pypi_token", lambda: "pypi-AgEIcHlwaS5vcmc" + g.s(64, B62 + "-_"), [
        "[pypi]\nusername = __token__\npassword = {}",
    ])
    many("docker_config_auth", lambda: base64.b64encode(
        f"{g.user()}:{g.password()}".encode()).decode(), [
        '{"auths": {"registry.example.com": {"auth": "{}"}}}',
        '~/.docker/config.json has\n  "https://index.docker.io/v1/": {\n    "auth": "{}"\n  }',
    ])
    many("docker_login", lambda: g.password(), [
        "docker login -u deploy -p {} registry.example.com",
    ])
    # --- chat, mail, payments, SaaS
    many("slack_token", lambda: "xoxb-" + g.s(12, DIGITS) + "-" + g.s(13, DIGITS) + "-"
         + g.s(24), ["SLACK_BOT_TOKEN={}", "bot token {} for #alerts"])
    many("slack_webhook", lambda: "https://hooks.slack.com/services/T" + g.s(8, UPPER + DIGITS)
         + "/B" + g.s(10, UPPER + DIGITS) + "/" + g.s(24), ["alerts webhook: {}"])
    many("discord_token", lambda: base64.b64encode(str(g.r.randrange(10**17, 10**18)).encode())
         .decode().rstrip("=") + "." + g.s(6, B62 + "-_") + "." + g.s(38, B62 + "-_"), [
        "DISCORD_TOKEN={}",
        "the discord bot logs in with {}",
    ])
    many("discord_webhook", lambda: "https://discord.com/api/webhooks/"
         + str(g.r.randrange(10**17, 10**18)) + "/" + g.s(68, B62 + "-_"), [
        "post build results to {}",
    ])
    many("telegram_bot_token", lambda: str(g.r.randrange(10**8, 10**10)) + ":AA"
         + g.s(33, B62 + "-_"), [
        "telegram bot token {}",
        "curl https://api.telegram.org/bot{}/getUpdates",
    ])
    many("stripe_key", lambda: "sk_live_" + g.s(99), ["STRIPE_SECRET_KEY={}",
                                                    "stripe secret {} in the billing service"])
    many("stripe_key", lambda: "rk_live_" + g.s(99), ["restricted key for reports: {}"])
    many("stripe_key", lambda: "sk_test_" + g.s(99), ["test mode key {}"])
    many("stripe_webhook_secret", lambda: "whsec_" + g.s(32), ["endpoint secret {}"])
    many("shopify_token", lambda: g.pick(["shpat_", "shpss_", "shpca_"]) + g.s(32, HEX), [
        "Shopify admin API access token {}",
        "SHOPIFY_ACCESS_TOKEN={}",
    ])
    many("mailgun_key", lambda: "key-" + g.s(32, HEX), [
        "mailgun api key {}",
        "curl -s --user 'api:{}' https://api.mailgun.net/v3/mg.example.com/messages",
    ])
    many("sendgrid_key", lambda: "SG." + g.s(22, B62 + "-_") + "." + g.s(43, B62 + "-_"), [
        "SENDGRID_API_KEY={}",
        "sendgrid key {} (full access, rotate!)",
    ])
    many("twilio", lambda: g.s(32, HEX), [
        "TWILIO_ACCOUNT_SID=AC" + g.s(32, HEX) + "\nTWILIO_AUTH_TOKEN={}",
        "twilio auth token: {}",
    ])
    many("twilio_api_key", lambda: "SK" + g.s(32, HEX), ["twilio API key sid {} secret in vault"])
    many("square_token", lambda: "EAAA" + g.s(60, B62 + "-_"), ["square access token {}"])
    many("openai_key", lambda: "sk-proj-" + g.s(120, B62 + "-_"), [
        "OPENAI_API_KEY={}", "openai.api_key = '{}'"])
    many("anthropic_key", lambda: "sk-ant-api03-" + g.s(93, B62 + "-_") + "AA", [
        "export ANTHROPIC_API_KEY={}"])
    many("huggingface_token", lambda: "hf_" + g.s(34, LOWER + UPPER), [
        "huggingface-cli login --token {}"])
    many("linear_key", lambda: "lin_api_" + g.s(40), ["LINEAR_API_KEY={}"])
    many("notion_token", lambda: "ntn_" + g.s(46), ["notion integration secret {}"])
    many("atlassian_token", lambda: "ATATT3xFfGF0" + g.s(180, B62 + "-_=") , [
        "jira api token {} for ana@example.com"])
    many("datadog_key", lambda: g.s(32, HEX), ["DD_API_KEY={}", "datadog api key: {}"])
    many("sentry_auth_token", lambda: "sntrys_" + g.b64url(90), ["SENTRY_AUTH_TOKEN={}"])
    many("postman_key", lambda: "PMAK-" + g.s(24, HEX) + "-" + g.s(34, HEX), ["postman {}"])
    many("newrelic_key", lambda: "NRAK-" + g.s(27, UPPER + DIGITS), ["NEW_RELIC_API_KEY={}"])
    many("terraform_token", lambda: g.s(14) + ".atlasv1." + g.s(67), [
        'credentials "app.terraform.io" {\n  token = "{}"\n}'])
    many("grafana_token", lambda: "glsa_" + g.s(32) + "_" + g.s(8, HEX), [
        "grafana service account token {}"])
    many("databricks_token", lambda: "dapi" + g.s(32, HEX), ["DATABRICKS_TOKEN={}"])
    many("doppler_token", lambda: "dp.st.prd." + g.s(40), ["doppler service token {}"])
    many("vault_token", lambda: "hvs." + g.s(24), [
        "VAULT_TOKEN={} vault kv get secret/app",
        "root token after init: {}",
    ])
    many("vault_token", lambda: "hvs.CAESI" + g.s(90, B62 + "_-"), ["vault login {}"])
    many("age_key", lambda: "AGE-SECRET-KEY-1" + g.s(58, UPPER.replace("B", "").replace(
        "I", "").replace("O", "") + "023456789"), [
        "# created: 2026-10-01\n# public key: age1" + g.s(58, LOWER + DIGITS) + "\n{}",
        "sops age key {}",
    ])
    many("jwt", lambda: _jwt(g, {"sub": g.user(), "iat": 1760000000, "role": "admin"}), [
        "Authorization: Bearer {}",
        "session cookie: token={}; Path=/; HttpOnly",
        "SUPABASE_SERVICE_ROLE_KEY={}",
    ])
    many("private_key", lambda: "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(
        g.b64(48) for _ in range(5)) + "\n-----END RSA PRIVATE KEY-----", ["deploy key:\n{}"])
    many("private_key", lambda: "-----BEGIN OPENSSH PRIVATE KEY-----\n" + "\n".join(
        g.b64(51) for _ in range(4)) + "\n-----END OPENSSH PRIVATE KEY-----", ["{}"])
    many("private_key", lambda: "-----BEGIN EC PRIVATE KEY-----\n" + g.b64(48) + "\n"
         + g.b64(30) + "\n-----END EC PRIVATE KEY-----", ["tls key for nginx:\n{}\n"])
    many("wireguard_private_key", lambda: g.b64(32), [
        "[Interface]\nPrivateKey = {}\nAddress = 10.8.0.2/24",
    ])
    many("totp_seed", lambda: g.s(32, B32), [
        "otpauth://totp/Acme:ana@example.com?secret={}&issuer=Acme",
        "2FA recovery seed: {}",
    ])
    # --- passwords and credentials by context
    many("password_prose", g.password, [
        "The wifi password at the office is {} (changed after the audit).",
        "the staging db password is {}",
        "Ana's laptop login: user ana, password {}",
        "pw for the router admin page: {}",
        "la contraseña del wifi es {}",
        "NAS admin password changed to {} on 2026-10-02",
    ])
    many("password_assign", g.password, [
        "DB_PASSWORD={}",
        "database:\n  user: app\n  password: {}\n  host: db.internal",
        '{"username": "svc", "password": "{}"}',
        "spring.datasource.password={}",
        "<add key=\"SmtpPassword\" value=\"{}\" />",
        "[client]\nuser=backup\npassword={}",
        "PGPASSWORD='{}' pg_dump -h db.internal shop > shop.sql",
        "smtp_pass = \"{}\"",
        "-Djavax.net.ssl.keyStorePassword={}",
        "wpa_passphrase={}",
    ])
    many("connection_string", g.password, [
        "DATABASE_URL=postgres://" + g.user() + ":{}@" + g.host() + ":5432/app",
        "mongodb+srv://" + g.user() + ":{}@cluster0.ab1cd.example.net/?retryWrites=true",
        "mysql://root:{}@" + g.host() + "/shop",
        "amqp://" + g.user() + ":{}@mq.example.net:5672/",
        "Server=sql01;Database=Shop;User Id=sa;Password={};",
    ])
    many("redis_url", g.password, [
        "REDIS_URL=redis://:{}@cache.staging.local:6379/0",
        "rediss://default:{}@redis-12345.c1.cloud.example.com:6380",
    ])
    many("git_credentials", lambda: g.s(40), [
        "~/.git-credentials: https://ana:{}@git.example.com",
    ])
    many("basic_auth_header", lambda: base64.b64encode(
        f"{g.user()}:{g.password()}".encode()).decode(), [
        "Authorization: Basic {}",
        'curl -H "Authorization: Basic {}" https://api.example.com/v1/me',
        "headers = {'Authorization': 'Basic {}'}",
    ])
    many("bearer_token", lambda: g.s(40, B62 + "-._~"), [
        'curl -H "Authorization: Bearer {}" https://api.example.com',
        "Authorization: token {}",
    ])
    many("api_key_header", lambda: g.s(32), [
        "curl -H 'X-API-Key: {}' https://api.example.com/items",
        "x-api-key: {}",
    ])
    many("curl_user", g.password, [
        "curl -u admin:{} https://jenkins.example.com/api/json",
        "curl --user deploy:{} -X POST https://nexus.example.com/upload",
    ])
    many("mysql_cli_password", g.password, [
        "mysql -u root -p{} shop < dump.sql",
        "mysqldump -uadmin -p{} --all-databases > all.sql",
    ])
    many("sshpass", g.password, ["sshpass -p '{}' ssh pi@10.0.0.5"])
    many("netrc", g.password, [
        "machine api.example.com login deploy password {}",
        "~/.netrc\nmachine ftp.example.org\n  login backup\n  password {}",
    ])
    many("pgpass", g.password, ["~/.pgpass line: db.internal:5432:*:app:{}"])
    many("cli_token_flag", lambda: g.s(40), [
        "run it with ./deploy.sh --token {} --env prod",
        "terraform login; then tfctl --api-token={}",
        "ngrok config add-authtoken {}",
    ])
    many("generic_secret_assign", lambda: g.s(32), [
        "client_secret: {}",
        "SECRET_KEY = '{}'",
        "JWT_SECRET={}",
        'webhook_secret = "{}"',
        "apiKey: \"{}\"",
        "session secret {}",
    ])
    many("k8s_secret_data", lambda: base64.b64encode(g.password().encode()).decode(), [
        "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"
        "  password: {}",
    ])
    many("high_entropy", lambda: g.s(48), [
        "the signing value for webhooks is {} — rotated monthly",
    ])
    return out


# ---------------------------------------------------------------------- ordinary notes
def ordinary_cases(seed: int = SEED) -> list[tuple[str, str]]:
    g = _Gen(seed + 1)
    out: list[tuple[str, str]] = []

    def add(kind: str, *texts: str) -> None:
        out.extend((kind, t) for t in texts)

    def sha(n: int = 40) -> str:
        return g.s(n, HEX)

    # --- public keys, certificates and other public material
    for _ in range(4):
        add("ssh_public_key",
            f"ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI{g.b64(32)[:43]} ana@laptop",
            f"added to authorized_keys: ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ{g.b64(180)} "
            "deploy@ci")
    add("pgp_public_key", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n" + "\n".join(
        g.b64(48) for _ in range(6)) + "\n=" + g.b64(3) + "\n-----END PGP PUBLIC KEY BLOCK-----")
    for _ in range(3):
        add("wireguard_public_key", f"[Peer]\nPublicKey = {g.b64(32)}\nAllowedIPs = 10.8.0.0/24\n"
            "Endpoint = vpn.example.com:51820")
    for _ in range(3):
        add("certificate", "server cert:\n-----BEGIN CERTIFICATE-----\n" + "\n".join(
            g.b64(48) for _ in range(8)) + "\n-----END CERTIFICATE-----")
    add("csr", "-----BEGIN CERTIFICATE REQUEST-----\n" + "\n".join(
        g.b64(48) for _ in range(5)) + "\n-----END CERTIFICATE REQUEST-----")
    add("public_key_pem", "-----BEGIN PUBLIC KEY-----\n" + "\n".join(
        g.b64(48) for _ in range(4)) + "\n-----END PUBLIC KEY-----")
    for _ in range(3):
        add("stripe_publishable", f"frontend uses the publishable key pk_live_{g.s(99)}",
            f"STRIPE_PUBLISHABLE_KEY=pk_test_{g.s(99)}")
    add("mapbox_public", f"mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOiJ{g.s(20)}"
        f"In0.{g.s(22)}'")
    add("age_public_key", f"encrypt to the team's age recipient age1{g.s(58, LOWER + DIGITS)}")
    add("wireguard_peer", f"wg show: peer {g.b64(32)} latest handshake 12 seconds ago")
    # --- hashes, digests and ids
    for _ in range(6):
        add("commit", f"fixed in {sha()} (merge of #412)", f"git revert {sha()[:12]}",
            f"deploy {sha()} went out at 14:02")
    for _ in range(3):
        add("go_sum", f"github.com/pkg/errors v0.9.1 h1:{g.b64(32)}\n"
            f"github.com/pkg/errors v0.9.1/go.mod h1:{g.b64(32)}")
    for _ in range(3):
        add("npm_integrity", f'"integrity": "sha512-{g.b64(64)}"',
            f"image digest sha256:{sha(64)} is the one in prod")
    add("cargo_lock", f'[[package]]\nname = "serde"\nversion = "1.0.210"\nsource = '
        f'"registry+https://github.com/rust-lang/crates.io-index"\nchecksum = "{sha(64)}"')
    add("sha256sum", f"{sha(64)}  ihmt-0.9.0.tar.gz")
    add("ipfs_cid", f"the dataset is pinned at ipfs://Qm{g.s(44, B62.replace('0', '').replace('O', '').replace('I', '').replace('l', ''))}",
        f"CID bafybei{g.s(51, LOWER + '234567')}")
    for _ in range(4):
        add("uuid", f"tenant id {uuid.UUID(int=g.r.getrandbits(128))} is the EU one",
            f"request {uuid.UUID(int=g.r.getrandbits(128))} timed out after 30s")
    add("stripe_ids", f"refund for cus_{g.s(14)} on invoice in_{g.s(24)}",
        f"payment intent pi_{g.s(24)} failed with card_declined")
    add("twilio_sid", f"message SM{sha(32)} was delivered")
    add("aws_ids", "arn:aws:iam::123456789012:role/ci-deploy is assumed by the runner",
        "account 123456789012, bucket acme-logs-eu, KMS key alias/logs")
    add("docs_url", f"spec: https://docs.google.com/document/d/1{g.s(43, B62 + '-_')}/edit",
        f"sheet https://docs.google.com/spreadsheets/d/1{g.s(43, B62 + '-_')}/edit#gid=0",
        f"video https://www.youtube.com/watch?v={g.s(11, B62 + '-_')} explains the rollout")
    add("drive_url", f"slides: https://drive.google.com/file/d/1{g.s(32, B62 + '-_')}/view")
    add("data_uri", "logo: data:image/png;base64," + "\n".join(
        g.b64(57) for _ in range(6)))
    add("wrapped_base64", "the fixture image (base64, wrapped at 76):\n" + "\n".join(
        g.b64(57) for _ in range(8)))
    add("webpack", f"bundle main.{sha(8)}.js and vendor.{sha(20)}.chunk.js are cached a year")
    add("ulid", f"job 01J{g.s(23, '0123456789ABCDEFGHJKMNPQRSTVWXYZ')} finished")
    add("etag", f'ETag: "{sha(32)}"', f"cache key v2-deps-{sha(40)}")
    add("trace", f"trace_id={sha(32)} span_id={sha(16)} status=500")
    add("s3_url", "s3://acme-data/exports/2026/11/orders-000123.parquet")
    add("signed_commit", f"gpg: Signature made Tue; using RSA key {sha(40).upper()}")
    add("fingerprint", f"host key fingerprint SHA256:{g.b64(32)[:43]} (ED25519)")
    # --- notes that talk about secrets without holding one
    add("secret_talk",
        "The deploy token lives in 1Password, item 'CI deploy'. Never paste it here.",
        "Rotate the Stripe keys every 90 days; the reminder is in the ops calendar.",
        "Password policy: at least 14 characters, no reuse of the last 5.",
        "The password reset email takes up to 5 minutes to arrive.",
        "We use passwordless login (magic links) for the admin panel.",
        "Tokens expire after 15 minutes; the refresh token after 30 days.",
        "If the API answers 401, the token has expired: call /auth/refresh.",
        "Secrets are read from AWS Secrets Manager at startup, never from .env in prod.",
        "The key rotation job runs at 03:00 UTC and posts to #security.",
        "Ana asked for the VPN password; told her to ask IT (ticket 4412).",
        "the GitHub token for CI is stored as the repository secret GH_TOKEN",
        "API keys are per environment; staging ones start with a different prefix.",
        "curl -u admin https://jenkins.example.com/api/json prompts for the password",
        "mysql -u root -p shop  (it asks for the password)",
        "docker login -u deploy --password-stdin < token.txt",
        "gh auth login --with-token < ~/.config/gh-token",
        "set the token with --token-file /run/secrets/deploy_token",
        "The wifi password is on the sticker under the router.",
        "la contraseña está en el gestor de contraseñas del equipo",
        "Password: see the vault entry 'router'.",
        "secret scanning blocked the push: remove the key and force-push.",
        "Use `vault kv get secret/app` to read the database password.",
        "Authorization: Bearer <token>",
        "Authorization: Basic $(echo -n user:pass | base64)",
        "export GITHUB_TOKEN=$(gh auth token)",
        "password = os.environ['DB_PASSWORD']",
        "DB_PASSWORD=${DB_PASSWORD:?must be set}",
        "api_key: ${{ secrets.API_KEY }}",
        "token: {{ .Values.token }}",
        "redis://cache.staging.local:6379/0 is the staging cache",
        "postgres://localhost/app_dev is the local database",
        "https://user@git.example.com/acme/api.git (ssh agent does the rest)",
        "the secretName is tls-wildcard in the ingress",
        "grant_type=password is disabled for public clients",
        "token_type: bearer",
        "max_tokens: 4096 for the summariser",
        "Keyboard layout: US international; the key for ñ is AltGr+n.",
        "The primary key of orders is (tenant_id, order_id).",
        "SSH into the bastion with `ssh -i ~/.ssh/id_ed25519 ana@bastion`.",
        "password hashing: argon2id, m=64MB, t=3, p=4",
        "The `--password` flag was removed from the CLI in v3; it now prompts.",
        "AWS_SECRET_ACCESS_KEY is injected by the OIDC role, not stored anywhere",
        "Keys are in ~/.ssh; the public one is registered on GitHub.",
        "JWTs are signed with RS256; the JWKS endpoint is /.well-known/jwks.json.",
        "Stripe webhook signatures are checked with the endpoint secret from the env.",
        "token = request.headers.get('Authorization', '').removeprefix('Bearer ')",
        "if not secrets.compare_digest(given, expected): raise Forbidden()",
        "def rotate_key(old_key: str, new_key: str) -> None: ...",
        "api_key = settings.OPENAI_API_KEY",
        "const token = await getToken({ audience: API_AUDIENCE });",
        "password_field = forms.CharField(widget=forms.PasswordInput)",
        'schema: {"password": {"type": "string", "minLength": 12}}',
        "secret: str = Field(repr=False)",
        "client_secret = None  # set by configure()",
        "let key = env::var(\"API_KEY\").expect(\"API_KEY not set\");",
        "The session cookie is HttpOnly, Secure, SameSite=Lax.",
        "tokenizer: tokens are split on whitespace, then on punctuation",
        "the secret sauce of the ranking is the field weights",
        "Secretary of the board: Marta (minutes due Friday).",
        "key: app.kubernetes.io/name\nvalue: billing",
        "PASSWORD_MIN_LENGTH=14",
        "TOKEN_TTL_SECONDS=900",
        "SECRET_ROTATION_DAYS=90",
        "sk-... keys are for OpenAI; we use the Azure endpoint instead",
        "the key is the tenant id, the value the plan",
        "public_key = load_pem_public_key(data)",
        "hunter2 is the classic example of a bad password in jokes",
    )
    # --- ordinary work notes
    people = ["Ana", "Bob", "Chen", "Dmitri", "Elif", "Farah", "Gustavo", "Hana"]
    tools = ["PostgreSQL 16", "Redis 7", "Kafka", "Terraform 1.9", "Node 22", "Python 3.12",
             "Go 1.23", "Rust 1.82", "pnpm", "uv", "Bazel", "GitHub Actions", "ArgoCD"]
    for _i in range(60):
        p, t = g.pick(people), g.pick(tools)
        port = g.r.randrange(1024, 65000)
        day = f"2026-{g.r.randrange(1, 13):02d}-{g.r.randrange(1, 29):02d}"
        add("work_note", g.pick([
            f"{day}: {p} decided to move the billing service to {t}; reason: fewer outages.",
            f"The API listens on port {port} in staging and 443 behind the load balancer.",
            f"{p} prefers small PRs (under 400 lines) and reviews in the morning.",
            f"Build fails on ARM with {t}: pin the image to linux/amd64 until {day}.",
            f"Retro {day}: flaky test test_refund_rounding fixed by using Decimal cents.",
            f"Standup moved to 09:30; {p} is on call this week (rotation in PagerDuty).",
            f"Run `make test-{g.pick(['unit', 'e2e', 'lint'])}` before pushing; CI takes ~{g.r.randrange(3, 20)} min.",
            f"Migration {day[:4]}{day[5:7]}{day[8:]}_add_index_orders_created_at took {g.r.randrange(2, 90)} s on prod.",
            f"{p}'s laptop: macOS 15, 32 GB, uses {t} via Homebrew.",
            f"Customer ACME-{g.r.randrange(100, 999)} wants invoices in EUR from {day}.",
            f"Incident {day}: disk full on {g.host()} at 02:14, logs rotated, fixed by 02:40.",
            f"The nightly export writes to /var/exports/{day}/orders.csv ({g.r.randrange(1, 900)} MB).",
            f"Version bump: {t} -> next minor on {day}, changelog reviewed by {p}.",
            f"Feature flag checkout_v2 is at {g.r.randrange(1, 100)} % in region eu-west-1.",
        ]))
    # --- code snippets
    add("code",
        "def total(items):\n    return sum(i.price * i.qty for i in items)\n",
        "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:\n"
        "        self.rate, self.capacity = rate, capacity\n        self.tokens = capacity\n",
        "for key, value in sorted(config.items()):\n    print(f'{key}={value}')\n",
        "func (s *Server) Login(ctx context.Context, req *LoginRequest) error {\n"
        "\tif !s.auth.Check(req.User, req.Password) {\n\t\treturn ErrUnauthorized\n\t}\n"
        "\treturn nil\n}\n",
        "const headers = { Authorization: `Bearer ${token}` };\nawait fetch(url, { headers });\n",
        "SELECT user_id, count(*) FROM sessions WHERE created_at > now() - interval '1 day' "
        "GROUP BY 1;",
        "impl Drop for Guard {\n    fn drop(&mut self) { self.lock.release(); }\n}\n",
        "private static final String ALGORITHM = \"AES/GCM/NoPadding\";\n"
        "private static final int KEY_LENGTH = 256;\n",
        "password = getpass.getpass('Password: ')\nconn = connect(user=user, password=password)\n",
        "if (apiKey == null) throw new IllegalStateException(\"API key missing\");",
        "hash = hashlib.sha256(data).hexdigest()  # e.g. " + sha(64),
        "assert hmac.new(key, msg, 'sha256').hexdigest() == signature",
        "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs-eu\"\n  tags = { team = \"ops\" }\n}\n",
        "services:\n  db:\n    image: postgres:16\n    environment:\n"
        "      POSTGRES_PASSWORD_FILE: /run/secrets/db_password\n",
        "env:\n  - name: API_TOKEN\n    valueFrom:\n      secretKeyRef:\n        name: api\n"
        "        key: token\n",
        "jobs:\n  deploy:\n    steps:\n      - run: ./deploy.sh\n        env:\n"
        "          TOKEN: ${{ secrets.DEPLOY_TOKEN }}\n",
        "@app.post('/login')\ndef login(form: LoginForm):\n    user = auth(form.username, "
        "form.password)\n    return {'token': issue_token(user)}\n",
        "CREATE TABLE api_keys (id uuid primary key, key_hash bytea not null, "
        "created_at timestamptz);",
        "ruff check src tests && pytest -q -n 2",
        "git log --oneline | head -5\n" + "\n".join(f"{sha()[:7]} {g.pick(['fix', 'feat', 'docs'])}: "
                                                    f"{g.pick(['lock', 'search', 'tree'])}"
                                                    for _ in range(5)),
        "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n"
        "    main()\nKeyError: 'DATABASE_URL'",
        "pip install 'ihmt[semantic]'==0.9.0 --index-url https://pypi.org/simple",
        "npm ci && npm run build -- --mode production",
        "kubectl -n billing rollout restart deploy/api && kubectl -n billing get pods",
        "CSS: .btn-primary_3xK9a { color: var(--accent); }",
    )
    # more code with generated identifiers and minified/hashed names
    for _ in range(20):
        name = g.pick(["fetchUser", "parseInvoice", "renderChart", "sync_orders",
                       "validate_email", "compute_tax", "ReserveStock", "load_config"])
        add("code", g.pick([
            f"def {name}(session, ids):\n    rows = session.query(Model).filter(Model.id.in_(ids))\n"
            f"    return [r.as_dict() for r in rows]\n",
            f"export async function {name}(id: string) {{\n  const res = await api.get(`/v1/items/${{id}}`);\n"
            f"  return res.data;\n}}\n",
            f"// {name}: cache key is {g.pick(['user', 'tenant'])}:{{id}}:v{g.r.randrange(1, 9)}\n",
            f"{name}_test.go:{g.r.randrange(10, 400)}: expected {g.r.randrange(100)} got {g.r.randrange(100)}",
        ]))
    # --- logs and outputs
    for _ in range(25):
        add("log", g.pick([
            f"2026-11-{g.r.randrange(1, 29):02d}T10:{g.r.randrange(60):02d}:00Z INFO request_id={g.s(20)} "
            f"GET /api/orders 200 {g.r.randrange(5, 900)}ms",
            f"WARN retrying job {uuid.UUID(int=g.r.getrandbits(128))} attempt {g.r.randrange(1, 5)}/5",
            f"=== {g.r.randrange(1, 900)} passed, {g.r.randrange(0, 5)} skipped in {g.r.randrange(5, 300)}.12s ===",
            f"Successfully built {sha(12)}\nSuccessfully tagged registry.example.com/api:{sha(7)}",
            "npm WARN deprecated inflight@1.0.6: This module is not supported",
            f"[{g.r.randrange(1, 99)}/120] Compiling crate_{g.s(6, LOWER)} v0.{g.r.randrange(1, 30)}.0",
            f"session started for user {g.user()} from 10.0.{g.r.randrange(255)}.{g.r.randrange(255)}",
        ]))
    # --- personal and narrative notes
    add("personal",
        "Dentist on Tuesday at 16:30; bring the insurance card.",
        "Mum's birthday is 14 March; she likes orchids.",
        "The car's next service is at 60,000 km (currently 54,200).",
        "Flight IB3166 to Madrid on 2026-12-20, seat 14C, booking ref QX7LPM.",
        "Gym: Monday, Wednesday, Friday at 7:00.",
        "Hana's kids are allergic to peanuts.",
        "Moved to Valencia in September; the new flat is near the Turia park.",
        "Receta: tortilla con cebolla, 6 huevos, 4 patatas, fuego lento 10 minutos.",
        "Book club reads 'The Left Hand of Darkness' in January.",
        "Wi-Fi network name at the cabin: LakeHouse-5G (the password is on the fridge).",
        "Library card number is on the back of the card in the drawer.",
        "Parking at the office: level -2, spot 117.",
    )
    # filler to reach a few hundred, with varied numbers and ids
    for _ in range(40):
        add("mixed", g.pick([
            f"Order {g.r.randrange(10**5, 10**6)} shipped via DHL, tracking JD{g.s(18, DIGITS)}.",
            f"Grafana dashboard https://grafana.example.com/d/{g.s(9, B62)}/api-latency is the one to watch.",
            f"Jira {g.pick(['BILL', 'OPS', 'WEB'])}-{g.r.randrange(100, 9999)}: {g.pick(people)} owns it.",
            f"Benchmark: p95 {g.r.randrange(5, 200)} ms at {g.r.randrange(100, 5000)} rps on 2 cores.",
            f"Python wheel ihmt-0.{g.r.randrange(1, 20)}.0-py3-none-any.whl, sha256 {sha(64)}",
            f"Meeting notes {g.pick(people)}/{g.pick(people)}: agreed to drop IE11 support.",
            f"Backup of {g.host()} completed: {g.r.randrange(1, 500)} GB in {g.r.randrange(2, 90)} min.",
            "IBAN for the supplier invoice is in the finance sheet, not here.",
            f"Release {g.r.randrange(1, 9)}.{g.r.randrange(0, 30)}.{g.r.randrange(0, 9)} tagged from {sha()}",
        ]))
    return out


# ---------------------------------------------------------------------- held out
def heldout_cases(seed: int = SEED) -> tuple[list[tuple[str, str, str]], list[tuple[str, str]]]:
    """Written after the detector's rules and never tuned on: new sentences, new files and
    new formats for known kinds, to show how far the rules carry beyond the main corpus.
    Reported separately by the benchmark; no threshold is asserted on it."""
    g = _Gen(seed + 2)
    pw, tok = g.password, (lambda: g.s(40))
    secrets = [
        ("password_prose", v, t.replace("{}", v)) for v, t in [
            (pw(), "Reminder to self: printer admin pass is {} until IT resets it"),
            (pw(), "Login for the staging Grafana -> admin / {}"),
            (pw(), "wifi: GuestNet, password: {}"),
            (pw(), "Le mot de passe du serveur est {}"),
            (pw(), "Das Passwort für den Router ist {}"),
            (pw(), "The new VPN passphrase, as of Monday, is {}."),
        ]] + [
        ("password_assign", v, t.replace("{}", v)) for v, t in [
            (pw(), "MYSQL_ROOT_PASSWORD: {}"),
            (pw(), "ansible_become_pass={}"),
            (pw(), 'const dbPassword = "{}";'),
            (pw(), "<password>{}</password>"),
            (pw(), "$env:DB_PASS = '{}'"),
            (pw(), "set PGPASSWORD={}"),
        ]] + [
        ("token", v, t.replace("{}", v)) for v, t in [
            ("ghp_" + g.s(36), "token in ~/.config/hub: oauth_token: {}"),
            ("glpat-" + g.s(20), "git clone https://oauth2:{}@gitlab.example.com/grp/app.git"),
            ("xoxp-" + g.s(11, DIGITS) + "-" + g.s(12, DIGITS) + "-" + g.s(32), "{}"),
            ("sk-proj-" + g.s(100, B62 + "_-"), "key for the summariser: {}"),
            (tok(), "X-Auth-Token: {}"),
            (tok(), "kubectl --token={} get pods"),
            (tok(), "export CLOUDFLARE_API_TOKEN={}"),
            (tok(), "the deploy hook secret: {}"),
            ("hvs." + g.s(24), "vault token = {}"),
            (g.s(32, HEX), "PAGERDUTY_TOKEN={}"),
            (base64.b64encode(f"ci:{g.password()}".encode()).decode(),
             'auth = "{}"  # registry basic auth'),
            (g.password(), "psql postgresql://reporter:{}@analytics.internal/warehouse"),
        ]]
    ordinary = [("heldout", t) for t in [
        "The pass rate of the e2e suite is 97 % this week.",
        "Password managers: the team standardised on Bitwarden in May.",
        "admin / admin is what the appliance ships with; we changed it on day one.",
        "kubectl --token-file=/var/run/secrets/token get pods",
        "Login for the staging Grafana is via SSO, no local accounts.",
        "SELECT id, password_hash FROM users WHERE email = $1",
        "export CLOUDFLARE_API_TOKEN=$(op read op://ops/cloudflare/token)",
        "The API returns {\"token\": \"<opaque>\", \"expires_in\": 3600}.",
        "ssh-keygen -t ed25519 -C ana@laptop -f ~/.ssh/id_ed25519",
        f"commit {g.s(40, HEX)} bumped the lockfile",
        f"sha512-{g.b64(64)} is the integrity of left-pad",
        f"node id {g.s(32, B62)}",
        f"https://github.com/acme/api/blob/{g.s(40, HEX)}/src/auth/token.py#L12",
        f"Figma file https://www.figma.com/file/{g.s(22, B62)}/Checkout-v2",
        "Passphrase length should be at least 5 words (diceware).",
        "The PIN is four digits and changes monthly; ask the office manager.",
        "auth: none (the service sits behind the mesh)",
        "token_endpoint: https://auth.example.com/oauth/token",
        f"Notion page https://www.notion.so/acme/Runbook-{g.s(32, HEX)}",
        f"S3 key uploads/{uuid.UUID(int=g.r.getrandbits(128))}/avatar.png",
    ]]
    return secrets, ordinary
