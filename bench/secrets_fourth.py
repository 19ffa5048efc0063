"""A fourth held-out secrets set, split ``"fourth"``: written before reading the detector's
rules or the third set's misses, and measured once with the detector as it stood.

Every secret here is FAKE: each template names a shape (``⟦hex:32⟧``, ``⟦pw⟧``, ``⟦seed:12⟧``
...) that a seeded generator of this file's own fills at run time, so the file holds no
key-like literal (only public format prefixes). The span a detector must mask is marked
``«...»``; the marks are removed from the text it is handed.

What counts as a secret here (decided before measuring):

* any value that would grant access if it were real: passwords, API keys and tokens
  (test-mode keys too: ``sk_test_`` opens a real account's test data), private keys,
  session cookies, webhook URLs (the path is the credential), seed phrases, TOTP seeds;
* a random-looking value of a real credential format counts even beside a comment that
  calls it a test or a fake: the detector cannot check the comment, and real keys get
  pasted under such comments.

What is ordinary (must not be flagged):

* public material: public keys (SSH, PEM, age, WireGuard peers), certificates, DKIM/SPF/
  DMARC and domain-verification TXT records, ACME challenge values, publishable keys that
  are public by design (Stripe ``pk_``), blockchain addresses and transaction hashes;
* digests and ids: checksums, commit SHAs, image digests, lockfile integrity strings,
  UUIDs, trace ids, ids inside URLs (documents, videos, tickets), base64 sample data;
* placeholders and references: ``<your-token>``, ``${API_KEY}``, ``{{ secrets.X }}``,
  ``changeme`` or ``hunter2`` discussed as examples, values made of one repeated
  character or that say ``dummy``/``fake``/``example`` in themselves, masked values
  (``****``), code that reads a secret from the environment or a secret store;
* notes about secrets that hold no value ("rotate the key", "la contraseña está en el
  gestor").

``fourth_cases(seed)`` returns ``(secrets, ordinary)``: lists of :class:`FreshCase`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string

from bench.secrets_fresh import FreshCase, marked

SPLIT = "fourth"


# --------------------------------------------------------------------------- secrets

SECRETS: list[tuple[str, str]] = [
    # passwords in prose, English and Spanish
    ("password_prose", "the staging db password is «⟦pw⟧», don't share it"),
    ("password_prose", "Reminder to self: vpn login is mkowalski and the pass is «⟦pw⟧»"),
    ("password_prose", "wifi at the cabin -> network OakHollow, password «⟦pw⟧»"),
    ("password_prose", "Grafana admin creds reset today, now admin:«⟦pw⟧»"),
    ("password_prose", "Told Dana the router password («⟦pw⟧») over the phone."),
    ("password_prose", "pass for the shared 1099 pdf: «⟦pw⟧»"),
    ("password_prose_es", "la contraseña de la base de datos de staging es «⟦pw⟧»"),
    ("password_prose_es", "Clave del wifi de la oficina: «⟦pw⟧»"),
    ("password_prose_es", "usuario: soporte / contraseña: «⟦pw⟧» (la cambié el martes)"),
    ("password_prose_es", "El password del servidor FTP quedó en «⟦pw⟧», avisar a Luis."),
    ("password_prose_es", "Nueva clave de acceso al panel: «⟦pw⟧»"),
    # passwords in config files
    ("password_yaml", "database:\n  host: pg.internal\n  user: billing\n  password: «⟦pw⟧»\n"
                      "  pool: 10"),
    ("password_yaml", "smtp:\n  server: mail.example.net\n  port: 587\n  auth:\n"
                      "    username: alerts\n    secret: \"«⟦pw⟧»\""),
    ("password_toml", "[database]\nurl = \"postgres://db:5432/shop\"\nuser = \"shop\"\n"
                      "password = \"«⟦pw⟧»\""),
    ("password_toml", "[registries.internal]\nindex = \"https://crates.internal/\"\n"
                      "token = \"«⟦b62:40⟧»\""),
    ("password_env", "# .env.local\nDB_HOST=localhost\nDB_USER=app\nDB_PASS=«⟦pw⟧»\nDEBUG=1"),
    ("password_env", "REDIS_PASSWORD=\"«⟦pw⟧»\"\nREDIS_PORT=6379"),
    ("password_env", "export PGPASSWORD='«⟦pw⟧»'\npsql -h db -U reports"),
    ("password_json", "{\n  \"host\": \"10.0.4.12\",\n  \"user\": \"etl\",\n  \"passwd\": \"«⟦pw⟧»\"\n}"),
    ("password_json", "{\"mqtt\": {\"broker\": \"tcp://broker:1883\", \"username\": \"sensor7\", "
                      "\"password\": \"«⟦pw⟧»\"}}"),
    ("password_ini", "[mysqld_exporter]\nuser = exporter\npass = «⟦pw⟧»"),
    ("password_ini", "[smtp]\nhost=smtp.office365.com\nlogin=noreply@acme.test\n"
                     "pwd=«⟦pw⟧»"),
    ("password_xml", "<dataSource>\n  <user>sa</user>\n  <password>«⟦pw⟧»</password>\n"
                     "</dataSource>"),
    ("password_properties", "spring.mail.username=notify\nspring.mail.password=«⟦pw⟧»"),
    ("k8s_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\n"
                   "data:\n  username: YWRtaW4=\n  password: «⟦b64pw⟧»"),
    ("k8s_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: api\nstringData:\n"
                   "  API_TOKEN: «⟦b62:32⟧»"),
    ("docker_compose", "services:\n  db:\n    image: postgres:16\n    environment:\n"
                       "      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: «⟦pw⟧»"),
    ("docker_compose", "services:\n  mq:\n    image: rabbitmq:3\n    environment:\n"
                       "      - RABBITMQ_DEFAULT_PASS=«⟦pw⟧»"),
    ("netrc", "machine api.heroku.com\n  login ops@acme.test\n  password «⟦uuid⟧»"),
    ("pgpass", "db.internal:5432:analytics:reporter:«⟦pw⟧»"),
    # passwords on command lines of many tools
    ("password_cli", "mysql -u root -p«⟦pw⟧» -h 127.0.0.1 shop < dump.sql"),
    ("password_cli", "sshpass -p '«⟦pw⟧»' ssh pi@192.168.1.40"),
    ("password_cli", "mongosh \"mongodb://cluster0/admin\" --username ops --password «⟦pw⟧»"),
    ("password_cli", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 "
                     "-passout pass:«⟦pw⟧»"),
    ("password_cli", "zip -P «⟦pw⟧» payroll.zip payroll.xlsx"),
    ("password_cli", "7z a -p«⟦pw⟧» backup.7z ./docs"),
    ("password_cli", "curl -u deploy:«⟦pw⟧» https://nexus.acme.test/repository/raw/"),
    ("password_cli", "smbclient //fileserver/share -U marta%«⟦pw⟧»"),
    ("password_cli", "rabbitmqctl add_user metrics «⟦pw⟧»"),
    ("password_cli", "htpasswd -b -c /etc/nginx/.htpasswd admin «⟦pw⟧»"),
    ("password_cli", "keytool -importcert -keystore trust.jks -storepass «⟦pw⟧» -file ca.crt"),
    ("password_cli", "pg_dump \"host=db user=ro password=«⟦pw⟧» dbname=app\" > app.sql"),
    ("password_cli", "./deploytool --env prod --pass «⟦pw⟧» --region eu-west-1"),
    ("password_cli", "backupctl restore --db-password=«⟦pw⟧» --from s3://bk/2024-05-01"),
    ("password_cli", "ipmitool -I lanplus -H 10.0.0.50 -U ADMIN -P «⟦pw⟧» power status"),
    ("api_key_cli", "snyk auth «⟦uuid⟧»"),
    ("api_key_cli", "./uploader --api-key «⟦hex:40⟧» --bucket media"),
    ("api_key_cli", "statusctl --token=«⟦b62:36⟧» incidents list"),
    ("api_key_cli", "codecov -t «⟦uuid⟧» -f coverage.xml"),
    ("api_key_cli", "curl -H \"X-Api-Key: «⟦b62:32⟧»\" https://api.weather.test/v1/today"),
    # connection strings
    ("connection_string", "DATABASE_URL=postgresql://app:«⟦pwu⟧»@db.internal:5432/app"),
    ("connection_string", "mongodb+srv://analytics:«⟦pwu⟧»@cluster0.ab12c.mongodb.net/prod"),
    ("connection_string", "redis://:«⟦pwu⟧»@cache.internal:6379/0"),
    ("connection_string", "amqp://guestops:«⟦pwu⟧»@mq.internal:5672/%2f"),
    ("connection_string", "Server=tcp:sql01,1433;Database=crm;User Id=crm_app;"
                          "Password=«⟦pw⟧»;Encrypt=true"),
    ("connection_string", "jdbc:mysql://db:3306/shop?user=shop&password=«⟦pwu⟧»&useSSL=true"),
    ("connection_string", "la cadena de conexión es mysql://ventas:«⟦pwu⟧»@10.1.2.3/ventas"),
    ("azure_storage", "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=«⟦b64:86⟧==»;"
                      "EndpointSuffix=core.windows.net"),
    ("git_credential", "https://jdoe:«ghp_⟦b62:36⟧»@github.com/acme/infra.git"),
    # webhooks
    ("slack_webhook", "alerts go to «https://hooks.slack.com/services/T⟦UP:8⟧/B⟦UP:10⟧/⟦b62:24⟧»"),
    ("discord_webhook", "webhook_url: «https://discord.com/api/webhooks/⟦dig:18⟧/⟦b64u:68⟧»"),
    ("teams_webhook", "Teams channel hook: «https://acme.webhook.office.com/webhookb2/⟦uuid⟧@⟦uuid⟧"
                      "/IncomingWebhook/⟦hex:32⟧/⟦uuid⟧»"),
    ("teams_webhook", "TEAMS_URL=«https://outlook.office.com/webhook/⟦uuid⟧@⟦uuid⟧/IncomingWebhook/"
                      "⟦hex:32⟧/⟦uuid⟧»"),
    # private keys
    ("private_key", "«⟦pem:RSA PRIVATE KEY:12⟧»"),
    ("private_key", "key.pem:\n«⟦pem:EC PRIVATE KEY:3⟧»"),
    ("private_key", "«⟦pem:OPENSSH PRIVATE KEY:7⟧»"),
    ("private_key", "tls:\n  key: |\n    «⟦pemi:PRIVATE KEY:10⟧»"),
    ("gcp_service_account", "{\"type\": \"service_account\", \"project_id\": \"acme-prod\", "
                            "\"private_key_id\": \"«⟦hex:40⟧»\", \"private_key\": "
                            "\"«⟦pemj:PRIVATE KEY⟧»\", \"client_email\": "
                            "\"ci@acme-prod.iam.gserviceaccount.com\"}"),
    ("wireguard_key", "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = «⟦b64:43⟧=»\n"
                      "[Peer]\nPublicKey = ⟦b64:43⟧=\nEndpoint = vpn.acme.test:51820"),
    ("age_key", "# created: 2024-03-02\n# public key: age1⟦bech:58⟧\n"
                "«AGE-SECRET-KEY-1⟦BECH:58⟧»"),
    ("crypto_private_key", "metamask export for the test wallet: «0x⟦hex:64⟧»"),
    ("crypto_private_key", "PRIVATE_KEY=«⟦hex:64⟧»\nRPC_URL=https://sepolia.infura.test"),
    ("seed_phrase", "recovery phrase: «⟦seed:12⟧»"),
    ("seed_phrase", "frase semilla de la cartera fría (guardar en papel): «⟦seed:24⟧»"),
    ("seed_phrase", "MNEMONIC=\"«⟦seed:12⟧»\""),
    ("totp_seed", "«otpauth://totp/Acme:jdoe?secret=⟦B32:32⟧&issuer=Acme»"),
    ("totp_seed", "2FA backup key for the root account: «⟦B32:4⟧ ⟦B32:4⟧ ⟦B32:4⟧ ⟦B32:4⟧»"),
    # tokens of many services
    ("stripe_key", "STRIPE_SECRET_KEY=«sk_live_⟦b62:99⟧»"),
    ("stripe_key", "stripe.api_key = \"«rk_live_⟦b62:24⟧»\"  # restricted, read-only"),
    ("stripe_key", "tests use «sk_test_⟦b62:24⟧» from the sandbox account"),
    ("paypal_token", "BRAINTREE_TOKEN=«access_token$production$⟦low:16⟧$⟦hex:32⟧»"),
    ("square_token", "square prod token «EAAA⟦b64u:60⟧»"),
    ("github_token", "gh auth login --with-token <<< «gho_⟦b62:36⟧»"),
    ("github_token", "token: «github_pat_⟦b62:22⟧_⟦b62:59⟧»"),
    ("gitlab_token", "CI_JOB_TOKEN fallback: «glpat-⟦b64u:20⟧»"),
    ("slack_token", "SLACK_BOT_TOKEN=«xoxb-⟦dig:12⟧-⟦dig:13⟧-⟦b62:24⟧»"),
    ("slack_token", "el token de usuario de slack es «xoxp-⟦dig:12⟧-⟦dig:12⟧-⟦dig:13⟧-⟦hex:32⟧»"),
    ("telegram_token", "bot = Bot(token=\"«⟦dig:10⟧:AA⟦b64u:33⟧»\")"),
    ("aws_keys", "[default]\naws_access_key_id = «AKIA⟦UP:16⟧»\n"
                 "aws_secret_access_key = «⟦b64:40⟧»"),
    ("aws_keys", "temp creds: «ASIA⟦UP:16⟧» «⟦b64:40⟧»"),
    ("google_api_key", "server-side maps key (restricted to our IPs): «AIza⟦b64u:35⟧»"),
    ("npm_token", "//registry.npmjs.org/:_authToken=«npm_⟦b62:36⟧»"),
    ("pypi_token", "[pypi]\nusername = __token__\npassword = «pypi-AgEIcHlwaS5vcmc⟦b64u:120⟧»"),
    ("docker_token", "echo «dckr_pat_⟦b64u:27⟧» | docker login -u acmeci --password-stdin"),
    ("datadog_key", "DD_API_KEY=«⟦hex:32⟧»\nDD_SITE=datadoghq.eu"),
    ("datadog_key", "datadog app key: «⟦hex:40⟧»"),
    ("sentry_token", "SENTRY_AUTH_TOKEN=«sntrys_⟦b64u:140⟧»"),
    ("newrelic_key", "NEW_RELIC_API_KEY=«NRAK-⟦UP:27⟧»"),
    ("grafana_token", "grafana service account token «glsa_⟦b62:32⟧_⟦hex:8⟧»"),
    ("twilio_creds", "TWILIO_ACCOUNT_SID=AC⟦hex:32⟧\nTWILIO_AUTH_TOKEN=«⟦hex:32⟧»"),
    ("sendgrid_key", "sendgrid: «SG.⟦b64u:22⟧.⟦b64u:43⟧»"),
    ("mailgun_key", "MAILGUN_API_KEY=«key-⟦hex:32⟧»"),
    ("openai_key", "OPENAI_API_KEY=«sk-proj-⟦b64u:156⟧»"),
    ("anthropic_key", "client = Anthropic(api_key=\"«sk-ant-api03-⟦b64u:93⟧AA»\")"),
    ("huggingface_token", "huggingface-cli login --token «hf_⟦alpha:34⟧»"),
    ("shopify_token", "X-Shopify-Access-Token: «shpat_⟦hex:32⟧»"),
    ("digitalocean_token", "doctl auth init -t «dop_v1_⟦hex:64⟧»"),
    ("terraform_token", "credentials \"app.terraform.io\" {\n  token = \"«⟦b62:14⟧.atlasv1.⟦b62:67⟧»\"\n}"),
    ("atlassian_token", "jira api token for the bot: «ATATT3x⟦b64u:180⟧=⟦HEX:8⟧»"),
    ("heroku_key", "HEROKU_API_KEY=«⟦uuid⟧»"),
    ("circleci_token", "CIRCLE_TOKEN=«CCIPAT_⟦b62:22⟧_⟦hex:40⟧»"),
    ("linear_key", "linear personal key «lin_api_⟦b62:40⟧»"),
    ("doppler_token", "DOPPLER_TOKEN=«dp.st.prd.⟦b62:43⟧»"),
    ("vault_token", "vault login «hvs.⟦b62:24⟧»"),
    ("generic_api_key", "api_key: «⟦b62:32⟧»"),
    ("generic_api_key", "la API key del proveedor de SMS es «⟦hex:32⟧»"),
    ("generic_api_key", "const client = new Client({ apiSecret: '«⟦b64u:40⟧»' });"),
    ("generic_api_key", "CLIENT_SECRET=«⟦b64u:40⟧»"),
    # JWTs, cookies, headers
    ("jwt", "Authorization: Bearer «⟦jwt⟧»"),
    ("jwt", "id_token=«⟦jwt⟧»"),
    ("jwt", "pegué el token en jwt.io: «⟦jwt⟧»"),
    ("bearer_header", "curl -H 'Authorization: Bearer «⟦b64u:48⟧»' https://api.acme.test/me"),
    ("basic_auth_header", "Authorization: Basic «⟦basic⟧»"),
    ("cookie", "Cookie: sessionid=«⟦low:32⟧»; csrftoken=«⟦b62:32⟧»"),
    ("cookie", "Set-Cookie: connect.sid=«s%3A⟦b64u:32⟧.⟦b64u:43⟧»; Path=/; HttpOnly"),
    ("cookie", "copied my session cookie from devtools: _session_id=«⟦hex:32⟧»"),
    ("cookie", "curl -b 'PHPSESSID=«⟦low:26⟧»' https://intranet.acme.test/admin"),
]


# --------------------------------------------------------------------------- ordinary

ORDINARY: list[tuple[str, str]] = [
    # public keys and certificates
    ("public_key", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAI⟦b64:43⟧ jdoe@laptop"),
    ("public_key", "authorized_keys:\nssh-rsa AAAAB3NzaC1yc2EAAAADAQABAAABgQ⟦b64:300⟧ deploy@ci"),
    ("public_key", "github.com ecdsa-sha2-nistp256 AAAAE2VjZHNhLXNoYTItbmlzdHAyNTYAAAAIbmlzdHAyNTYAAABBB"
                   "⟦b64:96⟧="),
    ("public_key", "⟦pem:PUBLIC KEY:6⟧"),
    ("public_key", "la clave pública del servidor es:\n⟦pem:PUBLIC KEY:3⟧"),
    ("public_key", "⟦pem:CERTIFICATE:14⟧"),
    ("public_key", "ca.crt: |\n    ⟦pemi:CERTIFICATE:10⟧"),
    ("public_key", "recipient for the backups: age1⟦bech:58⟧"),
    ("public_key", "[Peer]\nPublicKey = ⟦b64:43⟧=\nAllowedIPs = 10.8.0.0/24\n"
                   "Endpoint = vpn.acme.test:51820"),
    ("public_key", "gpg --recv-keys ⟦HEX:40⟧"),
    ("public_key", "pub   rsa4096 2023-06-01 [SC]\n      ⟦HEX:40⟧\nuid  [ultimate] Ops Team"),
    ("public_key", "Host key fingerprint is SHA256:⟦b64:43⟧"),
    ("public_key", "The key fingerprint is:\nSHA256:⟦b64:43⟧ marta@desk\n"
                   "The key's randomart image is:"),
    ("public_key", "Stripe publishable key for the checkout page (public by design): "
                   "pk_live_⟦b62:24⟧"),
    ("public_key", "STRIPE_PUBLISHABLE_KEY=pk_test_⟦b62:24⟧"),
    ("public_key", "data-sitekey=\"6L⟦b64u:38⟧\" is the reCAPTCHA site key, safe in HTML"),
    # digests, checksums, commit shas
    ("checksum", "⟦hex:64⟧  ihmt-0.9.1-py3-none-any.whl"),
    ("checksum", "sha256sum says ⟦hex:64⟧ which matches the release page"),
    ("checksum", "MD5 (backup.tar.gz) = ⟦hex:32⟧"),
    ("checksum", "SHA1: ⟦hex:40⟧\nSHA256: ⟦hex:64⟧\nSize: 48213 bytes"),
    ("checksum", "el md5 del fichero descargado es ⟦hex:32⟧, coincide con la web"),
    ("checksum", "etag: \"⟦hex:32⟧\""),
    ("checksum", "x-amz-checksum-sha256: ⟦b64:43⟧="),
    ("checksum", "Content-MD5: ⟦b64:22⟧=="),
    ("checksum", "cache key: deps-${{ runner.os }}-⟦hex:64⟧"),
    ("commit", "commit ⟦hex:40⟧\nAuthor: Jane Roe <jane@acme.test>\nDate:   Tue May 7 2024\n\n"
               "    Fix flaky retry test"),
    ("commit", "reverted ⟦hex:7⟧ and ⟦hex:7⟧, then cherry-picked ⟦hex:40⟧ onto release/2.3"),
    ("commit", "git checkout ⟦hex:40⟧ -- src/app.py"),
    ("commit", "Merge pull request #4821 from acme/fix-timeouts (⟦hex:12⟧)"),
    ("commit", "el bug entró en el commit ⟦hex:40⟧, hay que revertirlo"),
    ("commit", "HEAD is now at ⟦hex:7⟧ bump version"),
    ("commit", "uses: actions/checkout@⟦hex:40⟧ # v4.1.1"),
    ("digest", "image: ghcr.io/acme/api@sha256:⟦hex:64⟧"),
    ("digest", "Digest: sha256:⟦hex:64⟧\nStatus: Downloaded newer image for redis:7"),
    ("digest", "docker pull nginx@sha256:⟦hex:64⟧"),
    ("digest", "IPFS CID: bafybei⟦b32l:52⟧"),
    ("lockfile", "\"node_modules/lodash\": {\n  \"version\": \"4.17.21\",\n  \"resolved\": "
                 "\"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n  \"integrity\": "
                 "\"sha512-⟦b64:86⟧==\"\n}"),
    ("lockfile", "left-pad@^1.3.0:\n  version \"1.3.0\"\n  resolved \"https://registry.yarnpkg.com/"
                 "left-pad/-/left-pad-1.3.0.tgz#⟦hex:40⟧\"\n  integrity sha512-⟦b64:86⟧=="),
    ("lockfile", "requests==2.31.0 \\\n    --hash=sha256:⟦hex:64⟧ \\\n    --hash=sha256:⟦hex:64⟧"),
    ("lockfile", "golang.org/x/text v0.14.0 h1:⟦b64:43⟧=\ngolang.org/x/text v0.14.0/go.mod h1:⟦b64:43⟧="),
    ("lockfile", "[[package]]\nname = \"serde\"\nversion = \"1.0.197\"\n"
                 "source = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
                 "checksum = \"⟦hex:64⟧\""),
    ("lockfile", "[[package]]\nname = \"idna\"\nversion = \"3.6\"\nfiles = [\n"
                 "    {file = \"idna-3.6-py3-none-any.whl\", hash = \"sha256:⟦hex:64⟧\"},\n]"),
    ("lockfile", "<script src=\"https://cdn.example.net/lib.min.js\" integrity=\"sha384-⟦b64:64⟧\" "
                 "crossorigin=\"anonymous\"></script>"),
    ("lockfile", "oid sha256:⟦hex:64⟧\nsize 1048576"),
    # ids
    ("uuid", "request_id=⟦uuid⟧ status=502 upstream=api-7"),
    ("uuid", "the tenant id is ⟦uuid⟧ (it's in every URL, not a secret)"),
    ("uuid", "metadata:\n  name: web-6d4f\n  uid: ⟦uuid⟧\n  resourceVersion: \"48213\""),
    ("uuid", "INSERT INTO orders (id, total) VALUES ('⟦uuid⟧', 42.50);"),
    ("uuid", "Correlation-Id: ⟦uuid⟧"),
    ("uuid", "el id del pedido es ⟦uuid⟧, el cliente lo reclama"),
    ("uuid", "subscription ⟦uuid⟧ / resource group rg-prod-weu"),
    ("trace_id", "traceparent: 00-⟦hex:32⟧-⟦hex:16⟧-01"),
    ("trace_id", "span_id=⟦hex:16⟧ trace_id=⟦hex:32⟧ duration_ms=87"),
    ("trace_id", "X-Request-ID: ⟦hex:32⟧"),
    ("trace_id", "Cloudflare Ray ID: ⟦hex:16⟧"),
    ("aws_id", "arn:aws:iam::⟦dig:12⟧:role/ci-deploy"),
    ("aws_id", "instance i-⟦hex:17⟧ in subnet-⟦hex:17⟧ failed its health check"),
    ("aws_id", "ami-⟦hex:17⟧ is the new base image; snapshot snap-⟦hex:17⟧"),
    ("aws_id", "distribution E⟦UP:13⟧ invalidation I⟦UP:13⟧ completed"),
    ("aws_id", "AWS_REGION=eu-west-1\nAWS_ACCOUNT_ID=⟦dig:12⟧"),
    ("url_id", "https://docs.google.com/document/d/⟦b64u:44⟧/edit?usp=sharing"),
    ("url_id", "slides: https://docs.google.com/presentation/d/⟦b64u:44⟧/edit#slide=id.p"),
    ("url_id", "https://drive.google.com/file/d/⟦b64u:33⟧/view"),
    ("url_id", "watch this: https://www.youtube.com/watch?v=⟦b64u:11⟧&t=42s"),
    ("url_id", "https://github.com/acme/api/blob/⟦hex:40⟧/src/server.ts#L120"),
    ("url_id", "https://github.com/acme/api/compare/⟦hex:12⟧...⟦hex:12⟧"),
    ("url_id", "https://www.notion.so/acme/Onboarding-⟦hex:32⟧"),
    ("url_id", "https://www.figma.com/file/⟦b62:22⟧/Checkout-redesign"),
    ("url_id", "https://acme.atlassian.net/browse/OPS-4821?focusedCommentId=⟦dig:6⟧"),
    ("url_id", "https://app.datadoghq.eu/dashboard/⟦low:3⟧-⟦low:3⟧-⟦low:3⟧/api-latency"),
    ("url_id", "https://console.cloud.google.com/logs/query;cursorTimestamp=2024-05-01;"
               "query=⟦b64u:40⟧?project=acme-prod"),
    ("url_id", "https://sentry.io/organizations/acme/issues/⟦dig:10⟧/events/⟦hex:32⟧/"),
    ("url_id", "https://open.spotify.com/playlist/⟦b62:22⟧?si=⟦hex:16⟧"),
    ("url_id", "https://gist.github.com/jdoe/⟦hex:32⟧"),
    ("url_id", "https://s3.eu-west-1.amazonaws.com/acme-assets/uploads/⟦hex:32⟧/avatar.png"),
    ("url_id", "https://meet.google.com/⟦low:3⟧-⟦low:4⟧-⟦low:3⟧"),
    ("url_id", "el documento está en https://docs.google.com/spreadsheets/d/⟦b64u:44⟧/edit"),
    ("url_id", "https://shop.acme.test/checkout?utm_source=newsletter&utm_campaign=spring&"
               "ref=⟦b62:10⟧"),
    ("url_id", "https://imgur.com/a/⟦b62:7⟧"),
    ("url_id", "https://dev.azure.com/acme/_git/api/commit/⟦hex:40⟧"),
    # DNS and ACME records
    ("dns_txt", "acme.test. 300 IN TXT \"v=spf1 include:_spf.google.com include:sendgrid.net ~all\""),
    ("dns_txt", "google._domainkey IN TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA"
                "⟦b64:300⟧IDAQAB\""),
    ("dns_txt", "_dmarc.acme.test. TXT \"v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.test\""),
    ("dns_txt", "acme.test. TXT \"google-site-verification=⟦b64u:43⟧\""),
    ("dns_txt", "add TXT record: MS=ms⟦dig:8⟧"),
    ("dns_txt", "TXT  @  \"facebook-domain-verification=⟦low:30⟧\""),
    ("dns_txt", "TXT apple-domain-verification=⟦b62:16⟧"),
    ("dns_txt", "atlassian-domain-verification=⟦b64:64⟧"),
    ("dns_txt", "_acme-challenge.acme.test. 120 IN TXT \"⟦b64u:43⟧\""),
    ("dns_txt", "certbot: Please deploy a DNS TXT record under the name\n"
                "_acme-challenge.shop.acme.test with the following value:\n\n⟦b64u:43⟧"),
    ("dns_txt", "para validar el dominio hay que crear el registro TXT _acme-challenge con "
                "⟦b64u:43⟧"),
    ("dns_txt", "HTTP-01 challenge served at /.well-known/acme-challenge/⟦b64u:43⟧"),
    ("dns_txt", "selector1._domainkey CNAME selector1-acme-test._domainkey.acme.onmicrosoft.com"),
    ("dns_txt", "dig +short TXT acme.test\n\"v=spf1 -all\"\n\"stripe-verification=⟦hex:64⟧\""),
    ("dns_txt", "DS record: 2371 13 2 ⟦HEX:64⟧"),
    # base64 sample data
    ("base64", "iVBORw0KGgoAAAANSUhEUgAAABAAAAAQCAYAAAAf8/9h⟦b64:180⟧"),
    ("base64", "echo ⟦b64:24⟧ | base64 -d   # decodes the sample payload"),
    ("base64", "Content-Transfer-Encoding: base64\n\n⟦b64wrap:228⟧"),
    ("base64", "the protobuf in the log was CgVoZWxsbxIFd29ybGQYAiAB, decoded it with protoc"),
    ("base64", "font: url(\"/fonts/inter.woff2\") format(\"woff2\"); /* base64 inlined in "
               "prod: d09GMgABAAAAA⟦b64:120⟧ */"),
    ("base64", "test vector: input \"foobar\" -> Zm9vYmFy"),
    ("base64", "el adjunto venía en base64: JVBERi0xLjQKJ⟦b64:140⟧"),
    ("base64", "fixture = b64decode(\"R0lGODlhAQABAIAAAP⟦b64:40⟧\")"),
    ("base64", "saml response (already expired, from the test IdP): PHNhbWxwOlJlc3BvbnNl⟦b64:200⟧"),
    ("base64", "\"thumbnail\": \"/9j/4AAQSkZJRgABAQ⟦b64:160⟧\""),
    # placeholders and references
    ("placeholder", "export OPENAI_API_KEY=<your-api-key>"),
    ("placeholder", "curl -H \"Authorization: Bearer <TOKEN>\" https://api.acme.test/v2/items"),
    ("placeholder", "password: ${DB_PASSWORD}"),
    ("placeholder", "DATABASE_URL=postgres://${PGUSER}:${PGPASSWORD}@${PGHOST}:5432/app"),
    ("placeholder", "token: {{ .Values.api.token }}"),
    ("placeholder", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  GH_TOKEN: ${{ github.token }}"),
    ("placeholder", "api_key = \"YOUR_API_KEY_HERE\""),
    ("placeholder", "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "aws_secret_access_key = REPLACE_ME"),
    ("placeholder", "password = \"changeme\"  # the installer forces a change on first login"),
    ("placeholder", "The default admin password is changeme; the first login makes you pick a new one."),
    ("placeholder", "In the docs they use hunter2 as the example password, a very old joke."),
    ("placeholder", "DB_PASSWORD=********"),
    ("placeholder", "password: [REDACTED]"),
    ("placeholder", "Authorization: Bearer ***redacted***"),
    ("placeholder", "SECRET_KEY=<generate with: openssl rand -hex 32>"),
    ("placeholder", "ssh -i ~/.ssh/id_ed25519 deploy@web1"),
    ("placeholder", "mysql -u root -p   # it prompts for the password"),
    ("placeholder", "psql \"host=db user=ro password=$PGPASSWORD dbname=app\""),
    ("placeholder", "docker login -u acmeci --password-stdin < /run/secrets/registry"),
    ("placeholder", "mongosh --username ops --password  # omit the value to be prompted"),
    ("placeholder", "./deploytool --env prod --pass-file ~/.config/deploytool/pass"),
    ("placeholder", "contraseña: <la del gestor de contraseñas>"),
    ("placeholder", "pon tu token en la variable GITHUB_TOKEN, p. ej. export GITHUB_TOKEN=tu_token"),
    ("placeholder", "api_key: \"\"\napi_secret: null"),
    ("placeholder", "password=\npassword_file=/etc/app/db.pass"),
    ("placeholder", "client_secret: %(CLIENT_SECRET)s"),
    ("placeholder", "webhook: https://hooks.slack.com/services/XXXXXXXXX/XXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "Use a token that looks like ghp_ followed by 36 characters."),
    ("placeholder", "private_key: \"-----BEGIN PRIVATE KEY-----\\n...\\n-----END PRIVATE KEY-----\\n\""),
    ("placeholder", "AWS_ACCESS_KEY_ID=AKIAXXXXXXXXXXXXXXXX"),
    ("placeholder", "token = \"dummy-token-for-tests\""),
    ("placeholder", "FAKE_API_KEY = \"fake-key-0000\"  # unit tests only"),
    ("placeholder", "assert mask(\"password=example\") == \"password=[masked]\""),
    ("placeholder", "secret: 00000000-0000-0000-0000-000000000000"),
    ("placeholder", "user: admin\npassword: admin   # default of the local dev container, see README"),
    # notes about secrets
    ("about_secrets", "Rotate the Stripe key every 90 days and update it in the vault."),
    ("about_secrets", "The API token expired again; ask Priya for a new one on Monday."),
    ("about_secrets", "Never commit .env files; the pre-commit hook checks for AWS keys."),
    ("about_secrets", "Password policy: at least 14 characters, no reuse of the last 5."),
    ("about_secrets", "Reset my password on the HR portal, the reset link expires in 15 minutes."),
    ("about_secrets", "The db password lives in 1Password under 'staging / postgres'."),
    ("about_secrets", "Secrets are mounted at /var/run/secrets/kubernetes.io/serviceaccount/token"),
    ("about_secrets", "We moved all tokens to AWS Secrets Manager; the old .env is gone."),
    ("about_secrets", "La contraseña del wifi está pegada detrás del router."),
    ("about_secrets", "Hay que rotar las claves de la API antes del viernes."),
    ("about_secrets", "El token de GitHub caduca en 30 días, renovarlo en ajustes."),
    ("about_secrets", "No compartas la clave por Slack, usa el gestor."),
    ("about_secrets", "Session cookies are HttpOnly and SameSite=Lax since release 3.2."),
    ("about_secrets", "JWTs are signed with RS256; the public JWKS is at /.well-known/jwks.json"),
    ("about_secrets", "2FA is mandatory for the org; recovery codes are printed and in the safe."),
    ("about_secrets", "Write down the 24-word recovery phrase on paper, never in a file."),
    ("about_secrets", "la frase de recuperación de 12 palabras está en la caja fuerte"),
    ("about_secrets", "The leaked key was revoked within 4 minutes; postmortem in OPS-4821."),
    ("about_secrets", "password_reset_token_ttl = 900"),
    ("about_secrets", "MAX_PASSWORD_LENGTH = 128\nMIN_PASSWORD_LENGTH = 12"),
    ("about_secrets", "Error: invalid api key (401). Check that the key has the 'write' scope."),
    ("about_secrets", "error: authentication failed for user \"app\" (password authentication failed)"),
    ("about_secrets", "remote: Support for password authentication was removed. Use a personal access token."),
    ("about_secrets", "token_type: Bearer\nexpires_in: 3600\nscope: read:user"),
    # code that reads a secret from somewhere
    ("code_env", "secret = boto3.client(\"secretsmanager\").get_secret_value(SecretId=\"prod/db\")"),
    ("code_env", "password: !vault |\n  path: secret/data/db\n  key: password"),
    ("code_env", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n"
                 "        name: db-creds\n        key: password"),
    ("code_env", "token = keyring.get_password(\"ihmt\", \"github\")"),
    ("code_env", "const key = await secretClient.getSecret(\"stripe-secret-key\");"),
    ("code_env", "gcloud secrets versions access latest --secret=db-password"),
    ("code_env", "op read \"op://Private/Staging DB/password\""),
    ("code_env", "password=$(pass show work/vpn)"),
    ("code_env", "if not os.environ.get(\"API_TOKEN\"):\n    raise SystemExit(\"set API_TOKEN first\")"),
    ("code_env", "def check_password(raw: str, hashed: bytes) -> bool:\n"
                 "    return bcrypt.checkpw(raw.encode(), hashed)"),
    ("code_env", "class TokenExpired(Exception):\n    \"\"\"The access token's exp is in the past.\"\"\""),
    ("code_env", "password_hash = argon2.PasswordHasher().hash(password)"),
    ("code_env", "headers = {\"Authorization\": f\"Bearer {token}\"}"),
    ("code_env", "req.Header.Set(\"Authorization\", \"Bearer \"+cfg.Token)"),
    ("code_env", "session_id = request.cookies.get(\"sessionid\")"),
    ("code_env", "SECRET_KEY = env(\"DJANGO_SECRET_KEY\")"),
    # blockchain public values
    ("crypto_public", "send the refund to 0x⟦hex:40⟧ (my wallet address)"),
    ("crypto_public", "tx hash 0x⟦hex:64⟧ confirmed in block 19823411"),
    ("crypto_public", "Donations: bc1q⟦bech:38⟧"),
    ("crypto_public", "la transacción 0x⟦hex:64⟧ tardó 3 minutos en confirmarse"),
    ("crypto_public", "contract deployed at 0x⟦hex:40⟧, verified on etherscan"),
    ("crypto_public", "block hash 0000000000000000000⟦hex:45⟧"),
    # ordinary notes, English and Spanish
    ("note", "Standup moved to 10:30 because of the all-hands."),
    ("note", "The deploy failed on step 4 (migrations); rolled back at 16:05."),
    ("note", "Remember to renew the domain before June 12."),
    ("note", "Lunch with the design team on Thursday, bring the checkout mockups."),
    ("note", "Users report the search box is slow on Safari 17; profile the debounce."),
    ("note", "Q3 goal: cut p95 latency of /search below 200 ms."),
    ("note", "Migrated 1.2 TB from the old NAS; 3 files failed checksum and were re-copied."),
    ("note", "Tokenizer splits on unicode word boundaries now, see PR 812."),
    ("note", "The cache key is the sha256 of the normalised query, truncated to 16 hex chars."),
    ("note", "Session length median is 4m12s, down from 5m03s after the redesign."),
    ("note", "Mañana revisamos el presupuesto con contabilidad a las 9."),
    ("note", "El servidor de pruebas se reinicia cada domingo a las 3 de la mañana."),
    ("note", "Pedir a Marta el informe de ventas del trimestre."),
    ("note", "La migración a Postgres 16 quedó para después de vacaciones."),
    ("note", "Hay que actualizar las dependencias de npm, hay 12 avisos de seguridad."),
    ("note", "Reunión con el cliente: quieren exportar a CSV y a Excel."),
    ("note", "El despliegue de ayer rompió el login con Google; ya está arreglado."),
    ("note", "The password field should show a strength meter, ticket UX-311."),
    ("note", "Key takeaways from the incident review: alerts fired late, runbook was stale."),
    ("note", "Add a 'show password' toggle to the login form."),
    ("note", "The word 'secret' in the API docs means the client secret, not the signing key."),
    ("note", "Mi contraseña favorita para ejemplos en clase es 'contraseña', para que se rían."),
    # ordinary code and config
    ("code", "def levenshtein(a: str, b: str) -> int:\n    prev = list(range(len(b) + 1))\n"
             "    for i, ca in enumerate(a, 1):\n        cur = [i]\n"
             "        for j, cb in enumerate(b, 1):\n"
             "            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))\n"
             "        prev = cur\n    return prev[-1]"),
    ("code", "SELECT user_id, count(*) FROM sessions WHERE created_at > now() - interval '7 days' "
             "GROUP BY 1 ORDER BY 2 DESC LIMIT 20;"),
    ("code", "server {\n  listen 443 ssl;\n  ssl_certificate /etc/ssl/acme.crt;\n"
             "  ssl_certificate_key /etc/ssl/acme.key;\n  location / { proxy_pass http://app:8080; }\n}"),
    ("code", "resource \"aws_s3_bucket\" \"logs\" {\n  bucket = \"acme-logs-eu\"\n"
             "  tags = { team = \"platform\" }\n}"),
    ("code", "const COLORS = { primary: '#1a73e8', danger: '#d93025', muted: '#5f6368' };"),
    ("code", "regex = re.compile(r\"^[A-Za-z0-9+/]{40,}={0,2}$\")  # looks for base64 blobs"),
    ("code", "PASSWORD_RE = re.compile(r\"(?i)password\\s*[:=]\\s*(\\S+)\")"),
    ("code", "CRON_SCHEDULE=\"*/15 * * * *\"\nTZ=Europe/Madrid"),
    ("code", "ipv6 fe80::1ff:fe23:4567:890a%eth0, mac 3c:22:fb:9a:01:7e"),
    ("code", "version: \"3.9\"\nservices:\n  web:\n    build: .\n    ports: [\"8080:8080\"]\n"
             "    environment:\n      LOG_LEVEL: info\n      WORKERS: 4"),
    ("code", "[tool.ruff]\nline-length = 100\nselect = [\"E\", \"F\", \"I\"]"),
    ("code", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: app-config\ndata:\n"
             "  LOG_LEVEL: debug\n  FEATURE_FLAGS: search_v2,dark_mode"),
    ("code", "SESSION_COOKIE_NAME = \"sessionid\"\nSESSION_COOKIE_AGE = 1209600"),
    ("code", "Traceback (most recent call last):\n  File \"app/auth.py\", line 88, in login\n"
             "    user = authenticate(username, password)\nValueError: empty password"),
    ("code", "2024-05-07T10:22:31.882Z INFO  http GET /api/v1/items?page=3 200 41ms ua=Mozilla/5.0"),
    ("code", "for (const [key, value] of Object.entries(headers)) { res.setHeader(key, value); }"),
    ("code", "func hashKey(k string) uint64 { h := fnv.New64a(); h.Write([]byte(k)); return h.Sum64() }"),
    ("code", "export PATH=\"$HOME/.local/bin:$PATH\"\nalias gs='git status -sb'"),
    ("code", "INTERNAL_API_BASE=https://api.internal.acme.test\nAPI_TIMEOUT_SECONDS=30\nAPI_RETRIES=3"),
    ("code", "TOKEN_ENDPOINT=https://login.acme.test/oauth2/token\nAUTHORIZE_ENDPOINT=https://login.acme.test/oauth2/authorize"),
    ("code", "password_field = forms.CharField(widget=forms.PasswordInput, min_length=12)"),
    ("code", "<input type=\"password\" name=\"password\" autocomplete=\"current-password\">"),
    ("code", "GRANT SELECT ON ALL TABLES IN SCHEMA public TO readonly;"),
    ("code", "kubectl create secret generic db-creds --from-file=password=./db.pass"),
    ("code", "openssl rand -base64 32 > /etc/app/jwt.key && chmod 600 /etc/app/jwt.key"),
    ("code", "ssh-keygen -t ed25519 -C \"deploy@ci\" -f ~/.ssh/deploy"),
    ("code", "storageAccountName: acmelogs\ncontainerName: raw\nuseManagedIdentity: true"),
    ("code", "const id = crypto.randomUUID(); // ⟦uuid⟧ in the sample output"),
    ("code", "hsl(210, 40%, 96%) / rgba(26, 115, 232, 0.12)"),
    ("code", "ISBN 978-0-13-468599-1, DOI 10.1145/3377811.3380330"),
    ("code", "build ⟦dig:5⟧ of pipeline api-ci passed in 7m31s on runner ubuntu-22.04-⟦low:8⟧"),
    ("code", "Docker image size went from 912MB to 188MB after switching to distroless."),
    ("code", "from cryptography.hazmat.primitives.asymmetric import ed25519\n"
             "key = ed25519.Ed25519PrivateKey.generate()"),
    ("code", "mysql -u analytics -h replica.internal --ssl-mode=REQUIRED analytics"),
    ("code", "sqlcmd -S tcp:db,1433 -E -Q \"SELECT @@VERSION\"  # Windows auth, no password"),
    ("code", "curl -sSf https://get.acme.test/install.sh | sh -s -- --version 1.4.2"),
    ("code", "pip install --index-url https://pypi.org/simple ihmt==0.9.1"),
    ("code", "java -Xmx2g -Dspring.profiles.active=prod -jar app.jar --server.port=8080"),
    ("code", "the CSS class is .btn-primary--⟦low:6⟧, generated by CSS modules"),
    ("code", "webpack output: main.⟦hex:20⟧.js  2.1 MiB"),
    ("code", "asset: /static/app.⟦hex:8⟧.css"),
    ("code", "locale files: es_ES.po, en_US.po; msgid \"Password\" msgstr \"Contraseña\""),
]

ORDINARY += [
    ("note", "Packing list: jacket, charger, passport, adapter, umbrella, snacks."),
    ("note", "The kids named the puppy after a planet; we settled on Jupiter."),
    ("note", "poem draft: winter harvest, frozen island, olive voyage, the lunar kitchen at dawn"),
    ("note", "shopping: salmon, coconut, broccoli, olive oil, shrimp, walnut bread"),
    ("note", "Words for the naming brainstorm: orbit, timber, vessel, harbor, summit, quartz."),
    ("note", "Receta: dos tomates, una cebolla, aceite de oliva y sal al gusto."),
    ("note", "Los niños quieren ir a la playa el sábado si no llueve."),
    ("note", "El informe de rendimiento muestra 240 ms de mediana en la búsqueda."),
    ("note", "Ticket SUP-2291: el cliente no recibe el correo de bienvenida."),
    ("note", "On-call handoff: two pages overnight, both the disk alert on db-3."),
    ("note", "Flight AF1149 departs 07:35, seat 23C, confirmation code in the airline app."),
    ("note", "The invoice number is INV-2024-000481 and the PO is 7741-22."),
    ("note", "Order #112-⟦dig:7⟧-⟦dig:7⟧ arrives Thursday."),
    ("note", "Tracking number 1Z⟦UP:16⟧ (UPS), delivered to the front desk."),
    ("note", "Serial number of the new laptop: C02⟦UP:8⟧, warranty until 2027."),
    ("note", "License plate of the rental: 4821-KTZ."),
    ("note", "Wi-Fi network name is AcmeGuest; the password is on the card at reception."),
    ("note", "El número de pedido es 48213-A y la factura llega por correo."),
    ("note", "IBAN for the supplier is on the signed contract in the drive folder."),
    ("note", "Our Slack workspace id is T-something; the admin page shows it."),
    ("code", "const PLACEHOLDER_TOKEN = 'xxxx-xxxx-xxxx-xxxx';"),
    ("code", "def redact(s):\n    return re.sub(r\"(token=)\\S+\", r\"\\1***\", s)"),
    ("code", "if password != confirm:\n    errors.append(\"Passwords do not match\")"),
    ("code", "logging.info(\"login ok for %s from %s\", user, request.remote_addr)"),
    ("code", "assert hashlib.sha256(b\"abc\").hexdigest().startswith(\"ba7816bf\")"),
    ("code", "kid: ⟦b64u:43⟧\nalg: RS256\nuse: sig"),
    ("code", "{\"keys\": [{\"kty\": \"RSA\", \"e\": \"AQAB\", \"kid\": \"⟦hex:16⟧\", "
             "\"n\": \"⟦b64u:342⟧\"}]}"),
    ("code", "nonce=\"⟦b64:22⟧==\" in the CSP header is per request, regenerated each time"),
]

_ENV_READERS = [
    "os.environ[\"{n}\"]", "os.getenv(\"{n}\", \"\")", "process.env.{n}",
    "System.getenv(\"{n}\")", "ENV.fetch(\"{n}\")", "std::env::var(\"{n}\")?",
    "os.Getenv(\"{n}\")", "$env:{n}", "getenv('{n}')",
]
_ENV_NAMES = [
    "DB_PASSWORD", "STRIPE_SECRET_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
    "SLACK_WEBHOOK_URL", "OPENAI_API_KEY", "SENTRY_AUTH_TOKEN", "REDIS_PASSWORD",
    "JWT_SIGNING_KEY", "SMTP_PASS",
]
_ENV_LHS = ["password", "secret", "token", "api_key"]

# code that reads a secret from the environment: each reader with three names
ORDINARY += [
    ("code_env", f"{_ENV_LHS[(i + j) % 4]} = " + reader.format(n=_ENV_NAMES[(3 * i + j) % 10]))
    for i, reader in enumerate(_ENV_READERS) for j in range(3)
]


# --------------------------------------------------------------------------- generator

_HEX = "0123456789abcdef"
_B62 = string.ascii_letters + string.digits
_B64 = _B62 + "+/"
_B64U = _B62 + "-_"
_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_B32 = string.ascii_uppercase + "234567"
_ALPHABETS = {
    "hex": _HEX, "HEX": _HEX.upper(), "b62": _B62, "b64": _B64, "b64u": _B64U,
    "UP": string.ascii_uppercase + string.digits, "low": string.ascii_lowercase + string.digits,
    "dig": string.digits, "alpha": string.ascii_letters, "bech": _BECH, "BECH": _BECH.upper(),
    "B32": _B32, "b32l": _B32.lower(),
}
# words people build passwords from, in both languages (not the seed-phrase list)
_PW_WORDS = ("harbor lemon tiger cloud river falcon pixel rocket maple violet copper "
             "granite nebula sierra thunder").split()
_PW_WORDS_ES = "gato verde luna fuego trueno girasol montaña cielo lobo playa".split()
_SEASONS = ["Summer", "Winter", "Spring", "Autumn", "Verano", "Invierno", "Otono"]
_PW_SYMBOLS = "!#$%*@^-_.+?"
_URL_SAFE_SYMBOLS = "-_.~"
# words from the BIP-39 English list, for seed phrases
_SEED_WORDS = (
    "zoo wrist vessel uncle tribe tonight timber survey sunset spray solar shrimp salmon "
    "rhythm quantum puzzle pottery orbit olive nephew mystery museum lunar lobster kitchen "
    "jungle island hybrid harvest guitar glimpse frozen fossil embark dwarf donkey dinosaur "
    "crystal cousin coconut canyon bubble broccoli blossom bicycle village voyage wagon "
    "walnut window winter yellow zebra"
).split()
_USERS = ["ops", "svc-api", "mlopez", "build", "grafana", "backup", "kchen"]
_SLOT = re.compile(r"⟦([a-zA-Z0-9]+)(?::([^⟧]+))?⟧")


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random, symbols: str = _PW_SYMBOLS) -> str:
    """A password of one of several human or generated styles."""
    style = rng.randrange(7)
    if style == 0:
        a, b = rng.sample(_PW_WORDS, 2)
        return a.capitalize() + rng.choice(symbols) + b.capitalize() + _draw(rng, string.digits, 2)
    if style == 1:
        return rng.choice(_SEASONS) + str(rng.randint(2019, 2025)) + rng.choice(symbols)
    if style == 2:
        return _draw(rng, _B62 + symbols, rng.randint(14, 24))
    if style == 3:
        sep = rng.choice(".-_")
        return sep.join(rng.sample(_PW_WORDS, 3)) + sep + str(rng.randint(1, 99))
    if style == 4:
        word = rng.choice(_PW_WORDS)
        leet = word.translate(str.maketrans({"a": "@", "e": "3", "o": "0", "i": "1", "s": "$"}))
        return leet.capitalize() + _draw(rng, string.digits, 3)
    if style == 5:
        a, b = rng.sample(_PW_WORDS_ES, 2)
        return a.capitalize() + "_" + b.capitalize() + str(rng.randint(1960, 2010))
    return _draw(rng, string.ascii_letters + string.digits, rng.randint(8, 12))


def _b64(raw: bytes, url: bool = False) -> str:
    if url:
        return base64.urlsafe_b64encode(raw).decode().rstrip("=")
    return base64.b64encode(raw).decode()


def _jwt(rng: random.Random) -> str:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    if rng.random() < 0.5:
        header["kid"] = _draw(rng, _HEX, 8)
    payload = {"iss": rng.choice(["https://login.acme.test", "auth0", "keycloak"]),
               "sub": _draw(rng, string.digits, 8), "email": f"{rng.choice(_USERS)}@acme.test",
               "role": rng.choice(["admin", "reader", "ops"]),
               "exp": 1717000000 + rng.randrange(10**7)}
    sig = _draw(rng, _B64U, 86 if header["alg"] != "HS256" else 43)
    return ".".join([_b64(json.dumps(header).encode(), url=True),
                     _b64(json.dumps(payload).encode(), url=True), sig])


def _pem(rng: random.Random, label: str, lines: int) -> list[str]:
    body = _draw(rng, _B64, 64 * lines - rng.randrange(40))
    body += "=" * (-len(body) % 4)
    return [f"-----BEGIN {label}-----", *(body[i:i + 64] for i in range(0, len(body), 64)),
            f"-----END {label}-----"]


def _uuid(rng: random.Random) -> str:
    h = _draw(rng, _HEX, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{rng.choice('89ab')}{h[17:20]}-{h[20:]}"


def _fill(rng: random.Random, name: str, arg: str | None) -> str:
    if name in _ALPHABETS:
        return _draw(rng, _ALPHABETS[name], int(arg or 0))
    if name == "uuid":
        return _uuid(rng)
    if name == "pw":
        return _password(rng)
    if name == "pwu":
        return _password(rng, _URL_SAFE_SYMBOLS)
    if name == "b64pw":
        return _b64(_password(rng).encode())
    if name == "basic":
        return _b64(f"{rng.choice(_USERS)}:{_password(rng)}".encode())
    if name == "jwt":
        return _jwt(rng)
    if name == "seed":
        return " ".join(rng.choice(_SEED_WORDS) for _ in range(int(arg or 12)))
    if name in ("pem", "pemi"):
        label, lines = (arg or "").rsplit(":", 1)
        return ("\n    " if name == "pemi" else "\n").join(_pem(rng, label, int(lines)))
    if name == "pemj":
        return "\\n".join(_pem(rng, arg or "PRIVATE KEY", 20)) + "\\n"
    if name == "b64wrap":
        body = _draw(rng, _B64, int(arg or 0))
        return "\n".join(body[i:i + 76] for i in range(0, len(body), 76))
    raise ValueError(f"unknown slot {name!r}")


def _render(rng: random.Random, kind: str, template: str) -> FreshCase:
    """Fill a template's slots and turn its «» marks into spans of the final text."""
    return marked(kind, _SLOT.sub(lambda m: _fill(rng, m.group(1), m.group(2)), template))


def fourth_cases(seed: int = 31) -> tuple[list[FreshCase], list[FreshCase]]:
    """The fourth split, drawn from ``seed``: (secrets, ordinary)."""
    rng = random.Random(f"fourth-{seed}")
    secrets = [_render(rng, kind, template) for kind, template in SECRETS]
    ordinary = [_render(rng, kind, template) for kind, template in ORDINARY]
    return secrets, ordinary
