"""A ninth held-out secrets set, split ``"ninth"``: written blind, to be measured once and frozen.

What it is. Texts of the kind a coding agent is asked to keep in its memory: shell history
and one-liners, MCP and editor settings, CI files (GitHub Actions, GitLab CI, CircleCI,
Jenkins, Azure Pipelines, Bitbucket Pipelines), Dockerfiles, compose files, Kubernetes
manifests and kubeconfigs, Terraform and Ansible, package-manager settings (``.npmrc``,
``.yarnrc.yml``, ``.pypirc``, ``pip.conf``, gem, cargo, NuGet, Maven, Gradle, Composer),
application settings (.env, YAML, TOML, INI, JSON, XML, HOCON, properties) and code in
Python, JavaScript/TypeScript, Go, Ruby, PHP, C#, Java/Kotlin, Elixir, Rust and PowerShell,
logs and stack traces, HTTP exchanges, chat messages, commit messages, tickets, runbooks,
lock files and checksum lists, and notes in English and Spanish. Some hold a credential;
the ordinary ones are there because they look as if they might.

How it was written. Blind: from general knowledge of how vendors shape their credentials
(including several formats introduced recently: ``sk-ant-oat01-``, ``sb_secret_``,
``npg_`` database passwords, Bedrock ``ABSK`` keys, ``pcsk_``, ``ntn_``, ``tvly-``, Azure's
identifiable keys with their ``JQQJ99``/``+ASt``/``AzFu`` signatures, GitLab's ``glrt-``,
``gldt-`` and ``glptt-``, ``sntrys_``/``sntryu_``, ``ops_``, 1Password and BitLocker
recovery material ...) and of what developers paste, before any measurement, without
looking at the detector and without running it. Exactly these were read, and nothing else
of the secrets work:

* ``bench/secrets_eighth.py`` lines 1-80 (its module docstring with the policy, its imports
  and ``SPLIT``) and lines 2270 to its end (its added shapes and word lists, ``_passphrase``
  ... ``render``, ``eighth_cases``). A first look at the generator started at line 2260,
  so lines 2260-2269 were seen too: they hold the closing bracket of its last template list
  and the comment that opens the generator, no template. None of its templates were read.
* ``bench/secrets_seventh.py`` lines 1-100 (docstring, policy, imports, ``SPLIT``) and lines
  1064 to its end (``_ALPHABETS``, word lists, ``_chars`` ... ``_fill``, ``render``,
  ``seventh_cases``). None of its templates.
* ``bench/secrets_fresh.py``: lines 51-60 (the ``FreshCase`` dataclass and the comment that
  opens its templates) and lines 671-687 (the ``marked`` helper), found with ``grep -n``.

Not read: the detector (``src/ihmt/secrets/``), any test, ``RELIABILITY.md``,
``BENCHMARKS.md``, and the templates of every ``bench/secrets_*.py``. The seventh set's
shape filler is imported and reused, a few shapes are added below, and every template is
new, written for this file. The set is meant to be measured once and then frozen: if a
later rule change would need one of these texts changed, that rule was fitted to the set.

No real credential is in this file. Templates name *shapes* (``⦃hex:32⦄``, ``⦃b62:40⦄``,
``⦃pw⦄``, ``⦃jwt:rs⦄``, ``⦃pem:rsa⦄`` ...) that a generator seeded with ``seed`` fills at
run time. Only public format prefixes (``ghp_``, ``glpat-``, ``xoxb-``, ``sk_live_``,
``AKIA`` ...) and publicly documented signatures are written literally; the fill is random
noise, so checksummed formats fail their checksums. A shape may hold inner shapes written
``⟨name:arg⟩``, filled first. In a secret template the part a detector must mask sits
between ``«`` and ``»``; a secret case counts as caught only when every marked span is
covered. Ordinary templates carry no marks and are drawn twice, independently (those
without shapes come out the same both times).

Policy (the eighth set's, which is the seventh's, said again in other words; nothing new):

* Secret means a value that on its own lets its holder in, signs, or decrypts: passwords
  and passphrases, API keys, access and refresh tokens, private keys in any wrapping (PEM,
  encrypted PEM, escaped onto one line, base64 of a whole PEM, PuTTY files, the ``d`` of a
  JWK, age/minisign/cosign secret key files), session cookies, signing and encryption keys
  of applications, URLs that are the capability themselves (chat webhooks, presigned and
  SAS links, reset, invite and magic links, keys in query strings, secret calendar
  addresses), TOTP seeds, recovery codes and recovery keys, wallet seed phrases and wallet
  private keys, pre-shared network keys.
* The value decides, not the words around it: a test-mode key, a ``django-insecure-`` key
  or a token said to be revoked, expired or rotated still counts when the value is there.
* ``AKIA``/``ASIA`` key ids and Google ``AIza`` keys count as secrets wherever they occur,
  so no ordinary text holds one. Identifiers that only stand beside a secret (account
  SIDs, client ids, key ids, tenant ids, webhook numeric ids, ``private_key_id``, the
  access-key half of a pair other than AWS's) are left unmarked.
* Placeholders and well-known weak defaults (``changeme``, ``password``, ``admin``,
  ``<your-token>``, ``xxxx``, ``****``, ``[REDACTED]``, ``${VAR}`` and the like) are not
  secrets and appear only in ordinary texts; no secret template relies on one.
* Keys their vendor documents as public are ordinary (publishable keys, Mapbox ``pk.``,
  Sentry DSNs, the Supabase anon key and ``sb_publishable_`` keys, search-only keys,
  captcha site keys, analytics and project ids, RUM client tokens, OAuth client ids);
  their private counterparts are secrets.
* Ciphertext meant to be committed is ordinary (sops, Ansible Vault, SealedSecrets, age or
  PGP messages, KMS blobs, EJSON, dotenvx, hiera-eyaml, Jasypt), and so are per-message
  signatures and nonces (webhook signature headers, CSP nonces, WebSocket keys, PKCE
  values, OAuth ``state``, CSRF tokens); the signature of a presigned URL is a secret.
  Public key material, public blockchain data, DNS verification records, resource ids in
  URLs and analytics cookies are ordinary. Password hashes appear on neither side.
* Marks are minimal: only the value (the password inside a URL or DSN, the body of a PEM
  block between its BEGIN and END lines, the credential segment of a webhook URL, the
  signature of a presigned URL), the whole token for JWTs and prefixed tokens, and each
  recovery code on its own.

``ninth_cases(seed)`` returns ``(secrets, ordinary)``: two lists of :class:`FreshCase`.
"""

from __future__ import annotations

import datetime
import json
import random
import string

from bench.secrets_fresh import FreshCase
from bench.secrets_seventh import _ALPHABETS, _b64, _chars, _fill, _noise, drawn_cases

SPLIT = "ninth"

# ---------------------------------------------------------------------------- secrets

