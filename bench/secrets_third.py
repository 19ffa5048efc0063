"""A third held-out secrets set, split ``"third"``: written after the second pass of fixes
and measured once, as it came out; never tuned on.

Same conventions as :mod:`bench.secrets_fresh` (whose generator it reuses): every secret
is FAKE, drawn at run time from a seeded generator into a template (``⟦hex:32⟧``,
``⟦pw⟧`` ...), so this file holds no key-like literal; the span that must be masked is
marked ``«...»``. It tries phrasings, tools and formats the fresh set does not have.
"""

from __future__ import annotations

import random

from bench.secrets_fresh import FreshCase, render

SPLIT = "third"

_SEED_WORDS = (
    "abandon ability absorb access acid acoustic adapt admit adult afford agent alarm album "
    "alley anchor angle animal ankle annual antenna apart armor arrow artist asthma atom "
    "auction autumn avocado awake axis bacon badge bamboo banana barrel basket beach"
).split()

SECRETS: list[tuple[str, str]] = [
    ("password_prose", "ssh root@203.0.113.10  (pw: «⟦pw⟧»)"),
    ("password_prose", "new hire onboarding: laptop login jmartin / «⟦pw⟧»"),
    ("password_prose", "My Netflix password is «⟦pw⟧» lol"),
    ("password_prose", "pwd: «⟦pw⟧»"),
    ("password_prose_es", "Contraseña provisional del correo: «⟦pw⟧» (cambiarla al entrar)"),
    ("password_prose_fr", "Le mot de passe de la box est «⟦pw⟧»"),
    ("password_prose_pt", "A senha do wifi é «⟦pw⟧»"),
    ("password_config", "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/app\n"
                        "    username: app\n    password: \"«⟦pw⟧»\""),
    ("password_config", "[client]\nuser=root\npassword=«⟦pw⟧»"),
    ("password_config", "ADMIN_PASS: '«⟦pw⟧»'"),
    ("password_cli", "docker run -e MYSQL_ROOT_PASSWORD=«⟦pw⟧» -d mysql:8"),
    ("password_cli", "helm install pg bitnami/postgresql --set auth.postgresPassword=«⟦pw⟧»"),
    ("password_cli", "sqlcmd -S tcp:db,1433 -U sa -P '«⟦pw⟧»'"),
    ("password_cli", "redis-cli -h cache.internal -a «⟦pw⟧» ping"),
    ("password_cli", "ldapsearch -x -D cn=admin,dc=acme,dc=io -w «⟦pw⟧» -b dc=acme,dc=io"),
    ("password_cli", "wget --user=deploy --password=«⟦pw⟧» https://artifacts.acme.io/app.tgz"),
    ("azure_client_secret", "az login --service-principal -u ⟦uuid⟧ -p «⟦b62:3⟧8Q~⟦b64u:31⟧» "
                            "--tenant ⟦uuid⟧"),
    ("gitlab_token", "git clone https://oauth2:«glpat-⟦b64u:20⟧»@gitlab.com/acme/app.git"),
    ("github_token", "export GITHUB_TOKEN=«ghp_⟦b62:36⟧»"),
    ("token_header", "X-Auth-Token: «⟦hex:32⟧»"),
    ("basic_auth_header", "Proxy-Authorization: Basic «⟦basic⟧»"),
    ("stripe_key", "Secret key  «sk_live_⟦b62:24⟧»  Reveal"),
    ("app_secret", "the signing secret for slack is «⟦hex:32⟧»"),
    ("app_secret", ".env.production\nNEXTAUTH_SECRET=«⟦b64:43⟧=»"),
    ("app_secret", "jwt_secret: «⟦b62:48⟧»"),
    ("app_secret", "app.config['SECRET_KEY'] = '«⟦b62:32⟧»'"),
    ("aws_keys", "AWS creds for the sandbox: «AKIA⟦up:16⟧» / «⟦b64:40⟧»"),
    ("aws_keys", "s3 = boto3.client('s3', aws_access_key_id='«AKIA⟦up:16⟧»', "
                 "aws_secret_access_key='«⟦b64:40⟧»')"),
    ("private_key", "«⟦pem:DSA PRIVATE KEY:8⟧»"),
    ("private_key", "«⟦pem:ENCRYPTED PRIVATE KEY:10⟧»"),
    ("putty_key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy\n"
                  "Public-Lines: 2\nAAAAC3NzaC1lZDI1NTE5AAAAI⟦b64:37⟧\n⟦b64:8⟧\n"
                  "Private-Lines: 1\n«⟦b64:44⟧»\nPrivate-MAC: ⟦hex:64⟧"),
    ("crypto_key", "ethereum wallet private key: «0x⟦hex:64⟧»"),
    ("seed_phrase", "seed phrase: «⟦words:12⟧»"),
    ("vault_unseal", "Vault unseal key 1: «⟦b64:44⟧»"),
    ("k8s_token", "kubectl config set-credentials ci --token=«⟦b64u:40⟧»"),
    ("npm_token", "npm config set //npm.acme.io/:_authToken «⟦uuid⟧»"),
    ("datadog_key", "datadog api key 👉 «⟦hex:32⟧»"),
    ("ngrok_token", "ngrok config add-authtoken «⟦b62:27⟧_⟦b62:21⟧»"),
    ("connection_string", "CLOUDINARY_URL=cloudinary://⟦dig:15⟧:«⟦b64u:27⟧»@acme"),
    ("teams_webhook", "alerts: https://acme.webhook.office.com/webhookb2/⟦uuid⟧@⟦uuid⟧/"
                      "IncomingWebhook/«⟦hex:32⟧»/⟦uuid⟧"),
    ("zoom_passcode", "Zoom: https://acme.zoom.us/j/⟦dig:11⟧?pwd=«⟦b62:32⟧»"),
]

