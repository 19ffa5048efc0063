"""A held-out secrets corpus, split ``"fresh"``: written before reading the detector's rules.

It exists to test whether the detector generalises beyond the corpus its rules were fitted
to (``bench.secrets_corpus``). It was written from general knowledge of credential formats
and of how people write notes, with no look at the detector's patterns, and is meant to be
left alone when the rules change: a fix that needs one of these texts to change is a fix
fitted to this set.

Every secret here is FAKE and cannot be valid. Nothing in this file is a credential: each
template names a *shape* (``⟦hex:32⟧``, ``⟦b62:36⟧``, ``⟦pw⟧`` ...) that a seeded random
generator fills at run time, so the file holds no key-like literal and every value drawn is
random noise (checksummed formats such as GitHub's fail their checksum; prefixes are real so
that the shapes are). The span a detector must mask is marked ``«...»`` in each secret
template; the markers are removed from the text handed to the detector.

``fresh_cases(seed)`` returns ``(secrets, ordinary)``: lists of :class:`FreshCase`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from dataclasses import dataclass

SPLIT = "fresh"

_HEX = "0123456789abcdef"
_B62 = string.ascii_letters + string.digits
_B64 = _B62 + "+/"
_B64U = _B62 + "-_"
_UP = string.ascii_uppercase + string.digits
_B32 = string.ascii_uppercase + "234567"
_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_DJANGO = string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)"
_PW_SYMBOLS = "!#$%*@^-_.+?"
_URL_PW_SYMBOLS = "-_.~!*"

_WORDS = (
    "lantern orbit velvet marble harbor cactus pepper falcon meadow copper ember glacier "
    "walnut thunder saffron violet compass maple tundra pebble rocket canyon jasmine "
    "otter cobalt willow sparrow quartz basil anchor"
).split()
_SPANISH_WORDS = "gato luna perro sol mar tortuga limon nube rayo tigre bosque".split()
_USERS = ["admin", "deploy", "jdoe", "svc_build", "app", "root", "marta", "ci-bot"]


@dataclass(frozen=True)
class FreshCase:
    """One text handed to the detector: ``spans`` are the secret values it must mask."""

    kind: str
    text: str
    spans: tuple[tuple[int, int], ...] = ()


# --------------------------------------------------------------------------- secrets

# (kind, template). Kinds group the same *format*; phrasings and file forms vary within.
SECRETS: list[tuple[str, str]] = [
    # cloud providers
    ("aws_access_key", "AWS_ACCESS_KEY_ID=«AKIA⟦up:16⟧»\nAWS_DEFAULT_REGION=eu-west-1"),
    ("aws_access_key", "deploy user key is «AKIA⟦up:16⟧» (created for the ci bot)"),
    ("aws_secret_key", "[default]\naws_access_key_id = «AKIA⟦up:16⟧»\n"
                       "aws_secret_access_key = «⟦b64:40⟧»\nregion = us-east-1"),
    ("aws_secret_key", "export AWS_SECRET_ACCESS_KEY='«⟦b64:40⟧»'"),
    ("aws_session_token", "AWS_SESSION_TOKEN=«FwoGZXIvYXdzE⟦b64:320⟧»"),
    ("aws_session_token", '{"Credentials": {"AccessKeyId": "«ASIA⟦up:16⟧»", '
                          '"SecretAccessKey": "«⟦b64:40⟧»", "SessionToken": '
                          '"«IQoJb3JpZ2luX2Vj⟦b64:240⟧»", "Expiration": "2025-06-01T12:00:00Z"}}'),
    ("azure_storage_key", "DefaultEndpointsProtocol=https;AccountName=acmestore01;"
                          "AccountKey=«⟦b64:86⟧==»;EndpointSuffix=core.windows.net"),
    ("azure_sas", "https://acmestore01.blob.core.windows.net/backups/db.bak?sv=2022-11-02"
                  "&ss=b&srt=o&sp=r&se=2025-01-01T00:00:00Z&st=2024-12-01T00:00:00Z"
                  "&spr=https&sig=«⟦b64u:43⟧%3D»"),
    ("azure_client_secret", "AZURE_CLIENT_ID=⟦uuid⟧\nAZURE_CLIENT_SECRET=«⟦b62:3⟧8Q~⟦b64u:31⟧»"),
    ("azure_service_bus", "Endpoint=sb://acme-bus.servicebus.windows.net/;SharedAccessKeyName="
                          "RootManageSharedAccessKey;SharedAccessKey=«⟦b64:43⟧=»"),
    ("gcp_service_account", '{\n  "type": "service_account",\n  "project_id": "acme-prod",\n'
                            '  "private_key_id": "⟦hex:40⟧",\n  "private_key": '
                            '"«⟦pemj:PRIVATE KEY⟧»\\n",\n  "client_email": '
                            '"ci@acme-prod.iam.gserviceaccount.com"\n}'),
    ("google_api_key", "GOOGLE_API_KEY=«AIza⟦b64u:35⟧»"),
    ("google_oauth_secret", '{"installed":{"client_id":"⟦dig:12⟧-⟦low:32⟧.apps.googleusercontent'
                            '.com","client_secret":"«GOCSPX-⟦b64u:28⟧»","redirect_uris":'
                            '["http://localhost"]}}'),
    ("google_refresh_token", "oauth:\n  client_id: ⟦dig:12⟧.apps.googleusercontent.com\n"
                             "  refresh_token: «1//0⟦b64u:100⟧»"),
    ("google_access_token", "Authorization: Bearer «ya29.⟦b64u:150⟧»"),
    ("digitalocean_token", "DIGITALOCEAN_ACCESS_TOKEN=«dop_v1_⟦hex:64⟧»"),
    ("digitalocean_token", "doctl auth init -t «dop_v1_⟦hex:64⟧»"),
    ("heroku_api_key", "HEROKU_API_KEY=«⟦uuid⟧»"),
    ("cloudflare_token", "CLOUDFLARE_API_TOKEN=«⟦b64u:40⟧»"),
    ("fly_token", "FLY_API_TOKEN=«fo1_⟦b64u:43⟧»"),
    ("supabase_token", "supabase access token «sbp_⟦hex:40⟧»"),
    ("databricks_token", "databricks configure --token  # host https://adb-1.azuredatabricks.net"
                         ", token «dapi⟦hex:32⟧»"),
    # source hosting and package registries
    ("github_token", "git remote set-url origin https://«ghp_⟦b62:36⟧»@github.com/acme/infra.git"),
    ("github_token", "GITHUB_TOKEN: «github_pat_⟦b62:22⟧_⟦b62:59⟧»"),
    ("github_token", "gh auth token printed «gho_⟦b62:36⟧», pasting here so I don't lose it"),
    ("github_token", "Actions installation token «ghs_⟦b62:36⟧» expires in 1h"),
    ("gitlab_token", 'curl --header "PRIVATE-TOKEN: «glpat-⟦b64u:20⟧»" '
                     "https://gitlab.example.com/api/v4/projects"),
    ("gitlab_token", "runner auth token «glrt-⟦b64u:20⟧» for the arm64 runner"),
    ("npm_token", "//registry.npmjs.org/:_authToken=«npm_⟦b62:36⟧»"),
    ("npm_token", "gh secret set NPM_TOKEN --body «npm_⟦b62:36⟧»"),
    ("pypi_token", "[pypi]\n  username = __token__\n  password = «pypi-AgEIcHlwaS5vcmc⟦b64u:150⟧»"),
    ("docker_token", "docker login -u acmebot -p «dckr_pat_⟦b64u:27⟧»"),
    ("docker_config_auth", '{\n  "auths": {\n    "https://index.docker.io/v1/": {\n'
                           '      "auth": "«⟦basic⟧»"\n    }\n  }\n}'),
    ("git_credentials", "~/.git-credentials has https://jdoe:«⟦b62:40⟧»@bitbucket.org"),
    # messaging, payments, SaaS
    ("slack_token", "SLACK_BOT_TOKEN=«xoxb-⟦dig:12⟧-⟦dig:13⟧-⟦b62:24⟧»"),
    ("slack_token", "user token for the export script: «xoxp-⟦dig:12⟧-⟦dig:12⟧-⟦dig:13⟧-⟦hex:32⟧»"),
    ("slack_webhook", 'webhook_url: "https://hooks.slack.com/services/T⟦up:8⟧/B⟦up:10⟧/«⟦b62:24⟧»"'),
    ("discord_token", "bot.run('«⟦discord⟧.⟦b64u:6⟧.⟦b64u:38⟧»')"),
    ("discord_webhook", "alerts go to https://discord.com/api/webhooks/⟦dig:19⟧/«⟦b64u:68⟧»"),
    ("telegram_token", "TELEGRAM_BOT_TOKEN=«⟦dig:10⟧:AA⟦b64u:33⟧»"),
    ("telegram_token", "BotFather gave me «⟦dig:10⟧:AA⟦b64u:33⟧» for @acme_alerts_bot"),
    ("stripe_key", "STRIPE_SECRET_KEY=«sk_live_⟦b62:99⟧»"),
    ("stripe_key", 'stripe.api_key = "«rk_live_⟦b62:24⟧»"'),
    ("stripe_webhook", "endpoint secret for the checkout webhook: «whsec_⟦b62:32⟧»"),
    ("square_token", "square prod access token: «EAAA⟦b64u:60⟧»"),
    ("braintree_token", 'BRAINTREE_ACCESS_TOKEN="«access_token$production$⟦low:16⟧$⟦hex:32⟧»"'),
    ("twilio", "TWILIO_ACCOUNT_SID=AC⟦hex:32⟧\nTWILIO_AUTH_TOKEN=«⟦hex:32⟧»"),
    ("twilio", "twilio api key «SK⟦hex:32⟧» secret «⟦b62:32⟧»"),
    ("sendgrid_key", "SENDGRID_API_KEY=«SG.⟦b64u:22⟧.⟦b64u:43⟧»"),
    ("mailgun_key", "mailgun: api key «key-⟦hex:32⟧» for mg.acme.io"),
    ("mailgun_key", "Mailgun private API key is «⟦hex:32⟧-⟦hex:8⟧-⟦hex:8⟧»"),
    ("mailchimp_key", "MAILCHIMP_API_KEY=«⟦hex:32⟧-us21»"),
    ("shopify_token", "X-Shopify-Access-Token: «shpat_⟦hex:32⟧»"),
    ("shopify_token", "shopify app secret «shpss_⟦hex:32⟧»"),
    ("firebase_server_key", "FCM server key «AAAA⟦b64u:7⟧:APA91b⟦b64u:134⟧»"),
    ("mapbox_secret", "MAPBOX_SECRET_TOKEN=«sk.eyJ1Ijoi⟦b64u:50⟧.⟦b64u:22⟧»"),
    # AI, observability and developer tools
    ("openai_key", "OPENAI_API_KEY=«sk-proj-⟦b64u:156⟧»"),
    ("openai_key", 'client = OpenAI(api_key="«sk-⟦b62:20⟧T3BlbkFJ⟦b62:20⟧»")'),
    ("anthropic_key", "ANTHROPIC_API_KEY=«sk-ant-api03-⟦b64u:93⟧AA»"),
    ("huggingface_token", "HF_TOKEN=«hf_⟦alpha:34⟧»"),
    ("replicate_token", "REPLICATE_API_TOKEN=«r8_⟦b62:37⟧»"),
    ("groq_key", 'groq_api_key: "«gsk_⟦b62:52⟧»"'),
    ("datadog_key", "DD_API_KEY=«⟦hex:32⟧»\nDD_SITE=datadoghq.eu"),
    ("datadog_key", "datadog:\n  apiKey: «⟦hex:32⟧»\n  appKey: «⟦hex:40⟧»"),
    ("newrelic_key", "New Relic user key for the dashboards script: «NRAK-⟦up:27⟧»"),
    ("sentry_token", "SENTRY_AUTH_TOKEN=«sntryu_⟦hex:64⟧»"),
    ("grafana_token", "GRAFANA_SA_TOKEN=«glsa_⟦b62:32⟧_⟦hex:8⟧»"),
    ("vault_token", "export VAULT_TOKEN=«hvs.⟦b64u:90⟧»"),
    ("vault_token", "vault login «hvs.⟦b62:24⟧»"),
    ("terraform_token", 'credentials "app.terraform.io" {\n  token = "«⟦b62:14⟧.atlasv1.⟦b64u:67⟧»"\n}'),
    ("doppler_token", "DOPPLER_TOKEN=«dp.st.prd.⟦b62:43⟧»"),
    ("atlassian_token", "JIRA_API_TOKEN=«ATATT3xFfGF0⟦b64u:180⟧=⟦up:8⟧»"),
    ("linear_key", "LINEAR_API_KEY=«lin_api_⟦b62:40⟧»"),
    ("notion_token", "notion integration secret «ntn_⟦dig:11⟧⟦b62:35⟧»"),
    ("airtable_token", "airtable PAT «pat⟦b62:14⟧.⟦hex:64⟧»"),
    ("figma_token", "figma token: «figd_⟦b64u:40⟧»"),
    ("postman_key", 'curl -H "x-api-key: «PMAK-⟦hex:24⟧-⟦hex:34⟧»" https://api.getpostman.com/me'),
    ("okta_token", "okta api token «00⟦b64u:40⟧»"),
    # tokens and keys of no single vendor
    ("jwt", "Authorization: Bearer «⟦jwt⟧»"),
    ("jwt", "here's the id_token from the login response «⟦jwt⟧» (decode later)"),
    ("jwt", "users:\n- name: ci\n  user:\n    token: «⟦jwt⟧»"),
    ("private_key", "«⟦pem:RSA PRIVATE KEY:12⟧»"),
    ("private_key", "«⟦pem:OPENSSH PRIVATE KEY:7⟧»"),
    ("private_key", "saved the ec key:\n«⟦pem:EC PRIVATE KEY:3⟧»"),
    ("private_key", "«⟦pgpsec⟧»"),
    ("private_key", "tls:\n  crt: /etc/tls/tls.crt\n  key: |\n    «⟦pemi:PRIVATE KEY:8⟧»"),
    ("kubeconfig_key", "    client-key-data: «LS0tLS1CRUdJTiBSU0EgUFJJVkFURSBLRVktLS0tLQo⟦b64:400⟧»"),
    ("k8s_secret_data", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\n"
                        "data:\n  username: YWRtaW4=\n  password: «⟦b64pw⟧»"),
    ("age_key", "# created: 2024-03-01T10:00:00Z\n# public key: age1⟦bech:58⟧\n"
                "«AGE-SECRET-KEY-1⟦B32:58⟧»"),
    ("wireguard_key", "[Interface]\nPrivateKey = «⟦b64:43⟧=»\nAddress = 10.8.0.2/24"),
    ("totp_seed", "otpauth://totp/ACME:jdoe@acme.io?secret=«⟦B32:32⟧»&issuer=ACME"),
    ("totp_seed", "2FA seed for the shared admin account: «⟦B32:16⟧»"),
    ("app_secret", "DJANGO_SECRET_KEY='«django-insecure-⟦django:50⟧»'"),
    ("app_secret", "production:\n  secret_key_base: «⟦hex:128⟧»"),
    ("app_secret", "APP_KEY=«base64:⟦b64:43⟧=»"),
    ("app_secret", "encryption_key: «⟦b64:43⟧=»"),
    ("app_secret", "webhook signing secret -> «⟦hex:32⟧»"),
    ("generic_secret_assign", "client_secret: «⟦b62:40⟧»"),
    ("generic_secret_assign", "const apiSecret = '«⟦b62:32⟧»';"),
    ("generic_secret_assign", 'private static final String CLIENT_SECRET = "«⟦b62:40⟧»";'),
    ("generic_secret_assign", "./deploy.sh --api-token «⟦b62:40⟧» --env prod"),
    # connection strings and URLs with credentials
    ("connection_string", "DATABASE_URL=postgres://app_user:«⟦urlpw⟧»@db.internal:5432/app_prod"),
    ("connection_string", 'MONGO_URI="mongodb+srv://admin:«⟦urlpw⟧»@cluster0.⟦low:5⟧.mongodb.net'
                          '/?retryWrites=true&w=majority"'),
    ("connection_string", "cache at redis://:«⟦urlpw⟧»@cache.internal:6379/0"),
    ("connection_string", "BROKER_URL=amqp://rabbit:«⟦urlpw⟧»@mq.internal:5672/%2f"),
    ("connection_string", "Server=tcp:sql-prod.database.windows.net,1433;Initial Catalog=orders;"
                          "User ID=sqladmin;Password=«⟦pw⟧»;Encrypt=True;"),
    ("connection_string", "jdbc:mysql://db.acme.local:3306/shop?user=shop&password=«⟦urlpw⟧»"
                          "&useSSL=true"),
    ("connection_string", 'SQLALCHEMY_DATABASE_URI = "mysql+pymysql://root:«⟦urlpw⟧»@127.0.0.1/dev"'),
    ("url_credentials", "nightly dumps go to ftp://backup:«⟦urlpw⟧»@files.acme.net/nightly/"),
    ("url_credentials", "pip install --index-url https://ci:«⟦urlpw⟧»@pypi.acme.internal/simple/ "
                        "acme-core"),
    ("url_credentials", "SMTP_URL=smtps://noreply%40acme.io:«⟦urlpw⟧»@smtp.gmail.com:465"),
    # HTTP headers
    ("basic_auth_header", "Authorization: Basic «⟦basic⟧»"),
    ("api_key_header", 'curl -H "X-API-Key: «⟦b62:32⟧»" https://api.acme.io/v2/orders'),
    ("cookie_session", "Cookie: sessionid=«⟦low:32⟧»; theme=dark"),
    ("token_header", 'requests.get(url, headers={"Authorization": "Token «⟦hex:40⟧»"})'),
    # shell commands and flags
    ("curl_user", "curl -u admin:«⟦pw⟧» https://jenkins.acme.io/api/json"),
    ("mysql_cli_password", "mysql -h db1 -u root -p«⟦pw⟧» shop < dump.sql"),
    ("pg_password_env", "PGPASSWORD='«⟦pw⟧»' psql -h db.internal -U postgres"),
    ("sshpass", "sshpass -p '«⟦pw⟧»' ssh deploy@10.0.3.17"),
    ("kubectl_literal", "kubectl create secret generic db-creds --from-literal=username=app "
                        "--from-literal=password=«⟦pw⟧»"),
    ("netrc", "machine api.github.com\n  login octocat\n  password «⟦b62:40⟧»"),
    ("pgpass", "db.internal:5432:*:replicator:«⟦pw⟧»"),
    # passwords in config files
    ("password_config", "database:\n  host: db.internal\n  user: app\n  password: «⟦pw⟧»"),
    ("password_config", '{"smtp": {"host": "smtp.acme.io", "user": "noreply", "pass": "«⟦pw⟧»"}}'),
    ("password_config", '<connectionStrings>\n  <add name="Main" connectionString="Data Source=db;'
                        'User Id=app;Password=«⟦pw⟧»;" />\n</connectionStrings>'),
    ("password_config", "<credentials>\n  <username>svc_build</username>\n"
                        "  <password>«⟦pw⟧»</password>\n</credentials>"),
    ("password_config", "[mysql]\nuser = backup\npassword = «⟦pw⟧»"),
    ("password_config", '[server]\nadmin_password = "«⟦pw⟧»"'),
    ("password_config", "spring.datasource.password=«⟦pw⟧»"),
    ("password_config", "DB_PASS=«⟦pw⟧»"),
    ("password_config", "    environment:\n      - POSTGRES_PASSWORD=«⟦pw⟧»"),
    ("password_config", "$db_password = '«⟦pw⟧»';"),
    ("password_config", 'SMTP_PASSWORD = "«⟦pw⟧»"'),
    ("password_config", 'var password = "«⟦pw⟧»";'),
    ("password_config", "wpa_passphrase=«⟦pw⟧»"),
    # passwords in prose, English
    ("password_prose", "wifi password at the cabin is «⟦pw⟧»"),
    ("password_prose", "Login for the router: admin / «⟦pw⟧»"),
    ("password_prose", "I changed the root password on nas01 to «⟦pw⟧» yesterday"),
    ("password_prose", "pw for the test account is «⟦pw⟧» (don't share)"),
    ("password_prose", "Use «⟦pass⟧» as the passphrase for the backup drive"),
    ("password_prose", "credentials: jenny@acme.io:«⟦pw⟧»"),
    ("password_prose", "Username: jdoe\nPassword: «⟦pw⟧»"),
    ("password_prose", "gmail app password for the alerts mailer: «⟦app⟧»"),
    ("password_prose", "the passphrase for id_ed25519 is «⟦pass⟧»"),
    ("password_prose", "PIN for the office alarm: «⟦dig:6⟧»"),
    # passwords in prose, Spanish
    ("password_prose_es", "la contraseña del wifi es «⟦pw⟧»"),
    ("password_prose_es", "Clave del router: «⟦pw⟧»"),
    ("password_prose_es", "usuario: admin, contraseña: «⟦pw⟧»"),
    ("password_prose_es", "le cambié la clave a «⟦pw⟧» al servidor de pruebas"),
    ("password_prose_es", "el password de la base de datos de staging es «⟦pw⟧»"),
    ("password_prose_es", "contraseña nueva para el portal del banco → «⟦pw⟧»"),
    ("password_prose_es", "La clave de acceso a la VPN quedó en «⟦pw⟧»"),
]

# --------------------------------------------------------------------------- ordinary

ORDINARY: list[tuple[str, str]] = [
    # commit ids, checksums, digests
    ("commit_id", "Fixed in ⟦hex:40⟧, cherry-picked to release/2.3"),
    ("commit_id", "⟦hex:7⟧ Fix flaky upload test\n⟦hex:7⟧ Bump ruff to 0.4.2\n⟦hex:7⟧ Merge branch 'main'"),
    ("commit_id", "commit ⟦hex:40⟧\nAuthor: Jane Doe <jane@example.com>\n"
                  "Date:   Mon Mar 4 10:12:33 2024 +0100\n\n    Retry uploads on 503"),
    ("commit_id", "Merge pull request #4821 from acme/feature/retry-uploads (⟦hex:7⟧)"),
    ("commit_id", "bisect says the regression starts at ⟦hex:12⟧"),
    ("commit_id", "git rev-parse HEAD -> ⟦hex:40⟧"),
    ("commit_id", "https://github.com/acme/api/commit/⟦hex:40⟧"),
    ("commit_id", "see https://github.com/acme/api/blob/⟦hex:40⟧/src/retry.py#L42-L57"),
    ("commit_id", "go get github.com/acme/lib@v0.0.0-20240301120000-⟦hex:12⟧"),
    ("checksum", "⟦hex:64⟧  node-v20.11.1-linux-x64.tar.xz"),
    ("checksum", "md5: ⟦hex:32⟧  backup-2024-05-01.tar.gz"),
    ("checksum", "SHA1 (installer.dmg) = ⟦hex:40⟧"),
    ("checksum", "checksum mismatch: expected ⟦hex:64⟧, got ⟦hex:64⟧"),
    ("checksum", "ETag: \"⟦hex:32⟧\"\nLast-Modified: Wed, 01 May 2024 10:00:00 GMT"),
    ("checksum", "version https://git-lfs.github.com/spec/v1\noid sha256:⟦hex:64⟧\nsize 1482213"),
    ("checksum", "BuildID[sha1]=⟦hex:40⟧, for GNU/Linux 3.2.0, stripped"),
    ("checksum", "the torrent's info hash is ⟦hex:40⟧"),
    ("image_digest", "image: ghcr.io/acme/api@sha256:⟦hex:64⟧"),
    ("image_digest", "Digest: sha256:⟦hex:64⟧\nStatus: Downloaded newer image for postgres:16"),
    ("image_digest", "container ⟦hex:12⟧ exited with code 137 (OOMKilled)"),
    ("image_digest", "⟦hex:12⟧   redis:7   \"docker-entrypoint.s…\"   3 hours ago   Up 3 hours"),
    ("image_digest", "Successfully built ⟦hex:12⟧\nSuccessfully tagged acme/api:1.4.2"),
    ("lockfile", '[[package]]\nname = "serde"\nversion = "1.0.197"\nsource = "registry+https://'
                 'github.com/rust-lang/crates.io-index"\nchecksum = "⟦hex:64⟧"'),
    ("lockfile", "requests==2.31.0 \\\n    --hash=sha256:⟦hex:64⟧ \\\n    --hash=sha256:⟦hex:64⟧"),
    ("lockfile", "github.com/stretchr/testify v1.9.0 h1:⟦b64:43⟧=\n"
                 "github.com/stretchr/testify v1.9.0/go.mod h1:⟦b64:43⟧="),
    ("lockfile", '"node_modules/lodash": {\n  "version": "4.17.21",\n  "resolved": "https://'
                 'registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",\n  "integrity": "sha512-⟦b64:86⟧=="\n}'),
    ("lockfile", 'lodash@^4.17.21:\n  version "4.17.21"\n  resolved "https://registry.yarnpkg.com/'
                 'lodash/-/lodash-4.17.21.tgz#⟦hex:40⟧"'),
    ("lockfile", 'src = fetchFromGitHub {\n  owner = "acme";\n  repo = "tool";\n  rev = "v1.2.0";\n'
                 '  hash = "sha256-⟦b64:43⟧=";\n};'),
    ("lockfile", "poetry.lock: content-hash = \"⟦hex:64⟧\""),
    ("sri_hash", '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle'
                 '.min.js" integrity="sha384-⟦b64:64⟧" crossorigin="anonymous"></script>'),
    ("sri_hash", '<link rel="stylesheet" href="/static/app.css" integrity="sha256-⟦b64:43⟧=">'),
    # identifiers
    ("uuid", "request_id=⟦uuid⟧ status=500 path=/api/orders"),
    ("uuid", "  uid: ⟦uuid⟧\n  resourceVersion: \"48213\""),
    ("uuid", 'lineage = "⟦uuid⟧"\nserial = 112'),
    ("uuid", "Customer ticket ⟦uuid⟧ closed by support"),
    ("uuid", '{"correlationId":"⟦uuid⟧","level":"warn","msg":"slow query"}'),
    ("uuid", "/subscriptions/⟦uuid⟧/resourceGroups/rg-prod/providers/Microsoft.Web/sites/acme-api"),
    ("uuid", "KMS key ⟦uuid⟧ (alias/prod-db) scheduled for rotation"),
    ("uuid", "the Heroku app id for acme-staging is ⟦uuid⟧"),
    ("trace_id", "trace_id=⟦hex:32⟧ span_id=⟦hex:16⟧ service=checkout"),
    ("trace_id", "traceparent: 00-⟦hex:32⟧-⟦hex:16⟧-01"),
    ("trace_id", "x-amz-request-id: ⟦up:16⟧\nx-amz-id-2: ⟦b64:76⟧"),
    ("trace_id", "ULID for the event: 01HW⟦up:22⟧"),
    ("trace_id", "short link id ⟦b64u:21⟧ created for the campaign"),
    ("node_id", '"node_id": "MDQ6VXNlcj⟦b64:12⟧"'),
    ("node_id", "GraphQL: mutation on PR_kwDO⟦b64u:16⟧ failed, retry"),
    ("node_id", "project item PVTI_lADO⟦b64u:20⟧ moved to Done"),
    ("node_id", "Notion page https://www.notion.so/acme/Roadmap-⟦hex:32⟧"),
    ("node_id", "Slack thread https://acme.slack.com/archives/C⟦up:10⟧/p⟦dig:16⟧"),
    ("node_id", "https://discord.com/channels/⟦dig:18⟧/⟦dig:19⟧/⟦dig:19⟧"),
    ("node_id", "https://acme.sentry.io/issues/⟦dig:10⟧/?project=⟦dig:7⟧"),
    ("node_id", "pod api-7c9d8b6f5-⟦low:5⟧ restarted 4 times"),
    ("node_id", "Google Analytics id G-⟦up:10⟧, old property UA-⟦dig:8⟧-1"),
    ("node_id", '<div class="g-recaptcha" data-sitekey="6L⟦b64u:38⟧"></div>'),
    ("cloud_id", "arn:aws:iam::⟦dig:12⟧:role/ci-deploy"),
    ("cloud_id", "launched ami-0⟦hex:16⟧ as i-0⟦hex:16⟧ in subnet-0⟦hex:17⟧"),
    ("cloud_id", "security group sg-0⟦hex:17⟧ allows 443 from vpc-⟦hex:8⟧"),
    ("cloud_id", "CloudFront distribution E⟦up:13⟧ invalidated /*"),
    ("cloud_id", "Route 53 hosted zone Z⟦up:20⟧ for acme.io"),
    ("cloud_id", "GCP project number ⟦dig:12⟧, project id acme-prod-4821"),
    ("cloud_id", "s3://acme-artifacts/builds/⟦hex:40⟧/app.tar.gz"),
    ("stripe_ids", "refunded ch_⟦b62:24⟧ for cus_⟦b62:14⟧"),
    ("stripe_ids", "webhook evt_⟦b62:24⟧ delivered to /stripe/hooks (price_⟦b62:24⟧)"),
    ("public_key", 'const stripe = Stripe("pk_live_⟦b62:99⟧");'),
    ("public_key", "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_⟦b62:99⟧"),
    ("public_key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI⟦b64:43⟧ jane@laptop"),
    ("public_key", "ssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ⟦b64:500⟧ deploy@ci"),
    ("public_key", "github.com ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI⟦b64:43⟧"),
    ("public_key", "ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
                   "⟦b64:87⟧= root@bastion"),
    ("public_key", 'command="/usr/bin/backup",no-pty ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI'
                   "⟦b64:43⟧ backup@nas"),
    ("public_key", "⟦pem:PUBLIC KEY:6⟧"),
    ("public_key", "⟦pgppub⟧"),
    ("public_key", "⟦pem:CERTIFICATE:18⟧"),
    ("public_key", "ca.crt:\n⟦pem:CERTIFICATE:10⟧"),
    ("public_key", "⟦pem:CERTIFICATE REQUEST:14⟧"),
    ("public_key", "[Peer]\nPublicKey = ⟦b64:43⟧=\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.acme.io:51820"),
    ("public_key", "age recipient for the backups: age1⟦bech:58⟧"),
    ("public_key", "minisign public key: RWQ⟦b64:53⟧"),
    ("public_key", '{"keys":[{"kty":"RSA","kid":"⟦b64u:43⟧","use":"sig","alg":"RS256",'
                   '"n":"⟦b64u:342⟧","e":"AQAB"}]}'),
    ("public_key", "my nostr: npub1⟦bech:58⟧"),
    ("public_key", "-----BEGIN SSH SIGNATURE-----\n⟦b64wrap:280⟧\n-----END SSH SIGNATURE-----"),
    ("public_key", "tag v2.1.0\nTagger: Jane Doe <jane@example.com>\n\nRelease 2.1.0\n"
                   "-----BEGIN PGP SIGNATURE-----\n\n⟦b64wrap:300⟧\n=⟦b64:4⟧\n"
                   "-----END PGP SIGNATURE-----"),
    ("fingerprint", "Key fingerprint = ⟦gpgfp⟧"),
    ("fingerprint", "ED25519 key fingerprint is SHA256:⟦b64:43⟧."),
    ("fingerprint", "sshd[2211]: Accepted publickey for deploy from 10.0.0.9 port 51122 ssh2: "
                    "ED25519 SHA256:⟦b64:43⟧"),
    ("crypto_address", "send the refund to 0x⟦hex:40⟧ (tx 0x⟦hex:64⟧)"),
    ("crypto_address", "donations: bc1q⟦bech:38⟧"),
    ("crypto_address", "mirror at http://⟦b32l:56⟧.onion/"),
    ("content_id", "pinned ipfs://bafybei⟦b32l:52⟧"),
    ("content_id", "old CID Qm⟦b58:44⟧ still resolves on the gateway"),
    # links to documents and media
    ("doc_url", "spec: https://docs.google.com/document/d/⟦b64u:44⟧/edit?usp=sharing"),
    ("doc_url", "https://docs.google.com/spreadsheets/d/⟦b64u:44⟧/edit#gid=⟦dig:9⟧"),
    ("doc_url", "shared folder https://drive.google.com/drive/folders/⟦b64u:33⟧"),
    ("doc_url", "talk: https://www.youtube.com/watch?v=⟦b64u:11⟧&t=42s"),
    ("doc_url", "designs in https://www.figma.com/file/⟦b62:22⟧/Onboarding-v3?node-id=12%3A345"),
    ("doc_url", "slides https://www.dropbox.com/s/⟦low:15⟧/q3-review.pdf?dl=0"),
    ("doc_url", "https://photos.app.goo.gl/⟦b62:17⟧"),
    # base64 payloads that are not secret
    ("base64_image", '<img src="data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA⟦b64:300⟧==">'),
    ("base64_image", "Content-Type: image/jpeg\nContent-Transfer-Encoding: base64\n\n/9j/4AAQSkZJRgABAQ"
                     "⟦b64wrap:600⟧"),
    ("base64_image", ".icon { background: url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0i⟦b64:160⟧); }"),
    ("base64_image", '@font-face { src: url("data:font/woff2;base64,d09GMgABAAAAA⟦b64:400⟧") '
                     'format("woff2"); }'),
    ("base64_text", "echo -n 'hello world' | base64   # aGVsbG8gd29ybGQ="),
    ("base64_text", "the test fixture is SGVsbG8sIFdvcmxkIQ== (Hello, World!)"),
    # versions, builds, agents
    ("version", "upgraded python to 3.12.2 and pip to 24.0"),
    ("version", "tagged v2.0.0-rc.3+build.1842"),
    ("version", "node v20.11.1, npm 10.2.4, pnpm 8.15.6"),
    ("version", "go version go1.22.1 linux/amd64"),
    ("version", "OpenSSL 3.0.13 30 Jan 2024 (Library: OpenSSL 3.0.13 30 Jan 2024)"),
    ("version", "User-Agent: Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 "
                "(KHTML, like Gecko) Chrome/124.0.0.0 Safari/537.36"),
    ("version", "Linux web-01 6.5.0-28-generic #29~22.04.1-Ubuntu SMP x86_64 GNU/Linux"),
    ("version", "Windows 11 Pro 23H2 build 22631.3447"),
    ("version", "release 2024.05.1 shipped; next is 2024.06.0"),
    ("version", "main.⟦hex:8⟧.js   212 KiB  [emitted] [immutable] (name: main)"),
    ("version", 'nginx: 10.0.0.5 - - [01/May/2024:12:00:01 +0000] "GET /assets/app.⟦hex:8⟧.css '
                'HTTP/1.1" 200 5123 "-" "curl/8.5.0"'),
    # references to secrets that are not secrets
    ("secret_reference", "token: ${{ secrets.GITHUB_TOKEN }}"),
    ("secret_reference", "        with:\n          username: acmebot\n"
                         "          password: ${{ secrets.DOCKERHUB_TOKEN }}"),
    ("secret_reference", "DB_PASSWORD=${DB_PASSWORD}"),
    ("secret_reference", "password: \"{{ lookup('env', 'DB_PASS') }}\""),
    ("secret_reference", 'api_key = os.environ["OPENAI_API_KEY"]'),
    ("secret_reference", "const token = process.env.GITHUB_TOKEN;"),
    ("secret_reference", "password = getpass.getpass('Password: ')"),
    ("secret_reference", 'password: "<your-password-here>"'),
    ("secret_reference", "AWS_SECRET_ACCESS_KEY=<redacted>"),
    ("secret_reference", "token: ********"),
    ("secret_reference", "API_KEY=xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"),
    ("secret_reference", 'SECRET_KEY = env("DJANGO_SECRET_KEY")'),
    ("secret_reference", "password_file: /run/secrets/db_password"),
    ("secret_reference", "ssl:\n  keyFile: /etc/ssl/private/server.key\n  certFile: /etc/ssl/certs/server.crt"),
    ("secret_reference", 'auth_token_path = "~/.config/acme/token"'),
    ("secret_reference", "token_url: https://oauth2.googleapis.com/token"),
    ("secret_reference", '{"username": "admin", "password": null}'),
    ("secret_reference", 'password: ""'),
    ("secret_reference", "echo \"$CR_PAT\" | docker login ghcr.io -u acme --password-stdin"),
    ("secret_reference", "curl -u \"$JENKINS_USER:$JENKINS_TOKEN\" https://jenkins.acme.io/api/json"),
    ("secret_reference", "mysql -u root -p shop   # prompts for the password"),
    ("secret_reference", "psql -h db.internal -U postgres -W"),
    ("secret_reference", "existingSecret: postgres-credentials\nsecretKeys:\n"
                         "  adminPasswordKey: postgres-password\n  userPasswordKey: password"),
    ("secret_reference", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n"
                         "        name: db-creds\n        key: password"),
    ("secret_reference", "vault kv get -field=password secret/payments/db"),
    ("secret_reference", "aws secretsmanager get-secret-value --secret-id prod/api/keys"),
    ("secret_reference", "Authorization: Bearer <token>"),
    ("secret_reference", "Basic auth header format: `Authorization: Basic base64(user:pass)`"),
    ("secret_reference", "export GITHUB_TOKEN=$(gh auth token)"),
    ("secret_reference", "public_key: ~/.ssh/id_ed25519.pub\nssh_key_name: deploy-2024"),
    ("secret_reference", "token_type: bearer\ngrant_type: client_credentials\nexpires_in: 3600"),
    ("secret_reference", "primary_key: id\nforeign_key: user_id\nsort_key: created_at"),
    ("secret_reference", "password_min_length = 12\ntoken_ttl_seconds = 3600\nsecret_rotation_days = 90"),
    ("secret_reference", "secret: false\npublic: true"),
    ("secret_reference", "PasswordAuthentication no\nPubkeyAuthentication yes\nPermitRootLogin no"),
    ("secret_reference", "password: see vault"),
    ("secret_reference", "API key: ask Sam"),
    ("secret_reference", "contraseña: la de siempre"),
    ("secret_reference", "i18n: auth.login.password.placeholder = \"Enter your password\""),
    # notes that talk about secrets
    ("secret_talk", "Rotate the Stripe secret key before the audit on Friday."),
    ("secret_talk", "The DB password lives in 1Password under 'Prod Postgres'; ask Marta for access."),
    ("secret_talk", "Never commit .env files; use the secrets manager instead."),
    ("secret_talk", "Password must be at least 12 characters with one digit."),
    ("secret_talk", "Got 401 Unauthorized: the token expired, re-run `gh auth login`."),
    ("secret_talk", "Reset my password for the HR portal; the reset email took 10 minutes."),
    ("secret_talk", "We moved API keys from config.yaml to AWS Secrets Manager (secret name "
                    "prod/api/keys)."),
    ("secret_talk", "TODO: refresh the access token when it is older than 55 minutes."),
    ("secret_talk", "The JWT is signed with RS256; public keys are served at /.well-known/jwks.json."),
    ("secret_talk", "GitHub push protection blocked the commit because a test fixture looked like a key."),
    ("secret_talk", "the wifi password is on the whiteboard in the kitchen"),
    ("secret_talk", "use your SSO password, not the local one"),
    ("secret_talk", "The password is the same as last year's one; ask ops if you forgot it."),
    ("secret_talk", "Pass the token in a header, never in the query string."),
    ("secret_talk", "passwordless login via magic links is live for 20% of users"),
    ("secret_talk", "The password field now has a show/hide toggle."),
    ("secret_talk", "SSH keys only: password authentication is disabled on all bastions."),
    ("secret_talk", "Leaked key incident: revoked within 4 minutes, no access found in CloudTrail."),
    ("secret_talk", "Tokens are hashed with SHA-256 before they are stored; we never keep the raw value."),
    ("secret_talk", "set the secret in Vault at secret/data/payments/stripe and restart the pod"),
    ("secret_talk", "key takeaway: smaller batches, fewer retries"),
    ("secret_talk", "the key insight is that the cache was cold after every deploy"),
    ("secret_talk", "Token budget is 900 tokens per answer; the tokenizer counts words, not bytes."),
    ("secret_talk", "the pass rate of the nightly suite went from 91% to 98%"),
    ("secret_talk", "Hay que rotar las claves de AWS cada 90 días."),
    ("secret_talk", "La contraseña está en el gestor de contraseñas del equipo."),
    ("secret_talk", "Olvidé la contraseña del portal otra vez; la restablecí por correo."),
    ("secret_talk", "La clave del éxito es la constancia."),
    ("secret_talk", "Punto clave: el índice se reconstruye desde los archivos."),
    ("secret_talk", "palabras clave: memoria, búsqueda, árbol"),
    ("secret_talk", "No guardes contraseñas en las notas; usa el llavero del sistema."),
    ("secret_talk", "El token caduca a los 60 minutos y hay que pedir otro."),
    # code
    ("code", "def verify_password(plain: str, hashed: str) -> bool:\n"
             "    return bcrypt.checkpw(plain.encode(), hashed.encode())"),
    ("code", "if not token:\n    raise AuthError('missing token')"),
    ("code", "CREATE TABLE users (id SERIAL PRIMARY KEY, email TEXT UNIQUE, password_hash TEXT NOT NULL);"),
    ("code", "const [password, setPassword] = useState('');"),
    ("code", '<input type="password" name="password" autocomplete="current-password">'),
    ("code", "token = request.headers.get('Authorization', '').removeprefix('Bearer ')"),
    ("code", "SECRET_RE = re.compile(r'(?i)api[_-]?key\\s*[:=]\\s*\\S+')"),
    ("code", "expect(res.body.token).toBeDefined();"),
    ("code", "pub fn hash_password(pw: &str) -> Result<String, argon2::Error> {"),
    ("code", "func (c *Client) SetToken(token string) { c.token = token }"),
    ("code", 'password := os.Getenv("DB_PASSWORD")'),
    ("code", "for key, value in settings.items():\n    print(f'{key} = {value}')"),
    ("code", "self.api_key = api_key or os.getenv('ACME_API_KEY')"),
    ("code", "@app.post('/login')\ndef login(username: str, password: str) -> Token:"),
    ("code", "if not hmac.compare_digest(signature, expected):\n    return 403"),
    ("code", "const hash = crypto.createHash('sha256').update(buf).digest('hex');"),
    ("code", "private readonly ITokenService _tokenService;"),
    ("code", "key = cache_key(user_id, 'profile')"),
    ("code", "$table->string('password');\n$table->rememberToken();"),
    ("code", "SELECT id, email FROM users WHERE api_key_id = $1;"),
    ("code", 'export PATH="$HOME/.local/bin:$PATH"'),
    ("code", "export NODE_OPTIONS=--max-old-space-size=4096"),
    ("code", "ENV PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1"),
    ("code", ".btn-primary { color: #⟦hex:6⟧; background: #0d6efd; border-radius: 4px; }"),
    ("code", "public class AbstractSingletonProxyFactoryBean extends ProxyConfig {"),
    ("code", "UUID_RE = re.compile(r'^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$')"),
    ("code", "assert sha256(b'abc').hexdigest().startswith('ba7816bf')"),
    ("code", "!function(e,t){\"object\"==typeof exports&&\"undefined\"!=typeof module?"
             "module.exports=t():\"function\"==typeof define&&define.amd?define(t):e.dayjs=t()}"),
    ("code", "ssh-keygen -t ed25519 -C \"jane@laptop\" -f ~/.ssh/id_ed25519"),
    ("code", "openssl req -new -newkey rsa:2048 -nodes -keyout server.key -out server.csr"),
    ("code", "git config --global credential.helper osxkeychain"),
    ("code", "kubectl get secret db-creds -o jsonpath='{.data.password}' | base64 -d"),
    ("code", "headers = {'Authorization': f'Bearer {access_token}'}"),
    ("code", "test('rejects a wrong password', async () => {\n  await expect(login('a', 'b')).rejects.toThrow();\n});"),
    ("code", "mock_token = 'test-token'\nclient = Client(token=mock_token)"),
    # log lines
    ("log", "2024-05-01T12:00:01.123Z INFO  api request_id=⟦uuid⟧ method=GET path=/v1/orders "
            "status=200 duration_ms=12"),
    ("log", "WARN  [pool-3-thread-7] c.a.s.RetryPolicy - attempt 3/5 failed: timeout after 30000ms"),
    ("log", "E0501 12:00:03.456789    1234 reflector.go:138] failed to list *v1.Pod: Unauthorized"),
    ("log", "sshd[2212]: Failed password for invalid user admin from 203.0.113.7 port 40022 ssh2"),
    ("log", "pam_unix(sudo:auth): authentication failure; logname= uid=1000 euid=0 tty=/dev/pts/0 "
            "ruser= rhost=  user=jane"),
    ("log", "EXT4-fs (sda1): mounted filesystem with ordered data mode. Quota mode: none."),
    ("log", "=========== 412 passed, 3 skipped, 1 xfailed in 41.27s ==========="),
    ("log", "npm WARN deprecated uuid@3.4.0: Please upgrade to version 7 or higher."),
    ("log", "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n"
            "    key = cfg['api_key']\nKeyError: 'api_key'"),
    ("log", "ERROR: invalid token (401) for user jane@acme.io"),
    ("log", 'level=info msg="token refreshed" expires_in=3599 client=web'),
    ("log", "[INFO] BUILD SUCCESS\n[INFO] Total time:  01:12 min"),
    ("log", "[GC pause (G1 Evacuation Pause) (young) 512M->128M(1024M), 0.0234 secs]"),
    ("log", "worker ⟦hex:8⟧ picked job 48213 (queue=emails, attempt=1)"),
    ("log", "certbot: Certificate renewed, serial number ⟦hex:36⟧, expires 2024-08-01"),
    ("log", "WARNING: password auth is deprecated for this endpoint, switch to tokens"),
    ("log", "redis: AUTH failed: WRONGPASS invalid username-password pair"),
    ("log", "Jun 01 03:00:01 backup CRON[4412]: (root) CMD (/usr/local/bin/backup.sh)"),
    ("log", "fatal: Authentication failed for 'https://github.com/acme/infra.git/'"),
    # ordinary notes
    ("note", "IP 192.168.1.20, MAC 3c:22:fb:⟦hex:2⟧:⟦hex:2⟧:⟦hex:2⟧, gateway 192.168.1.1"),
    ("note", "IPv6 for the bastion is 2001:db8:85a3::8a2e:370:7334"),
    ("note", "ISBN 978-0-13-468599-1, second edition"),
    ("note", "palette: #1e293b #334155 #64748b #f8fafc"),
    ("note", "office at 40.4168, -3.7038; parking in the basement"),
    ("note", "Sprint 42 retro: deploys were slow, flaky e2e tests, good pairing on the importer."),
    ("note", "The user prefers tabs, 100-column lines, and type hints everywhere."),
    ("note", "Mañana hay que llamar al fontanero a las 10."),
    ("note", "El pedido llega el jueves; avisar a Carmen."),
    ("note", "La reunión con el cliente se movió al martes a las 16:00."),
    ("note", "Decided to keep SQLite for the catalog; Postgres is overkill for one user."),
    ("note", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
    ("note", "0000000000000000000000000000000000000000"),
    ("note", "Supercalifragilisticexpialidocious is 34 letters long"),
    ("note", "phone support: +34 912 345 678, weekdays 9-18"),
    ("note", "cron: 0 3 * * 1-5 /usr/local/bin/backup.sh --full"),
    ("note", "The migration renamed user_pass to password_hash and dropped the old column."),
    ("note", "Benchmarks: p50 134 ms, p95 221 ms on 2 cores, 5,000 memories."),
    ("note", "Keyboard layout for the new laptops: US international."),
    ("note", "Vamos a usar la API de pagos nueva a partir de julio."),
    ("note", "Ticket PROJ-4821: login page shows the wrong error after a password reset."),
    ("note", "Base64 makes data about 33% bigger; gzip it first."),
]


# --------------------------------------------------------------------------- generator

_SLOT = re.compile(r"⟦([a-zA-Z0-9]+)(?::([^⟧]+))?⟧")


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random, symbols: str = _PW_SYMBOLS) -> str:
    """A password the way people choose them: words with digits, leetspeak, or random."""
    style = rng.randrange(6)
    word = rng.choice(_WORDS)
    if style == 0:
        return word.capitalize() + _draw(rng, string.digits, rng.randint(2, 4)) + rng.choice(symbols)
    if style == 1:
        return _draw(rng, _B62 + symbols, rng.randint(12, 20))
    if style == 2:
        leet = word.translate(str.maketrans({"a": "4", "e": "3", "o": "0", "i": "1", "s": "5"}))
        return leet.capitalize() + rng.choice(symbols) + _draw(rng, string.digits, 2)
    if style == 3:
        return rng.choice(_WORDS) + rng.choice(_WORDS) + _draw(rng, string.digits, 2)
    if style == 4:
        return (rng.choice(_SPANISH_WORDS).capitalize() + "." + rng.choice(_SPANISH_WORDS).capitalize()
                + _draw(rng, string.digits, 4))
    return _draw(rng, string.ascii_lowercase + string.digits, rng.randint(9, 11))


def _passphrase(rng: random.Random) -> str:
    return "-".join(rng.sample(_WORDS, 4)) + "-" + _draw(rng, string.digits, 2)


def _b64(raw: bytes, url: bool = False) -> str:
    text = base64.urlsafe_b64encode(raw) if url else base64.b64encode(raw)
    return text.decode().rstrip("=") if url else text.decode()


def _jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}
    payload = {"sub": str(rng.randrange(10**6, 10**7)), "name": rng.choice(_USERS),
               "iat": 1714550400 + rng.randrange(10**6), "exp": 1714554000 + rng.randrange(10**6)}
    return ".".join([_b64(json.dumps(header, separators=(",", ":")).encode(), url=True),
                     _b64(json.dumps(payload, separators=(",", ":")).encode(), url=True),
                     _draw(rng, _B64U, 43)])


def _wrap(body: str, width: int = 64) -> list[str]:
    return [body[i:i + width] for i in range(0, len(body), width)]


def _pem(rng: random.Random, label: str, lines: int) -> list[str]:
    body = _wrap(_draw(rng, _B64, 64 * lines - rng.randrange(30)) + "==")
    return [f"-----BEGIN {label}-----", *body, f"-----END {label}-----"]


def _uuid(rng: random.Random) -> str:
    h = _draw(rng, _HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _fill(rng: random.Random, name: str, arg: str | None) -> str:
    n = int(arg) if arg and arg.isdigit() else 0
    alphabets = {"hex": _HEX, "HEX": _HEX.upper(), "b62": _B62, "b64": _B64, "b64u": _B64U,
                 "up": _UP, "B32": _B32, "b32l": _B32.lower(), "bech": _BECH, "b58": _B58,
                 "low": string.ascii_lowercase + string.digits, "dig": string.digits,
                 "alpha": string.ascii_letters, "django": _DJANGO}
    if name in alphabets:
        return _draw(rng, alphabets[name], n)
    if name == "uuid":
        return _uuid(rng)
    if name == "pw":
        return _password(rng)
    if name == "urlpw":
        return _password(rng, _URL_PW_SYMBOLS)
    if name == "pass":
        return _passphrase(rng)
    if name == "app":
        return " ".join(_draw(rng, string.ascii_lowercase, 4) for _ in range(4))
    if name == "basic":
        return base64.b64encode(f"{rng.choice(_USERS)}:{_password(rng)}".encode()).decode()
    if name == "b64pw":
        return base64.b64encode(_password(rng).encode()).decode()
    if name == "jwt":
        return _jwt(rng)
    if name == "pem":
        label, lines = arg.rsplit(":", 1)
        return "\n".join(_pem(rng, label, int(lines)))
    if name == "pemi":
        label, lines = arg.rsplit(":", 1)
        return "\n    ".join(_pem(rng, label, int(lines)))
    if name == "pemj":
        return "\\n".join(_pem(rng, arg, 16))
    if name == "discord":  # base64 of the bot's numeric user id, then the rest
        return _b64(str(rng.randrange(10**17, 10**19)).encode(), url=True)
    if name == "pgpsec":
        return "\n".join(["-----BEGIN PGP PRIVATE KEY BLOCK-----", "", "lQOYBF" + _draw(rng, _B64, 58),
                          *_wrap(_draw(rng, _B64, 64 * 10)), "=" + _draw(rng, _B64, 4),
                          "-----END PGP PRIVATE KEY BLOCK-----"])
    if name == "pgppub":
        return "\n".join(["-----BEGIN PGP PUBLIC KEY BLOCK-----", "", "mQINBF" + _draw(rng, _B64, 58),
                          *_wrap(_draw(rng, _B64, 64 * 12)), "=" + _draw(rng, _B64, 4),
                          "-----END PGP PUBLIC KEY BLOCK-----"])
    if name == "b64wrap":
        return "\n".join(_wrap(_draw(rng, _B64, n), 76))
    if name == "gpgfp":
        return "  ".join(" ".join(_draw(rng, _HEX.upper(), 4) for _ in range(5)) for _ in range(2))
    raise ValueError(f"unknown slot {name!r}")


def render(rng: random.Random, kind: str, template: str) -> FreshCase:
    """Fill a template's slots and turn its «» marks into spans of the final text."""
    return marked(kind, _SLOT.sub(lambda m: _fill(rng, m.group(1), m.group(2)), template))


def marked(kind: str, filled: str) -> FreshCase:
    """A case from a text whose «» marks say what a detector must mask: the text without
    them, and the spans they marked (shared by the later sets, which fill their own
    slots)."""
    text: list[str] = []
    spans: list[tuple[int, int]] = []
    start = 0
    for ch in filled:
        if ch == "«":
            start = len(text)
        elif ch == "»":
            spans.append((start, len(text)))
        else:
            text.append(ch)
    return FreshCase(kind, "".join(text), tuple(spans))


def fresh_cases(seed: int = 23) -> tuple[list[FreshCase], list[FreshCase]]:
    """The fresh split, drawn from ``seed``: (secrets, ordinary)."""
    rng = random.Random(f"fresh-{seed}")
    secrets = [render(rng, kind, template) for kind, template in SECRETS]
    ordinary = [render(rng, kind, template) for kind, template in ORDINARY]
    return secrets, ordinary