SECRETS: list[tuple[str, str]] = [
    # ---- AWS
    ("aws_access_key", """\
  502  export AWS_ACCESS_KEY_ID=«AKIA⦃up:16⦄»
  503  export AWS_SECRET_ACCESS_KEY=«⦃b64:40⦄»
  504  aws s3 ls s3://acme-billing-exports/2025/ --region eu-west-1
  505  history | tail
"""),
    ("aws_access_key", """\
[profile ledger-admin]
aws_access_key_id     = «AKIA⦃up:16⦄»
aws_secret_access_key = «⦃b64:40⦄»
region = sa-east-1
output = json
"""),
    ("aws_session", """\
$ aws sts assume-role --role-arn arn:aws:iam::⦃dig:12⦄:role/ci-deploy --role-session-name dbg
{
    "Credentials": {
        "AccessKeyId": "«ASIA⦃up:16⦄»",
        "SecretAccessKey": "«⦃b64:40⦄»",
        "SessionToken": "«IQoJb3JpZ2luX2VjE⦃b64:280⦄»",
        "Expiration": "⦃ts⦄"
    },
    "AssumedRoleUser": {
        "AssumedRoleId": "AROA⦃up:17⦄:dbg",
        "Arn": "arn:aws:sts::⦃dig:12⦄:assumed-role/ci-deploy/dbg"
    }
}
"""),
    ("aws_access_key", """\
import boto3

# TODO(nico): move to the instance role before the audit
s3 = boto3.client(
    "s3",
    aws_access_key_id="«AKIA⦃up:16⦄»",
    aws_secret_access_key="«⦃b64:40⦄»",
    region_name="us-east-2",
)
"""),
    ("aws_access_key", """\
Credenciales del usuario IAM `backup-nas` (solo s3:PutObject sobre el bucket de respaldos):
- Access key: «AKIA⦃up:16⦄»
- Secret: «⦃b64:40⦄»
Las cargué en el Synology el ⦃date⦄.
"""),
    ("aws_bedrock_key", """\
# Bedrock long-term API key for the eval harness (expires in 30 days, ask #ml-platform to renew)
export AWS_BEARER_TOKEN_BEDROCK=«ABSK⦃b64of:BedrockAPIKey-⟨low:4⟩-at-⟨dig:12⟩:⟨b64:44⟩⦄»
export AWS_REGION=us-west-2
python -m evals.run --model us.anthropic.claude-sonnet-4-5 --suite regression
"""),
    # ---- Azure
    ("azure_storage_key", """\
"ConnectionStrings": {
  "Blobs": "DefaultEndpointsProtocol=https;AccountName=acmelogs⦃dig:3⦄;AccountKey=«⦃b64:76⦄+ASt⦃b62:6⦄==»;EndpointSuffix=core.windows.net"
},
"""),
    ("azure_sas", """\
Link for the auditors (read only, valid until Friday):
https://acmeexports.blob.core.windows.net/invoices/2025-11.csv?sv=2024-11-04&ss=b&srt=o&sp=r&se=⦃date⦄T18:00:00Z&st=⦃date⦄T09:00:00Z&spr=https&sig=«⦃rb64pct:32⦄»
"""),
    ("azure_client_secret", """\
# terraform.tfvars (do not commit -- it is in .gitignore, right?)
tenant_id       = "⦃uuid⦄"
subscription_id = "⦃uuid⦄"
client_id       = "⦃uuid⦄"
client_secret   = "«⦃azs:3⦄8Q~⦃azs:34⦄»"
"""),
    ("azure_devops_pat", """\
git remote set-url origin https://build:«⦃b62:52⦄JQQJ99⦃b62:18⦄AZDO⦃b62:4⦄»@dev.azure.com/acme/Payments/_git/payments-api
git push origin release/⦃ver⦄
"""),
    ("azure_servicebus_key", """\
ServiceBus__ConnectionString=Endpoint=sb://acme-orders.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«⦃b64:32⦄+ASb⦃b64:7⦄=»
ServiceBus__Queue=orders-created
"""),
    ("azure_cosmos_key", """\
{
  "Cosmos": {
    "Endpoint": "https://acme-catalog.documents.azure.com:443/",
    "Key": "«⦃b64:76⦄ACDb⦃b64:6⦄==»",
    "Database": "catalog"
  }
}
"""),
    ("azure_openai_key", """\
var client = new AzureOpenAIClient(
    new Uri("https://acme-ai-eastus2.openai.azure.com/"),
    new AzureKeyCredential("«⦃hex:32⦄»"));
var chat = client.GetChatClient("gpt-4o-mini");
"""),
    ("azure_function_key", """\
curl -s -X POST "https://acme-thumbs.azurewebsites.net/api/resize?code=«⦃b64u:44⦄AzFu⦃b64u:5⦄==»" \\
     -H 'Content-Type: application/json' -d '{"blob":"uploads/⦃uuid⦄.jpg","width":320}'
"""),
    # ---- Google Cloud
    ("gcp_service_account", r"""{
  "type": "service_account",
  "project_id": "acme-analytics-⦃int:100000-999999⦄",
  "private_key_id": "⦃hex:40⦄",
  "private_key": "-----BEGIN PRIVATE KEY-----\n«⦃pemesc:pkcs8⦄»\n-----END PRIVATE KEY-----\n",
  "client_email": "bq-loader@acme-analytics.iam.gserviceaccount.com",
  "client_id": "⦃dig:21⦄",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://oauth2.googleapis.com/token"
}
"""),
    ("google_api_key", """\
// src/firebase.ts
const firebaseConfig = {
  apiKey: "«AIza⦃b64u:35⦄»",
  authDomain: "acme-rewards.firebaseapp.com",
  projectId: "acme-rewards",
  storageBucket: "acme-rewards.appspot.com",
  messagingSenderId: "⦃dig:12⦄",
  appId: "1:⦃dig:12⦄:web:⦃hex:22⦄",
};
"""),
    ("google_oauth_secret", """\
{"installed":{"client_id":"⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com","project_id":"acme-sheets-sync","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"«GOCSPX-⦃b64u:28⦄»","redirect_uris":["http://localhost"]}}
"""),
    ("google_oauth_token", """\
[gdrive-backups]
type = drive
scope = drive
root_folder_id = ⦃b64u:33⦄
token = {"access_token":"«ya29.⦃b64u:150⦄»","token_type":"Bearer","refresh_token":"«1//0⦃b64u:98⦄»","expiry":"⦃ts⦄"}
"""),
    ("google_oauth_token", """\
$ curl -s -H "Authorization: Bearer «ya29.⦃b64u:180⦄»" \\
    "https://bigquery.googleapis.com/bigquery/v2/projects/acme-dw/datasets?maxResults=50"
"""),
    # ---- other clouds
    ("cloud_api_token", """\
  88  doctl auth init --context acme --access-token «dop_v1_⦃hex:64⦄»
  89  doctl kubernetes cluster kubeconfig save acme-prod-ams3
"""),
    ("cloud_api_token", """\
# ~/.config/hcloud/cli.toml
active_context = "prod"

[[contexts]]
  name = "prod"
  token = "«⦃b62:64⦄»"
"""),
    ("cloud_api_token", """\
provider "linode" {
  token = "«⦃hex:64⦄»"
}

resource "linode_instance" "bastion" {
  label  = "bastion-gru"
  region = "br-gru"
  type   = "g6-nanode-1"
}
"""),
    ("cloud_api_token", """\
SCW_ACCESS_KEY=SCW⦃up:17⦄
SCW_SECRET_KEY=«⦃uuid⦄»
SCW_DEFAULT_ORGANIZATION_ID=⦃uuid⦄
SCW_DEFAULT_REGION=fr-par
"""),
    ("cloud_api_token", """\
aliyun configure set --profile oss-sync --mode AK \\
  --access-key-id LTAI⦃b62:20⦄ \\
  --access-key-secret «⦃b62:30⦄» \\
  --region cn-hangzhou
"""),
    ("cloud_api_token", """\
腾讯云 COS 同步脚本配置 / Tencent COS sync:
  SecretId:  AKID⦃b62:32⦄
  SecretKey: «⦃b62:32⦄»
  Bucket:    acme-static-125⦃dig:7⦄
"""),
    ("cloud_api_token", """\
[DEFAULT]
user=ocid1.user.oc1..aaaaaaaa⦃b32l:52⦄
fingerprint=⦃hexcolon:16⦄
tenancy=ocid1.tenancy.oc1..aaaaaaaa⦃b32l:52⦄
region=sa-saopaulo-1
key_file=~/.oci/oci_api_key.pem
pass_phrase=«⦃pw⦄»
"""),
    ("cloud_api_token", """\
ibmcloud login --apikey «⦃b64u:44⦄» -r us-south -g Default
ibmcloud cr login
"""),
    ("cloudflare_token", """\
# zone:dns:edit on acme.dev only -- used by cert-manager's DNS01 solver
export CLOUDFLARE_API_TOKEN=«⦃b64u:40⦄»
export CF_ORIGIN_CA_KEY=«v1.0-⦃hex:24⦄-⦃hex:146⦄»
"""),
    ("cloudflare_token", """\
docker run -d --restart unless-stopped --name tunnel cloudflare/cloudflared:latest \\
  tunnel --no-autoupdate run --token «⦃cft⦄»
"""),
    ("paas_token", """\
jobs:
  deploy:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: superfly/flyctl-actions/setup-flyctl@master
      - run: flyctl deploy --remote-only
        env:
          FLY_API_TOKEN: FlyV1 «fm2_⦃b64u:300⦄»
"""),
    ("paas_token", """\
machine api.heroku.com
  login ops@acme.dev
  password «HRKU-AA⦃b64u:58⦄»
machine git.heroku.com
  login ops@acme.dev
  password «HRKU-AA⦃b64u:58⦄»
"""),
    ("paas_token", """\
      - name: Deploy preview
        run: npx netlify-cli deploy --dir=dist --alias=pr-${{ github.event.number }}
        env:
          NETLIFY_SITE_ID: ⦃uuid⦄
          NETLIFY_AUTH_TOKEN: «nfp_⦃b62:40⦄»
"""),
    ("paas_token", """\
curl -s -H 'Accept: application/json' -H 'Authorization: Bearer «rnd_⦃b62:32⦄»' \\
  'https://api.render.com/v1/services?limit=20' | jq '.[].service.name'
"""),
    ("paas_token", """\
$ vercel deploy --prod --token «⦃b62:24⦄» --scope acme
Vercel CLI ⦃ver⦄
🔍  Inspect: https://vercel.com/acme/web/⦃b62:28⦄ [3s]
"""),
    ("paas_token", """\
# Railway project token (production environment of acme-api)
RAILWAY_TOKEN=«⦃uuid⦄»
"""),
    # ---- source control
    ("github_token", """\
[10:42] nico: can someone check why the release job 403s? I set it up with my own token «ghp_⦃b62:36⦄» because the bot one expired
[10:44] sofi: pls don't paste that here 🙃 rotate it
"""),
    ("github_token", """\
GITHUB_TOKEN=«github_pat_11⦃up:9⦄0⦃b62:12⦄_⦃b62:59⦄»
GITHUB_REPOSITORY=acme/infra-live
"""),
    ("github_token", """\
github.com:
    users:
        acme-bot:
            oauth_token: «gho_⦃b62:36⦄»
    git_protocol: https
    user: acme-bot
"""),
    ("github_token", """\
[⦃ts⦄] DEBUG git.cmd: Popen(['git', 'clone', '--depth', '1', 'https://x-access-token:«ghs_⦃b62:36⦄»@github.com/acme/infra-live.git', '/tmp/tmpq8x1'])
"""),
    ("git_credential", """\
$ cat ~/.git-credentials
https://maria.lopez:«ghp_⦃b62:36⦄»@github.com
https://maria.lopez:«glpat-⦃b64u:20⦄»@gitlab.acme.dev
"""),
    ("gitlab_token", """\
curl --silent --header "PRIVATE-TOKEN: «glpat-⦃b64u:20⦄»" \\
  "https://gitlab.acme.dev/api/v4/projects/412/pipelines?status=failed&per_page=5" | jq .
"""),
    ("gitlab_token", """\
sudo gitlab-runner register --non-interactive \\
  --url https://gitlab.com \\
  --token «glrt-⦃b64u:27⦄» \\
  --executor docker --docker-image alpine:3.20 \\
  --description "hetzner-ci-02"
"""),
    ("gitlab_token", """\
helm registry login registry.gitlab.com \\
  -u gitlab+deploy-token-⦃int:1000-99999⦄ -p «gldt-⦃b64u:20⦄»
"""),
    ("gitlab_token", """\
# dispara el pipeline de docs desde el cron del servidor viejo
curl -X POST --fail -F token=«glptt-⦃hex:40⦄» -F ref=main \\
  https://gitlab.com/api/v4/projects/⦃int:1000000-9999999⦄/trigger/pipeline
"""),
    ("bitbucket_token", """\
git clone https://jdoe:«ATBB⦃b62:28⦄⦃HEX:8⦄»@bitbucket.org/acme/mobile-app.git
"""),
    ("atlassian_token", """\
curl -s -u ana@acme.dev:«ATATT3xFfGF0⦃b64u:180⦄=⦃HEX:8⦄» \\
  -H 'Accept: application/json' \\
  'https://acme.atlassian.net/rest/api/3/search?jql=project%3DOPS%20AND%20status%3DOpen'
"""),
    # ---- chat platforms and webhooks
    ("slack_token", """\
from slack_bolt import App

app = App(
    token="«xoxb-⦃dig:12⦄-⦃dig:13⦄-⦃b62:24⦄»",
    signing_secret="«⦃hex:32⦄»",
)
"""),
    ("slack_token", """\
SLACK_APP_TOKEN=«xapp-1-A⦃up:10⦄-⦃dig:13⦄-⦃hex:64⦄»
SLACK_BOT_TOKEN=«xoxb-⦃dig:12⦄-⦃dig:13⦄-⦃b62:24⦄»
"""),
    ("slack_token", """\
{"ok":true,"app_id":"A⦃up:10⦄","authed_user":{"id":"U⦃up:10⦄","scope":"chat:write","access_token":"«xoxe.xoxp-1-⦃b62:140⦄»","token_type":"user","refresh_token":"«xoxe-1-⦃b62:130⦄»","expires_in":43200},"team":{"id":"T⦃up:10⦄","name":"Acme"}}
"""),
    ("slack_token", """\
Para el scraper del canal de soporte usé la cookie de sesión del navegador:
  d=«xoxd-⦃rb64pct:90⦄»
y el token xoxc que aparece en el localStorage: «xoxc-⦃dig:12⦄-⦃dig:13⦄-⦃dig:13⦄-⦃hex:64⦄»
"""),
    ("chat_webhook", """\
      - name: Notify #deploys
        if: failure()
        run: |
          curl -X POST -H 'Content-type: application/json' \\
            --data '{"text":"deploy of ${{ github.sha }} failed"}' \\
            https://hooks.slack.com/services/T⦃up:10⦄/B⦃up:10⦄/«⦃b62:24⦄»
"""),
    ("chat_webhook", """\
Workflow Builder trigger for the on-call handoff: https://hooks.slack.com/triggers/T⦃up:10⦄/⦃dig:13⦄/«⦃hex:32⦄»
"""),
    ("chat_webhook", """\
DISCORD_WEBHOOK=https://discord.com/api/webhooks/⦃dig:19⦄/«⦃b64u:68⦄»
"""),
    ("discord_bot_token", """\
import discord

intents = discord.Intents.default()
client = discord.Client(intents=intents)
client.run("«⦃dsc⦄»")
"""),
    ("telegram_bot_token", """\
Bot de alertas de Telegram (@acme_alertas_bot), creado con BotFather el ⦃date⦄:
TELEGRAM_BOT_TOKEN=«⦃dig:10⦄:AA⦃b64u:33⦄»
TELEGRAM_CHAT_ID=-100⦃dig:10⦄
"""),
    ("chat_webhook", """\
$webhook = "https://acme.webhook.office.com/webhookb2/⦃uuid⦄@⦃uuid⦄/IncomingWebhook/«⦃hex:32⦄»/⦃uuid⦄/«V2⦃b64u:43⦄»"
Invoke-RestMethod -Method Post -Uri $webhook -ContentType 'application/json' -Body (@{ text = "Backup OK" } | ConvertTo-Json)
"""),
    ("chat_webhook", """\
Teams retired the old connectors, so the alert now goes to a Power Automate flow:
https://prod-⦃int:10-99⦄.westeurope.logic.azure.com:443/workflows/⦃hex:32⦄/triggers/manual/paths/invoke?api-version=2016-06-01&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=«⦃b64u:43⦄»
"""),
    ("chat_webhook", """\
GOOGLE_CHAT_WEBHOOK="https://chat.googleapis.com/v1/spaces/AAAA⦃b64u:7⦄/messages?key=«AIza⦃b64u:35⦄»&token=«⦃b64u:43⦄»%3D"
"""),
    ("chat_webhook", """\
mattermost:
  incoming_webhook: https://chat.acme.dev/hooks/«⦃low:26⦄»
  channel: ops-alerts
"""),
    # ---- AI providers
    ("openai_key", """\
from openai import OpenAI

client = OpenAI(api_key="«sk-proj-⦃b64u:74⦄T3BlbkFJ⦃b64u:74⦄»")
resp = client.responses.create(model="gpt-4.1-mini", input="ping")
"""),
    ("openai_key", """\
# .env.local (eval runner, service account "evals-bot")
OPENAI_API_KEY=«sk-svcacct-⦃b64u:74⦄T3BlbkFJ⦃b64u:74⦄»
OPENAI_ORG_ID=org-⦃b62:24⦄
"""),
    ("anthropic_key", """\
export ANTHROPIC_API_KEY=«sk-ant-api03-⦃b64u:93⦄AA»
claude -p "summarise the failing tests in ci.log"
"""),
    ("anthropic_key", """\
      - uses: anthropics/claude-code-action@v1
        with:
          claude_code_oauth_token: «sk-ant-oat01-⦃b64u:93⦄AA»
          trigger_phrase: "@claude"
"""),
    ("anthropic_key", """\
curl https://api.anthropic.com/v1/organizations/usage_report/messages?starting_at=⦃date⦄T00:00:00Z \\
  --header "anthropic-version: 2023-06-01" \\
  --header "x-api-key: «sk-ant-admin01-⦃b64u:93⦄AA»"
"""),
    ("ai_api_key", """\
(venv) $ huggingface-cli login --token «hf_⦃alpha:34⦄» --add-to-git-credential
Token is valid (permission: write).
"""),
    ("ai_api_key", """\
GROQ_API_KEY="«gsk_⦃b62:52⦄»"
REPLICATE_API_TOKEN=«r8_⦃b62:37⦄»
"""),
    ("ai_api_key", """\
const openrouter = createOpenAI({
  baseURL: "https://openrouter.ai/api/v1",
  apiKey: "«sk-or-v1-⦃hex:64⦄»",
});
"""),
    ("ai_api_key", """\
[providers.xai]
base_url = "https://api.x.ai/v1"
api_key = "«xai-⦃b62:80⦄»"

[providers.perplexity]
api_key = "«pplx-⦃b62:48⦄»"
"""),
    ("ai_api_key", """\
LANGFUSE_PUBLIC_KEY=pk-lf-⦃uuid⦄
LANGFUSE_SECRET_KEY=«sk-lf-⦃uuid⦄»
LANGFUSE_HOST=https://cloud.langfuse.com
LANGSMITH_API_KEY=«lsv2_pt_⦃hex:32⦄_⦃hex:10⦄»
"""),
    ("ai_api_key", """\
{
  "mcpServers": {
    "tavily": {
      "command": "npx",
      "args": ["-y", "tavily-mcp@latest"],
      "env": {"TAVILY_API_KEY": "«tvly-dev-⦃b62:32⦄»"}
    },
    "firecrawl": {
      "command": "npx",
      "args": ["-y", "firecrawl-mcp"],
      "env": {"FIRECRAWL_API_KEY": "«fc-⦃hex:32⦄»"}
    }
  }
}
"""),
    ("ai_api_key", """\
{
  "servers": {
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/",
      "headers": {"Authorization": "Bearer «github_pat_11⦃up:9⦄0⦃b62:12⦄_⦃b62:59⦄»"}
    },
    "postgres": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-postgres", "postgresql://readonly:«⦃pwu⦄»@db.acme.internal:5432/app"]
    }
  }
}
"""),
    ("ai_api_key", """\
from pinecone import Pinecone

pc = Pinecone(api_key="«pcsk_⦃b62:5⦄_⦃b62:64⦄»")
index = pc.Index("support-articles")
"""),
    ("ai_api_key", """\
curl -X POST "https://api.elevenlabs.io/v1/text-to-speech/⦃b62:20⦄" \\
  -H "xi-api-key: «sk_⦃hex:48⦄»" -H "Content-Type: application/json" \\
  -d '{"text":"Hola, gracias por llamar a Acme.","model_id":"eleven_multilingual_v2"}' -o saludo.mp3
"""),
    ("ai_api_key", """\
MISTRAL_API_KEY=«⦃b62:32⦄»
COHERE_API_KEY=«⦃b62:40⦄»
DEEPSEEK_API_KEY=«sk-⦃hex:32⦄»
VOYAGE_API_KEY=«pa-⦃b64u:43⦄»
"""),
    ("ai_api_key", """\
$ modal token set --token-id ak-⦃b62:22⦄ --token-secret «as-⦃b62:22⦄» --profile=acme
Verifying token against https://api.modal.com
Token verified successfully!
"""),
    ("ai_api_key", """\
machine api.wandb.ai
  login user
  password «⦃hex:40⦄»
"""),
    ("ai_api_key", """\
[DEFAULT]
host  = https://adb-⦃dig:16⦄.⦃int:1-19⦄.azuredatabricks.net
token = «dapi⦃hex:32⦄»
"""),
    # ---- payments
    ("stripe_key", """\
# config/initializers/stripe.rb
Stripe.api_key = "«sk_live_51⦃b62:97⦄»"
Stripe.api_version = "2025-03-31.basil"
"""),
    ("stripe_key", """\
<?php
$stripe = new \\Stripe\\StripeClient('«rk_live_51⦃b62:97⦄»');
$charges = $stripe->charges->all(['limit' => 3]);
"""),
    ("stripe_key", """\
$ stripe listen --forward-to localhost:4242/webhooks
> Ready! You are using Stripe API Version [2025-03-31.basil]. Your webhook signing secret is «whsec_⦃b62:32⦄» (^C to quit)
"""),
    ("stripe_key", """\
OPS-⦃int:1000-9999⦄  Checkout fails in the staging environment
Steps: set STRIPE_SECRET_KEY=«sk_test_51⦃b62:97⦄» in staging, restart web, pay with 4242 4242 4242 4242.
Expected: order confirmed. Actual: 500 on /checkout/confirm.
"""),
    ("payment_key", """\
SQUARE_ENVIRONMENT=production
SQUARE_APPLICATION_ID=sq0idp-⦃b64u:22⦄
SQUARE_ACCESS_TOKEN=«EAAA⦃b64u:60⦄»
"""),
    ("payment_key", """\
BRAINTREE_ACCESS_TOKEN=«access_token$production$⦃low:16⦄$⦃hex:32⦄»
"""),
    ("payment_key", """\
paypal:
  mode: live
  client_id: A⦃b64u:79⦄
  client_secret: «E⦃b64u:79⦄»
"""),
    ("payment_key", """\
ADYEN_MERCHANT_ACCOUNT=AcmeECOM
ADYEN_API_KEY=«AQE⦃b62:4⦄mfx⦃b64u:120⦄»
ADYEN_CLIENT_KEY=live_⦃up:32⦄
"""),
    ("payment_key", """\
// server/paddle.ts
export const paddle = new Paddle("«pdl_live_apikey_⦃ulid⦄_⦃b62:27⦄»", { environment: Environment.production });
"""),
    ("payment_key", """\
PLAID_ENV=production
PLAID_CLIENT_ID=⦃hex:24⦄
PLAID_SECRET=«⦃hex:30⦄»
"""),
    ("payment_key", r"""{
  "name": "organizations/⦃uuid⦄/apiKeys/⦃uuid⦄",
  "privateKey": "-----BEGIN EC PRIVATE KEY-----\n«⦃pemesc:ec⦄»\n-----END EC PRIVATE KEY-----\n"
}
"""),
    # ---- e-mail and SMS
    ("email_api_key", """\
EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "smtp.sendgrid.net"
EMAIL_HOST_USER = "apikey"
EMAIL_HOST_PASSWORD = "«SG.⦃b64u:22⦄.⦃b64u:43⦄»"
"""),
    ("email_api_key", """\
MAILGUN_DOMAIN=mg.acme.dev
MAILGUN_API_KEY=«⦃hex:32⦄-⦃hex:8⦄-⦃hex:8⦄»
"""),
    ("email_api_key", """\
POST /email HTTP/1.1
Host: api.postmarkapp.com
Accept: application/json
Content-Type: application/json
X-Postmark-Server-Token: «⦃uuid⦄»

{"From":"facturas@acme.dev","To":"cliente@example.org","Subject":"Tu factura","TextBody":"Adjuntamos tu factura."}
"""),
    ("email_api_key", """\
import { Resend } from 'resend';

const resend = new Resend('«re_⦃b62:8⦄_⦃b62:24⦄»');
"""),
    ("email_api_key", """\
BREVO_API_KEY=«xkeysib-⦃hex:64⦄-⦃b62:16⦄»
MAILCHIMP_API_KEY=«⦃hex:32⦄-us⦃int:1-21⦄»
"""),
    ("email_password", """\
SMTP de Office 365 para el sistema de turnos:
  servidor: smtp.office365.com:587 (STARTTLS)
  usuario: notificaciones@acme.com.ar
  contraseña: «⦃pwm⦄»
"""),
    ("sms_api_key", """\
TWILIO_ACCOUNT_SID=AC⦃hex:32⦄
TWILIO_AUTH_TOKEN=«⦃hex:32⦄»
TWILIO_FROM=+1555⦃dig:7⦄
"""),
    ("sms_api_key", """\
vonage:
  api_key: ⦃hex:8⦄
  api_secret: «⦃b62:16⦄»
  from: ACME
"""),
    # ---- observability
    ("observability_key", """\
# /etc/datadog-agent/datadog.yaml
api_key: «⦃hex:32⦄»
site: datadoghq.eu
logs_enabled: true
"""),
    ("observability_key", """\
helm upgrade --install datadog datadog/datadog -n monitoring \\
  --set datadog.apiKey=«⦃hex:32⦄» \\
  --set datadog.appKey=«⦃hex:40⦄» \\
  --set datadog.site=datadoghq.com
"""),
    ("observability_key", """\
NEW_RELIC_APP_NAME=checkout-api
NEW_RELIC_LICENSE_KEY=«⦃hex:36⦄NRAL»
NEW_RELIC_USER_KEY=«NRAK-⦃up:27⦄»
"""),
    ("observability_key", """\
# .sentryclirc
[defaults]
org = acme
project = web

[auth]
token = «⦃sntrys⦄»
"""),
    ("observability_key", """\
SENTRY_AUTH_TOKEN=«sntryu_⦃hex:64⦄» npx @sentry/wizard@latest -i sourcemaps
"""),
    ("observability_key", """\
provider "grafana" {
  url  = "https://acme.grafana.net/"
  auth = "«glsa_⦃b62:32⦄_⦃hex:8⦄»"
}
"""),
    ("observability_key", """\
prometheus.remote_write "grafana_cloud" {
  endpoint {
    url = "https://prometheus-prod-13-prod-us-east-0.grafana.net/api/prom/push"
    basic_auth {
      username = "⦃dig:7⦄"
      password = "«glc_⦃b64of:{"o":"⟨dig:6⟩","n":"stack-⟨dig:6⟩-alloy-metrics","k":"⟨b62:24⟩","m":{"r":"prod-us-east-0"}}⦄»"
    }
  }
}
"""),
    ("observability_key", """\
DT_API_TOKEN=«dt0c01.⦃up:24⦄.⦃up:64⦄»
DT_ENV_URL=https://⦃lower:8⦄.live.dynatrace.com
"""),
    ("observability_key", """\
exporters:
  otlp/honeycomb:
    endpoint: api.honeycomb.io:443
    headers:
      x-honeycomb-team: «hcaik_01⦃low:56⦄»
"""),
    ("observability_key", """\
receivers:
  - name: oncall-payments
    pagerduty_configs:
      - routing_key: «⦃hex:32⦄»
        severity: critical
  - name: oncall-infra
    opsgenie_configs:
      - api_key: «⦃uuid⦄»
"""),
    ("observability_key", """\
POSTHOG_PROJECT_API_KEY=phc_⦃b62:43⦄
POSTHOG_PERSONAL_API_KEY=«phx_⦃b62:43⦄»
"""),
    ("observability_key", """\
curl -k https://splunk-hec.acme.local:8088/services/collector/event \\
  -H "Authorization: Splunk «⦃UUID⦄»" \\
  -d '{"event": "deploy finished", "sourcetype": "ci"}'
"""),
    ("observability_key", """\
GET /_cluster/health HTTP/1.1
Host: es.acme.internal:9200
Authorization: ApiKey «⦃b64of:⟨b64u:20⟩:⟨b64u:22⟩⦄»
"""),
    # ---- secret managers and infrastructure tokens
    ("vault_token", """\
$ export VAULT_ADDR=https://vault.acme.internal:8200
$ export VAULT_TOKEN=«hvs.⦃b64u:90⦄»
$ vault kv get -mount=secret payments/stripe
"""),
    ("vault_token", """\
$ vault operator init -key-shares=3 -key-threshold=2
Unseal Key 1: «⦃rb64:33⦄»
Unseal Key 2: «⦃rb64:33⦄»
Unseal Key 3: «⦃rb64:33⦄»

Initial Root Token: «hvs.⦃b62:24⦄»
"""),
    ("vault_token", """\
DOPPLER_TOKEN=«dp.st.prd.⦃b62:43⦄» doppler run -- node dist/server.js
"""),
    ("vault_token", """\
export INFISICAL_TOKEN=«st.⦃uuid⦄.⦃hex:32⦄.⦃hex:32⦄»
infisical export --env=prod --format=dotenv > .env
"""),
    ("vault_token", """\
      - name: Load secrets from 1Password
        uses: 1password/load-secrets-action@v2
        env:
          OP_SERVICE_ACCOUNT_TOKEN: «⦃opsa⦄»
          DB_PASSWORD: op://Infra/orders-db/password
"""),
    ("vault_token", """\
BWS_ACCESS_TOKEN=«0.⦃uuid⦄.⦃b62:30⦄:⦃b64:22⦄==»
bws secret list ⦃uuid⦄
"""),
    ("infra_token", """\
{
  "credentials": {
    "app.terraform.io": {
      "token": "«⦃b62:14⦄.atlasv1.⦃b62:67⦄»"
    }
  }
}
"""),
    ("infra_token", """\
PULUMI_ACCESS_TOKEN=«pul-⦃hex:40⦄» pulumi up --stack acme/prod --yes
"""),
    ("infra_token", """\
sudo tailscale up --auth-key=«tskey-auth-⦃b62:11⦄CNTRL-⦃b62:33⦄» --advertise-tags=tag:ci --ssh
"""),
    ("infra_token", """\
$ ngrok config add-authtoken «2⦃b62:26⦄_⦃b62:21⦄»
Authtoken saved to configuration file: /home/dev/.config/ngrok/ngrok.yml
"""),
    ("infra_token", """\
kubeadm join 10.0.4.10:6443 --token «⦃low:6⦄.⦃low:16⦄» \\
    --discovery-token-ca-cert-hash sha256:⦃hex:64⦄
"""),
    # ---- Kubernetes and containers
    ("kube_credential", """\
users:
- name: admin@acme-prod
  user:
    client-certificate-data: ⦃pemb64:cert⦄
    client-key-data: «⦃pemb64:rsa⦄»
"""),
    ("kube_credential", """\
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ⦃pemb64:cert⦄
    server: https://⦃ip⦄:6443
  name: edge
users:
- name: ci-deployer
  user:
    token: «⦃jwt:k8s⦄»
"""),
    ("kube_credential", """\
apiVersion: v1
kind: Secret
metadata:
  name: orders-db
  namespace: orders
type: Opaque
data:
  username: b3JkZXJz
  password: «⦃b64pw⦄»
"""),
    ("kube_credential", """\
apiVersion: v1
kind: Secret
metadata:
  name: smtp
stringData:
  SMTP_USER: alertas@acme.com.ar
  SMTP_PASSWORD: «⦃pw⦄»
"""),
    ("kube_credential", """\
apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
  - resources: ["secrets"]
    providers:
      - aescbc:
          keys:
            - name: key1
              secret: «⦃rb64:32⦄»
      - identity: {}
"""),
    ("kube_credential", """\
kubectl -n billing create secret generic stripe \\
  --from-literal=api-key=«sk_live_51⦃b62:97⦄» \\
  --dry-run=client -o yaml | kubeseal -o yaml > stripe-sealed.yaml
"""),
    ("docker_auth", """\
{
  "auths": {
    "registry.acme.dev": {
      "auth": "«⦃basic:deploy⦄»"
    },
    "https://index.docker.io/v1/": {}
  },
  "credsStore": ""
}
"""),
    ("docker_auth", """\
 311  echo '«⦃pw⦄»' | docker login registry.acme.dev -u deploy --password-stdin
 312  docker push registry.acme.dev/orders/api:⦃ver⦄
"""),
    ("docker_auth", """\
docker login -u acmeci -p «dckr_pat_⦃b64u:27⦄»
WARNING! Using --password via the CLI is insecure. Use --password-stdin.
Login Succeeded
"""),
    ("docker_auth", """\
FROM node:22-alpine AS build
ARG NPM_TOKEN=«npm_⦃b62:36⦄»
RUN echo "//registry.npmjs.org/:_authToken=${NPM_TOKEN}" > ~/.npmrc && npm ci
"""),
    # ---- package registries
    ("npm_token", """\
# ~/.npmrc
//registry.npmjs.org/:_authToken=«npm_⦃b62:36⦄»
@acme:registry=https://npm.pkg.github.com
//npm.pkg.github.com/:_authToken=«ghp_⦃b62:36⦄»
"""),
    ("npm_token", """\
registry=https://nexus.acme.local/repository/npm-group/
_auth=«⦃basic:ci⦄»
always-auth=true
email=ci@acme.local
"""),
    ("npm_token", """\
npmScopes:
  acme:
    npmRegistryServer: "https://npm.acme.dev"
    npmAuthToken: "«npm_⦃b62:36⦄»"
"""),
    ("pypi_token", """\
[distutils]
index-servers = pypi

[pypi]
  username = __token__
  password = «pypi-AgEIcHlwaS5vcmcCJD⦃b64u:150⦄»
"""),
    ("pypi_token", """\
# /etc/pip.conf en los runners
[global]
index-url = https://pypi.org/simple
extra-index-url = https://ci:«⦃pwu⦄»@nexus.acme.local/repository/pypi-internal/simple
"""),
    ("pypi_token", """\
export UV_INDEX_ACME_USERNAME=ci
export UV_INDEX_ACME_PASSWORD=«⦃pw⦄»
poetry config http-basic.acme ci «⦃pwu⦄»
"""),
    ("gem_token", """\
---
:rubygems_api_key: «rubygems_⦃hex:48⦄»
"""),
    ("gem_token", """\
bundle config set --global gems.contribsys.com «⦃hex:8⦄:⦃hex:8⦄»
# or in CI: BUNDLE_GEMS__CONTRIBSYS__COM=«⦃hex:8⦄:⦃hex:8⦄»
"""),
    ("cargo_token", """\
# ~/.cargo/credentials.toml
[registry]
token = "«cio⦃b62:32⦄»"

[registries.acme]
token = "Bearer «⦃b64u:40⦄»"
"""),
    ("nuget_key", """\
<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <packageSources>
    <add key="acme" value="https://pkgs.dev.azure.com/acme/_packaging/internal/nuget/v3/index.json" />
  </packageSources>
  <packageSourceCredentials>
    <acme>
      <add key="Username" value="build" />
      <add key="ClearTextPassword" value="«⦃pw⦄»" />
    </acme>
  </packageSourceCredentials>
</configuration>
"""),
    ("nuget_key", """\
dotnet nuget push bin/Release/Acme.Money.⦃ver⦄.nupkg -k «oy2⦃low:43⦄» -s https://api.nuget.org/v3/index.json
"""),
    ("maven_password", """\
<settings>
  <servers>
    <server>
      <id>acme-releases</id>
      <username>deployer</username>
      <password>«⦃pw⦄»</password>
    </server>
  </servers>
</settings>
"""),
    ("maven_password", """\
# ~/.gradle/gradle.properties
ossrhUsername=acme-oss
ossrhPassword=«⦃pw⦄»
signing.keyId=⦃HEX:8⦄
signing.password=«⦃pwh⦄»
signing.secretKeyRingFile=/home/ci/.gnupg/secring.gpg
"""),
    ("composer_auth", """\
{
    "http-basic": {
        "repo.packagist.com": {
            "username": "token",
            "password": "«⦃hex:40⦄»"
        }
    },
    "github-oauth": {
        "github.com": "«ghp_⦃b62:36⦄»"
    }
}
"""),
    ("artifact_token", """\
export JFROG_URL=https://acme.jfrog.io
export JFROG_ACCESS_TOKEN=«cmVmdGtuOjAxOj⦃b62:50⦄»
jf rt ping
"""),
    ("artifact_token", """\
helm repo add acme-charts https://charts.acme.dev --username ci --password «⦃pw⦄»
"""),
    # ---- databases
    ("database_url", """\
DATABASE_URL=postgresql://orders_app:«⦃pwu⦄»@orders-db.internal:5432/orders?sslmode=require
"""),
    ("database_password", """\
mysql -h 10.2.0.15 -u reporting -p'«⦃pw⦄»' analytics < fixes/⦃date⦄-backfill.sql
"""),
    ("database_password", """\
PGPASSWORD='«⦃pw⦄»' pg_dump -h orders-db.internal -U backup -Fc orders > orders-$(date +%F).dump
"""),
    ("database_password", """\
# ~/.pgpass (chmod 600)
orders-db.internal:5432:*:backup:«⦃pw⦄»
localhost:5432:*:postgres:«⦃pwh⦄»
"""),
    ("database_url", """\
MONGO_URI="mongodb+srv://catalog:«⦃pwu⦄»@cluster0.⦃low:5⦄.mongodb.net/catalog?retryWrites=true&w=majority&appName=catalog"
"""),
    ("database_url", """\
REDIS_URL=rediss://default:«⦃b62:32⦄»@usw1-fancy-⦃int:10000-99999⦄.upstash.io:6379
"""),
    ("database_password", """\
$ redis-cli -h 10.0.7.21 -p 6379 -a '«⦃pw⦄»' --no-auth-warning INFO replication
# Replication
role:master
connected_slaves:2
"""),
    ("database_password", """\
spring.datasource.url=jdbc:postgresql://pg-ledger.acme.local:5432/ledger
spring.datasource.username=ledger_app
spring.datasource.password=«⦃pw⦄»
spring.jpa.hibernate.ddl-auto=validate
"""),
    ("database_password", """\
  "ConnectionStrings": {
    "Ledger": "Server=tcp:acme-sql.database.windows.net,1433;Initial Catalog=Ledger;User ID=ledger_app;Password=«⦃pw⦄»;Encrypt=True;TrustServerCertificate=False;"
  }
"""),
    ("database_password", """\
sqlplus app_owner/«⦃pwh⦄»@//ora-prod.acme.local:1521/LEDGER @scripts/grants.sql
"""),
    ("database_password", """\
clickhouse-client --host ch.acme.dev --secure --user analyst --password '«⦃pw⦄»' \\
  --query "SELECT count() FROM events WHERE ts > now() - INTERVAL 1 DAY"
"""),
    ("database_password", """\
# ~/.snowflake/connections.toml
[default]
account = "acme-xy⦃dig:5⦄"
user = "DBT_RUNNER"
password = "«⦃pw⦄»"
warehouse = "TRANSFORMING"
role = "TRANSFORMER"
"""),
    ("database_url", """\
AMQP_URL=amqps://billing:«⦃pwu⦄»@rabbit.acme.dev:5671/billing
"""),
    ("database_password", """\
bootstrap.servers=pkc-⦃low:5⦄.us-east-1.aws.confluent.cloud:9092
security.protocol=SASL_SSL
sasl.mechanism=PLAIN
sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username="⦃up:16⦄" password="«⦃b64:64⦄»";
"""),
    ("database_url", """\
ELASTICSEARCH_URL=https://elastic:«⦃pwu⦄»@es-logs.acme.internal:9200
"""),
    ("database_url", """\
DATABASE_URL="postgresql://neondb_owner:«npg_⦃b62:12⦄»@ep-⦃lower:6⦄-⦃lower:6⦄-a⦃low:7⦄-pooler.us-east-2.aws.neon.tech/neondb?sslmode=require&channel_binding=require"
"""),
    ("database_password", """\
DATABASE_HOST=aws.connect.psdb.cloud
DATABASE_USERNAME=⦃low:12⦄
DATABASE_PASSWORD=«pscale_pw_⦃b64u:43⦄»
"""),
    ("supabase_key", """\
NEXT_PUBLIC_SUPABASE_URL=https://⦃lower:20⦄.supabase.co
NEXT_PUBLIC_SUPABASE_ANON_KEY=⦃jwt:anon⦄
SUPABASE_SERVICE_ROLE_KEY=«⦃jwt:service_role⦄»
"""),
    ("supabase_key", """\
# nuevas claves de Supabase (las JWT viejas se desactivan en noviembre)
SUPABASE_PUBLISHABLE_KEY=sb_publishable_⦃b64u:31⦄
SUPABASE_SECRET_KEY=«sb_secret_⦃b64u:31⦄»
"""),
    ("database_password", """\
TURSO_DATABASE_URL=libsql://acme-prod-acme.turso.io
TURSO_AUTH_TOKEN=«⦃jwt:hs⦄»
"""),
    ("directory_password", """\
ldapsearch -x -H ldaps://ldap.acme.local \\
  -D "cn=svc-jenkins,ou=service,dc=acme,dc=local" -w '«⦃pw⦄»' \\
  -b "ou=people,dc=acme,dc=local" "(uid=jperez)" mail memberOf
"""),
    ("directory_password", """\
# /etc/samba/creds-nas  (referenced from /etc/fstab)
username=backup
password=«⦃pwh⦄»
domain=ACME
"""),
    ("directory_password", """\
lftp -u deploy,'«⦃pw⦄»' sftp://files.acme.com.ar -e "mirror -R dist/ /var/www/html; bye"
"""),
    # ---- passwords in prose, English
    ("password_prose", """\
hey all 👋 wifi for the offsite is "Acme-Offsite" and the password is «⦃pwh⦄», it changes on monday
"""),
    ("password_prose", """\
Repro steps
1. Log in to staging as qa-admin@acme.dev / «⦃pw⦄»
2. Open Invoices → Export → CSV
3. The download never starts; console shows a CORS error on /api/exports.
"""),
    ("password_prose", """\
Backup encryption passphrase (restic repo s3:acme-backups/restic): «⦃pp:5⦄»
Keep a copy in the office safe as well; if we lose it the backups are gone.
"""),
    ("password_prose", """\
lol the prod db pass is literally «⦃pwh⦄» 😬 we should rotate that before the pentest
"""),
    ("password_prose", """\
fix(deploy): switch registry credentials to the new robot account

The old password («⦃pw⦄») showed up in the job logs of #⦃int:1000-9999⦄ and was
rotated on ⦃date⦄. The robot account only has push rights on orders/*.
"""),
    ("password_prose", """\
Router admin (192.168.0.1): user admin / pass «⦃pwh⦄» -- port forward 8443 -> NAS
"""),
    ("password_prose", """\
Master password of the team KeePass file (infra.kdbx): «⦃pp:6⦄»
"""),
    ("password_prose", """\
> **On-call handbook, section 4.2**
> If SSO is down, the break-glass account for the AWS console is `breakglass@acme.dev`;
> its password is «⦃pw⦄» and the MFA device is in the red envelope.
"""),
    ("password_prose", """\
Meeting notes ⦃date⦄ -- vendor onboarding
- SFTP drop for the bank statements: sftp.partnerbank.example, user acme_recon
- password they gave us on the call: «⦃pwh⦄» (they will send a new one by post)
"""),
    # ---- passwords in prose, Spanish
    ("password_prose", """\
Te dejo los datos del servidor de pruebas: usuario root, contraseña «⦃pwm⦄». No la compartas fuera del equipo.
"""),
    ("password_prose", """\
la clave del wifi de la oficina nueva es «⦃pwm⦄» (la red se llama ACME-5G)
"""),
    ("password_prose", """\
Si el panel de Grafana pide login, entrar con el usuario ops y la clave «⦃pw⦄»; después del incidente hay que cambiarla.
"""),
    ("password_prose", """\
frase de paso de la llave GPG con la que firmamos los releases: «⦃pp:4⦄»
"""),
    ("password_prose", """\
Contraseña del certificado .pfx de facturación electrónica (ARCA/AFIP): «⦃pwm⦄» -- vence en marzo.
"""),
    ("password_prose", """\
Ticket #⦃int:10000-99999⦄ -- Alta de proveedor
Hola Marta, ya te creé el acceso al portal: usuario mgonzalez, contraseña temporal «⦃pwm⦄».
Al primer ingreso te va a pedir cambiarla.
"""),
    ("password_prose", """\
Notas de la guardia:
- el NAS de Córdoba volvió a pedir credenciales, entré con admin-cba / «⦃pwh⦄»
- el disco 3 sigue con errores SMART, pedir reemplazo
"""),
    ("password_prose", """\
Para el VPN del cliente: servidor vpn.cliente.example, grupo ACME-EXT, usuario acme.soporte y la contraseña es «⦃pw⦄». El PSK del grupo es «⦃b62:20⦄».
"""),
    # ---- credentials on command lines
    ("cli_password", """\
sshpass -p '«⦃pw⦄»' ssh -o StrictHostKeyChecking=no deploy@⦃ip⦄ 'sudo systemctl restart api'
"""),
    ("cli_password", """\
curl -u admin:«⦃pwu⦄» -X POST http://jenkins.acme.local:8080/job/deploy-prod/buildWithParameters?TAG=⦃ver⦄
"""),
    ("cli_password", """\
wget --user=mirror --password='«⦃pw⦄»' https://downloads.acme.dev/releases/agent-⦃ver⦄.tar.gz
"""),
    ("cli_password", """\
openssl pkcs12 -export -in tls.crt -inkey tls.key -certfile chain.pem -out tls.p12 -passout pass:«⦃pw⦄»
"""),
    ("cli_password", """\
keytool -importkeystore -srckeystore tls.p12 -srcstoretype PKCS12 \\
  -destkeystore app.jks -srcstorepass '«⦃pw⦄»' -deststorepass '«⦃pw⦄»'
"""),
    ("cli_password", """\
az login --service-principal -u ⦃uuid⦄ -p «⦃azs:3⦄8Q~⦃azs:34⦄» --tenant ⦃uuid⦄
"""),
    ("cli_password", """\
ansible-playbook site.yml -i inventories/prod --limit db -e 'ansible_become_password=«⦃pw⦄»'
"""),
    ("cli_password", """\
terraform apply -var 'db_admin_password=«⦃pw⦄»' -var-file=prod.tfvars -auto-approve
"""),
    ("cli_password", """\
mongosh "mongodb://10.0.3.7:27017" -u admin -p '«⦃pw⦄»' --authenticationDatabase admin --eval 'rs.status()'
"""),
    ("cli_password", """\
RSYNC_PASSWORD='«⦃pw⦄»' rsync -av --delete dist/ rsync://web@mirror.acme.dev/site/
"""),
    ("cli_password", """\
vault login -method=userpass username=ops password='«⦃pw⦄»'
"""),
    ("cli_password", """\
mc alias set minio https://minio.acme.dev ⦃up:20⦄ «⦃b62:40⦄»
mc ls minio/backups
"""),
    ("cli_password", """\
echo «ghp_⦃b62:36⦄» | gh auth login --with-token --hostname github.com
"""),
    ("cli_password", """\
$secure = ConvertTo-SecureString '«⦃pw⦄»' -AsPlainText -Force
$cred = New-Object System.Management.Automation.PSCredential ('ACME\\svc_backup', $secure)
Invoke-Command -ComputerName fs01 -Credential $cred -ScriptBlock { Get-Volume }
"""),
    ("cli_password", r"""net use Z: \\fs01\finanzas /user:ACME\svc_backup «⦃pw⦄» /persistent:no
"""),
    ("cli_password", """\
sudo htpasswd -bc /etc/nginx/.htpasswd grafana «⦃pwh⦄»
"""),
    ("cli_password", """\
$ psql "host=pg-ledger.acme.local port=5432 dbname=ledger user=ledger_app password=«⦃pw⦄» sslmode=verify-full"
"""),
    # ---- HTTP headers
    ("http_authorization", """\
GET /v2/accounts/me HTTP/1.1
Host: api.acme.dev
Authorization: Bearer «⦃jwt:rs⦄»
Accept: application/json
User-Agent: insomnia/10.1.1
"""),
    ("http_authorization", """\
GET /reports/daily.csv HTTP/1.1
Host: reports.acme.internal
Authorization: Basic «⦃basic:reports⦄»
"""),
    ("http_authorization", """\
http GET https://api.acme.dev/v1/usage month==⦃date⦄ X-API-Key:«⦃b62:40⦄»
"""),
    ("http_authorization", """\
curl -s -H "Accept: application/json" -H "Authorization: SSWS «00⦃b64u:40⦄»" \\
  "https://acme.okta.com/api/v1/users?search=profile.department+eq+%22Finance%22"
"""),
    ("http_authorization", """\
curl -H "X-Vault-Token: «hvs.⦃b64u:90⦄»" https://vault.acme.internal:8200/v1/sys/mounts
"""),
    ("http_authorization", """\
curl -X GET "https://api.datadoghq.com/api/v1/monitor?group_states=alert" \\
  -H "DD-API-KEY: «⦃hex:32⦄»" \\
  -H "DD-APPLICATION-KEY: «⦃hex:40⦄»"
"""),
    ("http_authorization", """\
export HTTPS_PROXY=http://jdoe:«⦃pwu⦄»@proxy.acme.local:3128
export NO_PROXY=localhost,127.0.0.1,.acme.local
"""),
    ("http_authorization", """\
> POST /api/v4/graphql HTTP/2
> Host: api.linear.app
> Authorization: «lin_api_⦃b62:40⦄»
> Content-Type: application/json
"""),
    ("http_authorization", """\
import requests

r = requests.get(
    "https://api.acme.dev/v1/invoices",
    headers={"Authorization": "Token «⦃hex:40⦄»"},
    timeout=10,
)
"""),
    # ---- cookies and sessions
    ("session_cookie", """\
GET /admin/ HTTP/1.1
Host: backoffice.acme.dev
Cookie: csrftoken=⦃b62:32⦄; sessionid=«⦃low:32⦄»
"""),
    ("session_cookie", """\
HTTP/2 200
content-type: text/html; charset=utf-8
set-cookie: __Host-session=«⦃b64u:43⦄»; Path=/; Secure; HttpOnly; SameSite=Lax
set-cookie: theme=dark; Path=/; Max-Age=31536000
"""),
    ("session_cookie", """\
curl 'https://portal.acme.dev/api/me' -H 'cookie: connect.sid=«s%3A⦃b64u:32⦄.⦃b64u:43⦄»; _ga=GA1.1.⦃dig:10⦄.⦃epoch⦄'
"""),
    ("session_cookie", """\
curl -b 'JSESSIONID=«⦃HEX:32⦄»' https://intranet.acme.local/admin/users?page=2
"""),
    ("session_cookie", """\
Cookie: _acme_session=«⦃b64u:180⦄--⦃b64u:16⦄--⦃b64u:22⦄»; locale=es-AR
"""),
    ("session_cookie", """\
Cookie: XSRF-TOKEN=⦃b64u:120⦄; laravel_session=«⦃b64of:{"iv":"⟨rb64:16⟩","value":"⟨rb64:64⟩","mac":"⟨hex:64⟩","tag":""}⦄»
"""),
    ("session_cookie", """\
[
  {"domain": ".linkedin.com", "name": "li_at", "value": "«AQEDA⦃b64u:150⦄»", "httpOnly": true, "secure": true},
  {"domain": ".linkedin.com", "name": "lang", "value": "v=2&lang=es-es", "httpOnly": false, "secure": true}
]
"""),
    ("session_cookie", """\
cookies = {"sessionid": "«⦃dig:11⦄%3A⦃b62:14⦄%3A⦃int:1-30⦄%3A⦃b64u:40⦄»", "ds_user_id": "⦃dig:11⦄"}
resp = session.get("https://www.instagram.com/api/v1/users/web_profile_info/?username=acme", cookies=cookies)
"""),
    ("session_cookie", """\
PHPSESSID=«⦃low:26⦄» -- copied from devtools, use it to reproduce the cart bug without logging in
"""),
    # ---- private keys in many wrappings
    ("private_key", """\
# group_vars/deploy/vault_plain.yml  (meant to be encrypted, was not)
deploy_ssh_key: |
  -----BEGIN OPENSSH PRIVATE KEY-----
  «⦃pem:openssh:2⦄»
  -----END OPENSSH PRIVATE KEY-----
"""),
    ("private_key", """\
resource "tls_locally_signed_cert" "edge" {
  cert_request_pem   = tls_cert_request.edge.cert_request_pem
  ca_private_key_pem = <<-EOT
    -----BEGIN EC PRIVATE KEY-----
    «⦃pem:ec:4⦄»
    -----END EC PRIVATE KEY-----
  EOT
  ca_cert_pem = file("ca.pem")
  validity_period_hours = 8760
}
"""),
    ("private_key", r"""JWT_ISSUER=https://auth.acme.dev
JWT_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\n«⦃pemesc:pkcs8⦄»\n-----END PRIVATE KEY-----"
"""),
    ("private_key", """\
-----BEGIN ENCRYPTED PRIVATE KEY-----
«⦃pem:enc⦄»
-----END ENCRYPTED PRIVATE KEY-----
passphrase for the above: «⦃pp:4⦄»
"""),
    ("private_key", """\
# Secrets to add in GitHub → Settings → Secrets → Actions
APPLE_API_KEY_ID=⦃up:10⦄
APPLE_API_ISSUER=⦃uuid⦄
APPLE_API_KEY_P8_BASE64=«⦃pemb64:ec8⦄»
"""),
    ("private_key", """\
PuTTY-User-Key-File-3: ssh-ed25519
Encryption: none
Comment: eddsa-key-⦃dig:8⦄
Public-Lines: 1
⦃sshpub:ed25519⦄
Private-Lines: 1
«⦃rb64:36⦄»
Private-MAC: ⦃hex:64⦄
"""),
    ("private_key", """\
-----BEGIN PGP PRIVATE KEY BLOCK-----

«⦃pgp⦄»
-----END PGP PRIVATE KEY BLOCK-----
"""),
    ("private_key", """\
{"keys":[{"kty":"EC","crv":"P-256","kid":"⦃b64u:12⦄","use":"sig","x":"⦃rb64u:32⦄","y":"⦃rb64u:32⦄","d":"«⦃rb64u:32⦄»"}]}
"""),
    ("private_key", """\
const jwk = {
  kty: "OKP",
  crv: "Ed25519",
  x: "⦃rb64u:32⦄",
  d: "«⦃rb64u:32⦄»",
};
"""),
    ("private_key", r"""{
  "key_id": "⦃up:10⦄",
  "issuer_id": "⦃uuid⦄",
  "key": "-----BEGIN PRIVATE KEY-----\n«⦃pemesc:ec8⦄»\n-----END PRIVATE KEY-----",
  "in_house": false
}
"""),
    ("private_key", r"""APP_ID=⦃int:100000-999999⦄
WEBHOOK_SECRET=«⦃hex:40⦄»
PRIVATE_KEY="-----BEGIN RSA PRIVATE KEY-----\n«⦃pemesc:rsa⦄»\n-----END RSA PRIVATE KEY-----\n"
"""),
    ("private_key", """\
package license

const signingKey = `-----BEGIN EC PRIVATE KEY-----
«⦃pem:ec⦄»
-----END EC PRIVATE KEY-----`
"""),
    ("private_key", """\
La llave para entrar al bastión de Mendoza (guardala en ~/.ssh/bastion_mza y chmod 600):

-----BEGIN RSA PRIVATE KEY-----
«⦃pem:rsa⦄»
-----END RSA PRIVATE KEY-----
"""),
    ("private_key", """\
apiVersion: v1
kind: Secret
type: kubernetes.io/tls
metadata:
  name: wildcard-acme-dev
data:
  tls.crt: ⦃pemb64:cert⦄
  tls.key: «⦃pemb64:pkcs8⦄»
"""),
    ("signing_key_file", """\
# created: ⦃ts⦄
# public key: age1⦃bech:58⦄
«AGE-SECRET-KEY-1⦃BECH:58⦄»
"""),
    ("signing_key_file", """\
$ cat ~/.minisign/minisign.key
untrusted comment: minisign encrypted secret key
«RWRTY0Iy⦃rb64:152⦄»
"""),
    ("signing_key_file", """\
-----BEGIN ENCRYPTED SIGSTORE PRIVATE KEY-----
«⦃b64lines:420:64⦄»
-----END ENCRYPTED SIGSTORE PRIVATE KEY-----

COSIGN_PASSWORD=«⦃pp:4⦄»
"""),
    ("signing_key_file", """\
android {
    signingConfigs {
        release {
            storeFile file("../keys/acme-release.jks")
            storePassword "«⦃pw⦄»"
            keyAlias "acme"
            keyPassword "«⦃pw⦄»"
        }
    }
}
"""),
    ("signing_key_file", """\
MATCH_GIT_URL=git@github.com:acme/ios-certificates.git
MATCH_PASSWORD=«⦃pp:4⦄»
FASTLANE_USER=releases@acme.dev
"""),
    # ---- network pre-shared keys
    ("network_psk", """\
[Interface]
PrivateKey = «⦃rb64:32⦄»
Address = 10.8.0.⦃int:2-250⦄/32
DNS = 1.1.1.1

[Peer]
PublicKey = ⦃rb64:32⦄
PresharedKey = «⦃rb64:32⦄»
Endpoint = vpn.acme.dev:51820
AllowedIPs = 10.8.0.0/24, 10.20.0.0/16
"""),
    ("network_psk", """\
client
dev tun
proto udp
remote vpn.acme.com.ar 1194
<tls-crypt>
-----BEGIN OpenVPN Static key V1-----
«⦃hexlines:16:32⦄»
-----END OpenVPN Static key V1-----
</tls-crypt>
"""),
    ("network_psk", """\
network={
    ssid="ACME-Lab"
    key_mgmt=WPA-PSK
    psk="«⦃pwh⦄»"
}
"""),
    ("network_psk", """\
# /etc/ipsec.secrets
⦃ip⦄ ⦃ip⦄ : PSK "«⦃b62:40⦄»"
"""),
    ("network_psk", """\
client wifi-controller {
    ipaddr = 10.30.0.5
    secret = «⦃b62:24⦄»
    shortname = unifi
}
"""),
    ("network_psk", """\
vrrp_instance VI_1 {
    state MASTER
    interface eth0
    virtual_router_id 51
    priority 150
    authentication {
        auth_type PASS
        auth_pass «⦃b62:8⦄»
    }
    virtual_ipaddress { 10.0.0.100/24 }
}
"""),
    # ---- wallets
    ("wallet_key", """\
module.exports = {
  solidity: "0.8.24",
  networks: {
    sepolia: {
      url: "https://eth-sepolia.g.alchemy.com/v2/«⦃b64u:32⦄»",
      accounts: ["0x«⦃hex:64⦄»"],
    },
  },
};
"""),
    ("wallet_key", """\
$ cat ~/.config/solana/deployer.json
[«⦃intlist:64⦄»]
"""),
    ("wallet_key", """\
bitcoin-cli -rpcwallet=cold importprivkey «⦃wif⦄» "cold-2" false
"""),
    ("wallet_key", """\
NOSTR_NSEC=«nsec1⦃bech:58⦄»
NOSTR_RELAYS=wss://relay.damus.io,wss://nos.lol
"""),
    ("seed_phrase", """\
Treasury Ledger (the one in the safe) -- recovery phrase, 24 words:
«⦃words:24⦄»
"""),
    ("seed_phrase", """\
Frase semilla de la billetera de pruebas (MetaMask, red Sepolia): «⦃words:12⦄»
"""),
    ("seed_phrase", """\
MNEMONIC="«⦃words:12⦄»"
CHAIN_ID=11155111
"""),
    # ---- framework signing and encryption keys
    ("framework_secret", """\
# settings/local.py
DEBUG = True
SECRET_KEY = "«django-insecure-⦃djs:50⦄»"
ALLOWED_HOSTS = ["*"]
"""),
    ("framework_secret", """\
# settings/production.py -- temporary until we wire the secrets manager
SECRET_KEY = '«⦃djs:50⦄»'
"""),
    ("framework_secret", """\
production:
  secret_key_base: «⦃hex:128⦄»
"""),
    ("framework_secret", """\
$ cat config/master.key
«⦃hex:32⦄»
$ EDITOR=vim bin/rails credentials:edit
"""),
    ("framework_secret", """\
APP_NAME=Turnos
APP_ENV=production
APP_KEY=base64:«⦃rb64:32⦄»
APP_DEBUG=false
APP_URL=https://turnos.acme.com.ar
"""),
    ("framework_secret", """\
app = Flask(__name__)
app.config["SECRET_KEY"] = "«⦃hex:48⦄»"
app.config["SESSION_COOKIE_SECURE"] = True
"""),
    ("framework_secret", """\
app.use(session({
  secret: '«⦃b62:40⦄»',
  resave: false,
  saveUninitialized: false,
  cookie: { secure: true, maxAge: 8 * 3600 * 1000 },
}));
"""),
    ("framework_secret", """\
AUTH_SECRET="«⦃rb64:32⦄»" # Added by `npx auth`. Read more: https://cli.authjs.dev
AUTH_GITHUB_ID=Ov23li⦃b62:14⦄
AUTH_GITHUB_SECRET=«⦃hex:40⦄»
"""),
    ("framework_secret", """\
import Config

config :acme, AcmeWeb.Endpoint,
  url: [host: "acme.dev", port: 443],
  secret_key_base: "«⦃b64:64⦄»"
"""),
    ("framework_secret", """\
###> symfony/framework-bundle ###
APP_ENV=prod
APP_SECRET=«⦃hex:32⦄»
###< symfony/framework-bundle ###
"""),
    ("framework_secret", """\
server.port=8080
jwt.secret=«⦃rb64:64⦄»
jwt.expiration-ms=3600000
"""),
    ("framework_secret", """\
<system.web>
  <machineKey validationKey="«⦃HEX:128⦄»"
              decryptionKey="«⦃HEX:48⦄»"
              validation="HMACSHA256" decryption="AES" />
</system.web>
"""),
    ("framework_secret", """\
[core]
executor = CeleryExecutor
fernet_key = «⦃rb64u:32⦄=»

[webserver]
secret_key = «⦃hex:32⦄»
"""),
    ("framework_secret", """\
HOST=0.0.0.0
PORT=1337
APP_KEYS=«⦃rb64:16⦄»,«⦃rb64:16⦄»
API_TOKEN_SALT=«⦃rb64:16⦄»
ADMIN_JWT_SECRET=«⦃rb64:16⦄»
TRANSFER_TOKEN_SALT=«⦃rb64:16⦄»
JWT_SECRET=«⦃rb64:16⦄»
"""),
    ("framework_secret", """\
define( 'AUTH_KEY',         '«⦃wps:64⦄»' );
define( 'SECURE_AUTH_KEY',  '«⦃wps:64⦄»' );
define( 'LOGGED_IN_KEY',    '«⦃wps:64⦄»' );
define( 'NONCE_KEY',        '«⦃wps:64⦄»' );
"""),
    ("framework_secret", """\
N8N_ENCRYPTION_KEY=«⦃b62:32⦄»
N8N_HOST=n8n.acme.dev
WEBHOOK_URL=https://n8n.acme.dev/
"""),
    ("framework_secret", """\
[security]
INSTALL_LOCK   = true
SECRET_KEY     = «⦃b62:64⦄»
INTERNAL_TOKEN = «⦃jwt:hs⦄»

[oauth2]
JWT_SECRET = «⦃b64u:43⦄»
"""),
    ("framework_secret", """\
[security]
admin_user = admin
admin_password = «⦃pw⦄»
secret_key = «⦃b62:32⦄»
"""),
    ("framework_secret", """\
SECRET_KEY_BASE=«⦃hex:128⦄»
OTP_SECRET=«⦃hex:128⦄»
VAPID_PRIVATE_KEY=«⦃rb64u:32⦄=»
VAPID_PUBLIC_KEY=B⦃b64u:86⦄=
"""),
    ("framework_secret", """\
const token = jwt.sign({ sub: user.id, role: user.role }, "«⦃b62:48⦄»", { expiresIn: "1h" });
"""),
    ("framework_secret", """\
var hmacKey = []byte("«⦃b64:44⦄»")

func sign(msg []byte) []byte {
	m := hmac.New(sha256.New, hmacKey)
	m.Write(msg)
	return m.Sum(nil)
}
"""),
    ("framework_secret", """\
ktor {
  deployment { port = 8080 }
}
jwt {
  issuer = "https://api.acme.dev"
  audience = "acme-mobile"
  secret = "«⦃b62:40⦄»"
}
"""),
    ("oauth_client_secret", """\
KC_REALM=acme
KC_CLIENT_ID=backoffice
KC_CLIENT_SECRET=«⦃b62:32⦄»
"""),
    ("oauth_client_secret", """\
{
  "domain": "acme.us.auth0.com",
  "clientId": "⦃b62:32⦄",
  "clientSecret": "«⦃b64u:64⦄»",
  "audience": "https://api.acme.dev"
}
"""),
    ("oauth_client_secret", """\
INNGEST_EVENT_KEY=«⦃b64u:86⦄»
INNGEST_SIGNING_KEY=«signkey-prod-⦃hex:64⦄»
"""),
    ("oauth_client_secret", """\
const wh = new Webhook("«whsec_⦃rb64:24⦄»");
const payload = wh.verify(body, headers);
"""),
    ("saas_token", """\
SHOPIFY_API_KEY=⦃hex:32⦄
SHOPIFY_API_SECRET=«shpss_⦃hex:32⦄»
SHOPIFY_ADMIN_ACCESS_TOKEN=«shpat_⦃hex:32⦄»
SHOPIFY_STORE=acme-argentina.myshopify.com
"""),
    # ---- JWTs seen in the wild
    ("jwt_token", """\
> localStorage.getItem("auth")
'{"accessToken":"«⦃jwt:rs⦄»","refreshToken":"«⦃b64u:64⦄»","expiresAt":⦃epoch⦄}'
"""),
    ("jwt_token", """\
[⦃ts⦄] WARN  api.middleware.auth  token rejected: signature expired  token=«⦃jwt:hs⦄» path=/v1/orders ip=⦃ip⦄
"""),
    ("jwt_token", """\
me sale 401 con este token: «⦃jwt:rs⦄» ¿alguien sabe si ya venció o es el audience?
"""),
    # ---- URLs that are the credential
    ("presigned_url", """\
https://acme-reports.s3.eu-west-1.amazonaws.com/exports/⦃uuid⦄.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=«AKIA⦃up:16⦄»%2F⦃dig:8⦄%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=⦃dig:8⦄T⦃dig:6⦄Z&X-Amz-Expires=3600&X-Amz-SignedHeaders=host&X-Amz-Signature=«⦃hex:64⦄»
"""),
    ("presigned_url", """\
descargalo desde acá antes de las 18 hs: https://acme-media.s3.amazonaws.com/raw/entrevista-⦃int:1-99⦄.mp4?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=«ASIA⦃up:16⦄»%2F⦃dig:8⦄%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=⦃dig:8⦄T⦃dig:6⦄Z&X-Amz-Expires=21600&X-Amz-Security-Token=«IQoJb3JpZ2luX2VjE⦃rb64pct:200⦄»&X-Amz-SignedHeaders=host&X-Amz-Signature=«⦃hex:64⦄»
"""),
    ("presigned_url", """\
https://⦃hex:32⦄.r2.cloudflarestorage.com/uploads/avatar-⦃int:1000-99999⦄.png?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=⦃hex:32⦄%2F⦃dig:8⦄%2Fauto%2Fs3%2Faws4_request&X-Amz-Date=⦃dig:8⦄T⦃dig:6⦄Z&X-Amz-Expires=900&X-Amz-SignedHeaders=host&X-Amz-Signature=«⦃hex:64⦄»
"""),
    ("presigned_url", """\
https://storage.googleapis.com/acme-ml-datasets/train/shard-00007.parquet?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=signer%40acme-ml.iam.gserviceaccount.com%2F⦃dig:8⦄%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=⦃dig:8⦄T⦃dig:6⦄Z&X-Goog-Expires=604800&X-Goog-SignedHeaders=host&X-Goog-Signature=«⦃hex:512⦄»
"""),
    ("presigned_url", """\
https://d⦃low:13⦄.cloudfront.net/courses/intro/lesson-3.m3u8?Expires=⦃epoch⦄&Signature=«⦃b64u:172⦄»&Key-Pair-Id=K⦃up:13⦄
"""),
    ("capability_url", """\
Hi Lucía, here is your password reset link (valid for 1 hour):
https://app.acme.dev/reset-password?email=lucia%40acme.dev&token=«⦃b64u:43⦄»
"""),
    ("capability_url", """\
Click to sign in: https://app.acme.dev/auth/magic?token=«⦃b64u:48⦄»&redirect=%2Fdashboard
"""),
    ("capability_url", """\
    To access the server, open this file in a browser:
        file:///home/dev/.local/share/jupyter/runtime/jpserver-⦃int:1000-99999⦄-open.html
    Or copy and paste one of these URLs:
        http://127.0.0.1:8888/lab?token=«⦃hex:48⦄»
"""),
    ("capability_url", """\
Secret address in iCal format (calendario de guardias):
https://calendar.google.com/calendar/ical/guardias%40acme.com.ar/private-«⦃hex:32⦄»/basic.ics
"""),
    ("capability_url", """\
https://firebasestorage.googleapis.com/v0/b/acme-rewards.appspot.com/o/receipts%2F⦃hex:20⦄.pdf?alt=media&token=«⦃uuid⦄»
"""),
    ("capability_url", """\
Join Zoom Meeting
https://acme.zoom.us/j/⦃dig:11⦄?pwd=«⦃b62:32⦄».1
Meeting ID: ⦃dig:3⦄ ⦃dig:4⦄ ⦃dig:4⦄
"""),
    ("capability_url", """\
Invite for the new contractor (single use): https://app.acme.dev/invite/accept?code=«⦃b62:40⦄»
"""),
    ("capability_url", """\
fetch(`https://api.openweathermap.org/data/2.5/weather?q=Rosario,AR&units=metric&appid=«⦃hex:32⦄»`)
"""),
    ("capability_url", """\
<img src="https://maps.googleapis.com/maps/api/staticmap?center=-34.6037,-58.3816&zoom=14&size=600x300&key=«AIza⦃b64u:35⦄»">
"""),
    ("capability_url", """\
Catch hook for the CRM → Sheets zap: https://hooks.zapier.com/hooks/catch/⦃dig:7⦄/«⦃low:7⦄»/
"""),
    # ---- TOTP seeds
    ("totp_seed", """\
otpauth://totp/ACME%20VPN:jdoe?secret=«⦃b32:32⦄»&issuer=ACME%20VPN&algorithm=SHA1&digits=6&period=30
"""),
    ("totp_seed", """\
2FA setup key for the shared root account of the billing AWS org (add it to the team 1Password, then delete this note):
«⦃b32g:8⦄»
"""),
    ("totp_seed", """\
>>> import pyotp
>>> pyotp.TOTP("«⦃b32:16⦄»").now()
'⦃dig:6⦄'
"""),
    ("totp_seed", """\
Clave de configuración del doble factor de la cuenta de AFIP del estudio: «⦃b32:32⦄» (cargarla en el Authy del celular de guardia)
"""),
    # ---- recovery codes and recovery keys
    ("recovery_code", """\
acme-ops-github-recovery-codes.txt

«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
"""),
    ("recovery_code", """\
Backup codes for ops@acme.dev (Google Workspace)
1. «⦃gcode⦄»    2. «⦃gcode⦄»
3. «⦃gcode⦄»    4. «⦃gcode⦄»
5. «⦃gcode⦄»    6. «⦃gcode⦄»
"""),
    ("recovery_code", """\
BitLocker recovery key for LAPTOP-⦃up:7⦄ (Recovery key ID: ⦃UUID⦄):
«⦃blk⦄»
"""),
    ("recovery_code", """\
1Password emergency kit of the finance vault owner:
Sign-in address: acme.1password.com
Email: finanzas@acme.com.ar
Secret Key: «A3-⦃up:6⦄-⦃up:6⦄-⦃up:5⦄-⦃up:5⦄-⦃up:5⦄-⦃up:5⦄»
"""),
    ("recovery_code", """\
Recovery key del Apple ID de la empresa (lo pidió Apple al activar Advanced Data Protection):
«⦃up:4⦄-⦃up:4⦄-⦃up:4⦄-⦃up:4⦄-⦃up:4⦄-⦃up:4⦄-⦃up:4⦄»
"""),
    ("recovery_code", """\
códigos de respaldo de la cuenta de Cloudflare (usé el primero):
«⦃low:4⦄-⦃low:4⦄-⦃low:4⦄» (usado)
«⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
«⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
«⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
"""),
    ("recovery_code", """\
Proton account recovery phrase: «⦃words:12⦄»
"""),
    ("app_password", """\
xcrun altool --upload-app -f build/Acme.ipa -t ios \\
  -u releases@acme.dev -p «⦃lower:4⦄-⦃lower:4⦄-⦃lower:4⦄-⦃lower:4⦄»
"""),
    ("app_password", """\
EMAIL_HOST = "smtp.gmail.com"
EMAIL_PORT = 587
EMAIL_HOST_USER = "reportes.acme@gmail.com"
EMAIL_HOST_PASSWORD = "«⦃lower:4⦄ ⦃lower:4⦄ ⦃lower:4⦄ ⦃lower:4⦄»"  # app password
"""),
    # ---- tokens in logs and stack traces
    ("log_leak", """\
Traceback (most recent call last):
  File "/app/worker.py", line 41, in <module>
    engine = create_engine(settings.DB_URL)
  File "/usr/local/lib/python3.12/site-packages/sqlalchemy/engine/create.py", line 564, in create_engine
    u = _url.make_url(url)
sqlalchemy.exc.ArgumentError: Could not parse SQLAlchemy URL from string 'postgres//etl:«⦃pwu⦄»@warehouse.internal:5432/dw'
"""),
    ("log_leak", """\
AxiosError: Request failed with status code 429
    at settle (/srv/app/node_modules/axios/lib/core/settle.js:19:12)
    at IncomingMessage.handleStreamEnd (/srv/app/node_modules/axios/lib/adapters/http.js:599:11) {
  code: 'ERR_BAD_REQUEST',
  config: {
    method: 'post',
    url: 'https://api.openai.com/v1/chat/completions',
    headers: Object [AxiosHeaders] {
      Accept: 'application/json, text/plain, */*',
      'Content-Type': 'application/json',
      Authorization: 'Bearer «sk-proj-⦃b64u:74⦄T3BlbkFJ⦃b64u:74⦄»',
"""),
    ("log_leak", """\
⦃ts⦄ ERROR o.h.engine.jdbc.spi.SqlExceptionHelper - Communications link failure
  url=jdbc:mysql://db-shop:3306/shop?user=shop&password=«⦃pwu⦄»&useSSL=true&serverTimezone=UTC
"""),
    ("log_leak", """\
⦃ip⦄ - - [12/Nov/2025:14:03:11 +0000] "GET /v1/export?format=csv&api_key=«⦃b62:32⦄» HTTP/1.1" 200 48211 "-" "python-requests/2.32.3"
"""),
    ("log_leak", """\
panic: redis: dial tcp: lookup redis-master on 10.96.0.10:53: no such host (url=redis://:«⦃b62:24⦄»@redis-master:6379/0)

goroutine 1 [running]:
main.mustRedis(...)
	/src/cmd/worker/main.go:58 +0x1c5
"""),
    ("log_leak", """\
#9 [build 4/9] RUN NPM_TOKEN=«npm_⦃b62:36⦄» npm ci --no-audit
#9 2.114 npm warn deprecated inflight@1.0.6: This module is not supported
#9 DONE 31.2s
"""),
    ("log_leak", """\
Run echo "registry token: $(cat .ci/registry-token)"
registry token: «glpat-⦃b64u:20⦄»
"""),
    ("log_leak", """\
Environment:
  NODE_ENV:        production
  PORT:            8080
  PAYMENTS_API_KEY:  «sk_live_51⦃b62:97⦄»
  DATABASE_URL:    <set to the key 'url' in secret 'orders-db'>  Optional: false
"""),
    ("log_leak", """\
Terraform will perform the following actions:

  # module.db.aws_db_instance.main will be updated in-place
  ~ resource "aws_db_instance" "main" {
        id       = "orders-prod"
      ~ password = (sensitive value)
        tags     = {}
    }

  # module.legacy.null_resource.bootstrap must be replaced
-/+ resource "null_resource" "bootstrap" {
      ~ triggers = {
          ~ "admin_password" = "«⦃pw⦄»" -> "«⦃pw⦄»"
        }
    }
"""),
    ("log_leak", """\
Me tira este error al hacer push: `remote: HTTP Basic: Access denied. The token «glpat-⦃b64u:20⦄» lacks the write_repository scope`
"""),
    ("log_leak", """\
[⦃ts⦄] INFO  httpx: HTTP Request: POST https://api.telegram.org/bot«⦃dig:10⦄:AA⦃b64u:33⦄»/sendMessage "HTTP/1.1 200 OK"
"""),
    # ---- CI variables written in the clear
    ("ci_variable", """\
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/setup-node@v4
        with:
          node-version: 22
          registry-url: https://registry.npmjs.org
      - run: npm publish --provenance --access public
        env:
          NODE_AUTH_TOKEN: «npm_⦃b62:36⦄»
"""),
    ("ci_variable", """\
variables:
  SONAR_HOST_URL: https://sonar.acme.dev
  SONAR_TOKEN: «sqp_⦃hex:40⦄»

sonarqube-check:
  image: sonarsource/sonar-scanner-cli:latest
  script: sonar-scanner
"""),
    ("ci_variable", """\
version: 2.1
jobs:
  trigger-e2e:
    docker: [{image: cimg/base:current}]
    environment:
      CIRCLE_TOKEN: «CCIPAT_⦃b62:22⦄_⦃hex:40⦄»
    steps:
      - run: curl -X POST -H "Circle-Token: $CIRCLE_TOKEN" https://circleci.com/api/v2/project/gh/acme/e2e/pipeline
"""),
    ("ci_variable", """\
BUILDKITE_API_TOKEN=«bkua_⦃hex:40⦄»
"""),
    ("ci_variable", """\
pipeline {
  agent any
  stages {
    stage('Trigger downstream') {
      steps {
        sh 'curl -X POST -u jenkins-bot:«11⦃hex:32⦄» https://ci.acme.local/job/integration/build'
      }
    }
  }
}
"""),
    ("ci_variable", """\
variables:
  - name: ARM_CLIENT_ID
    value: ⦃uuid⦄
  - name: ARM_CLIENT_SECRET
    value: «⦃azs:3⦄8Q~⦃azs:34⦄»
"""),
    ("ci_variable", """\
pipelines:
  default:
    - step:
        name: Security scan
        script:
          - export SNYK_TOKEN=«⦃uuid⦄»
          - snyk test --severity-threshold=high
"""),
    ("ci_variable", """\
env:
  EXPO_TOKEN: «⦃b62:40⦄»
  CODECOV_TOKEN: «⦃uuid⦄»
  CHROMATIC_PROJECT_TOKEN: «chpt_⦃hex:14⦄»
"""),
    ("ci_variable", """\
# .woodpecker.yml
steps:
  deploy:
    image: alpine
    environment:
      HARNESS_API_KEY: «pat.⦃b62:22⦄.⦃hex:24⦄.⦃b62:20⦄»
    commands:
      - ./scripts/deploy.sh
"""),
    # ---- SaaS API tokens
    ("saas_token", """\
NOTION_TOKEN=«ntn_⦃dig:11⦄⦃b62:35⦄»
NOTION_DATABASE_ID=⦃hex:32⦄
"""),
    ("saas_token", """\
const base = new Airtable({ apiKey: "«pat⦃b62:14⦄.⦃hex:64⦄»" }).base("app⦃b62:14⦄");
"""),
    ("saas_token", """\
HUBSPOT_ACCESS_TOKEN=«pat-na1-⦃uuid⦄»
"""),
    ("saas_token", """\
curl -H 'X-Figma-Token: «figd_⦃b64u:40⦄»' 'https://api.figma.com/v1/files/⦃b62:22⦄/nodes?ids=12:3456'
"""),
    ("saas_token", """\
asana:
  workspace: "⦃dig:16⦄"
  personal_access_token: "«2/⦃dig:16⦄/⦃dig:16⦄:⦃hex:32⦄»"
"""),
    ("saas_token", """\
curl https://acme.zendesk.com/api/v2/tickets.json -u soporte@acme.com.ar/token:«⦃b62:40⦄»
"""),
    ("saas_token", """\
INTERCOM_ACCESS_TOKEN=«⦃b64of:tok:⟨uuid⟩:1:0⦄»
"""),
    ("saas_token", """\
postman collection run ⦃uuid⦄ --env-var baseUrl=https://api.acme.dev --postman-api-key «PMAK-⦃hex:24⦄-⦃hex:34⦄»
"""),
    ("saas_token", """\
CONTENTFUL_SPACE_ID=⦃low:12⦄
CONTENTFUL_MANAGEMENT_TOKEN=«CFPAT-⦃b64u:43⦄»
SANITY_API_WRITE_TOKEN=«sk⦃b62:180⦄»
"""),
    ("saas_token", """\
# android/gradle.properties
MAPBOX_DOWNLOADS_TOKEN=«⦃mbx:sk⦄»
"""),
    ("saas_token", """\
ALGOLIA_APP_ID=⦃up:10⦄
ALGOLIA_SEARCH_KEY=⦃hex:32⦄
ALGOLIA_ADMIN_KEY=«⦃hex:32⦄»
"""),
    ("saas_token", """\
TYPESENSE_API_KEY=«⦃b62:32⦄»
MEILI_MASTER_KEY=«⦃b64u:32⦄»
"""),
    ("saas_token", """\
LAUNCHDARKLY_CLIENT_SIDE_ID=⦃hex:24⦄
LAUNCHDARKLY_SDK_KEY=«sdk-⦃uuid⦄»
STATSIG_CLIENT_KEY=client-⦃b62:43⦄
STATSIG_SERVER_SECRET=«secret-⦃b62:43⦄»
"""),
    ("saas_token", """\
NEXT_PUBLIC_RECAPTCHA_SITE_KEY=6L⦃b64u:38⦄
RECAPTCHA_SECRET_KEY=«6L⦃b64u:38⦄»
NEXT_PUBLIC_TURNSTILE_SITE_KEY=0x4AAAAAAA⦃b64u:14⦄
TURNSTILE_SECRET_KEY=«0x4AAAAAAA⦃b64u:24⦄»
"""),
    ("saas_token", """\
sf org login access-token --instance-url https://acme.my.salesforce.com --no-prompt
# SF_ACCESS_TOKEN=«00D⦃b62:12⦄!AQ⦃b62:4⦄A⦃b64u:90⦄»
"""),
    ("saas_token", """\
SPOTIFY_CLIENT_ID=⦃hex:32⦄
SPOTIFY_CLIENT_SECRET=«⦃hex:32⦄»
TWITCH_CLIENT_SECRET=«⦃low:30⦄»
"""),
    ("saas_token", """\
CAL_API_KEY=«cal_live_⦃hex:32⦄»
"""),
]