ORDINARY: list[tuple[str, str]] = [
    ("checksum", "⟦hex:64⟧  ubuntu-24.04-live-server-amd64.iso"),
    ("commit_id", "Fixes #123 (see ⟦hex:40⟧)"),
    ("commit_id", "Renovate bumped actions/checkout to v4.1.7 (⟦hex:40⟧)"),
    ("commit_id", "      - uses: actions/checkout@⟦hex:40⟧ # v4.1.7"),
    ("checksum", "pip download requests==2.32.3 --hash sha256:⟦hex:64⟧"),
    ("image_tag", "image acme/api:sha-⟦hex:7⟧ deployed to staging"),
    ("object_id", '{"_id": "⟦hex:24⟧", "status": "paid"}'),
    ("uuid", "order ⟦uuid⟧ shipped"),
    ("code", "ssh-keyscan github.com >> ~/.ssh/known_hosts"),
    ("fingerprint", "gpg --recv-keys ⟦HEX:40⟧"),
    ("dns", "TXT  google-site-verification=⟦b64u:43⟧"),
    ("dns", "selector1._domainkey  TXT  \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8A"
            "MIIBCgKCAQEA⟦b64:330⟧IDAQAB\""),
    ("dns", "_acme-challenge.acme.io  TXT  ⟦b64u:43⟧"),
    ("ids", "Apple Team ID ⟦up:10⟧, bundle id io.acme.app, build 4821"),
    ("ids", "UPS tracking 1Z⟦up:16⟧"),
    ("ids", "invoice INV-2024-00481 paid by transfer"),
    ("url", "short link https://bit.ly/⟦b62:7⟧"),
    ("url", "see https://en.wikipedia.org/wiki/Base64"),
    ("url", "playlist https://www.youtube.com/playlist?list=PL⟦b64u:32⟧"),
    ("url", "https://open.spotify.com/track/⟦b62:22⟧"),
    ("ids", "Amazon ASIN B0⟦up:8⟧"),
    ("url", "SSO: https://acme.okta.com/home/acme_jira_1/⟦b62:20⟧/⟦b62:20⟧"),
    ("ids", "Azure tenant ⟦uuid⟧, subscription ⟦uuid⟧"),
    ("ids", "ISIN US0378331005, CUSIP 037833100"),
    ("secret_talk", "the Wi-Fi is called 'Casa-5G'; the password is on the router sticker"),
    ("secret_talk", "Remember to change the default password on the new switch"),
    ("secret_talk", "Cambiar la contraseña del router esta semana"),
    ("secret_talk", "La contraseña debe tener al menos 12 caracteres"),
    ("secret_talk", "password reset link expires in 15 minutes"),
    ("secret_talk", "Token rotation runbook: docs/runbooks/rotate-tokens.md"),
    ("secret_talk", "We use short-lived OIDC tokens from GitHub Actions, no long-lived keys."),
    ("secret_talk", "GITHUB_TOKEN permissions: contents: read, pull-requests: write"),
    ("secret_talk", "rotated the old GitLab token; the new one lives in 1Password"),
    ("secret_talk", "The API key field accepts 32 to 64 characters."),
    ("secret_talk", "gitleaks found 0 leaks in 412 commits"),
    ("secret_talk", "Le mot de passe doit être changé tous les 90 jours."),
    ("code", "ssh -i ~/.ssh/deploy_ed25519 deploy@bastion"),
    ("code", "openssl rand -base64 32   # generate a new key (don't paste it here)"),
    ("code", "vault write auth/approle/role/ci token_ttl=1h token_max_ttl=4h"),
    ("code", "kubectl create secret tls api-tls --cert=tls.crt --key=tls.key"),
    ("code", "aws sts get-caller-identity --profile sandbox"),
    ("code", "terraform plan -var-file=prod.tfvars -out=plan.bin"),
    ("code", "python -c 'import secrets; print(secrets.token_urlsafe(32))'"),
    ("code", "def rotate_key(old_key: bytes) -> bytes:"),
    ("code", "if user.check_password(form.password.data):"),
    ("code", "const { data: session } = useSession();"),
    ("code", "$hashed = password_hash($password, PASSWORD_DEFAULT);"),
    ("code", "SELECT * FROM api_keys WHERE revoked_at IS NULL;"),
    ("code", "wg genkey | tee privatekey | wg pubkey > publickey"),
    ("code", "age -r age1⟦bech:58⟧ secrets.tar > secrets.tar.age"),
    ("log", "[2024-06-01 10:00:00] auth: user jane logged in from 10.0.0.4"),
    ("log", "WARN token cache miss for tenant ⟦uuid⟧"),
    ("log", "HTTP 403 Forbidden: missing scope repo"),
    ("log", "ORA-01017: invalid username/password; logon denied"),
    ("log", "Access denied for user 'app'@'10.0.0.5' (using password: YES)"),
    ("log", "req=⟦hex:16⟧ user=jane action=logout"),
    ("log", 'ETag: W/"⟦hex:40⟧"'),
    ("log", "cf-ray: ⟦hex:16⟧-MAD"),
    ("log", "X-GitHub-Request-Id: ⟦HEX:4⟧:⟦HEX:5⟧:⟦HEX:6⟧:⟦HEX:7⟧:⟦HEX:8⟧"),
    ("version", "Build 2024.06.01.⟦dig:4⟧ (⟦hex:8⟧)"),
    ("version", "sentry-cli releases new ⟦hex:40⟧"),
    ("version", "Android versionCode 10042, versionName 1.4.2"),
    ("version", "node --version -> v22.2.0"),
    ("log", "usb 1-1: new high-speed USB device number 3 using xhci_hcd"),
    ("note", "A la reunión llevar el portátil y el cargador."),
    ("note", "El lunes migramos la base de datos a la versión 16."),
    ("fingerprint", "sec   ed25519 2024-01-01 [SC]\n      ⟦HEX:40⟧\nuid   Jane <jane@example.com>"),
    ("base64", "logo as base64: iVBORw0KGgoAAAANSUhEUgAA⟦b64:200⟧"),
    ("checksum", "favicon hash ⟦hex:32⟧"),
    ("lockfile", "integrity sha1-⟦b64:27⟧="),
    ("note", "bcrypt cost factor 12, argon2id m=64MB t=3"),
]


def _words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(_SEED_WORDS) for _ in range(n))


def third_cases(seed: int = 29) -> tuple[list[FreshCase], list[FreshCase]]:
    """The third split, drawn from ``seed``: (secrets, ordinary)."""
    rng = random.Random(f"third-{seed}")

    def fill(kind: str, template: str) -> FreshCase:
        while "⟦words:" in template:
            i = template.index("⟦words:")
            j = template.index("⟧", i)
            template = template[:i] + _words(rng, int(template[i + 7: j])) + template[j + 1:]
        return render(rng, kind, template)

    return [fill(k, t) for k, t in SECRETS], [fill(k, t) for k, t in ORDINARY]