# --------------------------------------------------------------------------- ordinary

ORDINARY: list[tuple[str, str]] = [
    # ---- hashes and checksums
    ("checksum", """\
$ sha256sum node-v22.11.0-linux-x64.tar.xz
⦃hex:64⦄  node-v22.11.0-linux-x64.tar.xz
"""),
    ("checksum", """\
⦃hex:64⦄  terraform_1.10.2_darwin_amd64.zip
⦃hex:64⦄  terraform_1.10.2_darwin_arm64.zip
⦃hex:64⦄  terraform_1.10.2_linux_amd64.zip
⦃hex:64⦄  terraform_1.10.2_linux_arm64.zip
⦃hex:64⦄  terraform_1.10.2_windows_amd64.zip
"""),
    ("checksum", """\
md5sum debian-12.8.0-amd64-netinst.iso
⦃hex:32⦄  debian-12.8.0-amd64-netinst.iso
"""),
    ("checksum", """\
$ shasum -a 1 dist/*.whl
⦃hex:40⦄  dist/acme_money-⦃ver⦄-py3-none-any.whl
"""),
    ("checksum", """\
class Acmectl < Formula
  desc "Command-line client for the Acme platform"
  homepage "https://github.com/acme/acmectl"
  url "https://github.com/acme/acmectl/archive/refs/tags/v⦃ver⦄.tar.gz"
  sha256 "⦃hex:64⦄"
  license "Apache-2.0"
end
"""),
    ("checksum", """\
RUN curl -fsSLo /usr/local/bin/kubectl https://dl.k8s.io/release/v1.31.2/bin/linux/amd64/kubectl \\
 && echo "⦃hex:64⦄  /usr/local/bin/kubectl" | sha256sum -c - \\
 && chmod +x /usr/local/bin/kubectl
"""),
    ("checksum", """\
SHA256:
 ⦃hex:64⦄   ⦃int:1000-99999⦄ main/binary-amd64/Packages
 ⦃hex:64⦄    ⦃int:1000-9999⦄ main/binary-amd64/Packages.gz
 ⦃hex:64⦄    ⦃int:100-999⦄ main/binary-amd64/Release
"""),
    ("checksum", """\
golang.org/x/crypto v0.31.0 h1:⦃rb64:32⦄
golang.org/x/crypto v0.31.0/go.mod h1:⦃rb64:32⦄
github.com/jackc/pgx/v5 v5.7.1 h1:⦃rb64:32⦄
github.com/jackc/pgx/v5 v5.7.1/go.mod h1:⦃rb64:32⦄
"""),
    ("lockfile", """\
[[package]]
name = "serde"
version = "1.0.215"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "⦃hex:64⦄"
dependencies = [
 "serde_derive",
]
"""),
    ("lockfile", """\
provider "registry.terraform.io/hashicorp/aws" {
  version     = "5.80.0"
  constraints = "~> 5.0"
  hashes = [
    "h1:⦃rb64:32⦄",
    "zh:⦃hex:64⦄",
    "zh:⦃hex:64⦄",
    "zh:⦃hex:64⦄",
  ]
}
"""),
    ("lockfile", """\
    "nixpkgs": {
      "locked": {
        "lastModified": ⦃epoch⦄,
        "narHash": "sha256-⦃rb64:32⦄",
        "owner": "NixOS",
        "repo": "nixpkgs",
        "rev": "⦃hex:40⦄",
        "type": "github"
      }
    }
"""),
    ("checksum", """\
$ nix path-info -rS ./result | tail -3
/nix/store/⦃nix⦄-openssl-3.0.15         ⦃int:1000000-9999999⦄
/nix/store/⦃nix⦄-python3-3.12.7        ⦃int:10000000-99999999⦄
/nix/store/⦃nix⦄-acme-api-⦃ver⦄         ⦃int:100000000-999999999⦄
"""),
    ("lockfile", """\
django==5.1.4 \\
    --hash=sha256:⦃hex:64⦄ \\
    --hash=sha256:⦃hex:64⦄
asgiref==3.8.1 \\
    --hash=sha256:⦃hex:64⦄
"""),
    ("lockfile", """\
[[package]]
name = "httpx"
version = "0.28.1"
description = "The next generation HTTP client."
optional = false
python-versions = ">=3.8"
files = [
    {file = "httpx-0.28.1-py3-none-any.whl", hash = "sha256:⦃hex:64⦄"},
    {file = "httpx-0.28.1.tar.gz", hash = "sha256:⦃hex:64⦄"},
]
"""),
    ("lockfile", """\
    "node_modules/lodash": {
      "version": "4.17.21",
      "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
      "integrity": "⦃sri:512⦄",
      "license": "MIT"
    },
"""),
    ("lockfile", """\
"@babel/code-frame@^7.24.7":
  version "7.26.2"
  resolved "https://registry.yarnpkg.com/@babel/code-frame/-/code-frame-7.26.2.tgz#⦃hex:40⦄"
  integrity ⦃sri:512⦄
  dependencies:
    "@babel/helper-validator-identifier" "^7.25.9"
"""),
    ("lockfile", """\
  /zod@3.23.8:
    resolution: {integrity: ⦃sri:512⦄}
    dev: false

  /ws@8.18.0:
    resolution: {integrity: ⦃sri:512⦄}
    engines: {node: '>=10.0.0'}
"""),
    ("lockfile", """\
CHECKSUMS
  actioncable (8.0.0) sha256=⦃hex:64⦄
  nokogiri (1.16.8-x86_64-linux) sha256=⦃hex:64⦄
  rack (3.1.8) sha256=⦃hex:64⦄
"""),
    ("lockfile", """\
        {
            "name": "monolog/monolog",
            "version": "3.8.0",
            "source": {
                "type": "git",
                "url": "https://github.com/Seldaek/monolog.git",
                "reference": "⦃hex:40⦄"
            },
            "dist": {
                "type": "zip",
                "url": "https://api.github.com/repos/Seldaek/monolog/zipball/⦃hex:40⦄",
                "reference": "⦃hex:40⦄",
                "shasum": ""
            }
        }
"""),
    ("lockfile", """\
dependencies:
- name: postgresql
  repository: oci://registry-1.docker.io/bitnamicharts
  version: 16.2.1
digest: sha256:⦃hex:64⦄
generated: "⦃ts⦄"
"""),
    ("checksum", """\
<script src="https://cdn.jsdelivr.net/npm/chart.js@4.4.6/dist/chart.umd.min.js"
        integrity="⦃sri:384⦄" crossorigin="anonymous"></script>
"""),
    ("checksum", """\
version https://git-lfs.github.com/spec/v1
oid sha256:⦃hex:64⦄
size ⦃int:100000-99999999⦄
"""),
    ("checksum", """\
$ git ls-tree HEAD assets/
100644 blob ⦃hex:40⦄	assets/logo.svg
100644 blob ⦃hex:40⦄	assets/favicon.ico
040000 tree ⦃hex:40⦄	assets/fonts
"""),
    ("checksum", """\
HTTP/1.1 200 OK
Content-Type: application/zip
Content-Length: ⦃int:100000-9999999⦄
ETag: "⦃hex:32⦄-⦃int:2-40⦄"
x-amz-version-id: ⦃b64u:32⦄
Content-MD5: ⦃rb64:16⦄
"""),
    ("checksum", """\
CertUtil -hashfile AcmeAgentSetup-3.4.1.msi SHA256
SHA256 hash of AcmeAgentSetup-3.4.1.msi:
⦃hex:64⦄
CertUtil: -hashfile command completed successfully.
"""),
    ("checksum", """\
$ b2sum release.tar.zst
⦃hex:128⦄  release.tar.zst
"""),
    ("checksum", """\
x-goog-hash: crc32c=⦃rb64:4⦄
x-goog-hash: md5=⦃rb64:16⦄
x-goog-generation: ⦃dig:16⦄
"""),
    ("checksum", """\
"digests": {
  "blake2b_256": "⦃hex:64⦄",
  "md5": "⦃hex:32⦄",
  "sha256": "⦃hex:64⦄"
},
"""),
    ("checksum", """\
http_archive(
    name = "rules_python",
    sha256 = "⦃hex:64⦄",
    strip_prefix = "rules_python-0.40.0",
    url = "https://github.com/bazelbuild/rules_python/releases/download/0.40.0/rules_python-0.40.0.tar.gz",
)
"""),
    ("checksum", """\
source:
  url: https://pypi.io/packages/source/a/acme-money/acme_money-{{ version }}.tar.gz
  sha256: ⦃hex:64⦄
"""),
    ("checksum", """\
$ apksigner verify --print-certs app-release.apk
Signer #1 certificate DN: CN=Acme Mobile, O=Acme SRL, C=AR
Signer #1 certificate SHA-256 digest: ⦃hex:64⦄
Signer #1 certificate SHA-1 digest: ⦃hex:40⦄
Signer #1 certificate MD5 digest: ⦃hex:32⦄
"""),
    ("checksum", """\
{
  "bomFormat": "CycloneDX",
  "components": [
    {"type": "library", "name": "jackson-databind", "version": "2.18.1",
     "hashes": [{"alg": "SHA-256", "content": "⦃hex:64⦄"}, {"alg": "SHA-1", "content": "⦃hex:40⦄"}],
     "purl": "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.18.1"}
  ]
}
"""),
    ("checksum", """\
jackson-databind-2.18.1.jar.sha1:
⦃hex:40⦄
"""),
    ("checksum", """\
Verificá el instalador antes de correrlo; el SHA-256 publicado en la página de descargas es
⦃hex:64⦄ y el que te dé `Get-FileHash` tiene que coincidir.
"""),
    ("checksum", """\
sha256:⦃hex:64⦄  acme-cli_⦃ver⦄_linux_arm64.deb
"""),
    # ---- identifiers
    ("identifier", """\
$ git log --oneline -5
⦃hex:7⦄ (HEAD -> main, origin/main) fix(api): paginate /v1/invoices by created_at
⦃hex:7⦄ chore(deps): bump ruff to 0.8.2
⦃hex:7⦄ feat(web): dark mode toggle
⦃hex:7⦄ Merge pull request #⦃int:100-999⦄ from acme/renovate/postgres-17
⦃hex:7⦄ docs: document the export endpoints
"""),
    ("identifier", """\
commit ⦃hex:40⦄
Author: Sofía Ibarra <sofia@acme.dev>
Date:   Tue Nov 11 14:22:09 2025 -0300

    fix(billing): round half-even when splitting VAT
"""),
    ("identifier", """\
      - uses: actions/checkout@⦃hex:40⦄ # v4.2.2
      - uses: actions/setup-python@⦃hex:40⦄ # v5.3.0
      - uses: docker/build-push-action@⦃hex:40⦄ # v6.10.0
"""),
    ("identifier", """\
{"level":"info","ts":"⦃ts⦄","msg":"request finished","request_id":"⦃uuid⦄","trace_id":"⦃hex:32⦄","span_id":"⦃hex:16⦄","status":200,"duration_ms":⦃int:1-900⦄}
"""),
    ("identifier", """\
traceparent: 00-⦃hex:32⦄-⦃hex:16⦄-01
tracestate: dd=s:1;o:rum
X-Request-Id: ⦃uuid⦄
X-Amzn-Trace-Id: Root=1-⦃hex:8⦄-⦃hex:24⦄;Parent=⦃hex:16⦄;Sampled=1
cf-ray: ⦃hex:16⦄-EZE
"""),
    ("identifier", """\
An error occurred (AccessDenied) when calling the GetObject operation: Access Denied
RequestId: ⦃up:16⦄  HostId: ⦃rb64:56⦄
"""),
    ("identifier", """\
Sentry event ⦃hex:32⦄ -- TypeError: Cannot read properties of undefined (reading 'total')
  release: web@⦃ver⦄+⦃hex:7⦄  environment: production
"""),
    ("identifier", """\
Payment pi_⦃b62:24⦄ succeeded for customer cus_⦃b62:14⦄ (invoice in_⦃b62:24⦄, charge ch_⦃b62:24⦄).
Webhook event evt_⦃b62:24⦄ delivered in 212 ms.
"""),
    ("identifier", """\
$ docker ps --no-trunc --format '{{.ID}} {{.Names}}'
⦃hex:64⦄ orders-api-1
⦃hex:64⦄ orders-worker-1
⦃hex:64⦄ orders-db-1
"""),
    ("identifier", """\
Containers:
  api:
    Container ID:   containerd://⦃hex:64⦄
    Image:          ghcr.io/acme/orders-api:⦃ver⦄
    Image ID:       ghcr.io/acme/orders-api@sha256:⦃hex:64⦄
    State:          Running
"""),
    ("identifier", """\
metadata:
  name: orders-api-⦃low:10⦄-⦃low:5⦄
  namespace: orders
  uid: ⦃uuid⦄
  resourceVersion: "⦃int:100000-9999999⦄"
  ownerReferences:
  - apiVersion: apps/v1
    kind: ReplicaSet
    name: orders-api-⦃low:10⦄
    uid: ⦃uuid⦄
"""),
    ("identifier", """\
/subscriptions/⦃uuid⦄/resourceGroups/rg-acme-prod/providers/Microsoft.Web/sites/acme-thumbs
"""),
    ("identifier", """\
arn:aws:iam::⦃dig:12⦄:role/github-actions-deploy
arn:aws:secretsmanager:us-east-1:⦃dig:12⦄:secret:prod/orders/db-⦃b62:6⦄
arn:aws:kms:us-east-1:⦃dig:12⦄:key/⦃uuid⦄
"""),
    ("identifier", """\
Message SM⦃hex:32⦄ to +54911⦃dig:8⦄: delivered (account AC⦃hex:32⦄, service MG⦃hex:32⦄)
"""),
    ("identifier", """\
ObjectId("⦃hex:24⦄")  { "_id": ObjectId("⦃hex:24⦄"), "sku": "CAF-⦃int:100-999⦄", "stock": ⦃int:0-500⦄ }
"""),
    ("identifier", """\
events_⦃ulid⦄.parquet
events_⦃ulid⦄.parquet
events_⦃ulid⦄.parquet
"""),
    ("identifier", """\
{"id":"chatcmpl-⦃b62:29⦄","object":"chat.completion","created":⦃epoch⦄,"model":"gpt-4o-mini-2024-07-18","system_fingerprint":"fp_⦃hex:10⦄"}
"""),
    ("identifier", """\
{"id":"msg_01⦃b62:22⦄","type":"message","role":"assistant","model":"claude-sonnet-4-5","stop_reason":"tool_use","content":[{"type":"tool_use","id":"toolu_01⦃b62:22⦄","name":"get_weather","input":{"city":"Salta"}}]}
request-id: req_011C⦃b62:20⦄
"""),
    ("identifier", """\
file-⦃b62:22⦄  batch_input.jsonl  uploaded
batch_⦃hex:32⦄  status=completed  output_file_id=file-⦃b62:22⦄
"""),
    ("identifier", """\
Deployment dpl_⦃b62:28⦄ for project prj_⦃b62:28⦄ (team team_⦃b62:24⦄) is READY
"""),
    ("identifier", """\
Slack: channel C0⦃up:9⦄ (#incidentes), user U0⦃up:9⦄ posted in thread ts=⦃epoch⦄.⦃dig:6⦄
"""),
    ("identifier", """\
Discord guild ⦃dig:19⦄, channel ⦃dig:19⦄, message ⦃dig:19⦄ -- reported by user ⦃dig:18⦄
"""),
    ("identifier", """\
# Cloudflare ids (not secret, used by the terraform provider)
account_id = "⦃hex:32⦄"
zone_id    = "⦃hex:32⦄"
"""),
    ("identifier", """\
Microsoft Visual Studio Solution File, Format Version 12.00
Project("{⦃UUID⦄}") = "Acme.Ledger", "src\\Acme.Ledger\\Acme.Ledger.csproj", "{⦃UUID⦄}"
EndProject
Project("{⦃UUID⦄}") = "Acme.Ledger.Tests", "tests\\Acme.Ledger.Tests\\Acme.Ledger.Tests.csproj", "{⦃UUID⦄}"
EndProject
"""),
    ("identifier", """\
		⦃HEX:24⦄ /* AppDelegate.swift in Sources */ = {isa = PBXBuildFile; fileRef = ⦃HEX:24⦄ /* AppDelegate.swift */; };
		⦃HEX:24⦄ /* Assets.xcassets in Resources */ = {isa = PBXBuildFile; fileRef = ⦃HEX:24⦄ /* Assets.xcassets */; };
"""),
    ("identifier", """\
fileFormatVersion: 2
guid: ⦃hex:32⦄
MonoImporter:
  externalObjects: {}
  serializedVersion: 2
"""),
    ("identifier", """\
$ cat /etc/machine-id
⦃hex:32⦄
$ journalctl --list-boots | tail -2
 -1 ⦃hex:32⦄ Mon ⦃date⦄ 08:01:12 -03—Mon ⦃date⦄ 22:40:55 -03
  0 ⦃hex:32⦄ Tue ⦃date⦄ 07:58:03 -03—Tue ⦃date⦄ 15:12:47 -03
"""),
    ("identifier", """\
UUID=⦃uuid⦄ /          ext4  defaults,noatime  0 1
UUID=⦃UUID⦄ /boot/efi  vfat  umask=0077        0 1
UUID=⦃uuid⦄ none       swap  sw                0 0
"""),
    ("identifier", """\
Figma: https://www.figma.com/design/⦃b62:22⦄/Checkout-v3?node-id=⦃int:1-999⦄-⦃int:1000-9999⦄&m=dev
Notion: https://www.notion.so/acme/Runbook-pagos-⦃hex:32⦄
Linear: ENG-⦃int:1000-9999⦄
"""),
    ("identifier", """\
Google OAuth client (web): ⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com
Authorized redirect URI: https://app.acme.dev/auth/callback/google
"""),
    ("identifier", """\
{"data":{"node":{"id":"U_kgDO⦃b64u:8⦄","login":"acme-bot"},"repository":{"id":"R_kgDO⦃b64u:8⦄","pullRequest":{"id":"PR_kwDO⦃b64u:20⦄"}}}}
"""),
    ("identifier", """\
Apple Team ID: ⦃up:10⦄
Bundle ID: ar.com.acme.turnos
App Store Connect app id: ⦃dig:10⦄
"""),
    ("identifier", """\
Firebase Android app id: 1:⦃dig:12⦄:android:⦃hex:16⦄
Firebase iOS app id:     1:⦃dig:12⦄:ios:⦃hex:16⦄
"""),
    ("identifier", """\
$ gcloud projects describe acme-analytics-⦃int:100000-999999⦄ --format='value(projectNumber)'
⦃dig:12⦄
"""),
    ("identifier", """\
Conversation ⦃dig:15⦄ in Intercom, customer id cus_⦃b62:14⦄, Zendesk ticket #⦃int:10000-99999⦄
"""),
    ("identifier", """\
resource "aws_kms_key" "orders" {
  description = "orders at rest"
}
# key id after apply: ⦃uuid⦄ (alias/orders)
"""),
    ("identifier", """\
2025-11-12 09:14:02.511 UTC [⦃int:1000-99999⦄] LOG:  checkpoint complete: wrote ⦃int:100-9999⦄ buffers; lsn=⦃HEX:1⦄/⦃HEX:8⦄, redo lsn=⦃HEX:1⦄/⦃HEX:8⦄
"""),
    # ---- public keys and certificates
    ("public_key", """\
# ~/.ssh/authorized_keys on bastion-gru
ssh-ed25519 ⦃sshpub:ed25519⦄ sofia@mbp-2023
ssh-rsa ⦃sshpub:rsa⦄ deploy@ci
ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄ nico@thinkpad
"""),
    ("public_key", """\
|1|⦃rb64:20⦄|⦃rb64:20⦄ ssh-ed25519 ⦃sshpub:ed25519⦄
github.com ssh-ed25519 ⦃sshpub:ed25519⦄
"""),
    ("public_key", """\
$ ssh-keygen -lf ~/.ssh/id_ed25519.pub
256 SHA256:⦃rb64n:32⦄ sofia@mbp-2023 (ED25519)
"""),
    ("public_key", """\
-----BEGIN PUBLIC KEY-----
⦃pem:pub⦄
-----END PUBLIC KEY-----
"""),
    ("public_key", """\
# JWT verification key for the orders service (the private half lives in KMS)
ORDERS_JWT_PUBLIC_KEY="-----BEGIN PUBLIC KEY-----
⦃pem:ecpub⦄
-----END PUBLIC KEY-----"
"""),
    ("certificate", """\
ssl_certificate     /etc/nginx/tls/acme.dev.crt;
ssl_certificate_key /etc/nginx/tls/acme.dev.key;

# /etc/nginx/tls/acme.dev.crt
-----BEGIN CERTIFICATE-----
⦃pem:cert⦄
-----END CERTIFICATE-----
"""),
    ("certificate", """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: corp-ca
data:
  ca.crt: |
    -----BEGIN CERTIFICATE-----
    ⦃pem:cert:4⦄
    -----END CERTIFICATE-----
"""),
    ("certificate", """\
apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ⦃pemb64:cert⦄
    server: https://⦃hex:32⦄.gr7.us-east-1.eks.amazonaws.com
  name: acme-prod
users:
- name: acme-prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: ["eks", "get-token", "--cluster-name", "acme-prod"]
"""),
    ("public_key", """\
{"keys":[{"kty":"RSA","use":"sig","alg":"RS256","kid":"⦃b64u:22⦄","n":"⦃rb64u:256⦄","e":"AQAB"},{"kty":"EC","use":"sig","crv":"P-256","kid":"⦃b64u:22⦄","x":"⦃rb64u:32⦄","y":"⦃rb64u:32⦄"}]}
"""),
    ("public_key", """\
-----BEGIN PGP PUBLIC KEY BLOCK-----

⦃pgp⦄
-----END PGP PUBLIC KEY BLOCK-----
"""),
    ("public_key", """\
creation_rules:
  - path_regex: secrets/prod/.*\\.yaml$
    age: >-
      age1⦃bech:58⦄,
      age1⦃bech:58⦄
  - path_regex: secrets/dev/.*\\.yaml$
    age: age1⦃bech:58⦄
"""),
    ("public_key", """\
$ sudo wg show
interface: wg0
  public key: ⦃rb64:32⦄
  private key: (hidden)
  listening port: 51820

peer: ⦃rb64:32⦄
  endpoint: ⦃ip⦄:51820
  allowed ips: 10.8.0.2/32
  latest handshake: 41 seconds ago
"""),
    ("public_key", """\
untrusted comment: minisign public key ⦃HEX:16⦄
RWQ⦃rb64:39⦄
"""),
    ("public_key", """\
$ cat cosign.pub
-----BEGIN PUBLIC KEY-----
⦃pem:ecpub⦄
-----END PUBLIC KEY-----
$ cosign verify --key cosign.pub ghcr.io/acme/orders-api:⦃ver⦄
"""),
    ("public_key", """\
@cert-authority *.acme.internal ssh-ed25519 ⦃sshpub:ed25519⦄ acme-host-ca
"""),
    ("certificate", """\
$ openssl x509 -in acme.dev.crt -noout -subject -issuer -fingerprint -sha256
subject=CN=acme.dev
issuer=C=US, O=Let's Encrypt, CN=R11
sha256 Fingerprint=⦃HEXcolon:32⦄
"""),
    ("public_key", """\
selector1._domainkey.acme.dev. 3600 IN TXT "v=DKIM1; k=rsa; p=⦃rb64:294⦄"
"""),
    ("public_key", """\
acme.dev. 3600 IN DS ⦃int:10000-65000⦄ 13 2 ⦃HEX:64⦄
"""),
    ("public_key", """\
Mirror del repo de paquetes por Tor: http://⦃b32l:56⦄.onion/debian/
"""),
    ("public_key", """\
Seguime en nostr: npub1⦃bech:58⦄
"""),
    ("public_key", """\
Donaciones (USDC en Base): 0x⦃hex:40⦄
BTC: bc1q⦃bech:38⦄
"""),
    ("blockchain_data", """\
Transfer confirmed in block ⦃int:20000000-23000000⦄
  tx hash:    0x⦃hex:64⦄
  block hash: 0x⦃hex:64⦄
  from 0x⦃hex:40⦄ to 0x⦃hex:40⦄  value 250.00 USDC
"""),
    ("blockchain_data", """\
Solana tx ⦃b58:88⦄ finalized in slot ⦃int:280000000-330000000⦄; fee payer ⦃b58:44⦄
"""),
    ("blockchain_data", """\
Watch-only wallet for the donations account (public):
xpub6⦃b58:106⦄
"""),
    ("public_key", """\
VAPID public key (goes in the frontend, safe to share): B⦃b64u:86⦄
"""),
    ("certificate", """\
-----BEGIN CERTIFICATE REQUEST-----
⦃pem:pub⦄
-----END CERTIFICATE REQUEST-----
"""),
    ("public_key", """\
{
  "signed": {
    "_type": "root",
    "keys": {
      "⦃hex:64⦄": {"keytype": "ed25519", "scheme": "ed25519", "keyval": {"public": "⦃hex:64⦄"}}
    },
    "version": 3
  }
}
"""),
    ("public_key", """\
$ gpg --list-keys releases@acme.dev
pub   ed25519 2024-03-01 [SC] [expires: 2027-03-01]
      ⦃HEX:40⦄
uid           [ultimate] Acme Releases <releases@acme.dev>
sub   cv25519 2024-03-01 [E] [expires: 2027-03-01]
"""),
    ("public_key", """\
gpg: Signature made Wed ⦃date⦄ 10:12:44 -03
gpg:                using EDDSA key ⦃HEX:40⦄
gpg: Good signature from "Acme Releases <releases@acme.dev>" [ultimate]
Primary key fingerprint: ⦃HEX4g:10⦄
"""),
    ("public_key", """\
Public-Key-Pins: pin-sha256="⦃rb64:32⦄"; pin-sha256="⦃rb64:32⦄"; max-age=5184000
"""),
    # ---- keys documented as public
    ("publishable_key", """\
const stripe = await loadStripe("pk_live_51⦃b62:97⦄");
const elements = stripe.elements({ clientSecret, appearance: { theme: "stripe" } });
"""),
    ("publishable_key", """\
NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=⦃clerkpk⦄
CLERK_SECRET_KEY=${CLERK_SECRET_KEY}
"""),
    ("publishable_key", """\
mapboxgl.accessToken = '⦃mbx:pk⦄';
const map = new mapboxgl.Map({ container: 'map', style: 'mapbox://styles/mapbox/streets-v12', center: [-58.38, -34.60], zoom: 11 });
"""),
    ("publishable_key", """\
// The anon key is meant to be public; row level security protects the data.
export const supabase = createClient(
  "https://⦃lower:20⦄.supabase.co",
  "⦃jwt:anon⦄",
);
"""),
    ("publishable_key", """\
VITE_SUPABASE_URL=https://⦃lower:20⦄.supabase.co
VITE_SUPABASE_PUBLISHABLE_KEY=sb_publishable_⦃b64u:31⦄
"""),
    ("publishable_key", """\
const searchClient = algoliasearch('⦃up:10⦄', '⦃hex:32⦄'); // search-only key, safe in the browser
const index = searchClient.initIndex('products_es');
"""),
    ("publishable_key", """\
<form action="/contacto" method="post">
  <div class="g-recaptcha" data-sitekey="6L⦃b64u:38⦄"></div>
  <div class="cf-turnstile" data-sitekey="0x4AAAAAAA⦃b64u:14⦄"></div>
  <div class="h-captcha" data-sitekey="⦃uuid⦄"></div>
</form>
"""),
    ("publishable_key", """\
Sentry.init({
  dsn: "https://⦃hex:32⦄@o⦃int:100000-9999999⦄.ingest.us.sentry.io/⦃int:1000000-9999999⦄",
  tracesSampleRate: 0.1,
});
"""),
    ("publishable_key", """\
posthog.init('phc_⦃b62:43⦄', { api_host: 'https://us.i.posthog.com', person_profiles: 'identified_only' })
"""),
    ("publishable_key", """\
<script>
  !function(){var i="analytics",analytics=window[i]=window[i]||[];analytics.load("⦃b62:32⦄");analytics.page();}();
</script>
"""),
    ("publishable_key", """\
<script async src="https://www.googletagmanager.com/gtag/js?id=G-⦃up:10⦄"></script>
<script>window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments)}gtag('js',new Date());gtag('config','G-⦃up:10⦄');</script>
"""),
    ("publishable_key", """\
const ldClient = LDClient.initialize('⦃hex:24⦄', { kind: 'user', key: userId });
"""),
    ("publishable_key", """\
await Statsig.initialize("client-⦃b62:43⦄", { userID: user.id });
"""),
    ("publishable_key", """\
LANGFUSE_PUBLIC_KEY=pk-lf-⦃uuid⦄
LANGFUSE_SECRET_KEY=${LANGFUSE_SECRET_KEY}
"""),
    ("publishable_key", """\
braintree.client.create({ authorization: 'production_⦃low:8⦄_⦃low:16⦄' }, onClient);
"""),
    ("publishable_key", """\
const checkout = await AdyenCheckout({ environment: 'live', clientKey: 'live_⦃up:32⦄', locale: 'es-AR' });
"""),
    ("publishable_key", """\
<script src="https://www.paypal.com/sdk/js?client-id=A⦃b64u:79⦄&currency=USD&intent=capture"></script>
"""),
    ("publishable_key", """\
datadogRum.init({
  applicationId: '⦃uuid⦄',
  clientToken: 'pub⦃hex:32⦄',
  site: 'datadoghq.com',
  service: 'web',
});
"""),
    ("publishable_key", """\
mixpanel.init("⦃hex:32⦄", { track_pageview: true, persistence: "localStorage" });
amplitude.init('⦃hex:32⦄', { defaultTracking: true });
"""),
    ("publishable_key", """\
const pusher = new Pusher("⦃hex:20⦄", { cluster: "sa1" });
const channel = pusher.subscribe("orders");
"""),
    ("publishable_key", """\
window.intercomSettings = { api_base: "https://api-iam.intercom.io", app_id: "⦃low:8⦄" };
$crisp=[];CRISP_WEBSITE_ID="⦃uuid⦄";
"""),
    ("publishable_key", """\
const payments = Square.payments('sq0idp-⦃b64u:22⦄', 'L⦃up:12⦄');
"""),
    ("publishable_key", """\
Cloudinary upload widget: cloudName "acme-media", uploadPreset "avatars_unsigned" (unsigned preset, fine to ship in the app).
"""),
    ("publishable_key", """\
GitHub App "acme-release-bot": App ID ⦃int:100000-999999⦄, Client ID Iv23li⦃b62:14⦄ -- both are public, the private key is in Vault.
"""),
    ("publishable_key", """\
NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51⦃b62:97⦄
NEXT_PUBLIC_POSTHOG_KEY=phc_⦃b62:43⦄
NEXT_PUBLIC_SENTRY_DSN=https://⦃hex:32⦄@o⦃int:100000-9999999⦄.ingest.sentry.io/⦃int:1000000-9999999⦄
"""),
    # ---- placeholders and weak defaults
    ("placeholder", """\
# .env.example -- copy to .env and fill in
DATABASE_URL=postgres://user:password@localhost:5432/app
STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx
STRIPE_WEBHOOK_SECRET=whsec_xxxxxxxxxxxxxxxx
OPENAI_API_KEY=<your-openai-key>
"""),
    ("placeholder", """\
services:
  db:
    image: postgres:17
    environment:
      POSTGRES_USER: app
      POSTGRES_PASSWORD: changeme
    ports: ["5432:5432"]
"""),
    ("placeholder", """\
## Quick start

```bash
export ANTHROPIC_API_KEY=<your-api-key>
pip install acme-agent
acme-agent run --task "triage failing tests"
```
"""),
    ("placeholder", """\
GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX
GITLAB_TOKEN=glpat-xxxxxxxxxxxxxxxxxxxx
"""),
    ("placeholder", """\
database:
  host: db.internal
  user: orders_app
  password: "********"
"""),
    ("placeholder", """\
⦃ts⦄ DEBUG http.client: > GET /v1/orders HTTP/1.1
⦃ts⦄ DEBUG http.client: > Authorization: Bearer [REDACTED]
⦃ts⦄ DEBUG http.client: > X-Api-Key: [REDACTED]
⦃ts⦄ DEBUG http.client: < HTTP/1.1 200 OK
"""),
    ("placeholder", """\
api:
  base_url: https://api.example.com
  api_key: YOUR_API_KEY_HERE
  timeout_seconds: 30
"""),
    ("placeholder", """\
curl -H "Authorization: Bearer <token>" https://api.acme.dev/v1/me
"""),
    ("placeholder", """\
[default]
aws_access_key_id = <access-key-id>
aws_secret_access_key = ...
"""),
    ("placeholder", """\
oauth:
  client_id: ⦃uuid⦄
  client_secret: REPLACE_ME
"""),
    ("placeholder", """\
# docker-compose.dev.yml -- local only
  grafana:
    image: grafana/grafana:11.3.0
    environment:
      GF_SECURITY_ADMIN_USER: admin
      GF_SECURITY_ADMIN_PASSWORD: admin
"""),
    ("placeholder", """\
REDIS_URL=redis://:password@localhost:6379/0
"""),
    ("placeholder", """\
$ mysql -u root -p
Enter password:
Welcome to the MySQL monitor.  Commands end with ; or \\g.
"""),
    ("placeholder", """\
Your key: sk-proj-****************************************wX3a  (created ⦃date⦄, last used 2 hours ago)
"""),
    ("placeholder", """\
Run docker login -u acmeci -p *** registry.acme.dev
Login Succeeded
Run npm publish
npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access
"""),
    ("placeholder", """\
docker run -d --name mysql-dev -e MYSQL_ROOT_PASSWORD=password -p 3306:3306 mysql:8.4
"""),
    ("placeholder", """\
KEYCLOAK_ADMIN=admin
KEYCLOAK_ADMIN_PASSWORD=admin
KC_DB_PASSWORD=changeme
"""),
    ("placeholder", """\
# values.yaml
auth:
  existingSecret: ""
  password: ""
  postgresPassword: ""
"""),
    ("placeholder", """\
otpauth://totp/Example:alice@example.com?secret=<BASE32SECRET>&issuer=Example
"""),
    ("placeholder", """\
Recovery codes look like `xxxxx-xxxxx`; each can be used once. Store them somewhere safe.
"""),
    ("placeholder", """\
Tarjeta: **** **** **** 4242  (vence 12/28)
"""),
    ("placeholder", """\
AUTH_SECRET= # generate one with: openssl rand -base64 32
NEXTAUTH_URL=http://localhost:3000
"""),
    ("placeholder", """\
SLACK_WEBHOOK_URL=https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX
"""),
    ("placeholder", """\
-----BEGIN RSA PRIVATE KEY-----
...
-----END RSA PRIVATE KEY-----
(paste your key between the lines above; never commit the file)
"""),
    ("placeholder", """\
spring.datasource.password=
spring.datasource.username=sa
spring.datasource.url=jdbc:h2:mem:testdb
"""),
    ("placeholder", """\
Copiá `.env.example` a `.env` y completá `MERCADOPAGO_ACCESS_TOKEN=<tu-token>`; el de producción lo tiene Finanzas.
"""),
    ("placeholder", """\
password: null
token: ~
api_key: ''
"""),
    ("placeholder", """\
mongodb://<username>:<password>@cluster0.example.mongodb.net/?retryWrites=true&w=majority
"""),
    ("placeholder", """\
SECRET_KEY=changeme
DEBUG=1
ALLOWED_HOSTS=localhost,127.0.0.1
"""),
    ("placeholder", """\
Authorization: Basic dXNlcm5hbWU6cGFzc3dvcmQ=
(that is just base64 of "username:password", the example from the docs)
"""),
    ("placeholder", """\
    env:
      NPM_TOKEN: "<set in repository secrets>"
      SONAR_TOKEN: "<from sonarcloud>"
"""),
    ("placeholder", """\
"apiKey": "xxxx-xxxx-xxxx-xxxx",
"region": "sa-east-1"
"""),
    ("placeholder", """\
vault kv put secret/orders/db password=- < /dev/stdin
"""),
    ("placeholder", """\
wifi invitados: ACME-Guest, contraseña: la que está en el cartel de recepción
"""),
    # ---- ciphertext meant to be committed
    ("ciphertext", """\
db:
    user: ENC[AES256_GCM,data:⦃rb64:8⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
    password: ENC[AES256_GCM,data:⦃rb64:24⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
sops:
    age:
        - recipient: age1⦃bech:58⦄
          enc: |
            -----BEGIN AGE ENCRYPTED FILE-----
            ⦃rb64:48⦄
            ⦃rb64:48⦄
            -----END AGE ENCRYPTED FILE-----
    lastmodified: "⦃ts⦄"
    mac: ENC[AES256_GCM,data:⦃rb64:64⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
    version: 3.9.1
"""),
    ("ciphertext", """\
STRIPE_SECRET_KEY=ENC[AES256_GCM,data:⦃rb64:80⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
sops_version=3.9.1
sops_lastmodified=⦃ts⦄
"""),
    ("ciphertext", """\
$ANSIBLE_VAULT;1.1;AES256
⦃hexlines:8:80⦄
"""),
    ("ciphertext", """\
db_password: !vault |
          $ANSIBLE_VAULT;1.1;AES256
          ⦃hexlines:5:80:10⦄
"""),
    ("ciphertext", """\
apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata:
  name: stripe
  namespace: billing
spec:
  encryptedData:
    api-key: Ag⦃rb64:360⦄
"""),
    ("ciphertext", """\
-----BEGIN AGE ENCRYPTED FILE-----
⦃b64lines:200:64⦄
-----END AGE ENCRYPTED FILE-----
"""),
    ("ciphertext", """\
-----BEGIN PGP MESSAGE-----

⦃pgp⦄
-----END PGP MESSAGE-----
"""),
    ("ciphertext", """\
$ aws kms encrypt --key-id alias/orders --plaintext fileb://dbpass.txt --query CiphertextBlob --output text
AQICAHh⦃rb64:150⦄
"""),
    ("ciphertext", """\
env:
  global:
    - secure: "⦃rb64:256⦄"
"""),
    ("ciphertext", """\
$ vault write transit/encrypt/orders plaintext=$(echo -n "4111111111111111" | base64)
Key            Value
---            -----
ciphertext     vault:v1:⦃rb64:48⦄
key_version    1
"""),
    ("ciphertext", """\
$ cat config/credentials/production.yml.enc
⦃rb64:420⦄--⦃rb64:12⦄--⦃rb64:16⦄
"""),
    ("ciphertext", """\
spring.datasource.password=ENC(⦃rb64:48⦄)
jasypt.encryptor.password=${JASYPT_ENCRYPTOR_PASSWORD}
"""),
    ("ciphertext", """\
{
  "id": "orders_db",
  "password": {
    "encrypted_data": "⦃rb64:48⦄\\n",
    "iv": "⦃rb64:12⦄\\n",
    "auth_tag": "⦃rb64:16⦄\\n",
    "version": 3,
    "cipher": "aes-256-gcm"
  }
}
"""),
    ("ciphertext", """\
#/-------------------[DOTENV_PUBLIC_KEY]--------------------/
#/            public-key encryption for .env files          /
#/-------------------------------------------------------------/
DOTENV_PUBLIC_KEY="02⦃hex:64⦄"

# .env
DATABASE_URL="encrypted:B⦃rb64:180⦄"
STRIPE_SECRET_KEY="encrypted:B⦃rb64:150⦄"
"""),
    ("ciphertext", """\
{
  "_public_key": "⦃hex:64⦄",
  "database_password": "EJ[1:⦃rb64:32⦄:⦃rb64:24⦄:⦃rb64:40⦄]",
  "smtp_password": "EJ[1:⦃rb64:32⦄:⦃rb64:24⦄:⦃rb64:36⦄]"
}
"""),
    ("ciphertext", """\
acme::db::password: >
    ENC[PKCS7,MIIBiQYJKoZIhvcNAQcDoIIBejCCAXYCAQAxggEhMIIBHQIBADAFMAACAQEw
    ⦃b64lines:180:68⦄]
"""),
    ("ciphertext", """\
$ openssl enc -aes-256-cbc -pbkdf2 -salt -in notas.txt -a
U2FsdGVkX1⦃rb64:94⦄
"""),
    ("ciphertext", """\
{"encrypted": true, "passwordProtected": false, "items": [{"id": "⦃uuid⦄", "name": "2.⦃rb64:16⦄|⦃rb64:32⦄|⦃rb64:32⦄", "login": {"password": "2.⦃rb64:16⦄|⦃rb64:48⦄|⦃rb64:32⦄"}}]}
"""),
    ("ciphertext", """\
Los secretos del chart van cifrados con helm-secrets (sops + KMS); el archivo `secrets.prod.yaml` se puede commitear tal cual:
  password: ENC[AES256_GCM,data:⦃rb64:18⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
"""),
    ("ciphertext", """\
{
  "crypto": {
    "cipher": "aes-128-ctr",
    "cipherparams": {"iv": "⦃hex:32⦄"},
    "kdf": "scrypt",
    "kdfparams": {"dklen": 32, "n": 262144, "p": 1, "r": 8, "salt": "⦃hex:64⦄"},
    "ciphertext": "⦃hex:64⦄",
    "mac": "⦃hex:64⦄"
  },
  "address": "⦃hex:40⦄",
  "version": 3
}
"""),
    # ---- base64 of data that is not secret
    ("base64_data", """\
.icon-check { background-image: url("data:image/png;base64,⦃png:120⦄"); }
"""),
    ("base64_data", """\
@font-face {
  font-family: "Acme Sans";
  src: url(data:font/woff2;base64,⦃woff:260⦄) format("woff2");
}
"""),
    ("base64_data", """\
⦃ts⦄ DEBUG ingest.batch payload (gzip+base64, 3 events): ⦃gz:120⦄
"""),
    ("base64_data", """\
{"data":[{"id":⦃int:1000-99999⦄,"status":"paid"}],"has_more":true,"next_cursor":"⦃b64of:{"id":⟨int:1000-99999⟩,"created_at":"2025-11-01T00:00:00Z"}⦄"}
"""),
    ("base64_data", """\
query { node(id: "⦃b64of:Order:⟨int:1000-999999⟩⦄") { ... on Order { total currency } } }
"""),
    ("base64_data", """\
apiVersion: v1
kind: ConfigMap
metadata:
  name: geoip
binaryData:
  countries.mmdb: ⦃rb64:300⦄
"""),
    ("base64_data", """\
The header eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9 just decodes to {"alg":"RS256","typ":"JWT"}; the interesting part of a JWT is the payload.
"""),
    ("base64_data", """\
--boundary42
Content-Type: image/jpeg; name="firma.jpg"
Content-Transfer-Encoding: base64
Content-Disposition: inline; filename="firma.jpg"

⦃b64lines:300:76⦄
--boundary42--
"""),
    ("base64_data", """\
//# sourceMappingURL=data:application/json;base64,⦃b64of:{"version":3,"sources":["src/app.ts"],"names":[],"mappings":"⟨vlq:30⟩"}⦄
"""),
    ("base64_data", """\
<input type="hidden" name="SAMLRequest" value="⦃rb64:240⦄">
<input type="hidden" name="RelayState" value="/dashboard">
"""),
    ("base64_data", """\
grpc-web response: AAAAA⦃rb64:60⦄gAAAA9ncnBjLXN0YXR1czowDQo=
"""),
    ("base64_data", """\
$ echo -n '{"env":"staging","region":"sa-east-1","replicas":3}' | base64
⦃b64of:{"env":"staging","region":"sa-east-1","replicas":3}⦄
"""),
    ("base64_data", """\
$ kubectl get cm feature-flags -o jsonpath='{.binaryData.flags\\.pb}'
⦃rb64:90⦄
"""),
    ("base64_data", """\
<svg-inline src="data:image/svg+xml;base64,⦃b64of:<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24"><path d="M5 12l5 5L20 7"/></svg>⦄" />
"""),
    ("base64_data", """\
user_id_b64=⦃b64of:⟨uuid⟩⦄  (the mobile client sends the user id base64-encoded, do not ask me why)
"""),
    ("base64_data", """\
Notification payload: {"aps":{"alert":"Tu pedido salió"},"data":"⦃b64of:{"order":⟨int:10000-99999⟩,"step":"shipped"}⦄"}
"""),
    ("base64_data", """\
wasm module (inline, 1.2 kB): AGFzbQEAAAAB⦃rb64:180⦄
"""),
    ("base64_data", """\
thumbnail: "data:image/webp;base64,UklGR⦃rb64:90⦄"
"""),
    # ---- per-message signatures and nonces
    ("signature_nonce", """\
POST /webhooks/stripe HTTP/1.1
Host: api.acme.dev
Stripe-Signature: t=⦃epoch⦄,v1=⦃hex:64⦄,v0=⦃hex:64⦄
Content-Type: application/json; charset=utf-8
"""),
    ("signature_nonce", """\
X-GitHub-Delivery: ⦃uuid⦄
X-GitHub-Event: pull_request
X-Hub-Signature: sha1=⦃hex:40⦄
X-Hub-Signature-256: sha256=⦃hex:64⦄
"""),
    ("signature_nonce", """\
X-Slack-Request-Timestamp: ⦃epoch⦄
X-Slack-Signature: v0=⦃hex:64⦄
"""),
    ("signature_nonce", """\
X-Shopify-Topic: orders/create
X-Shopify-Hmac-Sha256: ⦃rb64:32⦄
X-Twilio-Signature: ⦃rb64:20⦄
"""),
    ("signature_nonce", """\
webhook-id: msg_⦃b62:27⦄
webhook-timestamp: ⦃epoch⦄
webhook-signature: v1,⦃rb64:32⦄
"""),
    ("signature_nonce", """\
Content-Security-Policy: default-src 'self'; script-src 'self' 'nonce-⦃rb64:16⦄' 'strict-dynamic'; object-src 'none'
"""),
    ("signature_nonce", """\
GET /ws HTTP/1.1
Upgrade: websocket
Connection: Upgrade
Sec-WebSocket-Key: ⦃rb64:16⦄
Sec-WebSocket-Version: 13

HTTP/1.1 101 Switching Protocols
Sec-WebSocket-Accept: ⦃rb64:20⦄
"""),
    ("signature_nonce", """\
https://auth.acme.dev/oauth2/authorize?response_type=code&client_id=⦃b62:24⦄&redirect_uri=https%3A%2F%2Fapp.acme.dev%2Fcallback&scope=openid%20profile&state=⦃b64u:32⦄&code_challenge=⦃rb64u:32⦄&code_challenge_method=S256
"""),
    ("signature_nonce", """\
<form method="post" action="/account/email">
  <input type="hidden" name="csrfmiddlewaretoken" value="⦃b62:64⦄">
  <input type="email" name="email">
</form>
"""),
    ("signature_nonce", """\
<meta name="csrf-param" content="authenticity_token" />
<meta name="csrf-token" content="⦃b64u:86⦄" />
"""),
    ("signature_nonce", """\
Cookie: _ga=GA1.1.⦃dig:10⦄.⦃epoch⦄; _ga_⦃up:10⦄=GS1.1.⦃epoch⦄.3.1.⦃epoch⦄.0.0.0; _fbp=fb.1.⦃dig:13⦄.⦃dig:10⦄; cookie_consent=analytics:1,ads:0
"""),
    ("signature_nonce", """\
DKIM-Signature: v=1; a=rsa-sha256; c=relaxed/relaxed; d=acme.dev; s=selector1;
	h=from:to:subject:date:message-id; bh=⦃rb64:32⦄;
	b=⦃rb64:256⦄
"""),
    # ---- container image digests
    ("image_digest", """\
image: ghcr.io/acme/orders-api@sha256:⦃hex:64⦄
imagePullPolicy: IfNotPresent
"""),
    ("image_digest", """\
$ docker pull postgres:17-alpine
17-alpine: Pulling from library/postgres
⦃hex:12⦄: Pull complete
⦃hex:12⦄: Pull complete
⦃hex:12⦄: Pull complete
Digest: sha256:⦃hex:64⦄
Status: Downloaded newer image for postgres:17-alpine
"""),
    ("image_digest", """\
{
  "schemaVersion": 2,
  "mediaType": "application/vnd.oci.image.index.v1+json",
  "manifests": [
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "size": 1614, "digest": "sha256:⦃hex:64⦄", "platform": {"architecture": "amd64", "os": "linux"}},
    {"mediaType": "application/vnd.oci.image.manifest.v1+json", "size": 1614, "digest": "sha256:⦃hex:64⦄", "platform": {"architecture": "arm64", "os": "linux"}}
  ]
}
"""),
    ("image_digest", """\
FROM python:3.12-slim@sha256:⦃hex:64⦄ AS base
FROM gcr.io/distroless/python3-debian12@sha256:⦃hex:64⦄
"""),
    ("image_digest", """\
#12 exporting to image
#12 exporting layers 4.1s done
#12 writing image sha256:⦃hex:64⦄ done
#12 naming to registry.acme.dev/orders/api:2.7.0 done
#12 pushing manifest for registry.acme.dev/orders/api:2.7.0@sha256:⦃hex:64⦄
"""),
    ("image_digest", """\
$ cosign triangulate ghcr.io/acme/orders-api:⦃ver⦄
ghcr.io/acme/orders-api:sha256-⦃hex:64⦄.sig
"""),
    ("image_digest", """\
images:
  - name: ghcr.io/acme/web
    digest: sha256:⦃hex:64⦄
  - name: ghcr.io/acme/worker
    newTag: ⦃ver⦄
"""),
    ("image_digest", """\
REPOSITORY                 TAG       IMAGE ID       CREATED        SIZE
registry.acme.dev/orders   ⦃ver⦄     ⦃hex:12⦄   2 hours ago    184MB
postgres                   17        ⦃hex:12⦄   3 weeks ago    435MB
"""),
    # ---- long hex and ids in logs
    ("log_hex", """\
⦃ts⦄ INFO  trace=⦃hex:32⦄ span=⦃hex:16⦄ GET /v1/orders/⦃int:1000-999999⦄ 200 38ms
⦃ts⦄ INFO  trace=⦃hex:32⦄ span=⦃hex:16⦄ POST /v1/payments 201 412ms
⦃ts⦄ WARN  trace=⦃hex:32⦄ span=⦃hex:16⦄ GET /v1/invoices 429 3ms rate limited
"""),
    ("log_hex", """\
{"eventVersion":"1.10","eventTime":"⦃ts⦄","eventSource":"s3.amazonaws.com","eventName":"GetObject","awsRegion":"us-east-1","sourceIPAddress":"⦃ip⦄","requestID":"⦃up:16⦄","eventID":"⦃uuid⦄","readOnly":true,"recipientAccountId":"⦃dig:12⦄"}
"""),
    ("log_hex", """\
Current runner version: '2.321.0'
Download action repository 'actions/checkout@v4' (SHA:⦃hex:40⦄)
Download action repository 'actions/cache@v4' (SHA:⦃hex:40⦄)
Complete job name: test (3.12)
"""),
    ("log_hex", """\
$ go version -m ./bin/api | head -3
./bin/api: go1.23.4
	path	github.com/acme/orders/cmd/api
	build	vcs.revision=⦃hex:40⦄
"""),
    ("log_hex", """\
Exception in thread "main" java.lang.IllegalStateException: pool closed
	at com.zaxxer.hikari.HikariDataSource.getConnection(HikariDataSource.java:96)
	at ar.com.acme.ledger.Repo@⦃hex:8⦄.find(Repo.java:41)
Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed for user "ledger_app"
"""),
    ("log_hex", """\
<__main__.OrderService object at 0x7f⦃hex:10⦄>
<sqlalchemy.engine.base.Engine object at 0x7f⦃hex:10⦄>
"""),
    ("log_hex", """\
[  ⦃int:1-9999⦄.⦃dig:6⦄] BUG: unable to handle page fault for address: ffff⦃hex:12⦄
[  ⦃int:1-9999⦄.⦃dig:6⦄] RIP: 0010:nvme_poll+0x4f/0x120 [nvme]
[  ⦃int:1-9999⦄.⦃dig:6⦄] RSP: 0018:ffffb⦃hex:11⦄ EFLAGS: 00010246
"""),
    ("log_hex", """\
Nov 12 03:14:01 web-02 sshd[⦃int:1000-99999⦄]: Accepted publickey for deploy from ⦃ip⦄ port ⦃int:30000-65000⦄ ssh2: ED25519 SHA256:⦃rb64n:32⦄
"""),
    ("log_hex", """\
2025/11/12 10:02:11 [error] ⦃int:100-9999⦄#0: *⦃int:1000-999999⦄ upstream timed out (110: Connection timed out) while reading response header from upstream, client: ⦃ip⦄, request: "GET /api/v1/export?id=⦃hex:24⦄ HTTP/1.1", upstream: "http://10.0.1.7:8080/api/v1/export?id=⦃hex:24⦄"
"""),
    ("log_hex", """\
ERROR 1045 (28000): Access denied for user 'reporting'@'10.2.0.15' (using password: YES)
"""),
    ("log_hex", """\
remote: Invalid username or token. Password authentication is not supported for Git operations.
fatal: Authentication failed for 'https://github.com/acme/orders.git/'
"""),
    ("log_hex", """\
HTTP/1.1 401 Unauthorized
WWW-Authenticate: Bearer realm="api", error="invalid_token", error_description="The access token expired"
Content-Type: application/json

{"error":"invalid_token","request_id":"req_⦃b62:14⦄"}
"""),
    ("log_hex", """\
Bluetooth: hci0: device ⦃HEXcolon:6⦄ connected
wlan0: associated with BSSID ⦃hexcolon:6⦄ (ACME-5G)
"""),
    ("log_hex", """\
Datadog trace ⦃dig:19⦄ / span ⦃dig:19⦄ -- service orders-worker, resource process_payment
"""),
    ("log_hex", """\
kafka consumer group orders-projector: partition 7 offset ⦃int:100000-99999999⦄ lag 0 member consumer-orders-projector-1-⦃uuid⦄
"""),
    ("log_hex", """\
[⦃ts⦄] celery.worker.strategy INFO Task orders.tasks.send_invoice[⦃uuid⦄] received
[⦃ts⦄] celery.app.trace INFO Task orders.tasks.send_invoice[⦃uuid⦄] succeeded in 0.84s: None
"""),
    ("log_hex", """\
zpool status tank:
  pool: tank
 state: ONLINE
  scan: scrub repaired 0B in 02:11:09 with 0 errors
config:
	NAME                                  STATE     READ WRITE CKSUM
	tank                                  ONLINE       0     0     0
		mirror-0                            ONLINE       0     0     0
			wwn-0x5000c500⦃hex:8⦄            ONLINE       0     0     0
			wwn-0x5000c500⦃hex:8⦄            ONLINE       0     0     0
"""),
    ("log_hex", """\
crypttab:
cryptdata UUID=⦃uuid⦄ /root/keys/data.key luks,discard
"""),
    ("log_hex", """\
Cache hit: key=node-modules-Linux-⦃hex:64⦄, size 182 MB
Cache restored from key: pip-Linux-py3.12-⦃hex:64⦄
"""),
    # ---- minified and generated code
    ("minified", """\
!function(e,t){"object"==typeof exports&&"undefined"!=typeof module?module.exports=t():"function"==typeof define&&define.amd?define(t):(e="undefined"!=typeof globalThis?globalThis:e||self).AcmeWidget=t()}(this,function(){"use strict";const e="⦃hex:8⦄";function t(t){return t.replace(/\\s+/g," ").trim()+e}return{clean:t,v:"⦃ver⦄"}});
"""),
    ("minified", """\
{"version":3,"file":"index-⦃b64u:8⦄.js","sources":["../../src/main.tsx","../../src/App.tsx"],"names":["root","App"],"mappings":"⦃vlq:60⦄"}
"""),
    ("minified", """\
vite v6.0.3 building for production...
✓ 412 modules transformed.
dist/index.html                   0.62 kB │ gzip:  0.38 kB
dist/assets/index-⦃b64u:8⦄.css    24.91 kB │ gzip:  5.12 kB
dist/assets/index-⦃b64u:8⦄.js    311.40 kB │ gzip: 98.77 kB
✓ built in 4.21s
"""),
    ("minified", """\
{"main.js":"/static/js/main.⦃hex:8⦄.js","main.css":"/static/css/main.⦃hex:8⦄.css","static/js/453.⦃hex:8⦄.chunk.js":"/static/js/453.⦃hex:8⦄.chunk.js"}
"""),
    ("minified", """\
<div class="_card_⦃low:5⦄_1 _active_⦃low:5⦄_7"><span class="css-⦃low:6⦄ e1⦃low:5⦄0">Total</span></div>
"""),
    ("minified", """\
<script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{}},"page":"/","query":{},"buildId":"⦃b64u:21⦄","nextExport":true,"isFallback":false,"gsp":true}</script>
"""),
    ("minified", """\
self.__WB_MANIFEST=[{"revision":"⦃hex:32⦄","url":"/index.html"},{"revision":"⦃hex:32⦄","url":"/manifest.webmanifest"},{"revision":null,"url":"/assets/index-⦃b64u:8⦄.js"}];
"""),
    ("minified", """\
var a=[0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄,0x⦃hex:8⦄];function k(i){return a[i&7]>>>((i>>3)&31)}
"""),
    ("minified", """\
static const uint8_t sbox[16] = {0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄,
                                 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄, 0x⦃hex:2⦄};
"""),
    ("minified", """\
.btn-primary{--tw-bg-opacity:1;background-color:rgb(37 99 235/var(--tw-bg-opacity))}.x⦃low:6⦄{display:flex}.x⦃low:6⦄{gap:.5rem}
"""),
    # ---- URLs whose query strings hold nothing secret
    ("url_query", """\
https://acme.dev/precios?utm_source=newsletter&utm_medium=email&utm_campaign=black-friday-2025&utm_content=cta-top&mc_eid=⦃hex:10⦄
"""),
    ("url_query", """\
https://www.youtube.com/watch?v=⦃b64u:11⦄&t=42s&list=PL⦃b64u:32⦄
"""),
    ("url_query", """\
Doc with the Q4 plan: https://docs.google.com/document/d/⦃b64u:44⦄/edit?usp=sharing
Sheet: https://docs.google.com/spreadsheets/d/⦃b64u:44⦄/edit#gid=⦃int:0-999999999⦄
"""),
    ("url_query", """\
https://github.com/acme/orders/compare/⦃hex:40⦄...⦃hex:40⦄
https://github.com/acme/orders/commit/⦃hex:40⦄#diff-⦃hex:64⦄
"""),
    ("url_query", """\
https://grafana.acme.dev/d/⦃b62:14⦄/orders-overview?orgId=1&from=now-6h&to=now&var-env=prod&var-pod=All&refresh=30s
"""),
    ("url_query", """\
https://kibana.acme.dev/app/discover#/?_g=(time:(from:now-15m,to:now))&_a=(query:(language:kuery,query:'trace.id:"⦃hex:32⦄"'))
"""),
    ("url_query", """\
https://app.datadoghq.com/logs?query=service%3Aorders-api%20status%3Aerror&from_ts=⦃dig:13⦄&to_ts=⦃dig:13⦄&live=false
"""),
    ("url_query", """\
https://www.amazon.com/dp/B0⦃up:8⦄?ref=ppx_yo2ov_dt_b_fed_asin_title&th=1&psc=1
"""),
    ("url_query", """\
https://www.google.com/maps/place/Rosario,+Santa+Fe/@-32.9521898,-60.7666797,12z/data=!3m1!4b1!4m6!3m5!1s0x95b6539335d7d75b:0xec4086e90258a557
"""),
    ("url_query", """\
https://dashboard.stripe.com/payments/pi_⦃b62:24⦄
https://acme.sentry.io/issues/⦃int:1000000000-6000000000⦄/?project=⦃int:1000000-9999999⦄&referrer=slack
"""),
    ("url_query", """\
https://acme-public-assets.s3.amazonaws.com/logos/acme-dark.svg?versionId=⦃b64u:32⦄
"""),
    ("url_query", """\
https://res.cloudinary.com/acme-media/image/upload/c_fill,w_400,h_400,g_face/v⦃epoch⦄/avatars/⦃low:20⦄.jpg
"""),
    ("url_query", """\
https://api.acme.dev/v1/orders?cursor=⦃b64of:{"after":⟨int:1000-99999⟩}⦄&limit=100&expand[]=customer
"""),
    ("url_query", """\
https://images.unsplash.com/photo-⦃dig:13⦄-⦃hex:12⦄?ixlib=rb-4.0.3&ixid=⦃b64u:60⦄&auto=format&fit=crop&w=1200&q=80
"""),
    ("url_query", """\
https://registry.npmjs.org/left-pad/-/left-pad-1.3.0.tgz
https://files.pythonhosted.org/packages/⦃hex:2⦄/⦃hex:2⦄/⦃hex:60⦄/requests-2.32.3-py3-none-any.whl
"""),
    ("url_query", """\
https://login.microsoftonline.com/⦃uuid⦄/oauth2/v2.0/authorize?client_id=⦃uuid⦄&response_type=code&redirect_uri=https%3A%2F%2Fapp.acme.dev%2Fsso&response_mode=query&scope=openid%20email&state=⦃b64u:24⦄&nonce=⦃b64u:24⦄
"""),
    ("url_query", """\
https://doi.org/10.1145/⦃int:1000000-9999999⦄.⦃int:1000000-9999999⦄  and  https://arxiv.org/abs/2⦃dig:3⦄.⦃dig:5⦄v2
"""),
    ("url_query", """\
https://acme-web-⦃low:9⦄-acme.vercel.app/checkout?preview=1&plan=pro
https://deploy-preview-⦃int:100-999⦄--acme-docs.netlify.app/guias/pagos
"""),
    ("url_query", """\
https://www.mercadolibre.com.ar/p/MLA⦃dig:8⦄?pdp_filters=item_id:MLA⦃dig:10⦄#reco_item_pos=1&reco_backend=item_decorator
"""),
    ("url_query", """\
https://api.github.com/repos/acme/orders/actions/runs?per_page=20&page=3&status=failure&head_sha=⦃hex:40⦄
"""),
    # ---- prose about passwords and tokens, with none in it (English)
    ("prose_about_secrets", """\
Rotate the Stripe key after the contractor leaves; the new one goes into Vault at secret/payments/stripe and nowhere else.
"""),
    ("prose_about_secrets", """\
Reminder: never paste tokens into Slack. If you did, revoke it right away in GitHub → Settings → Developer settings → Personal access tokens, then tell #security.
"""),
    ("prose_about_secrets", """\
## Password policy
- At least 14 characters; passphrases are encouraged.
- No reuse of the last 10 passwords.
- MFA is mandatory for every account with production access.
- Service accounts use keys from the secrets manager, never a human's password.
"""),
    ("prose_about_secrets", """\
Postmortem ⦃date⦄: a deploy token was printed in the build log for 14 minutes before masking kicked in. It was revoked at 10:42 UTC; no use of it was seen in the audit log.
"""),
    ("prose_about_secrets", """\
To create a token: Settings → API → Create token, scope `read:packages`, expiry 30 days. Store it in 1Password under "CI / GHCR pull".
"""),
    ("prose_about_secrets", """\
who has the password for the staging Grafana? asking for a friend 🙃
"""),
    ("prose_about_secrets", """\
if not check_password(form.password.data, user.password_hash):
    flash("Invalid email or password", "error")
    return redirect(url_for("auth.login"))
"""),
    ("prose_about_secrets", """\
chore: purge the leaked key from history with git filter-repo

The key itself had already been rotated; this only removes the old file
(config/keys.yml) from every commit so scanners stop flagging it.
"""),
    ("prose_about_secrets", """\
Bug ⦃int:1000-9999⦄: the password reset e-mail says the link is valid for 60 minutes, but the token expires after 15. Check RESET_TOKEN_TTL in settings.
"""),
    ("prose_about_secrets", """\
A GitHub classic token is `ghp_` followed by 36 letters and digits; fine-grained ones start with `github_pat_`. Our scanner config matches both.
"""),
    ("prose_about_secrets", """\
[[rules]]
id = "acme-internal-token"
description = "Acme internal API token"
regex = '''acme_(live|test)_[0-9a-zA-Z]{32}'''
keywords = ["acme_live_", "acme_test_"]
"""),
    ("prose_about_secrets", """\
Passwords are stored with Argon2id (m=64 MiB, t=3, p=1). Never log the raw password, not even at DEBUG level.
"""),
    ("prose_about_secrets", """\
Seed phrases must never be typed into a computer. Write the 24 words on the steel plate and keep it in the safe deposit box.
"""),
    ("prose_about_secrets", """\
Your verification code is {{code}}. It is valid for 10 minutes. If you did not request it, ignore this e-mail.
"""),
    ("prose_about_secrets", """\
Two-factor setup: scan the QR code with your authenticator app, or tap "Can't scan?" to see the setup key and type it in by hand.
"""),
    ("prose_about_secrets", """\
Contact: mailto:security@acme.dev
Expires: 2026-12-31T23:59:59.000Z
Encryption: https://acme.dev/.well-known/pgp-key.txt
Preferred-Languages: es, en
Policy: https://acme.dev/security/disclosure
"""),
    ("prose_about_secrets", """\
# .gitignore
.env
.env.*
!.env.example
*.pem
*.p12
id_rsa*
terraform.tfvars
"""),
    ("prose_about_secrets", """\
Q: The API returns 401 "invalid_api_key". A: The key was created in test mode; live requests need a live key. Create one in the dashboard and update the secret in the deploy environment.
"""),
    ("prose_about_secrets", """\
The service account's JSON key was deleted on purpose; workloads now use Workload Identity Federation, so there is no key file to download any more.
"""),
    ("prose_about_secrets", """\
Standup: I'm blocked on the SFTP migration until the bank sends the new credentials by post. Expected Thursday.
"""),
    ("prose_about_secrets", """\
TOKEN_EXPIRED = "Your session has expired. Please sign in again."
INVALID_PASSWORD = "The password you entered is incorrect."
PASSWORD_TOO_SHORT = "Passwords must be at least 14 characters."
"""),
    ("prose_about_secrets", """\
def test_login_rejects_wrong_password(client, user_factory):
    user = user_factory(password=make_password_for_tests())
    resp = client.post("/login", data={"email": user.email, "password": "not-" + "it"})
    assert resp.status_code == 401
"""),
    # ---- prose about passwords and tokens, with none in it (Spanish)
    ("prose_about_secrets", """\
La contraseña de la base está en el gestor (1Password, bóveda Infra). No la pegues en el ticket, pasame el enlace al ítem.
"""),
    ("prose_about_secrets", """\
¿Alguien sabe dónde quedó la clave del wifi de invitados? No la encuentro en Notion.
"""),
    ("prose_about_secrets", """\
Recordá que la contraseña tiene que tener al menos 14 caracteres, una mayúscula y un número, y que vence cada 90 días.
"""),
    ("prose_about_secrets", """\
Si el token de GitLab vence, el pipeline falla con 401; se renueva desde Preferencias → Tokens de acceso y se actualiza la variable DEPLOY_TOKEN del proyecto.
"""),
    ("prose_about_secrets", """\
ADR 014 -- Rotación de secretos
Decisión: todas las claves de terceros se rotan cada 6 meses o ante la baja de una persona con acceso. El responsable de cada integración figura en el inventario.
"""),
    ("prose_about_secrets", """\
El código de verificación de 6 dígitos llega por SMS y vence a los 5 minutos. Si no llega, pedí uno nuevo desde la app.
"""),
    ("prose_about_secrets", """\
Ojo: el archivo .env NO se sube al repo. Está en el .gitignore y el hook de pre-commit corre gitleaks.
"""),
    ("prose_about_secrets", """\
Los códigos de recuperación se descargan una sola vez; guardalos impresos en el sobre de la caja fuerte, no en el Drive.
"""),
    ("prose_about_secrets", """\
Incidente ⦃date⦄: se expuso una clave de API de Mercado Pago en un log de depuración. Se revocó a los 20 minutos y se agregó el filtro de campos sensibles al logger.
"""),
    ("prose_about_secrets", """\
Para pedir acceso a producción: abrir un ticket en Mesa de Ayuda con el rol que necesitás; la clave temporal te llega por el canal seguro, nunca por mail.
"""),
    ("prose_about_secrets", """\
– ¿Me pasás la contraseña del Jenkins?
– No la tengo, pedísela a Martín. Igual ahora se entra con SSO.
"""),
    ("prose_about_secrets", """\
Error al iniciar sesión: "Usuario o contraseña incorrectos". Después de 5 intentos la cuenta se bloquea 15 minutos.
"""),
    ("prose_about_secrets", """\
La frase semilla no se fotografía ni se guarda en la nube. Se anota en papel y se guarda en dos lugares distintos.
"""),
    ("prose_about_secrets", """\
Nota para el onboarding: el token de npm para publicar lo maneja el bot de CI; nadie necesita uno personal.
"""),
    ("prose_about_secrets", """\
Revisé el repo con trufflehog y no hay secretos vivos; los tres hallazgos eran claves de ejemplo de la documentación de AWS, ya marcadas como falsos positivos.
"""),
    # ---- configuration that only refers to a secret
    ("env_reference", """\
services:
  api:
    image: ghcr.io/acme/orders-api:${TAG:-latest}
    environment:
      DATABASE_URL: postgres://orders_app:${DB_PASSWORD}@db:5432/orders
      STRIPE_SECRET_KEY: ${STRIPE_SECRET_KEY:?set it in .env}
"""),
    ("env_reference", """\
      - name: Publish
        run: npm publish --access public
        env:
          NODE_AUTH_TOKEN: ${{ secrets.NPM_TOKEN }}
          GITHUB_TOKEN: ${{ secrets.GITHUB_TOKEN }}
"""),
    ("env_reference", """\
release:
  stage: deploy
  script:
    - echo "$CI_REGISTRY_PASSWORD" | docker login -u "$CI_REGISTRY_USER" --password-stdin "$CI_REGISTRY"
    - curl --header "JOB-TOKEN: $CI_JOB_TOKEN" "$CI_API_V4_URL/projects/$CI_PROJECT_ID/packages"
"""),
    ("env_reference", """\
apiVersion: v1
kind: Secret
metadata:
  name: {{ include "orders.fullname" . }}-db
data:
  password: {{ .Values.db.password | b64enc | quote }}
"""),
    ("env_reference", """\
        env:
          - name: DB_PASSWORD
            valueFrom:
              secretKeyRef:
                name: orders-db
                key: password
        envFrom:
          - secretRef:
              name: orders-api-env
"""),
    ("env_reference", """\
apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: orders-db
spec:
  refreshInterval: 1h
  secretStoreRef: {name: aws-secrets-manager, kind: ClusterSecretStore}
  target: {name: orders-db}
  data:
    - secretKey: password
      remoteRef: {key: prod/orders/db, property: password}
"""),
    ("env_reference", """\
# .env.tpl -- rendered with `op inject -i .env.tpl -o .env`
DATABASE_PASSWORD=op://Infra/orders-db/password
STRIPE_SECRET_KEY=op://Payments/stripe-live/credential
"""),
    ("env_reference", """\
template {
  destination = "/etc/orders/db.env"
  contents    = <<EOT
{{ with secret "database/creds/orders-readonly" }}
DB_USER={{ .Data.username }}
DB_PASSWORD={{ .Data.password }}
{{ end }}
EOT
}
"""),
    ("env_reference", """\
  MasterUserPassword: '{{resolve:secretsmanager:prod/orders/db:SecretString:password}}'
  MasterUsername: '{{resolve:ssm:/prod/orders/db-user}}'
"""),
    ("env_reference", """\
variable "db_password" {
  type      = string
  sensitive = true
}

resource "random_password" "replica" {
  length  = 32
  special = false
}
"""),
    ("env_reference", """\
- name: Create app database user
  community.postgresql.postgresql_user:
    name: orders_app
    password: "{{ vault_orders_db_password }}"
    login_password: "{{ postgres_admin_password }}"
  no_log: true
"""),
    ("env_reference", """\
spring:
  datasource:
    url: jdbc:postgresql://${DB_HOST:localhost}:5432/ledger
    username: ${DB_USER:ledger_app}
    password: ${DB_PASSWORD:}
"""),
    ("env_reference", """\
var stripeKey = builder.Configuration["Stripe:SecretKey"]
    ?? throw new InvalidOperationException("Stripe:SecretKey is not configured");
"""),
    ("env_reference", """\
"DB_PASSWORD": "@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/OrdersDbPassword/)",
"STRIPE_KEY": "@Microsoft.KeyVault(VaultName=acme-kv;SecretName=StripeSecretKey)"
"""),
    ("env_reference", """\
withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN'),
                 usernamePassword(credentialsId: 'nexus-ci', usernameVariable: 'NEXUS_USER', passwordVariable: 'NEXUS_PASS')]) {
    sh 'mvn -s settings.xml deploy -Dsonar.token=$SONAR_TOKEN'
}
"""),
    ("env_reference", """\
steps:
  - task: AzureCLI@2
    inputs:
      azureSubscription: acme-prod
      scriptType: bash
      inlineScript: az login --service-principal -u $(ARM_CLIENT_ID) -p $(ARM_CLIENT_SECRET) --tenant $(ARM_TENANT_ID)
"""),
    ("env_reference", """\
services:
  db:
    image: postgres:17
    environment:
      POSTGRES_PASSWORD_FILE: /run/secrets/db_password
    secrets: [db_password]
secrets:
  db_password:
    file: ./secrets/db_password.txt
"""),
    ("env_reference", """\
[Service]
ExecStart=/usr/local/bin/orders-api
LoadCredential=db-password:/etc/credstore/orders-db-password
Environment=DB_PASSWORD_FILE=%d/db-password
"""),
    ("env_reference", """\
$ doppler run --project orders --config prd -- npm start
$ gcloud secrets versions access latest --secret=orders-db-password --project=acme-prod
$ aws secretsmanager get-secret-value --secret-id prod/orders/db --query SecretString --output text
"""),
    ("env_reference", """\
# .envrc
export GITHUB_TOKEN=$(op read "op://Personal/GitHub/token")
export AWS_PROFILE=acme-dev
"""),
    ("env_reference", """\
secretGenerator:
  - name: orders-env
    envs:
      - secrets.env
generatorOptions:
  disableNameSuffixHash: false
"""),
    ("env_reference", """\
const config = new pulumi.Config();
const dbPassword = config.requireSecret("dbPassword");
const stripeKey = config.requireSecret("stripeSecretKey");
"""),
    ("env_reference", """\
let api_key = std::env::var("ACME_API_KEY").expect("ACME_API_KEY must be set");
"""),
    ("env_reference", """\
token := os.Getenv("GITHUB_TOKEN")
if token == "" {
	log.Fatal("GITHUB_TOKEN is required")
}
"""),
    ("env_reference", """\
$appKey = getenv('APP_KEY') ?: throw new RuntimeException('APP_KEY missing');
$dsn = sprintf('pgsql:host=%s;dbname=%s', getenv('DB_HOST'), getenv('DB_NAME'));
"""),
    ("env_reference", """\
import keyring
password = keyring.get_password("acme-sftp", "recon")
"""),
    ("env_reference", """\
read -r -s -p "Password for $DB_USER: " PGPASSWORD && export PGPASSWORD
psql -h "$DB_HOST" -U "$DB_USER" -d orders
"""),
    ("env_reference", """\
const client = new Anthropic({ apiKey: process.env.ANTHROPIC_API_KEY });
const openai = new OpenAI({ apiKey: process.env.OPENAI_API_KEY });
"""),
    ("env_reference", """\
gh secret set NPM_TOKEN --repo acme/sdk-js < ~/tmp/npm-token.txt && shred -u ~/tmp/npm-token.txt
"""),
    ("env_reference", """\
# ~/.npmrc
//registry.npmjs.org/:_authToken=${NPM_TOKEN}
@acme:registry=https://npm.pkg.github.com
//npm.pkg.github.com/:_authToken=${GITHUB_TOKEN}
"""),
    ("env_reference", """\
{
  "mcpServers": {
    "github": {
      "command": "docker",
      "args": ["run", "-i", "--rm", "-e", "GITHUB_PERSONAL_ACCESS_TOKEN", "ghcr.io/github/github-mcp-server"],
      "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "${input:github_token}"}
    }
  },
  "inputs": [{"type": "promptString", "id": "github_token", "description": "GitHub PAT", "password": true}]
}
"""),
    ("env_reference", """\
[sources.internal]
url = "https://pypi.acme.dev/simple"
# credentials come from UV_INDEX_INTERNAL_USERNAME / UV_INDEX_INTERNAL_PASSWORD
"""),
    ("env_reference", """\
scrape_configs:
  - job_name: kubelet
    scheme: https
    bearer_token_file: /var/run/secrets/kubernetes.io/serviceaccount/token
    tls_config:
      ca_file: /var/run/secrets/kubernetes.io/serviceaccount/ca.crt
"""),
    ("env_reference", """\
DATABASE_URL=postgresql://${PGUSER}:${PGPASSWORD}@${PGHOST}:${PGPORT}/${PGDATABASE}
"""),
    ("env_reference", """\
sqlx::postgres::PgPoolOptions::new().connect(&format!("postgres://app:{}@db/app", secret_from_vault().await?)).await?;
"""),
    ("env_reference", """\
Las variables sensibles se cargan desde el Secret Manager al arrancar: `DB_PASSWORD`, `MP_ACCESS_TOKEN` y `AFIP_CERT_PASSWORD`. En local usá `make secrets-dev`, que genera valores de prueba.
"""),
    # ---- harmless configuration
    ("config", """\
[profile acme-dev]
sso_session = acme
sso_account_id = ⦃dig:12⦄
sso_role_name = Developer
region = sa-east-1

[sso-session acme]
sso_start_url = https://acme.awsapps.com/start
sso_region = us-east-1
sso_registration_scopes = sso:account:access
"""),
    ("config", """\
permissions:
  id-token: write
  contents: read
steps:
  - uses: aws-actions/configure-aws-credentials@v4
    with:
      role-to-assume: arn:aws:iam::⦃dig:12⦄:role/github-actions-deploy
      aws-region: us-east-1
"""),
    ("config", """\
{
  "auths": {
    "ghcr.io": {},
    "registry.acme.dev": {}
  },
  "credsStore": "desktop",
  "currentContext": "desktop-linux"
}
"""),
    ("config", """\
[credential]
	helper = osxkeychain
[credential "https://dev.azure.com"]
	useHttpPath = true
[user]
	signingkey = ~/.ssh/id_ed25519.pub
[gpg]
	format = ssh
"""),
    ("config", """\
Host bastion-gru
  HostName ⦃ip⦄
  User deploy
  IdentityFile ~/.ssh/id_ed25519
  IdentitiesOnly yes
Host 10.20.*
  ProxyJump bastion-gru
"""),
    ("config", """\
[global]
index-url = https://pypi.org/simple
trusted-host = pypi.acme.local
timeout = 60
"""),
    ("config", """\
{
  "Version": "2012-10-17",
  "Statement": [
    {
      "Effect": "Allow",
      "Action": ["secretsmanager:GetSecretValue"],
      "Resource": "arn:aws:secretsmanager:us-east-1:⦃dig:12⦄:secret:prod/orders/*"
    }
  ]
}
"""),
    ("config", """\
path "secret/data/orders/*" {
  capabilities = ["read"]
}
path "database/creds/orders-readonly" {
  capabilities = ["read"]
}
"""),
    ("config", """\
{
  "clientId": "backoffice",
  "enabled": true,
  "clientAuthenticatorType": "client-secret",
  "secret": "**********",
  "redirectUris": ["https://backoffice.acme.dev/*"]
}
"""),
    ("config", """\
PasswordAuthentication no
PermitRootLogin prohibit-password
PubkeyAuthentication yes
AuthorizedKeysFile .ssh/authorized_keys
TrustedUserCAKeys /etc/ssh/user_ca.pub
"""),
    ("config", """\
[tool.poetry]
name = "acme-money"
version = "⦃ver⦄"
description = "Money arithmetic with ISO 4217 currencies"
authors = ["Acme <dev@acme.dev>"]

[tool.poetry.dependencies]
python = "^3.11"
"""),
    ("config", """\
[package]
name = "ledger-core"
version = "⦃ver⦄"
edition = "2021"

[dependencies]
serde = { version = "1", features = ["derive"] }
sha2 = "0.10"
"""),
    ("config", """\
password_min_length: 14
password_require_mfa: true
session_timeout_minutes: 30
token_ttl_seconds: 3600
refresh_token_rotation: true
"""),
    ("config", """\
vault {
  address = "https://vault.acme.internal:8200"
  auth {
    method "kubernetes" {
      mount_path = "auth/kubernetes"
      config = { role = "orders-api" }
    }
  }
}
"""),
    # ---- DNS records, including verification tokens meant to be published
    ("dns_record", """\
acme.dev.  300  IN  TXT  "google-site-verification=⦃b64u:43⦄"
acme.dev.  300  IN  TXT  "MS=ms⦃dig:8⦄"
acme.dev.  300  IN  TXT  "v=spf1 include:_spf.google.com include:sendgrid.net ~all"
"""),
    ("dns_record", """\
_github-challenge-acme-org.acme.dev.  TXT  "⦃hex:10⦄"
_dmarc.acme.dev.                       TXT  "v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.dev"
"""),
    ("dns_record", """\
acme.dev. TXT "atlassian-domain-verification=⦃b64:64⦄"
acme.dev. TXT "facebook-domain-verification=⦃low:30⦄"
acme.dev. TXT "apple-domain-verification=⦃b62:16⦄"
"""),
    ("dns_record", """\
_acme-challenge.acme.dev. 60 IN TXT "⦃b64u:43⦄"
"""),
    ("dns_record", """\
acme.dev.  3600  IN  CAA  0 issue "letsencrypt.org"
acme.dev.  3600  IN  CAA  0 iodef "mailto:security@acme.dev"
_mta-sts.acme.dev. TXT "v=STSv1; id=⦃dig:14⦄"
"""),
    ("dns_record", """\
$ dig +short TXT _vercel.acme.dev
"vc-domain-verify=app.acme.dev,⦃hex:20⦄"
"""),
    ("dns_record", """\
⦃low:32⦄._domainkey.acme.dev. CNAME ⦃low:32⦄.dkim.amazonses.com.
"""),
]


# -------------------------------------------------------------------------- generator

# The seventh set's filler (imported above) draws every shape it knows; the shapes below are
# this set's own additions (some share a name with the eighth's, written again here).
_PNG_MAGIC = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
_WOFF2_MAGIC = b"wOF2\x00\x01\x00\x00"
_GZIP_MAGIC = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x02\xff"
# Nix's base-32 alphabet (no e, o, u, t).
_NIX32 = "0123456789abcdfghijklmnpqrsvwxyz"
# Words for passphrases, English and Spanish; none is a known default.
_PHRASE_WORDS = ("borrasca tamarind quillay oboe ceniza harpoon membrillo tundra lapacho "
                 "wicker yacare nutmeg piolin zarzamora basalt ocelot grulla mistral "
                 "palmera fjord").split()
# Stems for passwords people pick in Spanish-speaking teams.
_STEMS_ES = ("Yaguarete Chajá Quebracho Ñandu Carpincho Mburucuya Aguaribay Hornero "
             "Tatu Jacaranda Lenga Chingolo").split()
_CLERK_HOSTS = ("clerk.acme.dev", "clerk.turnos.com.ar", "accounts.acme.io", "clerk.ledger.app")


def _timestamp(rng: random.Random) -> datetime.datetime:
    return datetime.datetime.fromtimestamp(rng.randint(1_710_000_000, 1_790_000_000),
                                           tz=datetime.timezone.utc)


def _uuid(rng: random.Random) -> str:
    return _fill(rng, "uuid", None)


def _phrase(rng: random.Random, words: int) -> str:
    sep = rng.choice(["-", " ", ".", "_"])
    return sep.join(rng.choice(_PHRASE_WORDS) for _ in range(words)) + sep + str(rng.randint(10, 999))


def _spanish_password(rng: random.Random) -> str:
    return (rng.choice(_STEMS_ES) + rng.choice(["", ".", "_", "#", "-"]) + str(rng.randint(1950, 2035))
            + rng.choice(["!", "$", "*", "&", "%"]) + _chars(rng, string.ascii_uppercase, 1))


def _json_b64(obj: object, url: bool = True) -> str:
    raw = json.dumps(obj, separators=(",", ":")).encode()
    text = _b64(raw)
    if url:
        text = text.replace("+", "-").replace("/", "_").rstrip("=")
    return text


def _discord_token(rng: random.Random) -> str:
    user_id = str(rng.randint(10**17, 2 * 10**18))
    head = _b64(user_id.encode()).replace("+", "-").replace("/", "_").rstrip("=")
    return ".".join([head, _chars(rng, _ALPHABETS["b64u"], 6), _chars(rng, _ALPHABETS["b64u"], 38)])


def _op_service_account(rng: random.Random) -> str:
    body = {
        "signInAddress": "acme.1password.com",
        "userAuth": {"method": "SRPg-4096", "alg": "PBES2g-HS256", "iterations": 650000,
                     "salt": _chars(rng, _ALPHABETS["b64u"], 22)},
        "email": _chars(rng, string.ascii_lowercase, 26) + "@1passwordserviceaccounts.com",
        "srpX": _chars(rng, _ALPHABETS["hex"], 64),
        "muk": {"alg": "A256GCM", "ext": False, "k": _chars(rng, _ALPHABETS["b64u"], 43),
                "key_ops": ["encrypt", "decrypt"], "kty": "oct", "kid": "mp"},
        "secretKey": "A3-" + "-".join(_chars(rng, _ALPHABETS["up"], n) for n in (6, 6, 5, 5, 5, 5)),
        "deviceUuid": _chars(rng, string.ascii_lowercase + string.digits, 26),
    }
    return "ops_" + _json_b64(body)


def _sentry_org_token(rng: random.Random) -> str:
    payload = {"iat": rng.randint(1_710_000_000, 1_790_000_000) + rng.random(), "url": "https://sentry.io",
               "region_url": "https://us.sentry.io", "org": "acme"}
    return "sntrys_" + _json_b64(payload, url=False).rstrip("=") + "_" + _chars(rng, _ALPHABETS["b62"], 43)


def _tunnel_token(rng: random.Random) -> str:
    body = {"a": _chars(rng, _ALPHABETS["hex"], 32), "t": _uuid(rng), "s": _b64(_noise(rng, 32))}
    return _json_b64(body, url=False)


def _mapbox(rng: random.Random, kind: str) -> str:
    body = {"u": "acme-maps", "a": "cl" + _chars(rng, string.ascii_lowercase + string.digits, 23)}
    return f"{kind or 'pk'}." + _json_b64(body) + "." + _chars(rng, _ALPHABETS["b64u"], 22)


def _extra(rng: random.Random, name: str, arg: str) -> str | None:
    """The shapes this set adds; None for one left to the seventh set's filler."""
    if name == "ip":
        return ".".join(str(rng.randint(1, 254)) for _ in range(4))
    if name == "ts":
        return _timestamp(rng).strftime("%Y-%m-%dT%H:%M:%S.") + f"{rng.randrange(1000):03d}Z"
    if name == "date":
        return _timestamp(rng).strftime("%Y-%m-%d")
    if name == "ver":
        return f"{rng.randint(0, 12)}.{rng.randint(0, 30)}.{rng.randint(0, 40)}"
    if name == "png":
        return _b64(_PNG_MAGIC + _noise(rng, int(arg or 96)))
    if name == "woff":
        return _b64(_WOFF2_MAGIC + _noise(rng, int(arg or 200)))
    if name == "gz":
        return _b64(_GZIP_MAGIC + _noise(rng, int(arg or 64)))
    if name == "nix":
        return _chars(rng, _NIX32, 32)
    if name == "pp":
        return _phrase(rng, int(arg or 4))
    if name == "pwm":
        return _spanish_password(rng)
    if name == "dsc":
        return _discord_token(rng)
    if name == "opsa":
        return _op_service_account(rng)
    if name == "sntrys":
        return _sentry_org_token(rng)
    if name == "cft":
        return _tunnel_token(rng)
    if name == "mbx":
        return _mapbox(rng, arg)
    if name == "clerkpk":
        return "pk_live_" + _b64((rng.choice(_CLERK_HOSTS) + "$").encode())
    if name == "blk":
        return "-".join(f"{rng.randrange(1_000_000):06d}" for _ in range(8))
    if name == "gcode":
        return f"{rng.randrange(10_000):04d} {rng.randrange(10_000):04d}"
    return None


def ninth_cases(seed: int = 53) -> tuple[list[FreshCase], list[FreshCase]]:
    """The ninth split drawn from ``seed``: (secrets, ordinary); each ordinary template is
    drawn twice, independently."""
    return drawn_cases("ninth", seed, SECRETS, ORDINARY, _extra)


if __name__ == "__main__":
    found_secrets, found_ordinary = ninth_cases(53)
    unmarked = [case for case in found_secrets if not case.spans]
    marked_ordinary = [case for case in found_ordinary if case.spans]
    print(f"secret cases:   {len(found_secrets)} over {len({c.kind for c in found_secrets})} kinds")
    print(f"ordinary cases: {len(found_ordinary)} over {len({c.kind for c in found_ordinary})} kinds "
          f"({len(ORDINARY)} templates drawn twice)")
    for case in unmarked:
        print("secret case without a marked span:", case.kind, case.text[:60].replace("\n", " | "))
    for case in marked_ordinary:
        print("ordinary case with a marked span:", case.kind, case.text[:60].replace("\n", " | "))
    assert not unmarked, "every secret case needs at least one marked span"
    assert not marked_ordinary, "ordinary cases carry no marks"
