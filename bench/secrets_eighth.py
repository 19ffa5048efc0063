"""An eighth held-out secrets set, split ``"eighth"``: written blind, measured once, then frozen.

What it is. Texts of the sort a coding agent is asked to remember: shell history, CI files
(GitHub Actions, GitLab CI, CircleCI, Jenkinsfile, Azure Pipelines, Bitbucket Pipelines),
Dockerfiles and compose files, Kubernetes manifests, Helm values and kubeconfigs,
Terraform, Ansible, application settings in many formats (.env, YAML, TOML, INI, JSON,
XML, Java properties, HCL, PHP, Python, Ruby, JavaScript/TypeScript, Go, Rust, C#,
Kotlin, Swift, Elixir, PowerShell), logs and stack traces, HTTP exchanges, curl calls,
database command lines, chat messages, commit messages, READMEs and runbooks, and notes in
English and Spanish. Some hold a credential; the ordinary ones only look as if they might.

How it was written. Blind: from general knowledge of how vendors format their credentials
and of what developers paste, before any measurement, without looking at the detector and
without running it. Exactly these were read, and nothing else of the secrets work:

* ``bench/secrets_seventh.py`` lines 1-100 (its module docstring, with the policy, its
  imports and ``SPLIT``) and lines 1060 to its end (its generator: alphabets, word lists,
  ``_chars`` ... ``render``, ``seventh_cases``). None of its templates (lines 100-1060).
* ``bench/secrets_fresh.py`` lines 45-62 (the end of its word lists, the ``FreshCase``
  dataclass and the comment that opens its templates) and lines 671-700 (the ``marked``
  helper and, by overlap, ``fresh_cases``), found with ``grep -n``.

Not read: the detector (``src/ihmt/secrets/``), any test, ``RELIABILITY.md``,
``BENCHMARKS.md``, and the templates of every other ``bench/secrets_*.py``. The shape
filler of the seventh set is imported and reused; a few shapes are added below; every
template is new. The set is meant to be measured once and then frozen: if a later rule
change would need one of these texts changed, the rule was fitted to the set.

No real credential is in this file. Templates name *shapes* (``⦃hex:32⦄``, ``⦃pw⦄``,
``⦃jwt:rs⦄``, ``⦃pem:rsa⦄`` ...) that a generator seeded with ``seed`` fills at run time;
only public format prefixes (``ghp_``, ``glpat-``, ``xoxb-``, ``sk_live_``, ``AKIA`` ...)
are written literally, and the random fill makes checksummed formats fail their checksums.
A shape may hold inner shapes written ``⟨name:arg⟩``, filled first. In a secret template
the part a detector must mask sits between ``«`` and ``»``; a secret case counts as caught
only when every marked span is covered. Ordinary templates carry no marks and are drawn
twice, independently (those without shapes come out the same both times).

Policy (the seventh set's, in other words; nothing changed):

* A secret is a value that by itself grants access, signs, or decrypts: passwords and
  passphrases, API keys, access and refresh tokens, private keys however wrapped (PEM,
  encrypted PEM, escaped onto one line, base64 of a whole PEM, PuTTY, JWK ``d``), session
  cookies, application signing and encryption keys, URLs that are themselves the
  capability (chat webhooks, presigned/SAS links, reset and magic links, keys in query
  strings), TOTP seeds, recovery codes, wallet seed phrases and wallet private keys.
* What decides is the value, not what surrounds it: test-mode keys, ``django-insecure-``
  keys and tokens called revoked or expired still count if the value is there.
* ``AKIA``/``ASIA`` key ids and Google ``AIza`` keys are secrets wherever they appear, so
  none is in an ordinary text. Ids that only stand next to a secret (account SIDs, client
  ids, key ids, webhook numeric ids, ``private_key_id``) stay unmarked.
* Placeholders and well-known weak defaults (``changeme``, ``password``, ``admin``,
  ``<your-token>``, ``xxxx``, ``****``, ``[REDACTED]``, ``${VAR}``) are not secrets and
  appear only in ordinary texts.
* Keys documented as public are ordinary (publishable keys, Mapbox ``pk.``, Sentry DSNs,
  the Supabase anon key, search-only keys, site keys, project and analytics ids, OAuth
  client ids); their private counterparts are secrets.
* Ciphertext meant to be committed is ordinary (sops, Ansible Vault, SealedSecrets, age
  or PGP messages, KMS blobs), as are per-message signatures and nonces (webhook
  signatures, CSP nonces, WebSocket keys, PKCE, OAuth ``state``, CSRF tokens, captcha
  responses); the signature of a presigned URL is a secret. Public key material, public
  blockchain data, resource ids in URLs and analytics cookies are ordinary. Password
  hashes appear on neither side.
* Marks are minimal: only the value (the password inside a URL or a DSN, the body of a
  PEM block between its BEGIN and END lines, the credential segment of a webhook URL),
  the whole token for JWTs and prefixed tokens, and each recovery code on its own.

``eighth_cases(seed)`` returns ``(secrets, ordinary)``: two lists of :class:`FreshCase`.
"""

from __future__ import annotations

import datetime
import random
import string

from bench.secrets_fresh import FreshCase
from bench.secrets_seventh import _ALPHABETS, _b64, _chars, _noise, drawn_cases

SPLIT = "eighth"

# --------------------------------------------------------------------------- secrets

# (kind, template). A kind groups one credential format; the surroundings vary within it.
SECRETS: list[tuple[str, str]] = [
    # ---- AWS access keys
    ("aws_access_key", """[profile billing-ops]
aws_access_key_id = «AKIA⦃b32:16⦄»
aws_secret_access_key = «⦃b64:40⦄»
region = eu-west-1
output = json"""),
    ("aws_access_key", """  412  export AWS_ACCESS_KEY_ID=«AKIA⦃b32:16⦄»
  413  export AWS_SECRET_ACCESS_KEY=«⦃b64:40⦄»
  414  aws s3 ls s3://acme-invoices-prod --recursive | tail -n 20
  415  history | grep aws"""),
    ("aws_access_key", """jobs:
  deploy:
    runs-on: ubuntu-latest
    env:
      AWS_ACCESS_KEY_ID: «AKIA⦃b32:16⦄»
      AWS_SECRET_ACCESS_KEY: «⦃b64:40⦄»
      AWS_REGION: us-east-2
    steps:
      - uses: actions/checkout@v4
      - run: ./scripts/deploy.sh production"""),
    ("aws_access_key", """provider "aws" {
  region     = "ap-southeast-2"
  access_key = "«AKIA⦃b32:16⦄»"
  secret_key = "«⦃b64:40⦄»"
}"""),
    ("aws_access_key", """s3 = boto3.client(
    "s3",
    aws_access_key_id="«AKIA⦃b32:16⦄»",
    aws_secret_access_key="«⦃b64:40⦄»",
    region_name="us-west-2",
)"""),
    ("aws_access_key", "Nota para mí: el bucket de facturas de staging se lee con la clave «AKIA⦃b32:16⦄» "
     "y el secreto «⦃b64:40⦄». Ojo, no es la cuenta de producción."),
    ("aws_access_key", """# src/main/resources/application-dev.properties
cloud.aws.region.static=eu-central-1
cloud.aws.credentials.access-key=«AKIA⦃b32:16⦄»
cloud.aws.credentials.secret-key=«⦃b64:40⦄»"""),
    ("aws_access_key", """$ docker run --rm -e AWS_ACCESS_KEY_ID=«AKIA⦃b32:16⦄» \\
    -e AWS_SECRET_ACCESS_KEY=«⦃b64:40⦄» \\
    amazon/aws-cli sts get-caller-identity
{
    "UserId": "AIDA⦃b32:17⦄",
    "Account": "⦃dig:12⦄",
    "Arn": "arn:aws:iam::⦃dig:12⦄:user/ci-uploader"
}"""),
    ("aws_session_token", """$ aws sts assume-role --role-arn arn:aws:iam::⦃dig:12⦄:role/deployer --role-session-name ci
{
    "Credentials": {
        "AccessKeyId": "«ASIA⦃b32:16⦄»",
        "SecretAccessKey": "«⦃b64:40⦄»",
        "SessionToken": "«IQoJb3JpZ2luX2VjE⦃b64:360⦄»",
        "Expiration": "2025-06-03T14:21:09+00:00"
    },
    "AssumedRoleUser": {
        "AssumedRoleId": "AROA⦃b32:17⦄:ci",
        "Arn": "arn:aws:sts::⦃dig:12⦄:assumed-role/deployer/ci"
    }
}"""),
    ("aws_session_token", """# pasted from the SSO portal, "Option 2: add to your AWS credentials file"
[⦃dig:12⦄_AdministratorAccess]
aws_access_key_id=«ASIA⦃b32:16⦄»
aws_secret_access_key=«⦃b64:40⦄»
aws_session_token=«IQoJb3JpZ2luX2VjE⦃b64:420⦄»"""),
    # ---- signed URLs (the signature is the capability)
    ("signed_url", "here's the Q3 export, link works for 7 days: https://acme-exports.s3.eu-central-1.amazonaws.com/"
     "reports/q3-⦃int:1000-9999⦄.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=«AKIA⦃b32:16⦄»"
     "%2F20250611%2Feu-central-1%2Fs3%2Faws4_request&X-Amz-Date=20250611T101500Z&X-Amz-Expires=604800"
     "&X-Amz-SignedHeaders=host&X-Amz-Signature=«⦃hex:64⦄»"),
    ("signed_url", """GET /acme-media/raw/clip-⦃int:100-999⦄.mp4?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Credential=uploader%40acme-media.iam.gserviceaccount.com%2F20250301%2Fauto%2Fstorage%2Fgoog4_request&X-Goog-Date=20250301T090000Z&X-Goog-Expires=3600&X-Goog-SignedHeaders=host&X-Goog-Signature=«⦃hex:512⦄» HTTP/1.1
Host: storage.googleapis.com
User-Agent: curl/8.5.0"""),
    ("signed_url", "az storage blob download fails for me, but this SAS link from Ana works in the browser: "
     "https://stbackups⦃low:6⦄.blob.core.windows.net/pg-dumps/orders-2025-05-30.dump?sv=2022-11-02&ss=b&srt=o"
     "&sp=r&se=2025-06-30T18:00:00Z&st=2025-05-30T10:00:00Z&spr=https&sig=«⦃rb64pct:32⦄»"),
    ("signed_url", """Invoke-WebRequest -Uri "https://acmeshared.file.core.windows.net/installers/agent.msi?sv=2023-01-03&si=readonly&sr=f&sig=«⦃rb64pct:32⦄»" -OutFile agent.msi"""),
    # ---- Google Cloud
    ("gcp_service_account", r"""{
  "type": "service_account",
  "project_id": "ledger-prod-⦃int:100000-999999⦄",
  "private_key_id": "⦃hex:40⦄",
  "private_key": "-----BEGIN PRIVATE KEY-----\n«⦃pemesc:pkcs8⦄»\n-----END PRIVATE KEY-----\n",
  "client_email": "bq-loader@ledger-prod.iam.gserviceaccount.com",
  "client_id": "⦃dig:21⦄",
  "auth_uri": "https://accounts.google.com/o/oauth2/auth",
  "token_uri": "https://oauth2.googleapis.com/token"
}"""),
    ("gcp_service_account", r"""# .gitlab-ci.yml
variables:
  GOOGLE_PROJECT: analytics-⦃int:1000-9999⦄
  GOOGLE_CREDENTIALS_B64: «⦃b64of:{"type":"service_account","project_id":"analytics","private_key_id":"⟨hex:40⟩","private_key":"-----BEGIN PRIVATE KEY-----\n⟨pemesc:pkcs8⟩\n-----END PRIVATE KEY-----\n","client_email":"ci@analytics.iam.gserviceaccount.com"}⦄»
deploy:
  script:
    - echo "$GOOGLE_CREDENTIALS_B64" | base64 -d > /tmp/sa.json"""),
    ("gcp_service_account", r"""provider "google" {
  project     = "render-farm-⦃int:100-999⦄"
  region      = "europe-west4"
  credentials = <<EOT
{"type": "service_account", "project_id": "render-farm", "private_key_id": "⦃hex:40⦄",
 "private_key": "-----BEGIN PRIVATE KEY-----\n«⦃pemesc:pkcs8⦄»\n-----END PRIVATE KEY-----\n",
 "client_email": "terraform@render-farm.iam.gserviceaccount.com"}
EOT
}"""),
    ("google_api_key", """// src/config/maps.ts
export const MAPS_API_KEY = "«AIza⦃b64u:35⦄»";
export const DEFAULT_CENTER = { lat: 40.4168, lng: -3.7038 };"""),
    ("google_api_key", """curl -s "https://maps.googleapis.com/maps/api/geocode/json?address=Calle+Mayor+⦃int:1-200⦄,+Madrid&key=«AIza⦃b64u:35⦄»" | jq '.results[0].geometry'"""),
    ("google_api_key", """<?xml version="1.0" encoding="utf-8"?>
<resources>
    <string name="app_name">Rutas</string>
    <string name="google_maps_key" templateMergeStrategy="preserve" translatable="false">«AIza⦃b64u:35⦄»</string>
</resources>"""),
    ("google_api_key", """func application(_ application: UIApplication,
                 didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
    GMSServices.provideAPIKey("«AIza⦃b64u:35⦄»")
    return true
}"""),
    ("google_api_key", "GEMINI_API_KEY=«AIza⦃b64u:35⦄»\nGEMINI_MODEL=gemini-1.5-pro\nMAX_OUTPUT_TOKENS=⦃int:1000-8000⦄"),
    ("google_oauth_secret", """{"web":{"client_id":"⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com","project_id":"crm-sso","auth_uri":"https://accounts.google.com/o/oauth2/auth","token_uri":"https://oauth2.googleapis.com/token","client_secret":"«GOCSPX-⦃b64u:28⦄»","redirect_uris":["https://crm.acme.io/auth/google/callback"]}}"""),
    ("google_oauth_secret", """GOOGLE_CLIENT_ID=⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com
GOOGLE_CLIENT_SECRET=«GOCSPX-⦃b64u:28⦄»
GOOGLE_REDIRECT_URI=http://localhost:3000/api/auth/callback/google"""),
    ("firebase_server_key", """curl -X POST https://fcm.googleapis.com/fcm/send \\
  -H "Authorization: key=«AAAA⦃b64u:7⦄:APA91b⦃b64u:134⦄»" \\
  -H "Content-Type: application/json" \\
  -d '{"to": "/topics/news", "notification": {"title": "Hola"}}'"""),
    # ---- Azure
    ("azure_storage_key", """{
  "Logging": { "LogLevel": { "Default": "Information" } },
  "ConnectionStrings": {
    "Blobs": "DefaultEndpointsProtocol=https;AccountName=stlogs⦃low:6⦄;AccountKey=«⦃rb64:64⦄»;EndpointSuffix=core.windows.net"
  }
}"""),
    ("azure_storage_key", """az storage blob upload --account-name stmedia⦃low:5⦄ \\
  --account-key «⦃rb64:64⦄» \\
  --container-name thumbnails --name hero.webp --file ./dist/hero.webp"""),
    ("azure_storage_key", """var client = new CosmosClient(
    "https://orders-⦃low:5⦄.documents.azure.com:443/",
    "«⦃rb64:64⦄»",
    new CosmosClientOptions { ApplicationName = "OrdersApi" });"""),
    ("azure_shared_access_key", """ServiceBus__ConnectionString="Endpoint=sb://acme-bus-⦃low:5⦄.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«⦃rb64:32⦄»\""""),
    ("azure_shared_access_key", """producer = EventHubProducerClient.from_connection_string(
    "Endpoint=sb://telemetry-⦃low:6⦄.servicebus.windows.net/;SharedAccessKeyName=send;"
    "SharedAccessKey=«⦃rb64:32⦄»;EntityPath=device-events"
)"""),
    ("azure_client_secret", """AZURE_TENANT_ID=⦃uuid⦄
AZURE_CLIENT_ID=⦃uuid⦄
AZURE_CLIENT_SECRET=«⦃azs:3⦄8Q~⦃azs:34⦄»
AZURE_SUBSCRIPTION_ID=⦃uuid⦄"""),
    ("azure_client_secret", """provider "azurerm" {
  features {}
  tenant_id       = "⦃uuid⦄"
  client_id       = "⦃uuid⦄"
  client_secret   = "«⦃azs:3⦄8Q~⦃azs:34⦄»"
  subscription_id = "⦃uuid⦄"
}"""),
    ("azure_client_secret", """az login --service-principal -u ⦃uuid⦄ -p «⦃azs:3⦄8Q~⦃azs:34⦄» --tenant ⦃uuid⦄
az aks get-credentials -g rg-platform -n aks-prod-weu"""),
    ("azure_client_secret", "Acabo de crear el service principal para el pipeline. appId ⦃uuid⦄, "
     "el secreto es «⦃azs:3⦄8Q~⦃azs:34⦄» y caduca en 6 meses, apúntalo en el runbook."),
    ("azure_devops_pat", """git clone https://build:«⦃b32l:52⦄»@dev.azure.com/acme-⦃low:4⦄/Platform/_git/infra-modules"""),
    ("azure_devops_pat", """- task: Bash@3
  inputs:
    targetType: inline
    script: |
      echo "«⦃b32l:52⦄»" | az devops login --organization https://dev.azure.com/acme-⦃low:4⦄
      az pipelines run --name nightly"""),
    # ---- Git hosts
    ("github_token", "git remote set-url origin https://x-access-token:«ghs_⦃b62:36⦄»@github.com/acme/billing-⦃low:5⦄.git"),
    ("github_token", """@acme:registry=https://npm.pkg.github.com
//npm.pkg.github.com/:_authToken=«ghp_⦃b62:36⦄»
always-auth=true"""),
    ("github_token", """$ gh auth login --with-token <<< «github_pat_11⦃up:20⦄_⦃b62:59⦄»
$ gh repo list acme --limit ⦃int:10-200⦄"""),
    ("github_token", "[10:42] marta: can you try with my token until the bot is fixed? «gho_⦃b62:36⦄» "
     "— it has repo scope only\n[10:43] you: thanks, will rotate it after"),
    ("github_token", """commit ⦃hex:40⦄
Author: Pablo R <pablo@acme.io>
Date:   Tue Apr 8 17:03:11 2025 +0200

    ci: hardcode token while secrets are broken (TEMP)

    GITHUB_TOKEN was empty on forks, so use «ghp_⦃b62:36⦄» for now."""),
    ("github_token", """git config --global url."https://«ghp_⦃b62:36⦄»:x-oauth-basic@github.com/".insteadOf "https://github.com/"
export GOPRIVATE=github.com/acme/*
go mod download"""),
    ("github_token", """FROM golang:1.22 AS build
ARG GITHUB_TOKEN=«github_pat_11⦃up:20⦄_⦃b62:59⦄»
RUN git config --global url."https://${GITHUB_TOKEN}@github.com/".insteadOf "https://github.com/"
WORKDIR /src
COPY . .
RUN go build -o /out/api ./cmd/api"""),
    ("gitlab_token", """variables:
  GITLAB_TOKEN: «glpat-⦃b64u:20⦄»
  DOCKER_DRIVER: overlay2

release:
  stage: release
  script:
    - release-cli create --name "v$CI_COMMIT_TAG" --tag-name $CI_COMMIT_TAG"""),
    ("gitlab_token", """sudo gitlab-runner register --non-interactive \\
  --url https://gitlab.acme.io/ \\
  --token «glrt-⦃b64u:20⦄» \\
  --executor docker --docker-image alpine:3.20 --description runner-⦃int:10-99⦄"""),
    ("gitlab_token", "docker login registry.gitlab.com -u gitlab+deploy-token-⦃int:1000-99999⦄ -p «gldt-⦃b64u:20⦄»"),
    ("gitlab_token", """import gitlab

gl = gitlab.Gitlab("https://gitlab.acme.io", private_token="«glpat-⦃b64u:20⦄»")
project = gl.projects.get("platform/terraform-modules")
print(project.default_branch)"""),
    ("bitbucket_app_password", """# bitbucket-pipelines.yml
pipelines:
  default:
    - step:
        script:
          - export BB_AUTH="ci-bot:«ATBB⦃b62:28⦄⦃HEX:8⦄»"
          - curl -s -u "$BB_AUTH" https://api.bitbucket.org/2.0/repositories/acme"""),
    ("gitea_token", """logins:
  - name: git.acme.lan
    url: https://git.acme.lan
    token: «⦃hex:40⦄»
    default: true
    user: pablo"""),
    # ---- chat and webhooks
    ("slack_token", """from slack_sdk import WebClient

client = WebClient(token="«xoxb-⦃dig:12⦄-⦃dig:13⦄-⦃b62:24⦄»")
client.chat_postMessage(channel="#deploys", text="release done")"""),
    ("slack_token", "SLACK_USER_TOKEN=«xoxp-⦃dig:12⦄-⦃dig:12⦄-⦃dig:13⦄-⦃hex:32⦄»\nSLACK_CHANNEL=C⦃up:10⦄"),
    ("slack_token", """const app = new App({
  token: process.env.SLACK_BOT_TOKEN,
  appToken: "«xapp-1-A⦃up:10⦄-⦃dig:13⦄-⦃hex:64⦄»",
  socketMode: true,
});"""),
    ("slack_webhook", """curl -X POST -H 'Content-type: application/json' \\
  --data '{"text":"nightly backup finished"}' \\
  https://hooks.slack.com/services/T⦃up:8⦄/B⦃up:10⦄/«⦃b62:24⦄»"""),
    ("slack_webhook", """receivers:
  - name: oncall-slack
    slack_configs:
      - api_url: https://hooks.slack.com/services/T⦃up:9⦄/B⦃up:11⦄/«⦃b62:24⦄»
        channel: '#alerts-prod'
        send_resolved: true"""),
    ("slack_webhook", "El webhook del canal #alertas es https://hooks.slack.com/services/T⦃up:9⦄/B⦃up:11⦄/«⦃b62:24⦄», "
     "lo usa el cron de copias."),
    ("discord_webhook", """import requests

WEBHOOK = "https://discord.com/api/webhooks/⦃dig:19⦄/«⦃b64u:68⦄»"
requests.post(WEBHOOK, json={"content": "build #⦃int:100-9999⦄ passed"})"""),
    ("discord_bot_token", """import discord

intents = discord.Intents.default()
bot = discord.Client(intents=intents)
bot.run("«M⦃b64u:25⦄.⦃b64u:6⦄.⦃b64u:38⦄»")"""),
    ("telegram_bot_token", """curl -s "https://api.telegram.org/bot«⦃dig:10⦄:AA⦃b64u:33⦄»/sendMessage" \\
  -d chat_id=-100⦃dig:10⦄ -d text="disk usage at 91%\""""),
    ("telegram_bot_token", "Te paso el token del bot de avisos: «⦃dig:10⦄:AA⦃b64u:33⦄». El chat_id del grupo es "
     "-100⦃dig:10⦄."),
    ("teams_webhook", """$uri = "https://acme.webhook.office.com/webhookb2/⦃uuid⦄@⦃uuid⦄/IncomingWebhook/«⦃hex:32⦄»/⦃uuid⦄/V2⦃b62:30⦄"
$body = @{ text = "Patch Tuesday rollout complete" } | ConvertTo-Json
Invoke-RestMethod -Method Post -Uri $uri -Body $body -ContentType 'application/json'"""),
    ("chat_webhook", "GCHAT_WEBHOOK=https://chat.googleapis.com/v1/spaces/AAAA⦃b64u:7⦄/messages?key=«AIza⦃b64u:35⦄»"
     "&token=«⦃b64u:43⦄»"),
    ("chat_webhook", """notify:
  mattermost:
    url: https://chat.acme.lan/hooks/«⦃low:26⦄»
    channel: release-train"""),
    # ---- payments
    ("stripe_secret", """# config/initializers/stripe.rb
Stripe.api_key = "«sk_live_51⦃b62:97⦄»"
Stripe.api_version = "2024-06-20\""""),
    ("stripe_secret", "STRIPE_RESTRICTED_KEY=«rk_live_51⦃b62:97⦄»\nSTRIPE_ACCOUNT=acct_⦃b62:16⦄"),
    ("stripe_secret", """// test/setup.js
const stripe = require("stripe")("«sk_test_51⦃b62:97⦄»");
module.exports = { stripe };"""),
    ("stripe_secret", """curl https://api.stripe.com/v1/refunds \\
  -u «sk_live_51⦃b62:97⦄»: \\
  -d payment_intent=pi_⦃b62:24⦄"""),
    ("stripe_webhook_secret", """STRIPE_PUBLISHABLE_KEY=pk_live_51⦃b62:97⦄
STRIPE_WEBHOOK_SECRET=«whsec_⦃b62:32⦄»"""),
    ("stripe_webhook_secret", """$ stripe listen --forward-to localhost:4242/webhook
> Ready! You are using Stripe API Version [2024-06-20]. Your webhook signing secret is «whsec_⦃hex:64⦄» (^C to quit)"""),
    ("payment_token", """gateway = braintree.BraintreeGateway(
    access_token="«access_token$production$⦃low:16⦄$⦃hex:32⦄»"
)"""),
    ("payment_token", """SQUARE_ENVIRONMENT=production
SQUARE_ACCESS_TOKEN=«EAAA⦃b64u:60⦄»
SQUARE_LOCATION_ID=L⦃up:12⦄"""),
    ("payment_token", """<?php
$paystack = new \\Yabacon\\Paystack('«sk_live_⦃hex:40⦄»');
$tranx = $paystack->transaction->initialize(['amount' => $amount, 'email' => $email]);"""),
    ("payment_token", """razorpay:
  key_id: rzp_live_⦃b62:14⦄
  key_secret: «⦃b62:24⦄»"""),
    ("payment_token", """$mollie = new \\Mollie\\Api\\MollieApiClient();
$mollie->setApiKey("«live_⦃b62:30⦄»");"""),
    ("payment_token", """PAYPAL_MODE=live
PAYPAL_CLIENT_ID=A⦃b64u:79⦄
PAYPAL_CLIENT_SECRET=«E⦃b64u:79⦄»"""),
    # ---- email and SMS vendors
    ("sendgrid_key", "SENDGRID_API_KEY=«SG.⦃b64u:22⦄.⦃b64u:43⦄»\nMAIL_FROM=no-reply@acme.io"),
    ("sendgrid_key", """EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
EMAIL_HOST = "smtp.sendgrid.net"
EMAIL_HOST_USER = "apikey"
EMAIL_HOST_PASSWORD = "«SG.⦃b64u:22⦄.⦃b64u:43⦄»"
EMAIL_PORT = 587"""),
    ("sendgrid_key", """# /etc/postfix/sasl_passwd
[smtp.sendgrid.net]:587 apikey:«SG.⦃b64u:22⦄.⦃b64u:43⦄»"""),
    ("mailgun_key", """curl -s --user 'api:«key-⦃hex:32⦄»' \\
  https://api.eu.mailgun.net/v3/mg.acme.io/messages \\
  -F from='Acme <postmaster@mg.acme.io>' -F to=ops@acme.io -F subject='test ⦃int:1-9999⦄'"""),
    ("mailgun_key", "MAILGUN_API_KEY=«⦃hex:32⦄-⦃hex:8⦄-⦃hex:8⦄»\nMAILGUN_DOMAIN=mg.acme.io"),
    ("mailchimp_key", """mailchimp = MailchimpMarketing.Client()
mailchimp.set_config({
    "api_key": "«⦃hex:32⦄-us⦃int:2-21⦄»",
    "server": "us14",
})"""),
    ("postmark_token", """curl "https://api.postmarkapp.com/email" \\
  -X POST -H "Accept: application/json" -H "Content-Type: application/json" \\
  -H "X-Postmark-Server-Token: «⦃uuid⦄»" \\
  -d '{"From": "hello@acme.io", "To": "qa@acme.io", "Subject": "smoke", "TextBody": "ok"}'"""),
    ("twilio_auth_token", "TWILIO_ACCOUNT_SID=AC⦃hex:32⦄\nTWILIO_AUTH_TOKEN=«⦃hex:32⦄»\nTWILIO_FROM=+1415555⦃dig:4⦄"),
    ("twilio_auth_token", """curl -X POST https://api.twilio.com/2010-04-01/Accounts/AC⦃hex:32⦄/Messages.json \\
  --data-urlencode "Body=Your code is 482913" \\
  --data-urlencode "To=+34600⦃dig:6⦄" --data-urlencode "From=+1415555⦃dig:4⦄" \\
  -u AC⦃hex:32⦄:«⦃hex:32⦄»"""),
    ("email_api_key", """sib_api_v3_sdk.Configuration().api_key['api-key'] = '«xkeysib-⦃hex:64⦄-⦃b62:16⦄»'"""),
    ("email_api_key", """import { Resend } from "resend";
const resend = new Resend("«re_⦃b62:8⦄_⦃b62:24⦄»");"""),
    ("email_api_key", """vonage:
  api_key: ⦃hex:8⦄
  api_secret: «⦃b62:16⦄»
  from: ACME"""),
    # ---- database URLs
    ("db_url_password", "DATABASE_URL=postgres://orders_app:«⦃pwu⦄»@db-⦃int:1-9⦄.internal:5432/orders?sslmode=require"),
    ("db_url_password", """const uri = "mongodb+srv://svc-reporting:«⦃pwu⦄»@cluster0.⦃low:5⦄.mongodb.net/?retryWrites=true&w=majority";
const client = new MongoClient(uri);"""),
    ("db_url_password", "REDIS_URL=redis://default:«⦃pwu⦄»@redis-⦃int:10000-19999⦄.c⦃int:1-300⦄.us-east-1-2.ec2.cloud.redislabs.com:⦃int:10000-19999⦄"),
    ("db_url_password", "spring.datasource.url=jdbc:mysql://mysql.prod.lan:3306/crm?user=crm_rw&password=«⦃pwu⦄»&useSSL=true"),
    ("db_url_password", """engine = create_engine(
    "mysql+pymysql://etl:«⦃pwu⦄»@10.20.⦃int:0-255⦄.⦃int:1-254⦄:3306/warehouse",
    pool_pre_ping=True,
)"""),
    ("db_url_password", "CELERY_BROKER_URL = \"amqp://orders:«⦃pwu⦄»@rabbitmq.svc.cluster.local:5672/orders\"\n"
     "CELERY_RESULT_BACKEND = \"rpc://\""),
    ("db_url_password", """Traceback (most recent call last):
  File "/app/worker.py", line ⦃int:20-400⦄, in <module>
    conn = psycopg2.connect(DSN)
psycopg2.OperationalError: could not connect to server: Connection timed out
DSN was: postgresql://analytics:«⦃pwu⦄»@pg-replica-2.acme.lan:6432/metrics"""),
    ("db_url_password", """CACHES = {
    "default": {
        "BACKEND": "django_redis.cache.RedisCache",
        "LOCATION": "rediss://:«⦃pwu⦄»@cache-⦃low:6⦄.acme.io:6380/1",
    }
}"""),
    ("db_url_password", """services:
  api:
    image: ghcr.io/acme/api:⦃hex:7⦄
    environment:
      DATABASE_URL: "postgresql+asyncpg://api:«⦃pwu⦄»@postgres:5432/api"
      LOG_LEVEL: info"""),
    # ---- database command lines and client configs
    ("db_cli_password", "mysql -h mysql-⦃int:1-9⦄.prod.lan -u report_ro -p«⦃pw⦄» crm -e 'select count(*) from leads'"),
    ("db_cli_password", "PGPASSWORD='«⦃pw⦄»' psql -h pg-⦃low:4⦄.acme.lan -U migrator -d billing -f migrations/0042.sql"),
    ("db_cli_password", "mongosh \"mongodb://mongo-0.mongo:27017/app\" --username app_owner --password '«⦃pw⦄»' "
     "--authenticationDatabase admin"),
    ("db_cli_password", "redis-cli -h 10.0.⦃int:0-255⦄.⦃int:1-254⦄ -p 6379 -a '«⦃pw⦄»' --no-auth-warning INFO keyspace"),
    ("db_cli_password", "sqlcmd -S tcp:sql-⦃low:5⦄.database.windows.net,1433 -d Inventory -U sqladmin -P \"«⦃pw⦄»\" "
     "-Q \"SELECT TOP 5 * FROM dbo.Items\""),
    ("db_cli_password", "sqlplus system/«⦃pw⦄»@//oradb-⦃int:1-9⦄.acme.lan:1521/ORCLPDB1 @scripts/grants.sql"),
    ("db_cli_password", "clickhouse-client --host ch-⦃int:1-9⦄.acme.lan --user writer --password '«⦃pw⦄»' "
     "--query 'OPTIMIZE TABLE events FINAL'"),
    ("db_cli_password", "curl -sk -u elastic:«⦃pw⦄» https://es-⦃int:1-9⦄.acme.lan:9200/_cat/indices?v"),
    ("db_config_password", """# ~/.pgpass  (chmod 600)
pg-primary.acme.lan:5432:*:dba:«⦃pw⦄»
pg-replica.acme.lan:5432:reports:reporter:«⦃pw⦄»"""),
    ("db_config_password", """[client]
user=backup
password=«⦃pw⦄»
host=mysql-⦃int:1-9⦄.acme.lan

[mysqldump]
single-transaction"""),
    ("db_config_password", """; /etc/pgbouncer/userlist.txt
"app" "«⦃pw⦄»"
"stats" "«⦃pw⦄»\""""),
    ("db_config_password", """[[outputs.influxdb_v2]]
  urls = ["https://influx.acme.lan:8086"]
  token = "«⦃rb64:64⦄»"
  organization = "acme"
  bucket = "telegraf-⦃low:4⦄\""""),
    # ---- private keys
    ("private_key_pem", """Key for the legacy SFTP box (sftp-⦃int:1-9⦄.partner.net), keep it somewhere safe:

-----BEGIN RSA PRIVATE KEY-----
«⦃pem:rsa⦄»
-----END RSA PRIVATE KEY-----"""),
    ("private_key_pem", """ingress:
  tls:
    crt: |
      -----BEGIN CERTIFICATE-----
      ⦃pem:cert:6⦄
      -----END CERTIFICATE-----
    key: |
      -----BEGIN PRIVATE KEY-----
      «⦃pem:pkcs8:6⦄»
      -----END PRIVATE KEY-----"""),
    ("private_key_pem", """// signer_test.go
const testSigningKey = `-----BEGIN EC PRIVATE KEY-----
«⦃pem:ec⦄»
-----END EC PRIVATE KEY-----`"""),
    ("private_key_pem", """AuthKey_⦃UP:10⦄.p8 for APNs (team ⦃UP:10⦄):
-----BEGIN PRIVATE KEY-----
«⦃pem:ec8⦄»
-----END PRIVATE KEY-----"""),
    ("openssh_private_key", """here's the deploy key for the staging box, add it to your agent:
-----BEGIN OPENSSH PRIVATE KEY-----
«⦃pem:openssh⦄»
-----END OPENSSH PRIVATE KEY-----
user is deploy, host 10.4.⦃int:0-255⦄.⦃int:1-254⦄"""),
    ("openssh_private_key", """# group_vars/web.yml
deploy_user: deploy
deploy_private_key: |
  -----BEGIN OPENSSH PRIVATE KEY-----
  «⦃pem:openssh:2⦄»
  -----END OPENSSH PRIVATE KEY-----"""),
    ("encrypted_private_key", """-----BEGIN ENCRYPTED PRIVATE KEY-----
«⦃pem:enc⦄»
-----END ENCRYPTED PRIVATE KEY-----"""),
    ("encrypted_private_key", """-----BEGIN RSA PRIVATE KEY-----
Proc-Type: 4,ENCRYPTED
DEK-Info: AES-256-CBC,⦃HEX:32⦄

«⦃pem:rsa⦄»
-----END RSA PRIVATE KEY-----"""),
    ("private_key_escaped", r"""JWT_PUBLIC_KEY_PATH=./keys/jwt.pub
JWT_PRIVATE_KEY="-----BEGIN PRIVATE KEY-----\n«⦃pemesc:pkcs8⦄»\n-----END PRIVATE KEY-----\n"
JWT_ISSUER=https://auth.acme.io"""),
    ("private_key_escaped", r"""        {
          "mode": "managed",
          "type": "tls_private_key",
          "name": "bastion",
          "instances": [{"attributes": {"algorithm": "RSA", "rsa_bits": 2048,
            "private_key_pem": "-----BEGIN RSA PRIVATE KEY-----\n«⦃pemesc:rsa⦄»\n-----END RSA PRIVATE KEY-----\n",
            "public_key_openssh": "ssh-rsa ⦃sshpub:rsa⦄\n"}}]
        }"""),
    ("private_key_base64", """apiVersion: v1
kind: Secret
metadata:
  name: api-tls
  namespace: edge
type: kubernetes.io/tls
data:
  tls.crt: ⦃pemb64:cert⦄
  tls.key: «⦃pemb64:rsa⦄»"""),
    ("private_key_base64", "SIGNING_KEY_PKCS8_DER_B64=«⦃pemline:ec8⦄»\nSIGNING_KEY_ID=key-⦃int:2020-2030⦄-⦃int:1-12⦄"),
    ("putty_private_key", """PuTTY-User-Key-File-3: ssh-rsa
Encryption: none
Comment: rsa-key-⦃int:20200101-20251231⦄
Public-Lines: 6
⦃b64lines:279:64⦄
Private-Lines: 14
«⦃b64lines:660:64⦄»
Private-MAC: ⦃hex:64⦄"""),
    ("jwk_private", """{
  "kty": "EC",
  "crv": "P-256",
  "kid": "⦃b64u:22⦄",
  "use": "sig",
  "x": "⦃rb64u:32⦄",
  "y": "⦃rb64u:32⦄",
  "d": "«⦃rb64u:32⦄»"
}"""),
    ("age_secret_key", """# created: 2025-02-11T09:14:55+01:00
# public key: age1⦃bech:58⦄
«AGE-SECRET-KEY-1⦃BECH:58⦄»"""),
    ("wireguard_private_key", """[Interface]
PrivateKey = «⦃rb64:32⦄»
Address = 10.66.⦃int:0-255⦄.2/32
DNS = 1.1.1.1

[Peer]
PublicKey = ⦃rb64:32⦄
Endpoint = vpn.acme.io:51820
AllowedIPs = 0.0.0.0/0"""),
    ("pgp_private_key", """-----BEGIN PGP PRIVATE KEY BLOCK-----

«⦃pgp⦄»
-----END PGP PRIVATE KEY BLOCK-----"""),
    ("wallet_private_key", """// hardhat.config.ts
const config: HardhatUserConfig = {
  solidity: "0.8.24",
  networks: {
    sepolia: {
      url: "https://ethereum-sepolia-rpc.publicnode.com",
      accounts: ["0x«⦃hex:64⦄»"],
    },
  },
};"""),
    ("wallet_private_key", "bitcoin-cli importprivkey «⦃wif⦄» \"cold-⦃int:1-99⦄\" false"),
    ("wallet_private_key", "$ cat ~/.config/solana/id.json\n[«⦃intlist:64⦄»]"),
    # ---- JWTs and sessions
    ("jwt_token", """curl -s https://api.acme.io/v2/orders?limit=⦃int:5-100⦄ \\
  -H "Authorization: Bearer «⦃jwt:rs⦄»" | jq ."""),
    ("jwt_token", """POST /graphql HTTP/2
Host: api.shop-⦃low:5⦄.com
Authorization: Bearer «⦃jwt:hs⦄»
Content-Type: application/json

{"query":"{ me { id email } }"}"""),
    ("jwt_token", "⦃ts⦄ DEBUG auth.middleware verified token=«⦃jwt:hs⦄» uid=⦃int:1000-99999⦄ route=/api/cart"),
    ("jwt_token", """> localStorage.getItem("refresh_token")
'«⦃jwt:rs⦄»'"""),
    ("supabase_service_role", """NEXT_PUBLIC_SUPABASE_URL=https://⦃lower:20⦄.supabase.co
SUPABASE_SERVICE_ROLE_KEY=«⦃jwt:service_role⦄»"""),
    ("k8s_sa_token", """users:
- name: ci-deployer
  user:
    token: «⦃jwt:k8s⦄»"""),
    ("session_cookie", """GET /admin/orders/?status=pending HTTP/1.1
Host: backoffice.acme.io
Cookie: csrftoken=⦃b62:32⦄; sessionid=«⦃low:32⦄»
User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0"""),
    ("session_cookie", "Set-Cookie: connect.sid=«s%3A⦃b64u:32⦄.⦃rb64n:32⦄»; Path=/; Expires=Fri, 13 Jun 2025 "
     "10:00:00 GMT; HttpOnly; Secure; SameSite=Lax"),
    ("session_cookie", "curl 'https://forum.acme.io/notifications' -H 'cookie: _forum_session=«⦃rb64:96⦄--⦃hex:40⦄»; "
     "_ga=GA1.1.⦃dig:9⦄.⦃epoch⦄' --compressed"),
    ("session_cookie", "Reproducible with: curl -b 'PHPSESSID=«⦃low:26⦄»' https://shop.acme.lan/cart.php?add=⦃int:1-999⦄"),
    ("session_cookie", """⦃ts⦄ WARN  [http-nio-8080-exec-⦃int:1-20⦄] o.a.c.c.C.[Tomcat] request headers: host=intranet.acme.lan, cookie=JSESSIONID=«⦃HEX:32⦄», accept=*/*"""),
    ("session_cookie", """curl 'http://127.0.0.1:5000/dashboard' -b 'session=«⦃b64uof:{"_user_id":"⟨int:1000-99999⟩","_fresh":true}⦄.⦃b64u:6⦄.⦃b64u:27⦄»'"""),
    # ---- app signing secrets
    ("django_secret_key", """# settings/local.py
DEBUG = True
SECRET_KEY = "«django-insecure-⦃djs:50⦄»"
ALLOWED_HOSTS = ["*"]"""),
    ("django_secret_key", "DJANGO_SETTINGS_MODULE=config.settings.production\nDJANGO_SECRET_KEY='«⦃djs:50⦄»'"),
    ("rails_secret", """production:
  secret_key_base: «⦃hex:128⦄»
  aws:
    bucket: acme-uploads"""),
    ("rails_secret", "echo \"«⦃hex:32⦄»\" > config/master.key && bin/rails credentials:edit"),
    ("laravel_app_key", """APP_NAME=Tienda
APP_ENV=production
APP_KEY=«base64:⦃rb64:32⦄»
APP_DEBUG=false
APP_URL=https://tienda.acme.es"""),
    ("app_signing_secret", """app = Flask(__name__)
app.config["SECRET_KEY"] = "«⦃hex:48⦄»"
app.config["SESSION_COOKIE_SECURE"] = True"""),
    ("fernet_key", "# generated once with Fernet.generate_key()\nFIELD_ENCRYPTION_KEY = b\"«⦃rb64u:32⦄=»\""),
    ("fernet_key", "AIRFLOW__CORE__FERNET_KEY=«⦃rb64u:32⦄=»\nAIRFLOW__CORE__EXECUTOR=CeleryExecutor"),
    ("app_signing_secret", "NEXTAUTH_URL=https://portal.acme.io\nNEXTAUTH_SECRET=«⦃rb64:32⦄»"),
    ("app_signing_secret", """const token = jwt.sign({ sub: user.id, role: user.role }, "«⦃pw⦄»", {
  expiresIn: "15m",
});"""),
    ("app_signing_secret", """app.use(session({
  secret: '«⦃b62:40⦄»',
  resave: false,
  saveUninitialized: false,
  cookie: { secure: true, maxAge: 86400000 }
}));"""),
    ("app_signing_secret", "security.jwt.secret=«⦃rb64:64⦄»\nsecurity.jwt.expiration-ms=⦃int:60000-3600000⦄"),
    ("app_signing_secret", """config :storefront, StorefrontWeb.Endpoint,
  url: [host: "shop.acme.io", port: 443],
  secret_key_base: "«⦃rb64:48⦄»\""""),
    ("app_signing_secret", """define( 'AUTH_KEY',         '«⦃wps:64⦄»' );
define( 'SECURE_AUTH_KEY',  '«⦃wps:64⦄»' );
define( 'WP_DEBUG', false );"""),
    ("app_signing_secret", """<system.web>
  <machineKey validationKey="«⦃HEX:128⦄»"
              decryptionKey="«⦃HEX:48⦄»"
              validation="HMACSHA256" decryption="AES" />
</system.web>"""),
    # ---- passwords in prose
    ("password_prose_en", "hey, staging admin login is ops@acme.io / «⦃pwh⦄» — please don't paste it in #general"),
    ("password_prose_en", "VPN password is «⦃pw⦄» until Friday, then IT rotates it again."),
    ("password_prose_en", "Wifi at the Lisbon office: network Acme-Guest-⦃int:2-9⦄, password «⦃pwh⦄»."),
    ("password_prose_en", "Note to self: after the incident on ⦃date⦄ the Jenkins admin password was reset to «⦃pw⦄». "
     "Change it once SSO is back."),
    ("password_prose_en", "The zip from legal is encrypted, the password they gave us on the phone is «⦃pwh⦄»."),
    ("password_prose_en", "Q: what's the root pw on the NAS?\nA: «⦃pw⦄» (only reachable from the office LAN)"),
    ("password_prose_es", "La contraseña del servidor de staging es «⦃pwh⦄», no la compartas fuera del equipo."),
    ("password_prose_es", "Clave del router de la oficina: «⦃pw⦄» (usuario técnico, puerto 8443)."),
    ("password_prose_es", "Usuario: deploy\nContraseña: «⦃pw⦄»\nServidor: 10.1.⦃int:0-255⦄.⦃int:1-254⦄"),
    ("password_prose_es", "Te paso la clave del Grafana para que mires los paneles: «⦃pwm⦄». Luego la cambiamos."),
    ("password_prose_es", "Recordatorio: el PDF de nóminas se abre con «⦃pwm⦄», me lo dijo Lucía por teléfono."),
    ("password_prose_es", "El correo de soporte (soporte@acme.es) tiene de contraseña «⦃pw⦄» desde el cambio de "
     "proveedor ⦃date⦄."),
    ("passphrase", "The passphrase for the offsite backup key (restic repo b2:acme-backups) is «⦃pp:5⦄»."),
    ("passphrase", "la frase de paso del llavero GPG de firmas de releases es «⦃pp:4⦄», guárdala en el sobre."),
    ("passphrase", "export RESTIC_PASSWORD='«⦃pp:6⦄»'\nrestic -r sftp:backup@nas-⦃int:1-9⦄:/srv/restic snapshots"),
    # ---- passwords in configuration files
    ("password_config", """services:
  db:
    image: postgres:16
    environment:
      POSTGRES_USER: ledger
      POSTGRES_PASSWORD: «⦃pw⦄»
    volumes:
      - pgdata-⦃low:4⦄:/var/lib/postgresql/data"""),
    ("password_config", """spring:
  datasource:
    url: jdbc:postgresql://pg.acme.lan:5432/hr
    username: hr_app
    password: «⦃pw⦄»
  jpa:
    hibernate:
      ddl-auto: validate"""),
    ("password_config", """{
  "ConnectionStrings": {
    "Default": "Server=tcp:sql-⦃low:5⦄.acme.lan,1433;Database=Payroll;User Id=payroll_svc;Password=«⦃pw⦄»;Encrypt=True;"
  }
}"""),
    ("password_config", """[database]
host = 127.0.0.1
port = 3306
user = wiki
password = «⦃pw⦄»
name = wiki_⦃low:4⦄"""),
    ("password_config", """[ldap]
url = "ldaps://ldap.acme.lan:636"
bind_dn = "cn=svc-gitea,ou=services,dc=acme,dc=lan"
bind_password = "«⦃pw⦄»"
user_base = "ou=people,dc=acme,dc=lan\""""),
    ("password_config", """<settings>
  <servers>
    <server>
      <id>acme-releases</id>
      <username>deployer</username>
      <password>«⦃pw⦄»</password>
    </server>
  </servers>
</settings>"""),
    ("password_config", "spring.mail.host=smtp.office365.com\nspring.mail.username=alerts@acme.io\n"
     "spring.mail.password=«⦃pw⦄»\nspring.mail.port=587"),
    ("password_config", """<?php
define('DB_NAME', 'shop_⦃low:4⦄');
define('DB_USER', 'shop');
define('DB_PASSWORD', '«⦃pw⦄»');
define('DB_HOST', 'localhost');"""),
    ("password_config", """production:
  adapter: postgresql
  database: crm_production
  username: crm
  password: <%= ENV.fetch("DB_PASSWORD", "«⦃pw⦄»") %>
  host: pg-⦃int:1-9⦄.acme.lan"""),
    ("password_config", """cfg := mysql.Config{
	User:   "inventory",
	Passwd: "«⦃pw⦄»",
	Net:    "tcp",
	Addr:   "10.12.⦃int:0-255⦄.⦃int:1-254⦄:3306",
	DBName: "inventory",
}"""),
    ("password_config", """let opts = PgConnectOptions::new()
    .host("pg.acme.lan")
    .username("ingest")
    .password("«⦃pw⦄»")
    .database("events_⦃low:4⦄");"""),
    ("password_config", """var smtp = new SmtpClient("smtp.acme.io", 587)
{
    Credentials = new NetworkCredential("svc_mail", "«⦃pw⦄»"),
    EnableSsl = true
};"""),
    ("password_config", """config :ledger, Ledger.Repo,
  username: "ledger",
  password: "«⦃pw⦄»",
  hostname: "db.acme.lan",
  pool_size: ⦃int:5-40⦄"""),
    ("password_config", """all:
  vars:
    ansible_user: ops
    ansible_become: true
    ansible_become_password: «⦃pw⦄»
  hosts:
    web-⦃int:1-9⦄.acme.lan:"""),
    ("password_config", """resource "aws_db_instance" "reports" {
  identifier        = "reports-⦃low:5⦄"
  engine            = "postgres"
  instance_class    = "db.t4g.medium"
  username          = "reports_admin"
  password          = "«⦃pw⦄»"
  allocated_storage = 100
}"""),
    ("password_config", """mariadb:
  auth:
    rootPassword: «⦃pw⦄»
    database: matomo
    username: matomo
    password: «⦃pw⦄»"""),
    ("password_config", """# gradle.properties
org.gradle.jvmargs=-Xmx4g
ossrhUsername=acme-release
ossrhPassword=«⦃pw⦄»
signing.keyId=⦃HEX:8⦄
signing.password=«⦃pw⦄»"""),
    ("password_config", """<tomcat-users>
  <role rolename="manager-script"/>
  <user username="deployer" password="«⦃pw⦄»" roles="manager-script"/>
</tomcat-users>"""),
    ("password_config", "MAIL_MAILER=smtp\nMAIL_HOST=smtp.mailtrap.io\nMAIL_USERNAME=⦃hex:14⦄\n"
     "MAIL_PASSWORD=«⦃pw⦄»\nMAIL_ENCRYPTION=tls"),
    ("password_config", """scrape_configs:
  - job_name: node-⦃low:4⦄
    basic_auth:
      username: prometheus
      password: «⦃pw⦄»
    static_configs:
      - targets: ['10.0.3.11:9100']"""),
    ("password_config", """val dataSource = HikariDataSource().apply {
    jdbcUrl = "jdbc:postgresql://pg.acme.lan:5432/loyalty"
    username = "loyalty"
    password = "«⦃pw⦄»"
    maximumPoolSize = ⦃int:4-32⦄
}"""),
    ("password_config", """- name: Create app user
  community.mysql.mysql_user:
    name: shop
    password: "«⦃pw⦄»"
    priv: "shop_⦃low:4⦄.*:ALL"
    state: present"""),
    ("password_config", """snmp:
  version: 3
  username: monitor
  auth_protocol: SHA
  auth_password: «⦃pw⦄»
  priv_protocol: AES
  priv_password: «⦃pw⦄»"""),
    ("password_config", """ENV NODE_ENV=production \\
    ADMIN_EMAIL=admin@acme.io \\
    ADMIN_PASSWORD=«⦃pw⦄»
EXPOSE 3000"""),
    ("password_config", """env:
  - name: KEYCLOAK_ADMIN
    value: admin
  - name: KEYCLOAK_ADMIN_PASSWORD
    value: "«⦃pw⦄»"
  - name: KC_HOSTNAME
    value: sso-⦃low:4⦄.acme.io"""),
    ("password_config", """pipeline {
  agent any
  environment {
    NEXUS_USER = 'ci'
    NEXUS_PASS = '«⦃pw⦄»'
  }
  stages {
    stage('Publish') { steps { sh './gradlew publish' } }
  }
}"""),
    ("password_config", """$SecurePassword = ConvertTo-SecureString "«⦃pw⦄»" -AsPlainText -Force
$Cred = New-Object System.Management.Automation.PSCredential ("ACME\\svc-backup", $SecurePassword)
Invoke-Command -ComputerName fs-⦃int:1-9⦄ -Credential $Cred -ScriptBlock { Get-PSDrive }"""),
    # ---- passwords as CLI flags
    ("password_cli_flag", "docker login -u deploy -p «⦃pw⦄» registry.acme.io"),
    ("password_cli_flag", "sshpass -p '«⦃pw⦄»' ssh -o StrictHostKeyChecking=no ops@10.0.⦃int:0-255⦄.⦃int:1-254⦄ 'df -h'"),
    ("password_cli_flag", "sudo htpasswd -b -c /etc/nginx/.htpasswd reviewer «⦃pw⦄»"),
    ("password_cli_flag", "openssl pkcs12 -export -in api.crt -inkey api.key -out api-⦃int:1-99⦄.p12 -passout pass:«⦃pw⦄»"),
    ("password_cli_flag", "curl -fsS -u ci-publisher:«⦃pw⦄» --upload-file build/app-⦃ver⦄.jar "
     "https://nexus.acme.lan/repository/releases/"),
    ("password_cli_flag", "helm repo add internal https://charts.acme.lan --username ci --password '«⦃pw⦄»'"),
    ("password_cli_flag", "keytool -genkeypair -alias upload -keyalg RSA -keystore upload-⦃int:1-99⦄.jks "
     "-storepass '«⦃pw⦄»' -keypass '«⦃pw⦄»' -dname \"CN=Acme\""),
    ("password_cli_flag", r"net use Z: \\fs-⦃int:1-9⦄\proyectos «⦃pw⦄» /user:ACME\jlopez /persistent:yes"),
    ("password_cli_flag", "wget --user=mirror --password='«⦃pw⦄»' -r -np https://files.acme.lan/isos/ -P /srv/mirror-⦃low:4⦄"),
    ("password_cli_flag", "vault login -method=userpass username=ci-⦃low:4⦄ password='«⦃pw⦄»'"),
    ("password_cli_flag", "mvn deploy -DaltDeploymentRepository=nexus::https://nexus.acme.lan/repository/snapshots "
     "-Dnexus.user=ci -Dnexus.password=«⦃pw⦄»"),
    # ---- basic auth headers
    ("basic_auth_header", """GET /api/v1/query?query=up HTTP/1.1
Host: prometheus.acme.lan
Authorization: Basic «⦃basic:grafana⦄»
Accept: application/json"""),
    ("basic_auth_header", """location /metrics {
    proxy_pass http://127.0.0.1:⦃int:9000-9999⦄;
    proxy_set_header Authorization "Basic «⦃basic:scraper⦄»";
}"""),
    ("basic_auth_header", """resp = requests.get(
    "https://jira.acme.io/rest/api/2/issue/OPS-⦃int:100-9999⦄",
    headers={"Authorization": "Basic «⦃basic:jira-bot@acme.io⦄»"},
)"""),
    ("basic_auth_header", "⦃ts⦄ [proxy] upstream 401 for /v2/_catalog, sent header "
     "authorization=\"Basic «⦃basic:registry-ro⦄»\""),
    # ---- netrc
    ("netrc", """machine api.heroku.com
  login ops@acme.io
  password «HRKU-AA⦃b64u:58⦄»
machine git.heroku.com
  login ops@acme.io
  password «HRKU-AA⦃b64u:58⦄»"""),
    ("netrc", "machine github.com login ci-bot-⦃int:1-99⦄ password «ghp_⦃b62:36⦄»"),
    ("netrc", """# ~/.netrc used by the nightly mirror job
machine nexus.acme.lan
login mirror
password «⦃pw⦄»"""),
    # ---- docker credentials
    ("docker_config_auth", """{
  "auths": {
    "registry.acme.io": {
      "auth": "«⦃basic:deploy⦄»"
    },
    "https://index.docker.io/v1/": {}
  },
  "credsStore": "desktop"
}"""),
    ("docker_config_auth", """apiVersion: v1
kind: Secret
metadata:
  name: regcred-⦃low:5⦄
type: kubernetes.io/dockerconfigjson
data:
  .dockerconfigjson: «⦃b64of:{"auths":{"ghcr.io":{"auth":"⟨basic:acme-bot⟩"}}}⦄»"""),
    ("docker_token", "echo \"«dckr_pat_⦃b64u:27⦄»\" | docker login -u acmebot --password-stdin\n"
     "docker push acmebot/worker:⦃hex:7⦄"),
    # ---- kubeconfig and Kubernetes secrets
    ("kubeconfig_credential", """apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ⦃pemb64:cert⦄
    server: https://10.0.⦃int:0-255⦄.10:6443
  name: onprem
users:
- name: admin@onprem
  user:
    client-certificate-data: ⦃pemb64:cert⦄
    client-key-data: «⦃pemb64:ec⦄»
contexts:
- context: {cluster: onprem, user: admin@onprem}
  name: admin@onprem
current-context: admin@onprem"""),
    ("kubeconfig_credential", """users:
- name: oke-admin
  user:
    token: «⦃b62:64⦄»
- name: oidc
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: kubelogin"""),
    ("k8s_secret_manifest", """apiVersion: v1
kind: Secret
metadata:
  name: billing-db-⦃low:4⦄
type: Opaque
data:
  username: ⦃b64of:billing⦄
  password: «⦃b64pw⦄»"""),
    ("k8s_secret_manifest", """apiVersion: v1
kind: Secret
metadata:
  name: smtp
stringData:
  SMTP_USER: postmaster@mg.acme.io
  SMTP_PASSWORD: "«⦃pw⦄»"
  SMTP_HOST: smtp.eu.mailgun.org
  SMTP_PORT: "⦃int:25-2600⦄\""""),
    ("k8s_secret_manifest", "kubectl create secret generic api-keys -n payments-⦃low:4⦄ "
     "--from-literal=STRIPE_KEY=«sk_live_51⦃b62:97⦄» --from-literal=LOG_LEVEL=info"),
    # ---- package registries
    ("npm_token", "//registry.npmjs.org/:_authToken=«npm_⦃b62:36⦄»\nregistry=https://registry.npmjs.org/"),
    ("npm_token", "  531  npm config set //registry.npmjs.org/:_authToken «npm_⦃b62:36⦄»\n  532  npm publish --access public"),
    ("npm_token", """npmRegistryServer: "https://registry.npmjs.org"
npmScopes:
  acme:
    npmAuthToken: «npm_⦃b62:36⦄»
    npmPublishRegistry: "https://registry.npmjs.org\""""),
    ("pypi_token", """[distutils]
index-servers = pypi

[pypi]
username = __token__
password = «pypi-AgEIcHlwaS5vcmc⦃b64u:160⦄»"""),
    ("pypi_token", """      - name: Publish
        run: twine upload dist/*
        env:
          TWINE_USERNAME: __token__
          TWINE_PASSWORD: «pypi-AgEIcHlwaS5vcmc⦃b64u:140⦄»"""),
    ("rubygems_key", "---\n:rubygems_api_key: «rubygems_⦃hex:48⦄»"),
    ("nuget_key", "dotnet nuget push bin/Release/Acme.Core.⦃ver⦄.nupkg --api-key «oy2⦃low:43⦄» "
     "--source https://api.nuget.org/v3/index.json"),
    ("crates_token", "# ~/.cargo/credentials.toml\n[registry]\ntoken = \"«cio⦃b62:32⦄»\""),
    ("crates_token", "$ cargo login «cio⦃b62:32⦄»\n       Login token for `crates-io` saved"),
    ("registry_token", "jf c add acme --url https://acme.jfrog.io --access-token «cmVmdGtuOjAxOj⦃b62:50⦄» --interactive=false"),
    ("registry_token", """{
    "http-basic": {
        "repo.packagist.com": {
            "username": "token",
            "password": "«⦃hex:40⦄»"
        }
    }
}"""),
    # ---- observability vendors
    ("datadog_key", "docker run -d --name dd-agent -e DD_API_KEY=«⦃hex:32⦄» -e DD_SITE=datadoghq.eu "
     "-v /var/run/docker.sock:/var/run/docker.sock:ro gcr.io/datadoghq/agent:7"),
    ("datadog_key", """# /etc/datadog-agent/datadog.yaml
api_key: «⦃hex:32⦄»
site: datadoghq.com
hostname: worker-⦃int:1-99⦄
logs_enabled: true"""),
    ("datadog_key", """provider "datadog" {
  api_key = "«⦃hex:32⦄»"
  app_key = "«⦃hex:40⦄»"
  api_url = "https://api.datadoghq.eu/"
}"""),
    ("newrelic_key", """common: &default_settings
  license_key: '«⦃hex:36⦄NRAL»'
  app_name: checkout-⦃low:4⦄
  distributed_tracing:
    enabled: true"""),
    ("newrelic_key", """curl https://api.newrelic.com/graphql \\
  -H 'Content-Type: application/json' \\
  -H 'API-Key: «NRAK-⦃UP:27⦄»' \\
  -d '{"query": "{ actor { user { name } } }"}'"""),
    ("grafana_token", "GRAFANA_URL=https://grafana.acme.lan\nGRAFANA_TOKEN=«glsa_⦃b62:32⦄_⦃hex:8⦄»"),
    ("grafana_token", """otelcol.auth.basic "grafana_cloud" {
  username = "⦃int:100000-999999⦄"
  password = "«glc_⦃b64of:{"o":"⟨int:100000-999999⟩","n":"stack-⟨int:100000-999999⟩-otlp-write","k":"⟨b62:24⟩","m":{"r":"prod-eu-west-2"}}⦄»"
}"""),
    ("sentry_auth_token", """- name: Upload source maps
  run: npx @sentry/cli sourcemaps upload --org acme --project web ./dist
  env:
    SENTRY_AUTH_TOKEN: «sntrys_⦃b64uof:{"iat":⟨epoch⟩,"url":"https://sentry.io","region_url":"https://de.sentry.io","org":"acme"}⦄_⦃b64u:43⦄»"""),
    ("sentry_auth_token", "[defaults]\nurl = https://sentry.acme.lan/\norg = acme\n\n[auth]\ntoken = «sntryu_⦃hex:64⦄»"),
    ("observability_key", """exporters:
  otlp/honeycomb:
    endpoint: api.honeycomb.io:443
    headers:
      x-honeycomb-team: «hcaik_01⦃crock:24⦄⦃hex:32⦄»"""),
    ("observability_key", """curl -k https://splunk-hec.acme.lan:8088/services/collector/event \\
  -H "Authorization: Splunk «⦃uuid⦄»" \\
  -d '{"event": "deploy finished", "sourcetype": "ci"}'"""),
    ("observability_key", "curl -H 'Authorization: Token token=«⦃b64u:20⦄»' -H 'Accept: application/vnd.pagerduty+json;version=2' "
     "https://api.pagerduty.com/incidents?statuses[]=triggered&limit=⦃int:5-100⦄"),
    ("datadog_key", "Para el agente de Datadog en los nodos nuevos: DD_API_KEY=«⦃hex:32⦄», sitio datadoghq.eu."),
    # ---- AI / LLM providers
    ("openai_key", "OPENAI_API_KEY=«sk-proj-⦃b64u:74⦄T3BlbkFJ⦃b64u:74⦄»\nOPENAI_ORG=org-⦃b62:24⦄"),
    ("openai_key", """from openai import OpenAI

client = OpenAI(api_key="«sk-⦃b62:20⦄T3BlbkFJ⦃b62:20⦄»")
resp = client.chat.completions.create(model="gpt-4o-mini", messages=msgs)"""),
    ("openai_key", "te dejo mi key de OpenAI para que pruebes el script: «sk-proj-⦃b64u:74⦄T3BlbkFJ⦃b64u:74⦄» "
     "(tiene límite de 20 USD)"),
    ("anthropic_key", "export ANTHROPIC_API_KEY=«sk-ant-api03-⦃b64u:93⦄AA»\nclaude --model claude-sonnet-4"),
    ("anthropic_key", """curl https://api.anthropic.com/v1/messages \\
  -H "x-api-key: «sk-ant-api03-⦃b64u:93⦄AA»" \\
  -H "anthropic-version: 2023-06-01" -H "content-type: application/json" \\
  -d '{"model": "claude-3-5-haiku-latest", "max_tokens": ⦃int:64-4096⦄, "messages": [{"role": "user", "content": "ping"}]}'"""),
    ("llm_api_key", "$ huggingface-cli login --token «hf_⦃b62:34⦄»\nToken is valid (permission: write)."),
    ("llm_api_key", "GROQ_API_KEY=«gsk_⦃b62:52⦄»\nGROQ_MODEL=llama-3.1-70b-versatile"),
    ("llm_api_key", "import replicate\nclient = replicate.Client(api_token=\"«r8_⦃b62:37⦄»\")"),
    ("llm_api_key", """const openrouter = createOpenAI({
  baseURL: "https://openrouter.ai/api/v1",
  apiKey: "«sk-or-v1-⦃hex:64⦄»",
});"""),
    ("llm_api_key", "[providers.mistral]\nmodel = \"mistral-large-latest\"\napi_key = \"«⦃b62:32⦄»\""),
    ("llm_api_key", "XAI_API_KEY=«xai-⦃b62:80⦄»\nPERPLEXITY_API_KEY=«pplx-⦃b62:48⦄»"),
    ("llm_api_key", "llm keys set deepseek --value «sk-⦃hex:32⦄»"),
    # ---- TOTP seeds, recovery codes, seed phrases
    ("totp_seed", "otpauth://totp/Acme%20AWS:root-⦃low:4⦄@acme.io?secret=«⦃b32:32⦄»&issuer=Acme%20AWS&algorithm=SHA1&digits=6&period=30"),
    ("totp_seed", "2FA setup key for the shared registrar account (Namecheap): «⦃b32g:8⦄» — add it to the team vault."),
    ("totp_seed", "Semilla TOTP de la cuenta compartida de la AEAT: «⦃b32:16⦄». Si alguien cambia el móvil, que la vuelva a cargar."),
    ("totp_seed", """MFA_ISSUER=Backoffice
MFA_ADMIN_TOTP_SECRET=«⦃b32:32⦄»"""),
    ("recovery_codes", """GitHub recovery codes for acme-bot (saved ⦃date⦄):
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»
«⦃hex:5⦄-⦃hex:5⦄»"""),
    ("recovery_codes", "Backup codes for the Google Workspace super admin: «⦃dig:4⦄ ⦃dig:4⦄», «⦃dig:4⦄ ⦃dig:4⦄», "
     "«⦃dig:4⦄ ⦃dig:4⦄», «⦃dig:4⦄ ⦃dig:4⦄»"),
    ("recovery_codes", """Códigos de recuperación de la cuenta de Cloudflare (úsalos solo si se pierde la llave):
- «⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
- «⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
- «⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»
- «⦃low:4⦄-⦃low:4⦄-⦃low:4⦄»"""),
    ("seed_phrase", "dev metamask wallet (sepolia only): «⦃words:12⦄»"),
    ("seed_phrase", "Frase semilla del Ledger de tesorería, copia de seguridad:\n«⦃words:24⦄»"),
    ("seed_phrase", """module.exports = {
  networks: {
    development: { host: "127.0.0.1", port: 8545, network_id: "*" },
    goerli: {
      provider: () => new HDWalletProvider("«⦃words:12⦄»", RPC_URL),
      network_id: 5,
    },
  },
};"""),
    # ---- secret managers and infrastructure tools
    ("vault_token", "export VAULT_ADDR=https://vault.acme.lan:8200\nexport VAULT_TOKEN=«hvs.CAESI⦃b64u:86⦄»\n"
     "vault kv get secret/payments/stripe"),
    ("vault_token", """Unseal Key 1: «⦃rb64:33⦄»
Unseal Key 2: «⦃rb64:33⦄»
Unseal Key 3: «⦃rb64:33⦄»

Initial Root Token: «hvs.⦃b62:24⦄»"""),
    ("iac_token", """{
  "credentials": {
    "app.terraform.io": {
      "token": "«⦃b62:14⦄.atlasv1.⦃b62:67⦄»"
    }
  }
}"""),
    ("iac_token", "PULUMI_ACCESS_TOKEN=«pul-⦃hex:40⦄» pulumi up --stack acme/prod --yes"),
    ("iac_token", "DOPPLER_TOKEN=«dp.st.prd.⦃b62:43⦄» doppler run -- ./bin/server"),
    # ---- other SaaS tokens
    ("saas_token", """curl -X GET "https://acme-shop.myshopify.com/admin/api/2024-07/orders.json?status=any" \\
  -H "X-Shopify-Access-Token: «shpat_⦃hex:32⦄»\""""),
    ("saas_token", "curl -s -u pablo@acme.io:«ATATT3xFfGF0⦃b64u:170⦄=⦃HEX:8⦄» "
     "https://acme.atlassian.net/rest/api/3/search?jql=project=OPS"),
    ("saas_token", "LINEAR_API_KEY=«lin_api_⦃b62:40⦄»\nLINEAR_TEAM=ENG"),
    ("saas_token", """const notion = new Client({ auth: "«ntn_⦃dig:11⦄⦃b62:35⦄»" });
const db = await notion.databases.query({ database_id: "⦃hex:32⦄" });"""),
    ("saas_token", "curl -H 'X-Figma-Token: «figd_⦃b64u:40⦄»' https://api.figma.com/v1/files/⦃b62:22⦄"),
    ("saas_token", "AIRTABLE_TOKEN=«pat⦃b62:14⦄.⦃hex:64⦄»\nAIRTABLE_BASE=app⦃b62:14⦄"),
    ("saas_token", "contentful space import --space-id ⦃low:12⦄ --management-token «CFPAT-⦃b64u:43⦄» --content-file export.json"),
    ("saas_token", "newman run collection.json --env-var \"apiKey=«PMAK-⦃hex:24⦄-⦃hex:34⦄»\""),
    ("saas_token", """ALGOLIA_APP_ID=⦃UP:10⦄
ALGOLIA_SEARCH_KEY=⦃hex:32⦄
ALGOLIA_ADMIN_KEY=«⦃hex:32⦄»"""),
    ("saas_token", "MAPBOX_DOWNLOADS_TOKEN=«sk.eyJ1IjoiYWNtZSIsImEiOi⦃b64u:30⦄.⦃b64u:22⦄»"),
    ("saas_token", "LAUNCHDARKLY_SDK_KEY=«sdk-⦃uuid⦄»\nLAUNCHDARKLY_CLIENT_SIDE_ID=⦃hex:24⦄"),
    ("saas_token", "CLERK_PUBLISHABLE_KEY=pk_live_⦃b64u:40⦄\nCLERK_SECRET_KEY=«sk_live_⦃b62:40⦄»"),
    ("cloud_platform_token", "doctl auth init --access-token «dop_v1_⦃hex:64⦄»"),
    ("cloud_platform_token", "CLOUDFLARE_API_TOKEN=«⦃b64u:40⦄» wrangler deploy --env production"),
    ("cloud_platform_token", """curl -X GET "https://api.cloudflare.com/client/v4/zones?name=acme.io" \\
  -H "X-Auth-Email: dns@acme.io" \\
  -H "X-Auth-Key: «⦃hex:37⦄»\""""),
    ("cloud_platform_token", "fly secrets list -a api-⦃low:5⦄ -t \"FlyV1 «fm2_⦃rb64:180⦄»\""),
    ("cloud_platform_token", "- run: vercel deploy --prod --token «⦃b62:24⦄»"),
    ("cloud_platform_token", "NETLIFY_AUTH_TOKEN=«nfp_⦃b62:36⦄» netlify deploy --prod --dir=dist"),
    ("network_auth_key", "tailscale up --authkey «tskey-auth-⦃b62:12⦄CNTRL-⦃b62:33⦄» --advertise-tags=tag:ci"),
    ("network_auth_key", "ngrok config add-authtoken «2⦃b62:26⦄_⦃b62:21⦄»"),
    ("identity_token", "OP_SERVICE_ACCOUNT_TOKEN=«ops_eyJ⦃b64u:320⦄»\nop read op://Infra/postgres/password"),
    ("identity_token", """GET /api/v1/users?limit=⦃int:10-200⦄ HTTP/1.1
Host: acme.okta.com
Accept: application/json
Authorization: SSWS «00⦃b64u:40⦄»"""),
    ("identity_token", """AUTH0_DOMAIN=acme.eu.auth0.com
AUTH0_CLIENT_ID=⦃b62:32⦄
AUTH0_CLIENT_SECRET=«⦃b64u:64⦄»"""),
    ("ci_token", "curl -X POST -u pablo:«11⦃hex:32⦄» https://jenkins.acme.lan/job/deploy-⦃low:4⦄/buildWithParameters?ENV=prod"),
    ("ci_token", "curl -H \"Circle-Token: «CCIPAT_⦃b62:22⦄_⦃hex:40⦄»\" https://circleci.com/api/v2/me"),
    ("ci_token", "BUILDKITE_API_TOKEN=«bkua_⦃hex:40⦄»\nBUILDKITE_AGENT_TOKEN=«⦃hex:50⦄»"),
    ("ci_token", "sonar-scanner -Dsonar.projectKey=acme_api-⦃low:4⦄ -Dsonar.host.url=https://sonar.acme.lan "
     "-Dsonar.token=«squ_⦃hex:40⦄»"),
    # ---- capability links and keys in query strings
    ("reset_link", "Hi Ana, use this link to set your password (valid 24h): https://app.acme.io/reset-password?"
     "token=«⦃b64u:43⦄»&email=ana%40acme.io"),
    ("reset_link", "⦃ts⦄ INFO mailer sent magic link to user=⦃int:1000-99999⦄ url=https://acme.io/auth/magic?code=«⦃b62:48⦄»"),
    ("reset_link", "Invitación al workspace: https://app.acme.io/invite/accept?t=«⦃b64u:40⦄» (caduca en 7 días)"),
    ("api_key_in_url", "curl 'https://api.openweathermap.org/data/2.5/weather?q=Sevilla&units=metric&appid=«⦃hex:32⦄»'"),
    ("api_key_in_url", "⦃ts⦄ ERROR HTTP 429 GET https://api.geoservice.io/v1/reverse?lat=40.41&lon=-3.70&api_key=«⦃b62:32⦄»"),
    ("api_key_in_url", "resp = requests.get(f\"https://api.tomtom.com/search/2/geocode/{quote(addr)}.json\"\n"
     "                    f\"?countrySet=ES&key=«⦃b62:32⦄»\", timeout=10)"),
]

# --------------------------------------------------------------------------- ordinary

# (kind, template). Texts that only look dangerous: none holds a credential.
ORDINARY: list[tuple[str, str]] = [
    # ---- commit SHAs and other git object names
    ("git_sha", """$ git log --oneline -6
⦃hex:7⦄ (HEAD -> main, origin/main) fix(cart): round totals before tax
⦃hex:7⦄ chore(deps): bump axios from 1.6.8 to 1.7.2
⦃hex:7⦄ feat(search): add fuzzy matching for SKUs
⦃hex:7⦄ Merge pull request #⦃int:100-999⦄ from acme/feat/search
⦃hex:7⦄ test: cover empty basket
⦃hex:7⦄ docs: explain release flow"""),
    ("git_sha", """Revert "feat: switch to connection pooling"

This reverts commit ⦃hex:40⦄.
The pool exhausted under load in staging (see OPS-⦃int:100-9999⦄)."""),
    ("git_sha", "$ git rev-parse HEAD\n⦃hex:40⦄\n$ git describe --tags\nv⦃ver⦄-⦃int:1-60⦄-g⦃hex:7⦄"),
    ("git_sha", "The regression came in with https://github.com/acme/checkout/commit/⦃hex:40⦄ — it changed the "
     "default timeout."),
    ("git_sha", """$ git bisect good
⦃hex:40⦄ is the first bad commit
commit ⦃hex:40⦄
Author: Luis M <luis@acme.io>
Date:   Thu May 15 11:20:04 2025 +0200

    perf: cache product lookups"""),
    ("git_sha", """    steps:
      - uses: actions/checkout@⦃hex:40⦄ # v4.1.7
      - uses: actions/setup-node@⦃hex:40⦄ # v4.0.3
        with:
          node-version: 20"""),
    ("git_sha", "Hay que hacer cherry-pick de ⦃hex:40⦄ a la rama release/⦃ver⦄ antes del viernes."),
    ("git_sha", """$ git reflog -4
⦃hex:7⦄ HEAD@{0}: rebase (finish): returning to refs/heads/feat/export
⦃hex:7⦄ HEAD@{1}: rebase (pick): export: stream rows
⦃hex:7⦄ HEAD@{2}: rebase (start): checkout origin/main
⦃hex:7⦄ HEAD@{3}: commit: wip"""),
    ("git_sha", """$ git submodule status
 ⦃hex:40⦄ vendor/libyaml (0.2.5)
+⦃hex:40⦄ vendor/protobuf (v27.1-⦃int:1-40⦄-g⦃hex:7⦄)"""),
    ("git_sha", """  "dependencies": {
    "@acme/ui": "github:acme/ui#⦃hex:40⦄",
    "react": "^18.3.1"
  }"""),
    ("git_sha", "require github.com/acme/telemetry v0.0.0-20240515093012-⦃hex:12⦄ // indirect"),
    ("git_sha", "pip install \"git+https://github.com/acme/pdfkit.git@⦃hex:40⦄#egg=pdfkit\""),
    ("git_sha", """LABEL org.opencontainers.image.source="https://github.com/acme/api" \\
      org.opencontainers.image.revision="⦃hex:40⦄" \\
      org.opencontainers.image.version="⦃ver⦄\""""),
    ("git_sha", "Squash-merged as ⦃hex:40⦄; the branch can be deleted. Deploy #⦃int:1000-9999⦄ picked it up."),
    ("git_sha", "tree ⦃hex:40⦄\nparent ⦃hex:40⦄\nauthor Ana G <ana@acme.io> ⦃epoch⦄ +0100\n\nrelease: v⦃ver⦄"),
    # ---- file checksums
    ("file_checksum", """$ sha256sum dist/*
⦃hex:64⦄  dist/acme-cli_⦃ver⦄_linux_amd64.tar.gz
⦃hex:64⦄  dist/acme-cli_⦃ver⦄_darwin_arm64.tar.gz
⦃hex:64⦄  dist/acme-cli_⦃ver⦄_windows_amd64.zip"""),
    ("file_checksum", "⦃hex:32⦄  backup-2025-05-⦃int:10-31⦄.sql.gz\n⦃hex:32⦄  uploads-2025-05-⦃int:10-31⦄.tar"),
    ("file_checksum", """RUN curl -fsSLo terraform.zip https://releases.hashicorp.com/terraform/1.9.2/terraform_1.9.2_linux_amd64.zip \\
 && echo "⦃hex:64⦄  terraform.zip" | sha256sum -c - \\
 && unzip terraform.zip -d /usr/local/bin"""),
    ("file_checksum", """class AcmeCli < Formula
  desc "Command-line client for Acme"
  homepage "https://acme.io/cli"
  url "https://github.com/acme/cli/archive/refs/tags/v⦃ver⦄.tar.gz"
  sha256 "⦃hex:64⦄"
  license "MIT"
end"""),
    ("file_checksum", "commons-io-2.16.1.jar.sha1: ⦃hex:40⦄\ncommons-io-2.16.1.pom.sha1: ⦃hex:40⦄"),
    ("file_checksum", """PS> Get-FileHash .\\AcmeSetup-⦃ver⦄.msi -Algorithm SHA256

Algorithm       Hash                                                                   Path
---------       ----                                                                   ----
SHA256          ⦃HEX:64⦄       C:\\Users\\jlopez\\Downloads\\AcmeSetup.msi"""),
    ("file_checksum", """http_archive(
    name = "rules_python",
    sha256 = "⦃hex:64⦄",
    strip_prefix = "rules_python-0.34.0",
    url = "https://github.com/bazelbuild/rules_python/releases/download/0.34.0/rules_python-0.34.0.tar.gz",
)"""),
    ("file_checksum", "El checksum SHA-256 de la ISO es ⦃hex:64⦄; compruébalo antes de grabar el USB."),
    ("file_checksum", """- name: Download node_exporter
  ansible.builtin.get_url:
    url: https://github.com/prometheus/node_exporter/releases/download/v1.8.1/node_exporter-1.8.1.linux-amd64.tar.gz
    dest: /tmp/node_exporter.tar.gz
    checksum: "sha256:⦃hex:64⦄\""""),
    ("file_checksum", "Release v⦃ver⦄ assets\n  acme-agent.deb  BLAKE3 ⦃hex:64⦄\n  acme-agent.rpm  BLAKE3 ⦃hex:64⦄"),
    ("file_checksum", "SHA512 (firmware-⦃ver⦄.bin) = ⦃hex:128⦄"),
    ("file_checksum", "ETag of the object changed from \"⦃hex:32⦄\" to \"⦃hex:32⦄-⦃int:2-40⦄\" after the multipart re-upload."),
    # ---- image digests and container ids
    ("image_digest", """containers:
  - name: api
    image: ghcr.io/acme/api@sha256:⦃hex:64⦄
    ports:
      - containerPort: 8080"""),
    ("image_digest", """$ docker pull nginx:1.27-alpine
1.27-alpine: Pulling from library/nginx
⦃hex:12⦄: Pull complete
⦃hex:12⦄: Pull complete
Digest: sha256:⦃hex:64⦄
Status: Downloaded newer image for nginx:1.27-alpine"""),
    ("image_digest", """REPOSITORY            TAG       DIGEST                                                                    IMAGE ID       SIZE
acme/worker           ⦃hex:7⦄   sha256:⦃hex:64⦄   ⦃hex:12⦄   182MB
postgres              16        sha256:⦃hex:64⦄   ⦃hex:12⦄   432MB"""),
    ("image_digest", """    imageID: docker-pullable://registry.acme.io/payments@sha256:⦃hex:64⦄
    lastState: {}
    name: payments
    ready: true
    restartCount: ⦃int:0-40⦄"""),
    ("image_digest", "$ crane digest cgr.dev/chainguard/static:latest\nsha256:⦃hex:64⦄"),
    ("image_digest", """CONTAINER ID   IMAGE                 COMMAND                  STATUS          NAMES
⦃hex:12⦄   redis:7               "docker-entrypoint.s…"   Up 3 hours      cache
⦃hex:12⦄   acme/api:⦃hex:7⦄      "/app/api serve"         Up 3 hours      api"""),
    ("image_digest", """#12 exporting to image
#12 exporting layers 2.1s done
#12 writing image sha256:⦃hex:64⦄ done
#12 naming to docker.io/acme/web:latest done"""),
    ("image_digest", "Fija la imagen por digest en producción: registry.acme.io/web@sha256:⦃hex:64⦄, nada de :latest."),
    # ---- UUIDs, request ids and trace ids
    ("request_id", "⦃ts⦄ INFO  request_id=⦃uuid⦄ trace_id=⦃hex:32⦄ span_id=⦃hex:16⦄ method=GET path=/v1/orders status=200 dur_ms=⦃int:2-900⦄"),
    ("request_id", """$ az account show
{
  "environmentName": "AzureCloud",
  "id": "⦃uuid⦄",
  "isDefault": true,
  "name": "Acme Production",
  "state": "Enabled",
  "tenantId": "⦃uuid⦄",
  "user": { "name": "pablo@acme.io", "type": "user" }
}"""),
    ("request_id", """metadata:
  creationTimestamp: "⦃ts⦄"
  name: worker-⦃low:10⦄-⦃low:5⦄
  namespace: jobs
  resourceVersion: "⦃int:100000-99999999⦄"
  uid: ⦃uuid⦄"""),
    ("request_id", """INSERT INTO tenants (id, slug, plan, created_at) VALUES
  ('⦃uuid⦄', 'northwind', 'pro', now()),
  ('⦃uuid⦄', 'contoso', 'free', now());"""),
    ("request_id", "Something went wrong. Correlation ID: ⦃UUID⦄ — please include it when you contact support."),
    ("request_id", """HTTP/2 502
date: Tue, 03 Jun 2025 10:12:44 GMT
content-type: text/html
x-request-id: ⦃uuid⦄
cf-ray: ⦃hex:16⦄-MAD
server: cloudflare"""),
    ("request_id", '{"data":[{"id":"⦃ulid⦄","type":"invoice"},{"id":"⦃ulid⦄","type":"invoice"}],"next_cursor":"⦃ulid⦄"}'),
    ("request_id", '{\n  "version": 4,\n  "terraform_version": "1.8.5",\n  "serial": ⦃int:1-900⦄,\n  "lineage": "⦃uuid⦄",\n  "outputs": {}\n}'),
    ("request_id", "Error reference ⦃hex:32⦄ — our team has been notified."),
    ("request_id", "El id de la ejecución fallida es ⦃uuid⦄; mira los logs en Kibana filtrando por ese campo."),
    ("request_id", "Waiting for operation operation-⦃epoch⦄⦃dig:3⦄-⦃hex:13⦄-⦃hex:8⦄-⦃hex:8⦄ to complete...done."),
    ("request_id", "traceparent: 00-⦃hex:32⦄-⦃hex:16⦄-01\ntracestate: congo=⦃b64u:16⦄"),
    ("request_id", "BigQuery job bquxjob_⦃hex:8⦄_⦃hex:12⦄ finished: ⦃int:1-900⦄ GB processed, query id ⦃uuid⦄."),
    ("request_id", "Snowflake query ⦃hex:8⦄-0000-⦃hex:4⦄-0000-⦃hex:12⦄ failed: SQL compilation error: invalid identifier 'AMOUNT_EUR'"),
    ("request_id", '{"eventVersion":"1.09","eventSource":"s3.amazonaws.com","eventName":"PutObject","requestID":"⦃UP:16⦄",'
     '"eventID":"⦃uuid⦄","recipientAccountId":"⦃dig:12⦄"}'),
    # ---- SSH public keys
    ("ssh_public_key", """# ~/.ssh/authorized_keys on bastion-⦃int:1-9⦄
ssh-ed25519 ⦃sshpub:ed25519⦄ ana@laptop
ssh-ed25519 ⦃sshpub:ed25519⦄ luis@workstation
ssh-rsa ⦃sshpub:rsa⦄ ci-deploy"""),
    ("ssh_public_key", """|1|⦃rb64:20⦄|⦃rb64:20⦄ ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄
github.com ssh-ed25519 ⦃sshpub:ed25519⦄
gitlab.acme.io ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄"""),
    ("ssh_public_key", """$ ssh-keygen -t ed25519 -C "maria@acme.io"
Your identification has been saved in /home/maria/.ssh/id_ed25519
Your public key has been saved in /home/maria/.ssh/id_ed25519.pub
The key fingerprint is:
SHA256:⦃rb64n:32⦄ maria@acme.io
$ cat ~/.ssh/id_ed25519.pub
ssh-ed25519 ⦃sshpub:ed25519⦄ maria@acme.io"""),
    ("ssh_public_key", "Please add this as a read-only deploy key on the infra repo:\n\nssh-ed25519 ⦃sshpub:ed25519⦄ argocd@prod"),
    ("ssh_public_key", """#cloud-config
users:
  - name: ops
    groups: sudo
    shell: /bin/bash
    ssh_authorized_keys:
      - ssh-ed25519 ⦃sshpub:ed25519⦄ ops@acme"""),
    ("ssh_public_key", """resource "aws_key_pair" "bastion" {
  key_name   = "bastion-⦃low:5⦄"
  public_key = "ssh-rsa ⦃sshpub:rsa⦄ terraform"
}"""),
    ("ssh_public_key", "Mi clave pública para que me deis acceso al servidor de pruebas:\nssh-ed25519 ⦃sshpub:ed25519⦄ irene@portatil"),
    ("ssh_public_key", '[{"id":⦃int:1000000-9999999⦄,"title":"laptop","key":"ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄","created_at":"⦃ts⦄"}]'),
    ("ssh_public_key", "# /etc/ssh/ca.pub, referenced by TrustedUserCAKeys\nssh-ed25519 ⦃sshpub:ed25519⦄ acme-user-ca-⦃int:2020-2030⦄"),
    ("ssh_public_key", """$ ssh-keygen -L -f ~/.ssh/id_ed25519-cert.pub
        Type: ssh-ed25519-cert-v01@openssh.com user certificate
        Public key: ED25519-CERT SHA256:⦃rb64n:32⦄
        Signing CA: ED25519 SHA256:⦃rb64n:32⦄ (using ssh-ed25519)
        Key ID: "ana@acme.io"
        Serial: ⦃int:1000-999999⦄
        Valid: from 2025-06-01T09:00:00 to 2025-06-01T21:00:00"""),
    # ---- public keys in other wrappings
    ("public_key_pem", """-----BEGIN PUBLIC KEY-----
⦃pem:pub⦄
-----END PUBLIC KEY-----"""),
    ("public_key_pem", """{
  "keys": [
    {
      "kty": "RSA",
      "use": "sig",
      "kid": "⦃b64u:22⦄",
      "alg": "RS256",
      "n": "⦃rb64u:256⦄",
      "e": "AQAB"
    }
  ]
}"""),
    ("public_key_pem", """auth:
  jwt:
    issuer: https://auth.acme.io
    public_key: |
      -----BEGIN PUBLIC KEY-----
      ⦃pem:ecpub:6⦄
      -----END PUBLIC KEY-----"""),
    ("public_key_pem", """creation_rules:
  - path_regex: secrets/prod/.*\\.yaml$
    age: >-
      age1⦃bech:58⦄,
      age1⦃bech:58⦄"""),
    ("public_key_pem", """[Peer]
# laptop de Irene
PublicKey = ⦃rb64:32⦄
AllowedIPs = 10.66.0.⦃int:2-250⦄/32
PersistentKeepalive = 25"""),
    ("public_key_pem", """-----BEGIN PGP PUBLIC KEY BLOCK-----

⦃pgp⦄
-----END PGP PUBLIC KEY BLOCK-----"""),
    ("public_key_pem", "untrusted comment: minisign public key ⦃HEX:16⦄\nRW⦃b64:54⦄"),
    ("public_key_pem", """$ cat cosign.pub
-----BEGIN PUBLIC KEY-----
⦃pem:ecpub⦄
-----END PUBLIC KEY-----
$ cosign verify --key cosign.pub ghcr.io/acme/api:⦃hex:7⦄"""),
    ("public_key_pem", "<key>SUFeedURL</key>\n<string>https://acme.io/appcast.xml</string>\n<key>SUPublicEDKey</key>\n<string>⦃rb64:32⦄</string>"),
    ("public_key_pem", "selector1._domainkey.acme.io. 3600 IN TXT \"v=DKIM1; k=rsa; p=⦃pemline:pub⦄\""),
    ("public_key_pem", '{"e":"AQAB","kty":"RSA","n":"⦃rb64u:256⦄"}'),
    ("public_key_pem", "npub1⦃bech:58⦄ is my Nostr public key if you want to follow the release announcements."),
    # ---- certificates
    ("certificate", """$ openssl x509 -in api.crt -noout -subject -issuer -enddate
subject=CN = api.acme.io
issuer=C = US, O = Let's Encrypt, CN = R11
notAfter=Sep  1 08:12:44 2025 GMT
$ cat api.crt
-----BEGIN CERTIFICATE-----
⦃pem:cert⦄
-----END CERTIFICATE-----"""),
    ("certificate", """apiVersion: v1
kind: ConfigMap
metadata:
  name: corp-ca-⦃low:4⦄
data:
  ca.crt: |
    -----BEGIN CERTIFICATE-----
    ⦃pem:cert:4⦄
    -----END CERTIFICATE-----"""),
    ("certificate", """apiVersion: v1
kind: Config
clusters:
- cluster:
    certificate-authority-data: ⦃pemb64:cert⦄
    server: https://⦃hex:32⦄.gr7.eu-west-1.eks.amazonaws.com
  name: prod
users:
- name: prod
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      command: aws
      args: ["eks", "get-token", "--cluster-name", "prod"]"""),
    ("certificate", """# chain.pem
-----BEGIN CERTIFICATE-----
⦃pem:cert⦄
-----END CERTIFICATE-----
-----BEGIN CERTIFICATE-----
⦃pem:cert⦄
-----END CERTIFICATE-----"""),
    ("certificate", """$ openssl s_client -connect legacy.partner.net:443 -showcerts </dev/null
CONNECTED(00000003)
depth=0 CN = legacy.partner.net
verify error:num=20:unable to get local issuer certificate
---
Certificate chain
 0 s:CN = legacy.partner.net
-----BEGIN CERTIFICATE-----
⦃pem:cert⦄
-----END CERTIFICATE-----"""),
    ("certificate", """$ keytool -list -keystore truststore.jks -storepass changeit
Keystore type: JKS
Your keystore contains 2 entries

corp-root, 12 Mar 2024, trustedCertEntry,
Certificate fingerprint (SHA-256): ⦃HEXcolon:32⦄
corp-issuing, 12 Mar 2024, trustedCertEntry,
Certificate fingerprint (SHA-256): ⦃HEXcolon:32⦄"""),
    ("certificate", "Este es el certificado intermedio que falta en la cadena del balanceador:\n"
     "-----BEGIN CERTIFICATE-----\n⦃pem:cert⦄\n-----END CERTIFICATE-----"),
    ("certificate", '"ca_bundle": "-----BEGIN CERTIFICATE-----\\n⦃pemesc:cert⦄\\n-----END CERTIFICATE-----\\n"'),
    # ---- fingerprints
    ("key_fingerprint", """$ gpg --list-keys releases@acme.io
pub   ed25519 2024-01-15 [SC] [expires: 2027-01-14]
      ⦃HEX:40⦄
uid           [ultimate] Acme Releases <releases@acme.io>
sub   cv25519 2024-01-15 [E] [expires: 2027-01-14]"""),
    ("key_fingerprint", """The authenticity of host 'build-⦃int:1-99⦄.acme.lan (10.0.⦃int:0-255⦄.⦃int:1-254⦄)' can't be established.
ED25519 key fingerprint is SHA256:⦃rb64n:32⦄.
Are you sure you want to continue connecting (yes/no/[fingerprint])?"""),
    ("key_fingerprint", "SHA-256 fingerprint of the new TLS cert for api.acme.io:\n⦃HEXcolon:32⦄"),
    ("key_fingerprint", """> Task :app:signingReport
Variant: release
Config: release
Store: /home/ci/keystores/upload.jks
Alias: upload
MD5: ⦃HEXcolon:16⦄
SHA1: ⦃HEXcolon:20⦄
SHA-256: ⦃HEXcolon:32⦄
Valid until: Friday, 3 June 2050"""),
    ("key_fingerprint", "Public-Key-Pins: pin-sha256=\"⦃rb64:32⦄\"; pin-sha256=\"⦃rb64:32⦄\"; max-age=5184000"),
    ("key_fingerprint", """$ git verify-commit HEAD
gpg: Signature made Wed 04 Jun 2025 09:41:12 CEST
gpg:                using EDDSA key ⦃HEX:40⦄
gpg: Good signature from "Ana G <ana@acme.io>" [ultimate]"""),
    ("key_fingerprint", """$ codesign -dvv Acme.app
Executable=/Applications/Acme.app/Contents/MacOS/Acme
Identifier=io.acme.desktop
Format=app bundle with Mach-O universal (x86_64 arm64)
CDHash=⦃hex:40⦄
TeamIdentifier=⦃UP:10⦄"""),
    ("key_fingerprint", "Huella de la clave del servidor nuevo: SHA256:⦃rb64n:32⦄ (ED25519). Compárala antes de aceptar."),
    # ---- keys documented as public
    ("publishable_key", """<script src="https://js.stripe.com/v3/"></script>
<script>
  const stripe = Stripe("pk_live_51⦃b62:97⦄");
  const elements = stripe.elements();
</script>"""),
    ("publishable_key", "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51⦃b62:97⦄\nNEXT_PUBLIC_API_URL=http://localhost:⦃int:3000-9000⦄"),
    ("publishable_key", """<stripe-pricing-table pricing-table-id="prctbl_⦃b62:24⦄"
  publishable-key="pk_live_51⦃b62:97⦄">
</stripe-pricing-table>"""),
    ("publishable_key", "mapboxgl.accessToken = 'pk.eyJ1IjoiYWNtZSIsImEiOi⦃b64u:30⦄.⦃b64u:22⦄';\n"
     "const map = new mapboxgl.Map({ container: 'map', style: 'mapbox://styles/mapbox/streets-v12' });"),
    ("publishable_key", """// search-only key: safe to ship in the browser bundle
const client = algoliasearch("⦃UP:10⦄", "⦃hex:32⦄");
const index = client.initIndex("products_es");"""),
    ("publishable_key", '<div class="g-recaptcha" data-sitekey="6L⦃b64u:38⦄" data-callback="onSubmit"></div>'),
    ("publishable_key", "<div class=\"cf-turnstile\" data-sitekey=\"0x4AAAAAAA⦃b64u:14⦄\" data-theme=\"light\"></div>"),
    ("publishable_key", "posthog.init('phc_⦃b62:43⦄', { api_host: 'https://eu.i.posthog.com', person_profiles: 'identified_only' })"),
    ("publishable_key", """<script async src="https://www.googletagmanager.com/gtag/js?id=G-⦃UP:10⦄"></script>
<script>
  window.dataLayer = window.dataLayer || [];
  function gtag(){dataLayer.push(arguments);}
  gtag('js', new Date());
  gtag('config', 'G-⦃UP:10⦄');
</script>"""),
    ("publishable_key", "analytics.load(\"⦃b62:32⦄\");\nanalytics.page();"),
    ("publishable_key", "mixpanel.init(\"⦃hex:32⦄\", { track_pageview: true, persistence: \"localStorage\" });"),
    ("publishable_key", """import { createClient } from "@supabase/supabase-js";

export const supabase = createClient(
  "https://⦃lower:20⦄.supabase.co",
  "⦃jwt:anon⦄",
);"""),
    ("publishable_key", "NEXT_PUBLIC_SUPABASE_URL=https://⦃lower:20⦄.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY=⦃jwt:anon⦄"),
    ("publishable_key", """google.accounts.id.initialize({
  client_id: "⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com",
  callback: handleCredentialResponse,
});"""),
    ("publishable_key", "GITHUB_APP_ID=⦃int:1000000-9999999⦄\nGITHUB_CLIENT_ID=Iv1.⦃hex:16⦄\nGITHUB_APP_SLUG=acme-review-bot"),
    ("publishable_key", "VITE_CLERK_PUBLISHABLE_KEY=pk_live_⦃b64of:clerk.acme-⟨low:6⟩.io$⦄"),
    ("publishable_key", "const ldClient = LDClient.initialize('⦃hex:24⦄', { kind: 'user', key: userId });"),
    ("publishable_key", "La clave publicable de Stripe (pk_live_51⦃b62:97⦄) puede ir en el front sin problema; la secreta no."),
    # ---- Sentry DSNs
    ("sentry_dsn", """Sentry.init({
  dsn: "https://⦃hex:32⦄@o⦃dig:6⦄.ingest.sentry.io/⦃dig:7⦄",
  tracesSampleRate: 0.1,
});"""),
    ("sentry_dsn", "SENTRY_DSN=https://⦃hex:32⦄@o⦃dig:6⦄.ingest.de.sentry.io/⦃dig:7⦄\nSENTRY_ENVIRONMENT=staging"),
    ("sentry_dsn", """sentry_sdk.init(
    dsn="https://⦃hex:32⦄@o⦃dig:6⦄.ingest.us.sentry.io/⦃dig:7⦄",
    integrations=[DjangoIntegration()],
    send_default_pii=False,
)"""),
    ("sentry_dsn", "sentry:\n  dsn: https://⦃hex:32⦄@sentry.acme.lan/⦃int:2-90⦄\n  release: api@⦃ver⦄"),
    ("sentry_dsn", "El DSN de Sentry del frontend es público (va dentro del bundle): https://⦃hex:32⦄@o⦃dig:6⦄.ingest.sentry.io/⦃dig:7⦄"),
    # ---- placeholders
    ("placeholder", "## Setup\n\n```bash\nexport OPENAI_API_KEY=<your-api-key>\npython -m acme_rag.ingest ./docs --chunk-size ⦃int:200-2000⦄ --collection docs_⦃low:6⦄\n```"),
    ("placeholder", """# .env.example
STRIPE_SECRET_KEY=sk_live_xxxxxxxxxxxxxxxxxxxxxxxx
STRIPE_WEBHOOK_SECRET=whsec_xxxxxxxxxxxxxxxx
SENDGRID_API_KEY=SG.xxxxxx.xxxxxx
APP_NAME=shop-⦃low:6⦄
PORT=⦃int:3000-9000⦄"""),
    ("placeholder", "Replace `ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX` in the snippet with a token that has `read:packages`."),
    ("placeholder", "provider:\n  name: weatherapi-⦃low:6⦄\n  api_key: YOUR_API_KEY_HERE\n  cache_ttl: ⦃int:60-3600⦄"),
    ("placeholder", "[default]\naws_access_key_id = <ACCESS_KEY_ID>\naws_secret_access_key = <SECRET_ACCESS_KEY>\nregion = eu-south-⦃int:1-2⦄\nrole_arn = arn:aws:iam::⦃dig:12⦄:role/developer"),
    ("placeholder", "db:\n  host: localhost\n  user: app\n  password: changeme  # local only\n  name: app_dev_⦃low:6⦄"),
    ("placeholder", "$ acme auth status\nLogged in to api.acme.io as ana, account ⦃uuid⦄ (token: ********)\nToken expires in ⦃int:2-89⦄ days"),
    ("placeholder", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "DATABASE_URL=postgres://user:password@localhost:5432/dbname  # example copied from the docs in ⦃hex:7⦄"),
    ("placeholder", "Connection string format: mongodb+srv://<username>:<password>@cluster0.⦃low:5⦄.mongodb.net/?retryWrites=true"),
    ("placeholder", "Copia `.env.example` a `.env` y sustituye TU_CLAVE_AQUI por tu clave de la API (la del panel del proyecto ⦃low:8⦄)."),
    ("placeholder", """Paste your key in this format:
-----BEGIN PRIVATE KEY-----
...
-----END PRIVATE KEY-----
and set KEY_ID to the id shown in the console (e.g. ⦃UP:10⦄)."""),
    ("placeholder", '{\n  "client_id": "⦃uuid⦄",\n  "client_secret": "REPLACE_ME",\n  "redirect_uri": "https://localhost:⦃int:3000-9000⦄/cb"\n}'),
    ("placeholder", "Keys look like `sk-proj-…` and are shown only once; if you lose it, create a new one (request ⦃uuid⦄)."),
    ("placeholder", "SLACK_BOT_TOKEN=xoxb-your-bot-token\nSLACK_SIGNING_SECRET=your-signing-secret\nSLACK_CHANNEL_ID=C⦃up:10⦄"),
    ("placeholder", "vault_api_token: \"<redacted>\"\nvault_addr: https://vault.acme.lan:8200\nvault_namespace: team-⦃low:5⦄"),
    ("placeholder", "curl -H \"Authorization: Bearer <token>\" https://api.acme.io/v1/projects/⦃uuid⦄/members"),
    ("placeholder", "PASSWORD=xxxxxxxx\nUSERNAME=xxxxxxxx\n# ask #platform for real values (ticket PLAT-⦃int:1000000-9999999⦄)"),
    ("placeholder", "docker login registry.acme.io -u <user> -p <password>   # use --password-stdin in CI instead (runner ⦃hex:8⦄)"),
    ("placeholder", "AZURE_CLIENT_SECRET=<client-secret-from-portal>\nAZURE_TENANT_ID=⦃uuid⦄"),
    # ---- weak defaults
    ("weak_default", "docker run --name pg-dev-⦃low:6⦄ -e POSTGRES_PASSWORD=postgres -p 5432:5432 -d postgres:⦃int:13-17⦄"),
    ("weak_default", "RabbitMQ management UI: http://localhost:15672, log in with guest / guest (only works from localhost). "
     "Queue: orders-⦃low:6⦄"),
    ("weak_default", "MINIO_ROOT_USER=minioadmin\nMINIO_ROOT_PASSWORD=minioadmin\nMINIO_VOLUMES=/data/minio-⦃low:6⦄"),
    ("weak_default", "First login to Grafana is admin / admin and it forces you to pick a new password. Dashboard uid ⦃b62:9⦄."),
    ("weak_default", "El usuario por defecto del router es admin y la contraseña admin; cámbiala al instalarlo (serie ⦃UP:12⦄)."),
    ("weak_default", """services:
  mysql-test:
    image: mysql:8.4
    environment:
      MYSQL_ROOT_PASSWORD: password
      MYSQL_DATABASE: test_⦃low:6⦄
    tmpfs: /var/lib/mysql"""),
    ("weak_default", "jupyter lab --ip 0.0.0.0 --port ⦃int:8000-8999⦄ --IdentityProvider.token='' --ServerApp.password='' --notebook-dir ~/work/exp-⦃low:6⦄"),
    ("weak_default", "PGADMIN_DEFAULT_EMAIL=admin@example.com\nPGADMIN_DEFAULT_PASSWORD=admin\nPGADMIN_LISTEN_PORT=⦃int:5000-5999⦄\nCOMPOSE_PROJECT_NAME=tools-⦃low:6⦄"),
    ("weak_default", "# redis.conf (dev)\n# requirepass foobared\nport ⦃int:6379-6399⦄\nprotected-mode no\ndir /var/lib/redis/dev-⦃low:6⦄"),
    ("weak_default", "ELASTIC_PASSWORD=changeme\ndiscovery.type=single-node\ncluster.name=dev-⦃low:6⦄"),
    # ---- references to secrets kept elsewhere
    ("env_reference", """      - uses: aws-actions/configure-aws-credentials@v4
        with:
          role-to-assume: arn:aws:iam::⦃dig:12⦄:role/gha-deploy
          aws-region: eu-west-1
      - run: ./deploy.sh
        env:
          STRIPE_SECRET_KEY: ${{ secrets.STRIPE_SECRET_KEY }}
          SENTRY_AUTH_TOKEN: ${{ secrets.SENTRY_AUTH_TOKEN }}"""),
    ("env_reference", """  db:
    image: postgres:16
    environment:
      POSTGRES_PASSWORD: ${DB_PASSWORD:?DB_PASSWORD must be set}
      POSTGRES_DB: orders_⦃low:6⦄"""),
    ("env_reference", """        env:
          - name: DB_PASSWORD
            valueFrom:
              secretKeyRef:
                name: orders-db-⦃low:5⦄
                key: password"""),
    ("env_reference", 'stripe.api_key = os.environ["STRIPE_SECRET_KEY"]\nWEBHOOK_TOLERANCE = ⦃int:60-600⦄  # PAY-⦃int:1000000-9999999⦄'),
    ("env_reference", "const secret = process.env.JWT_SECRET ?? (() => { throw new Error(\"JWT_SECRET missing\"); })();\n"
     "const ttl = ⦃int:60-86400⦄;\nconst issuer = \"svc-⦃low:6⦄\";"),
    ("env_reference", "spring.datasource.url=jdbc:postgresql://${DB_HOST}:5432/hr\nspring.datasource.username=${DB_USER}\n"
     "spring.datasource.password=${DB_PASSWORD}\nspring.application.name=hr-⦃low:6⦄\nserver.port=⦃int:8000-8999⦄"),
    ("env_reference", "doctrine:\n    dbal:\n        url: '%env(resolve:DATABASE_URL)%'\n        server_version: '⦃ver⦄'\n        dbname_suffix: '_⦃low:6⦄'"),
    ("env_reference", """resource "aws_db_instance" "main" {
  identifier = "main-⦃low:5⦄"
  username   = "app"
  password   = data.aws_secretsmanager_secret_version.db.secret_string
}"""),
    ("env_reference", "docker login -u gitlab-ci-token -p $CI_JOB_TOKEN $CI_REGISTRY\ndocker push $CI_REGISTRY_IMAGE:$CI_COMMIT_SHORT_SHA  # job ⦃int:10000000-99999999⦄"),
    ("env_reference", "mysql_password: \"{{ vault_mysql_password }}\"\nmysql_port: ⦃int:3306-3399⦄\nmysql_database: app_⦃low:6⦄"),
    ("env_reference", """data:
  password: {{ .Values.db.password | b64enc | quote }}
  username: {{ .Values.db.user | b64enc | quote }}
# chart version ⦃ver⦄, release ⦃low:6⦄"""),
    ("env_reference", "Stripe.api_key = Rails.application.credentials.dig(:stripe, :secret_key)\n# ticket PAY-⦃int:1000000-9999999⦄"),
    ("env_reference", "DB_PASSWORD=op://Infra/orders-db-⦃low:6⦄/password\nSTRIPE_KEY=op://Infra/stripe/credential"),
    ("env_reference", "DbPassword=@Microsoft.KeyVault(SecretUri=https://kv-acme-⦃low:4⦄.vault.azure.net/secrets/DbPassword/⦃hex:32⦄)"),
    ("env_reference", """"secrets": [
  {"name": "DB_PASSWORD", "valueFrom": "arn:aws:secretsmanager:eu-west-1:⦃dig:12⦄:secret:prod/orders/db-⦃b62:6⦄"},
  {"name": "API_TOKEN", "valueFrom": "arn:aws:ssm:eu-west-1:⦃dig:12⦄:parameter/prod/api-token"}
]"""),
    ("env_reference", """withCredentials([usernamePassword(credentialsId: 'nexus-⦃low:6⦄', usernameVariable: 'NEXUS_USER', passwordVariable: 'NEXUS_PASS')]) {
    sh 'mvn -s settings.xml deploy -Dnexus.user=$NEXUS_USER -Dnexus.password=$NEXUS_PASS'
}"""),
    ("env_reference", "La contraseña se lee de DB_PASSWORD; en local ponla en tu .env (que está en .gitignore). Base de datos: ventas_⦃low:6⦄."),
    ("env_reference", "$ mysql -h db-⦃int:1-9⦄.acme.lan -u report_ro -p\nEnter password:\nWelcome to the MySQL monitor.  Commands end with ; or \\g.\nYour MySQL connection id is ⦃int:1000-9999999⦄"),
    ("env_reference", 'apiKey := os.Getenv("PAYMENTS_API_KEY")\nif apiKey == "" {\n\tlog.Fatal("PAYMENTS_API_KEY not set")\n}\n// PAY-⦃int:1000000-9999999⦄: fail fast'),
    ("env_reference", "Connect-AzAccount -ServicePrincipal -Credential (New-Object PSCredential($env:AZURE_CLIENT_ID, "
     "(ConvertTo-SecureString $env:AZURE_CLIENT_SECRET -AsPlainText -Force))) -Tenant ⦃uuid⦄"),
    ("env_reference", "//registry.npmjs.org/:_authToken=${NPM_TOKEN}\n@acme:registry=https://npm.pkg.github.com  # scope ⦃low:6⦄"),
    ("env_reference", "curl -fsS -u \"$NEXUS_USER:$NEXUS_PASS\" --upload-file app-⦃ver⦄-b⦃int:1000-99999⦄.jar https://nexus.acme.lan/repository/releases/"),
    ("env_reference", """    envFrom:
      - secretRef:
          name: app-secrets-⦃low:5⦄
      - configMapRef:
          name: app-config"""),
    ("env_reference", "PGPASSWORD=\"$(aws secretsmanager get-secret-value --secret-id prod/db --query SecretString --output text)\" "
     "psql -h db-⦃int:1-9⦄.acme.lan -U app -d reports_⦃low:6⦄"),
    ("env_reference", "RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci --omit=dev\n# cache key ⦃hex:12⦄"),
    # ---- configs with empty or redacted secrets
    ("redacted_config", '⦃ts⦄ DEBUG loaded config: {"db_host": "pg-⦃int:1-9⦄.acme.lan", "db_user": "app", "db_password": "[REDACTED]", "pool": 10}'),
    ("redacted_config", "SECRET_KEY                      '********************'\nSESSION_COOKIE_AGE              ⦃int:3600-1209600⦄\nCSRF_COOKIE_NAME                'csrf_⦃low:5⦄'"),
    ("redacted_config", """$ kubectl describe secret orders-db-⦃low:5⦄
Name:         orders-db-⦃low:5⦄
Namespace:    payments
Type:         Opaque

Data
====
password:  24 bytes
username:  6 bytes"""),
    ("redacted_config", """$ aws configure list
      Name                    Value             Type    Location
      ----                    -----             ----    --------
   profile                    ci-⦃low:4⦄              manual    --profile
access_key     ****************⦃UP:4⦄ shared-credentials-file
secret_key     ****************⦃UP:4⦄ shared-credentials-file
    region                eu-west-1      config-file    ~/.aws/config"""),
    ("redacted_config", '"spring.datasource.password": { "value": "******", "origin": "System Environment Property \\"DB_PASSWORD\\"" },\n'
     '"server.port": { "value": "⦃int:8000-8999⦄" },\n"spring.application.name": { "value": "hr-⦃low:6⦄" }'),
    ("redacted_config", "Run echo \"token is $DEPLOY_TOKEN\"\ntoken is ***\nRun ./deploy.sh --env prod --build ⦃int:100000-9999999⦄"),
    ("redacted_config", """  # aws_db_instance.reports will be updated in-place
  ~ resource "aws_db_instance" "reports" {
        id       = "db-⦃UP:26⦄"
      ~ password = (sensitive value)
    }"""),
    ("redacted_config", '"request": {"headers": {"authorization": "[Filtered]", "cookie": "[Filtered]", "x-request-id": "⦃uuid⦄"}}'),
    ("redacted_config", 'Parameters: {"user"=>{"email"=>"ana@acme.io", "password"=>"[FILTERED]", "password_confirmation"=>"[FILTERED]"}, '
     '"authenticity_token"=>"[FILTERED]", "id"=>"⦃int:100000-9999999⦄"}'),
    ("redacted_config", "En el volcado de configuración la clave aparece como <oculto>, así que no podemos recuperarla de ahí (volcado ⦃uuid⦄)."),
    ("redacted_config", '"Env": [\n    "DB_HOST=pg",\n    "DB_PASSWORD=",\n    "HOSTNAME=⦃hex:12⦄",\n    "NODE_ENV=production"\n]'),
    ("redacted_config", """$ op item get "orders-db" --vault Infra
ID:          ⦃low:26⦄
Title:       orders-db
Vault:       Infra
Fields:
  username:    app
  password:    [use 'op item get ⦃low:26⦄ --reveal' to reveal]"""),
    ("redacted_config", "SECRET_KEY=\nSTRIPE_SECRET_KEY=\nDEBUG=true\nALLOWED_HOSTS=localhost,127.0.0.1\nAPP_NAME=shop-⦃low:6⦄\nPORT=⦃int:3000-9000⦄"),
    ("redacted_config", "api:\n  token: \"\"            # filled in by the operator at deploy time\n  timeout_seconds: ⦃int:5-120⦄\n  endpoint: https://api-⦃low:6⦄.acme.io"),
    ("redacted_config", """$ vault kv metadata get secret/payments/stripe
======= Metadata =======
created_time            ⦃ts⦄
current_version         ⦃int:2-60⦄
max_versions            0
updated_time            ⦃ts⦄"""),
    # ---- where secrets live, without the secrets
    ("secret_reference", "The master password is in arn:aws:secretsmanager:eu-west-1:⦃dig:12⦄:secret:prod/db/master-⦃b62:6⦄; "
     "rotation Lambda runs every 30 days."),
    ("secret_reference", """path "secret/data/payments/*" {
  capabilities = ["read"]
}
path "secret/metadata/payments/*" {
  capabilities = ["list"]
}
# policy id ⦃uuid⦄"""),
    ("secret_reference", "gcloud secrets versions access ⦃int:1-40⦄ --secret=stripe-key --project=billing-⦃int:1000000-9999999⦄ > /dev/null && echo ok"),
    ("secret_reference", """Runbook: rotate the CI IAM key
1. aws iam create-access-key --user-name ci-uploader
2. Put the new pair in Vault at secret/ci/aws (never in chat)
3. aws iam delete-access-key --user-name ci-uploader --access-key-id <old id>
Last rotated: ⦃date⦄ (ticket SEC-⦃int:1000000-9999999⦄)"""),
    ("secret_reference", "KMS key arn:aws:kms:eu-west-1:⦃dig:12⦄:key/⦃uuid⦄ (alias/sops-prod) encrypts the secrets in this repo."),
    ("secret_reference", "Las credenciales están en Vault en secret/data/pagos/stripe; pide acceso en #plataforma (ticket ⦃int:1000000-9999999⦄)."),
    ("secret_reference", "projects/⦃dig:12⦄/secrets/db-password/versions/latest is mounted at /secrets/db/password by the CSI driver."),
    ("secret_reference", """apiVersion: external-secrets.io/v1beta1
kind: ExternalSecret
metadata:
  name: orders-db
spec:
  refreshInterval: 1h
  secretStoreRef: {name: aws-sm, kind: ClusterSecretStore}
  data:
    - secretKey: password
      remoteRef: {key: prod/orders/db-⦃low:5⦄, property: password}"""),
    # ---- ciphertext meant to be committed
    ("committed_ciphertext", """db:
    user: ENC[AES256_GCM,data:⦃rb64:6⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
    password: ENC[AES256_GCM,data:⦃rb64:24⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
sops:
    age:
        - recipient: age1⦃bech:58⦄
          enc: |
            -----BEGIN AGE ENCRYPTED FILE-----
            ⦃b64lines:180:64⦄
            -----END AGE ENCRYPTED FILE-----
    lastmodified: "⦃ts⦄"
    mac: ENC[AES256_GCM,data:⦃rb64:64⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]
    version: 3.9.0"""),
    ("committed_ciphertext", "$ANSIBLE_VAULT;1.1;AES256\n⦃hexlines:6:80⦄"),
    ("committed_ciphertext", """apiVersion: bitnami.com/v1alpha1
kind: SealedSecret
metadata:
  name: orders-db
  namespace: payments
spec:
  encryptedData:
    password: Ag⦃rb64:360⦄
    username: Ag⦃rb64:300⦄"""),
    ("committed_ciphertext", "-----BEGIN AGE ENCRYPTED FILE-----\n⦃b64lines:240:64⦄\n-----END AGE ENCRYPTED FILE-----"),
    ("committed_ciphertext", "-----BEGIN PGP MESSAGE-----\n\n⦃pgp⦄\n-----END PGP MESSAGE-----"),
    ("committed_ciphertext", "# config/credentials/production.yml.enc\n⦃rb64:240⦄--⦃rb64:12⦄--⦃rb64:16⦄"),
    ("committed_ciphertext", """Resources:
  AppConfig:
    Type: AWS::SSM::Parameter
    Properties:
      Name: /app/encrypted-blob
      Type: String
      Value: AQICAH⦃b64:250⦄"""),
    ("committed_ciphertext", '{\n  "_public_key": "⦃hex:64⦄",\n  "database_password": "EJ[1:⦃rb64:32⦄:⦃rb64:24⦄:⦃rb64:40⦄]"\n}'),
    ("committed_ciphertext", "El fichero secrets.enc.yaml está cifrado con sops, se puede commitear tal cual:\n"
     "api_key: ENC[AES256_GCM,data:⦃rb64:40⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]"),
    ("committed_ciphertext", "spring.datasource.password=ENC(⦃rb64:48⦄)\njasypt.encryptor.algorithm=PBEWITHHMACSHA512ANDAES_256"),
    ("committed_ciphertext", '{\n  "id": "smtp",\n  "password": {\n    "encrypted_data": "⦃rb64:48⦄\\n",\n    "iv": "⦃rb64:12⦄\\n",\n'
     '    "auth_tag": "⦃rb64:16⦄\\n",\n    "version": 3,\n    "cipher": "aes-256-gcm"\n  }\n}'),
    ("committed_ciphertext", "vault write -field=ciphertext transit/encrypt/orders plaintext=$(base64 <<< \"$CARD\")\n"
     "vault:v1:⦃rb64:64⦄"),
    # ---- per-message webhook signatures
    ("webhook_signature", """POST /webhooks/stripe HTTP/1.1
Host: api.acme.io
Stripe-Signature: t=⦃epoch⦄,v1=⦃hex:64⦄,v0=⦃hex:64⦄
Content-Type: application/json; charset=utf-8

{"id": "evt_⦃b62:24⦄", "type": "invoice.paid"}"""),
    ("webhook_signature", """X-GitHub-Event: pull_request
X-GitHub-Delivery: ⦃uuid⦄
X-Hub-Signature: sha1=⦃hex:40⦄
X-Hub-Signature-256: sha256=⦃hex:64⦄"""),
    ("webhook_signature", "X-Slack-Request-Timestamp: ⦃epoch⦄\nX-Slack-Signature: v0=⦃hex:64⦄"),
    ("webhook_signature", "svix-id: msg_⦃b62:27⦄\nsvix-timestamp: ⦃epoch⦄\nsvix-signature: v1,⦃rb64:32⦄"),
    ("webhook_signature", "X-Shopify-Topic: orders/create\nX-Shopify-Hmac-Sha256: ⦃rb64:32⦄\nX-Shopify-Shop-Domain: acme-shop.myshopify.com"),
    ("webhook_signature", "⦃ts⦄ WARN twilio webhook rejected: X-Twilio-Signature=⦃rb64:20⦄ did not match computed ⦃rb64:20⦄"),
    ("webhook_signature", "⦃ts⦄ ERROR webhook signature mismatch: expected=⦃hex:64⦄ got=⦃hex:64⦄ (clock skew ⦃int:1-900⦄s?)"),
    ("webhook_signature", '{\n  "Type": "Notification",\n  "MessageId": "⦃uuid⦄",\n  "Message": "{\\"status\\":\\"ok\\"}",\n'
     '  "SignatureVersion": "2",\n  "Signature": "⦃rb64:256⦄",\n'
     '  "SigningCertURL": "https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-⦃hex:32⦄.pem"\n}'),
    ("webhook_signature", "Paddle-Signature: ts=⦃epoch⦄;h1=⦃hex:64⦄"),
    ("webhook_signature", "El webhook falla porque la firma no coincide: recibimos X-Signature: sha256=⦃hex:64⦄ y calculamos otra. "
     "Seguramente el body llega re-serializado."),
    # ---- nonces, CSRF tokens and other per-request values
    ("per_request_nonce", """Content-Security-Policy: script-src 'nonce-⦃rb64:16⦄' 'strict-dynamic'; object-src 'none'
...
<script nonce="⦃rb64:16⦄" src="/static/app.⦃hex:8⦄.js"></script>"""),
    ("per_request_nonce", """GET /ws HTTP/1.1
Host: live.acme.io
Upgrade: websocket
Connection: Upgrade
Sec-WebSocket-Key: ⦃rb64:16⦄
Sec-WebSocket-Version: 13

HTTP/1.1 101 Switching Protocols
Sec-WebSocket-Accept: ⦃rb64:20⦄"""),
    ("per_request_nonce", "https://auth.acme.io/oauth2/authorize?response_type=code&client_id=web-⦃low:6⦄&redirect_uri=https%3A%2F%2Fapp.acme.io%2Fcb"
     "&scope=openid%20profile&state=⦃b64u:32⦄&code_challenge=⦃rb64u:32⦄&code_challenge_method=S256&nonce=⦃b64u:22⦄"),
    ("per_request_nonce", '<form method="post" action="/accounts/profile/">\n  <input type="hidden" name="csrfmiddlewaretoken" value="⦃b62:64⦄">\n'
     '  <input type="text" name="display_name">\n</form>'),
    ("per_request_nonce", '<meta name="csrf-param" content="authenticity_token" />\n<meta name="csrf-token" content="⦃rb64u:64⦄" />'),
    ("per_request_nonce", "X-XSRF-TOKEN: ⦃rb64:120⦄\nX-Requested-With: XMLHttpRequest"),
    ("per_request_nonce", "POST /contact HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\nname=Ana&email=ana%40acme.io&h-captcha-response=P1_⦃b64u:300⦄"),
    ("per_request_nonce", "curl https://api.stripe.com/v1/payment_intents -u \"$STRIPE_SECRET_KEY:\" -H \"Idempotency-Key: ⦃uuid⦄\" "
     "-d amount=⦃int:100-99999⦄ -d currency=eur"),
    ("per_request_nonce", 'Authorization: Digest username="ana", realm="intranet", nonce="⦃hex:32⦄", uri="/reports/", '
     'algorithm=SHA-256, qop=auth, nc=00000001, cnonce="⦃hex:16⦄", response="⦃hex:64⦄", opaque="⦃hex:32⦄"'),
    ("per_request_nonce", "https://login.acme.io/saml/sso?SAMLRequest=⦃rb64pct:300⦄&RelayState=⦃b64u:24⦄"),
    ("per_request_nonce", "⦃ts⦄ DEBUG oidc callback state=⦃b64u:32⦄ matched session state, nonce=⦃b64u:22⦄ verified"),
    ("per_request_nonce", "El token CSRF (csrftoken=⦃b62:32⦄) cambia en cada login; por eso el test de Playwright falla si lo fijas."),
    ("per_request_nonce", "Request headers: x-amz-content-sha256: ⦃hex:64⦄, x-amz-date: 20250603T101500Z, x-amz-user-agent: aws-sdk-js/3.592.0"),
    # ---- base64 data that is not a credential
    ("base64_data", ".logo {\n  width: 32px;\n  background-image: url(\"data:image/png;base64,⦃png:180⦄\");\n}"),
    ("base64_data", '<img alt="status" width="16" height="16" src="data:image/png;base64,⦃png:120⦄">'),
    ("base64_data", "@font-face {\n  font-family: 'Icons';\n  src: url(data:font/woff2;base64,⦃woff:300⦄) format('woff2');\n}"),
    ("base64_data", """{
  "name": "README.md",
  "path": "README.md",
  "sha": "⦃hex:40⦄",
  "size": ⦃int:100-9000⦄,
  "encoding": "base64",
  "content": "⦃b64of:# acme-cli

Command line client for the Acme API.

## Install

    brew install acme/tap/acme-cli
⦄"
}"""),
    ("base64_data", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: branding\nbinaryData:\n  favicon.png: ⦃png:240⦄"),
    ("base64_data", "⦃ts⦄ DEBUG queue=events payload=⦃gz:180⦄ encoding=gzip+base64"),
    ("base64_data", """Content-Type: application/pdf; name="factura-⦃int:1000-9999⦄.pdf"
Content-Transfer-Encoding: base64
Content-Disposition: attachment; filename="factura.pdf"

JVBERi0xLjcK⦃b64lines:300:76⦄"""),
    ("base64_data", '"outputs": [{"data": {"image/png": "⦃png:400⦄", "text/plain": ["<Figure size 640x480 with 1 Axes>"]}, '
     '"output_type": "display_data"}]'),
    ("base64_data", "Este es el favicon en base64 por si lo quieres embebido en el HTML del correo:\ndata:image/png;base64,⦃png:150⦄"),
    ("base64_data", '<svg xmlns="http://www.w3.org/2000/svg"><image href="data:image/png;base64,⦃png:200⦄" width="24" height="24"/></svg>'),
    ("base64_data", '{"topic":"orders","partition":⦃int:0-11⦄,"offset":⦃int:1000-9999999⦄,"value":"⦃rb64:60⦄","value_format":"avro"}'),
    ("base64_data", "grpc-status: 0\ncontent-type: application/grpc-web-text\n\nAAAAA⦃rb64:90⦄"),
    # ---- lockfile integrity hashes
    ("lockfile_integrity", """    "node_modules/lodash": {
      "version": "4.17.21",
      "resolved": "https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz",
      "integrity": "⦃sri:512⦄"
    },
    "node_modules/ms": {
      "version": "2.1.3",
      "resolved": "https://registry.npmjs.org/ms/-/ms-2.1.3.tgz",
      "integrity": "⦃sri:512⦄"
    }"""),
    ("lockfile_integrity", """"@babel/code-frame@^7.24.7":
  version "7.24.7"
  resolved "https://registry.yarnpkg.com/@babel/code-frame/-/code-frame-7.24.7.tgz#⦃hex:40⦄"
  integrity ⦃sri:512⦄"""),
    ("lockfile_integrity", "  /zod@3.23.8:\n    resolution: {integrity: ⦃sri:512⦄}\n    dev: false"),
    ("lockfile_integrity", """requests==2.32.3 \\
    --hash=sha256:⦃hex:64⦄ \\
    --hash=sha256:⦃hex:64⦄
urllib3==2.2.2 \\
    --hash=sha256:⦃hex:64⦄"""),
    ("lockfile_integrity", """[[package]]
name = "serde"
version = "1.0.203"
source = "registry+https://github.com/rust-lang/crates.io-index"
checksum = "⦃hex:64⦄"
dependencies = [
 "serde_derive",
]"""),
    ("lockfile_integrity", "github.com/google/uuid v1.6.0 h1:⦃rb64:32⦄\ngithub.com/google/uuid v1.6.0/go.mod h1:⦃rb64:32⦄"),
    ("lockfile_integrity", """[[package]]
name = "httpx"
version = "0.27.0"
files = [
    {file = "httpx-0.27.0-py3-none-any.whl", hash = "sha256:⦃hex:64⦄"},
    {file = "httpx-0.27.0.tar.gz", hash = "sha256:⦃hex:64⦄"},
]"""),
    ("lockfile_integrity", "CHECKSUMS\n  rack (3.1.7) sha256=⦃hex:64⦄\n  rake (13.2.1) sha256=⦃hex:64⦄"),
    ("lockfile_integrity", """            "dist": {
                "type": "zip",
                "url": "https://api.github.com/repos/guzzle/guzzle/zipball/⦃hex:40⦄",
                "reference": "⦃hex:40⦄",
                "shasum": ""
            },"""),
    ("lockfile_integrity", """      "locked": {
        "lastModified": ⦃epoch⦄,
        "narHash": "sha256-⦃rb64:32⦄",
        "owner": "NixOS",
        "repo": "nixpkgs",
        "rev": "⦃hex:40⦄",
        "type": "github"
      },"""),
    ("lockfile_integrity", '"default": {\n    "certifi": {\n        "hashes": [\n            "sha256:⦃hex:64⦄",\n'
     '            "sha256:⦃hex:64⦄"\n        ],\n        "version": "==2024.7.4"\n    }\n}'),
    ("lockfile_integrity", """  {
    "identity" : "swift-argument-parser",
    "kind" : "remoteSourceControl",
    "location" : "https://github.com/apple/swift-argument-parser",
    "state" : {
      "revision" : "⦃hex:40⦄",
      "version" : "1.4.0"
    }
  }"""),
    ("lockfile_integrity", '  "jason": {:hex, :jason, "1.4.3", "⦃hex:64⦄", [:mix], [], "hexpm", "⦃hex:64⦄"},'),
    ("lockfile_integrity", """<component group="com.squareup.okhttp3" name="okhttp" version="4.12.0">
   <artifact name="okhttp-4.12.0.jar">
      <sha256 value="⦃hex:64⦄" origin="Generated by Gradle"/>
   </artifact>
</component>"""),
    ("lockfile_integrity", """  src = fetchurl {
    url = "https://github.com/acme/tool/releases/download/v⦃ver⦄/tool.tar.gz";
    hash = "sha256-⦃rb64:32⦄";
  };"""),
    ("lockfile_integrity", '[[package]]\nname = "anyio"\nversion = "4.4.0"\nsdist = { url = "https://files.pythonhosted.org/packages/⦃hex:2⦄/⦃hex:2⦄/⦃hex:60⦄/anyio-4.4.0.tar.gz", '
     'hash = "sha256:⦃hex:64⦄", size = ⦃int:10000-999999⦄ }'),
    # ---- subresource integrity
    ("sri_hash", '<script src="https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js" '
     'integrity="⦃sri:384⦄" crossorigin="anonymous"></script>'),
    ("sri_hash", '<link rel="stylesheet" href="https://cdnjs.cloudflare.com/ajax/libs/font-awesome/6.5.2/css/all.min.css" '
     'integrity="⦃sri:512⦄" crossorigin="anonymous" referrerpolicy="no-referrer" />'),
    ("sri_hash", '{\n  "main.js": "⦃sri:384⦄",\n  "vendor.js": "⦃sri:384⦄",\n  "styles.css": "⦃sri:384⦄"\n}'),
    # ---- cloud resource identifiers
    ("cloud_resource_id", """{
  "RoleArn": "arn:aws:iam::⦃dig:12⦄:role/service-role/orders-lambda-role-⦃low:8⦄",
  "FunctionArn": "arn:aws:lambda:eu-west-1:⦃dig:12⦄:function:orders-sync",
  "Bucket": "arn:aws:s3:::acme-orders-exports-⦃low:6⦄",
  "KmsKeyArn": "arn:aws:kms:eu-west-1:⦃dig:12⦄:key/⦃uuid⦄"
}"""),
    ("cloud_resource_id", "/subscriptions/⦃uuid⦄/resourceGroups/rg-data-weu/providers/Microsoft.Storage/storageAccounts/stdata⦃low:8⦄"),
    ("cloud_resource_id", "projects/acme-analytics-⦃int:100-999⦄/locations/europe-west1/services/ingest-api/revisions/ingest-api-000⦃int:10-99⦄-⦃low:3⦄"),
    ("cloud_resource_id", "StackId: arn:aws:cloudformation:us-east-1:⦃dig:12⦄:stack/network-prod/⦃uuid⦄"),
    ("cloud_resource_id", "Instances: i-⦃hex:17⦄ (web-1), i-⦃hex:17⦄ (web-2) in subnet-⦃hex:17⦄, sg-⦃hex:17⦄; AMI ami-⦃hex:17⦄"),
    ("cloud_resource_id", 'name = "api"\nmain = "src/index.ts"\naccount_id = "⦃hex:32⦄"\nworkers_dev = false\n\n'
     '[[kv_namespaces]]\nbinding = "CACHE"\nid = "⦃hex:32⦄"'),
    ("cloud_resource_id", '{"projectId":"prj_⦃b62:28⦄","orgId":"team_⦃b62:24⦄"}'),
    ("cloud_resource_id", "El recurso está en /subscriptions/⦃uuid⦄/resourceGroups/rg-datos/providers/Microsoft.Sql/servers/sql-ventas."),
    ("cloud_resource_id", "arn:aws:dynamodb:eu-west-1:⦃dig:12⦄:table/orders/stream/2025-05-⦃int:10-31⦄T08:14:22.⦃int:100-999⦄"),
    ("cloud_resource_id", "aws s3 cp s3://acme-build-artifacts/api/⦃hex:40⦄/api.zip . && unzip -q api.zip"),
    ("cloud_resource_id", "Hosted zone Z⦃UP:13⦄ (acme.io), certificate arn:aws:acm:us-east-1:⦃dig:12⦄:certificate/⦃uuid⦄ attached to d⦃low:13⦄.cloudfront.net"),
    ("cloud_resource_id", "Heroku app acme-api (id ⦃uuid⦄), release v⦃int:10-999⦄, dyno web.1 ⦃uuid⦄"),
    # ---- URLs carrying resource ids
    ("url_with_id", "Spec is here: https://docs.google.com/document/d/⦃b64u:44⦄/edit#heading=h.⦃low:12⦄"),
    ("url_with_id", "Mockups: https://www.figma.com/design/⦃b62:22⦄/Checkout-v3?node-id=⦃int:10-999⦄-⦃int:1000-9999⦄&t=⦃b62:16⦄-0"),
    ("url_with_id", "Runbook: https://www.notion.so/acme/Incident-runbook-⦃hex:32⦄?pvs=4"),
    ("url_with_id", "Demo recording: https://www.youtube.com/watch?v=⦃b64u:11⦄&t=⦃int:10-900⦄s"),
    ("url_with_id", "https://grafana.acme.lan/d/⦃b62:9⦄/api-latency?orgId=1&from=now-6h&to=now&var-service=orders"),
    ("url_with_id", "https://app.datadoghq.eu/dashboard/⦃low:3⦄-⦃low:3⦄-⦃low:3⦄/checkout-overview?from_ts=⦃epoch⦄000&live=true"),
    ("url_with_id", "Refunded https://dashboard.stripe.com/payments/pi_⦃b62:24⦄ manually, customer cus_⦃b62:14⦄."),
    ("url_with_id", "Sentry issue: https://acme.sentry.io/issues/⦃dig:10⦄/?project=⦃dig:7⦄&query=is%3Aunresolved"),
    ("url_with_id", "Failing job: https://github.com/acme/api/actions/runs/⦃dig:11⦄/job/⦃dig:11⦄#step:6:⦃int:10-400⦄"),
    ("url_with_id", "https://acme.atlassian.net/wiki/spaces/ENG/pages/⦃dig:10⦄/Release+process"),
    ("url_with_id", "https://eu-west-1.console.aws.amazon.com/ec2/home?region=eu-west-1#InstanceDetails:instanceId=i-⦃hex:17⦄"),
    ("url_with_id", "El diseño nuevo está aquí: https://www.figma.com/file/⦃b62:22⦄/Landing?type=design&node-id=0-1"),
    ("url_with_id", "https://docs.google.com/spreadsheets/d/⦃b64u:44⦄/edit#gid=⦃dig:9⦄"),
    ("url_with_id", "https://kibana.acme.lan/app/discover#/view/⦃uuid⦄?_g=(time:(from:now-24h,to:now))&_a=(query:(query:'trace.id:⦃hex:32⦄'))"),
    # ---- minified code and build output
    ("minified_code", '!function(e,t){"object"==typeof exports?module.exports=t():e.Acme=t()}(this,function(){var e="⦃hex:32⦄",t=function(n){return n.split("").reverse().join("")};'
     'return{v:"⦃ver⦄",h:e,r:t}});'),
    ("minified_code", '{\n  "files": {\n    "main.js": "/static/js/main.⦃hex:8⦄.js",\n    "main.css": "/static/css/main.⦃hex:8⦄.css",\n'
     '    "static/js/453.⦃hex:8⦄.chunk.js": "/static/js/453.⦃hex:8⦄.chunk.js"\n  }\n}'),
    ("minified_code", '{"version":3,"file":"app.min.js","sources":["../src/app.ts"],"names":["e","t","n"],"mappings":"⦃vlq:60⦄"}'),
    ("minified_code", "._button_⦃b64u:5⦄_1{padding:.5rem 1rem}._primary_⦃b64u:5⦄_9{background:#0b5fff;color:#fff}"),
    ("minified_code", '<script src="/_next/static/⦃b64u:21⦄/_buildManifest.js" defer=""></script><script src="/_next/static/chunks/pages/_app-⦃hex:16⦄.js" defer=""></script>'),
    ("minified_code", 'var _0x⦃hex:4⦄=["\\x72\\x65\\x61\\x64\\x79","\\x6c\\x6f\\x67"];(function(_0x⦃hex:6⦄,_0x⦃hex:6⦄){var _0x⦃hex:4⦄=function(_0x⦃hex:6⦄){while(--_0x⦃hex:6⦄){}}}(_0x⦃hex:4⦄,0x⦃hex:3⦄));'),
    ("minified_code", '{\n  "src/main.ts": {\n    "file": "assets/main-⦃b64u:8⦄.js",\n    "css": ["assets/main-⦃b64u:8⦄.css"],\n    "isEntry": true\n  }\n}'),
    ("minified_code", "//# sourceMappingURL=data:application/json;base64,⦃b64of:{\"version\":3,\"sources\":[\"x.ts\"],\"mappings\":\"⟨vlq:30⟩\"}⦄"),
    # ---- test vectors, labelled
    ("test_vector", """# FIPS-197 appendix C.1 (AES-128) known-answer test
KEY        = 000102030405060708090a0b0c0d0e0f
PLAINTEXT  = 00112233445566778899aabbccddeeff
CIPHERTEXT = 69c4e0d86a7b0430d8cdb78070b4c55a"""),
    ("test_vector", """def test_hmac_sha256_rfc4231_case2():
    # RFC 4231 test case 2: key is the ASCII string "Jefe"
    mac = hmac.new(b"Jefe", b"what do ya want for nothing?", hashlib.sha256).hexdigest()
    assert mac == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843\""""),
    ("test_vector", 'assert sha256(b"abc").hexdigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"  # FIPS 180-2 example'),
    ("test_vector", """// RFC 8032, section 7.1, TEST 1 (public test vector, not a real key)
const rfcSecret = "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60";
const rfcPublic = "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a";"""),
    ("test_vector", """# RFC 6238 appendix B: the SHA-1 test seed is the ASCII string "12345678901234567890"
@pytest.mark.parametrize("t, expected", [(59, "94287082"), (1111111109, "07081804")])
def test_totp_rfc6238(t, expected):
    assert totp(b"12345678901234567890", t, digits=8) == expected"""),
    ("test_vector", """{
  "_comment": "generated test vectors for the HMAC helper; random, never used outside tests",
  "vectors": [
    {"msg": "⦃hex:24⦄", "key": "⦃hex:32⦄", "mac": "⦃hex:64⦄"},
    {"msg": "⦃hex:24⦄", "key": "⦃hex:32⦄", "mac": "⦃hex:64⦄"}
  ]
}"""),
    ("test_vector", """// RFC 8439 section 2.3.2 ChaCha20 block function test vector
key   := "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
nonce := "000000090000004a00000000"
count := 1"""),
    ("test_vector", "CRC-32 check value: crc32(\"123456789\") == 0xcbf43926 (standard test vector, see the catalogue)"),
    ("test_vector", 'assert base64.b64encode(b"foobar") == b"Zm9vYmFy"  # RFC 4648 section 10 test vector'),
    ("test_vector", """# RFC 6070 PBKDF2-HMAC-SHA1 test vector 1
P = "password", S = "salt", c = 1, dkLen = 20
DK = 0c60c80f961f0e71f3a9b524af6012062fe037a6"""),
    ("test_vector", """func TestDigest(t *testing.T) {
	// golden file testdata/digest-⦃int:1-99⦄.golden, regenerate with -update
	in := mustHex("⦃hex:48⦄")
	want := "⦃hex:64⦄"
	if got := Digest(in); got != want {
		t.Fatalf("got %s want %s", got, want)
	}
}"""),
    # ---- prose about passwords, without one (English)
    ("password_prose_en", "Reminder: the staging DB password rotated today ⦃date⦄; get the new one from 1Password (vault \"Platform\", item ⦃low:26⦄)."),
    ("password_prose_en", "Please don't put passwords in the README. Use the secrets manager and read them from env vars (PR #⦃int:1000-9999⦄, commit ⦃hex:7⦄)."),
    ("password_prose_en", "If you see 'password authentication failed for user \"app\"', check that pg_hba.conf on pg-⦃int:1-9⦄ uses scram-sha-256 (alert ⦃uuid⦄)."),
    ("password_prose_en", "Our password policy: at least 14 characters, no reuse of the last 5, and MFA required for admin roles. (ISMS-⦃int:10-99⦄, rev ⦃hex:7⦄)"),
    ("password_prose_en", "On first boot Jenkins writes the initial admin password to /var/jenkins_home/secrets/initialAdminPassword; "
     "read it with docker exec jenkins-⦃low:6⦄ cat ..."),
    ("password_prose_en", "Ask Marta for the VPN password, she'll send it over Signal — never in Slack. Ticket IT-⦃int:1000000-9999999⦄."),
    ("password_prose_en", "We rotated the Stripe key after the leak on ⦃date⦄; the old one is revoked and the new one lives in Vault (INC-⦃int:1000000-9999999⦄)."),
    ("password_prose_en", "Password reset emails were failing because the relay rejected our sender; fixed by adding the SPF include "
     "(incident INC-⦃int:1000000-9999999⦄)."),
    ("password_prose_en", "Users saw 'incorrect password' after the argon2 migration; cause was the rehash-on-login path skipping "
     "legacy accounts created before ⦃date⦄. Fix in ⦃hex:7⦄."),
    ("password_prose_en", "TODO: move DB_PASSWORD out of docker-compose.yml into a gitignored .env file (see #⦃int:1000-9999⦄, introduced in ⦃hex:7⦄)."),
    ("password_prose_en", "fix(auth): stop logging the password field on failed logins (#⦃int:1000-9999⦄)\n\nFollow-up to ⦃hex:7⦄."),
    ("password_prose_en", "Can someone share the credentials for the sandbox tenant ⦃uuid⦄? DM please, not in this thread."),
    ("password_prose_en", "The PAT expired, so I created a fine-grained token with read-only contents and saved it as GH_PACKAGES_TOKEN in "
     "the repo secrets (run ⦃dig:10⦄)."),
    ("password_prose_en", "Okta flagged password spraying at ⦃ts⦄: ⦃int:50-900⦄ failed attempts from ⦃ip⦄; the targeted accounts are locked."),
    ("password_prose_en", "Keys starting with AKIA are long-term IAM user keys; ASIA ones come from STS and need a session token too. "
     "Noted in ADR-⦃int:10-99⦄ (commit ⦃hex:7⦄)."),
    # ---- prose about passwords, without one (Spanish)
    ("password_prose_es", "La contraseña de la base de datos de staging se cambió el ⦃date⦄; está en el gestor, carpeta Plataforma (elemento ⦃low:26⦄)."),
    ("password_prose_es", "No pongáis contraseñas en el README; usad variables de entorno y el gestor de secretos (PR #⦃int:1000-9999⦄, commit ⦃hex:7⦄)."),
    ("password_prose_es", "Si sale 'la autentificación password falló para el usuario', revisa pg_hba.conf en pg-⦃int:1-9⦄. Alerta ⦃uuid⦄."),
    ("password_prose_es", "La política de contraseñas exige al menos 14 caracteres y doble factor para administradores (norma ⦃int:10-99⦄, revisión ⦃hex:7⦄)."),
    ("password_prose_es", "Pídele a Lucía la clave del wifi de invitados; te la manda por Signal. Sala ⦃int:100-999⦄, ticket ⦃int:1000000-9999999⦄."),
    ("password_prose_es", "Rotamos la clave de la API de pagos tras el incidente del ⦃date⦄; la antigua está revocada (INC-⦃int:1000000-9999999⦄)."),
    ("password_prose_es", "Olvidé la contraseña del portátil; IT me la restablece mañana (incidencia ⦃int:1000000-9999999⦄)."),
    ("password_prose_es", "El token de GitHub caducó; genera uno nuevo con permisos de solo lectura y guárdalo como secreto del "
     "repositorio (ejecución ⦃dig:10⦄)."),
    ("password_prose_es", "Recuerda activar el doble factor en la cuenta de AWS ⦃dig:12⦄; nada de contraseñas compartidas."),
    ("password_prose_es", "Nota: desde la versión ⦃ver⦄ el campo password ya no aparece en los logs de acceso (ticket ⦃int:1000-9999⦄)."),
    ("password_prose_es", "arreglo(auth): no registrar la contraseña en los intentos fallidos (#⦃int:1000-9999⦄)\n\nSigue a ⦃hex:7⦄."),
    ("password_prose_es", "¿Alguien tiene acceso al Grafana de ⦃low:6⦄? Necesito entrar, pero pasadme la contraseña por privado."),
    ("password_prose_es", "El error de 'contraseña incorrecta' salía porque el teclado del quiosco ⦃int:1-99⦄ (serie ⦃UP:10⦄) estaba en inglés."),
    ("password_prose_es", "Para generar una clave segura usa `openssl rand -base64 32` y guárdala en Vault, nunca aquí. Hecho el ⦃date⦄ (commit ⦃hex:7⦄)."),
    ("password_prose_es", "He revocado el token que se filtró en el canal; el nuevo está en Vault y nadie tiene que hacer nada (⦃ts⦄)."),
    # ---- public blockchain data
    ("blockchain_public", """Deploying contracts with the account: 0x⦃hex:40⦄
Token deployed to: 0x⦃hex:40⦄
Transaction hash: 0x⦃hex:64⦄
Block: ⦃int:18000000-21000000⦄  Gas used: ⦃int:100000-3000000⦄"""),
    ("blockchain_public", "https://etherscan.io/tx/0x⦃hex:64⦄"),
    ("blockchain_public", "Payout sent to bc1q⦃bech:38⦄, txid ⦃hex:64⦄ (⦃int:1-6⦄ confirmations)."),
    ("blockchain_public", "https://explorer.solana.com/tx/⦃b58:88⦄?cluster=devnet — signer ⦃b58:44⦄"),
    ("blockchain_public", "Block 0x⦃hex:64⦄, parent 0x⦃hex:64⦄, stateRoot 0x⦃hex:64⦄"),
    ("blockchain_public", "Watch-only wallet imported from xpub6⦃b58:106⦄ (account 0, no private keys on this machine)."),
    ("blockchain_public", "ipfs://⦃cid⦄/metadata/⦃int:1-9999⦄.json"),
    ("blockchain_public", "Manda los fondos de prueba a esta dirección: 0x⦃hex:40⦄ (red Sepolia, no mainnet)."),
    ("blockchain_public", '{"inputs":[],"name":"owner","outputs":[{"internalType":"address","name":"","type":"address"}],'
     '"stateMutability":"view","type":"function","address":"0x⦃hex:40⦄"}'),
    ("blockchain_public", "Event Transfer(from=0x⦃hex:40⦄, to=0x⦃hex:40⦄, value=⦃int:1000-999999999⦄) topic0=0x⦃hex:64⦄"),
    # ---- analytics and preference cookies
    ("analytics_cookie", "Cookie: _ga=GA1.1.⦃dig:10⦄.⦃epoch⦄; _gid=GA1.2.⦃dig:10⦄.⦃epoch⦄; _fbp=fb.1.⦃epoch⦄⦃dig:3⦄.⦃dig:10⦄; lang=es"),
    ("analytics_cookie", "ajs_anonymous_id=%22⦃uuid⦄%22; cookieconsent_status=dismiss; theme=dark"),
    ("analytics_cookie", "Set-Cookie: _hjSessionUser_⦃dig:7⦄=⦃b64uof:{\"id\":\"⟨uuid⟩\",\"created\":⟨epoch⟩000,\"existing\":true}⦄; "
     "Max-Age=31536000; Path=/; SameSite=Lax"),
    ("analytics_cookie", "_gcl_au=1.1.⦃dig:10⦄.⦃epoch⦄; _clck=⦃low:6⦄%7C2%7Cfm2%7C0%7C⦃int:1000-1999⦄; OptanonAlertBoxClosed=⦃ts⦄"),
    ("analytics_cookie", "mp_⦃hex:32⦄_mixpanel=%7B%22distinct_id%22%3A%20%22%24device%3A⦃uuid⦄%22%7D"),
    # ---- vendor object ids
    ("api_object_id", "⦃ts⦄ INFO billing charged customer=cus_⦃b62:14⦄ subscription=sub_⦃b62:24⦄ invoice=in_⦃b62:24⦄ "
     "payment_intent=pi_⦃b62:24⦄ amount=⦃int:100-99999⦄"),
    ("api_object_id", "Twilio: message SM⦃hex:32⦄ delivered (account AC⦃hex:32⦄, messaging service MG⦃hex:32⦄)."),
    ("api_object_id", "Slack thread: channel C⦃up:10⦄, ts ⦃epoch⦄.⦃dig:6⦄, posted by U⦃up:10⦄"),
    ("api_object_id", "Discord guild ⦃dig:19⦄, channel ⦃dig:19⦄, message ⦃dig:19⦄"),
    ("api_object_id", "PayPal order ⦃UP:17⦄ captured, capture id ⦃UP:17⦄, payer ⦃UP:13⦄"),
    ("api_object_id", '{"data":{"order":{"id":"gid://shopify/Order/⦃dig:13⦄","name":"#⦃int:1000-9999⦄","lineItems":{"edges":[]}}}}'),
    ("api_object_id", '{"id": "chatcmpl-⦃b62:29⦄", "object": "chat.completion", "created": ⦃epoch⦄, "model": "gpt-4o-2024-08-06", '
     '"system_fingerprint": "fp_⦃hex:10⦄"}'),
    ("api_object_id", "anthropic request-id: req_⦃b62:24⦄, message id msg_01⦃b62:22⦄, stop_reason=end_turn"),
    ("api_object_id", "GitHub App installation ⦃int:10000000-99999999⦄ for org acme, node id MDEyOkluc3RhbGxhdGlvbj⦃b62:12⦄"),
    ("api_object_id", "Telegram update ⦃int:100000000-999999999⦄: chat_id=-100⦃dig:10⦄ message_id=⦃int:1-99999⦄ from=⦃int:10000000-9999999999⦄"),
    # ---- signatures over artifacts
    ("artifact_signature", """    annotations:
      dev.cosignproject.cosign/signature: MEUCIQ⦃rb64:32⦄AiA⦃rb64:32⦄
      dev.sigstore.cosign/bundle: '{"SignedEntryTimestamp":"⦃rb64:70⦄","Payload":{"logIndex":⦃int:10000000-99999999⦄}}'"""),
    ("artifact_signature", """tree ⦃hex:40⦄
parent ⦃hex:40⦄
author Ana G <ana@acme.io> ⦃epoch⦄ +0200
committer Ana G <ana@acme.io> ⦃epoch⦄ +0200
gpgsig -----BEGIN PGP SIGNATURE-----
\x20
 ⦃b64lines:119:64⦄
 =⦃b64:4⦄
 -----END PGP SIGNATURE-----

release: v⦃ver⦄"""),
    ("artifact_signature", "untrusted comment: signature from minisign secret key\nRU⦃b64:98⦄\n"
     "trusted comment: timestamp:⦃epoch⦄\tfile:acme-⦃ver⦄.tar.gz\n⦃rb64:64⦄"),
    ("artifact_signature", '<enclosure url="https://acme.io/downloads/Acme-⦃ver⦄.zip" sparkle:version="⦃int:100-9999⦄" '
     'sparkle:edSignature="⦃rb64:64⦄" length="⦃int:1000000-99999999⦄" type="application/octet-stream"/>'),
    ("artifact_signature", "Name: com/acme/core/Client.class\nSHA-256-Digest: ⦃rb64:32⦄\n\nName: com/acme/core/Config.class\nSHA-256-Digest: ⦃rb64:32⦄"),
    ("artifact_signature", "-----BEGIN SSH SIGNATURE-----\n⦃b64lines:220:70⦄\n-----END SSH SIGNATURE-----"),
    ("artifact_signature", '{"mediaType":"application/vnd.dev.sigstore.bundle.v0.3+json","messageSignature":{"messageDigest":'
     '{"algorithm":"SHA2_256","digest":"⦃rb64:32⦄"},"signature":"MEQCI⦃rb64:64⦄"}}'),
    ("artifact_signature", "APK signature scheme v2 verified: digest SHA-256 ⦃hex:64⦄, signer cert SHA-256 ⦃hex:64⦄"),
    # ---- CI definitions without credentials
    ("ci_config_safe", """permissions:
  id-token: write
  contents: read
jobs:
  deploy:
    runs-on: ubuntu-24.04
    steps:
      - uses: actions/checkout@⦃hex:40⦄
      - uses: google-github-actions/auth@⦃hex:40⦄
        with:
          workload_identity_provider: projects/⦃dig:12⦄/locations/global/workloadIdentityPools/gh/providers/github
          service_account: deployer@acme-prod.iam.gserviceaccount.com"""),
    ("ci_config_safe", """build:
  image: docker:27
  services: [docker:27-dind]
  script:
    - echo "$CI_REGISTRY_PASSWORD" | docker login -u "$CI_REGISTRY_USER" --password-stdin "$CI_REGISTRY"
    - docker build -t "$CI_REGISTRY_IMAGE:$CI_COMMIT_SHA" .
  # cache key ⦃hex:16⦄"""),
    ("ci_config_safe", """workflows:
  deploy:
    jobs:
      - aws-ecr/build_and_push_image:
          context: aws-prod
          repo: api-⦃low:5⦄
          tag: "${CIRCLE_SHA1}"
# orb aws-ecr@⦃ver⦄"""),
    ("ci_config_safe", """variables:
- group: prod-secrets
steps:
- script: ./migrate.sh
  env:
    DB_PASSWORD: $(DbPassword)
  workingDirectory: db/⦃low:6⦄
  displayName: Run migrations (pool ⦃int:1-99⦄)"""),
    ("ci_config_safe", """steps:
  - label: ":docker: build"
    plugins:
      - docker-compose#v5.2.0:
          build: app
          image-repository: 123.dkr.ecr.eu-west-1.amazonaws.com/app
  - wait
  - label: ":rocket: deploy"
    command: scripts/deploy.sh ⦃hex:12⦄"""),
    ("ci_config_safe", """pipelines:
  branches:
    main:
      - step:
          name: Publish
          script:
            - pipe: atlassian/aws-s3-deploy:1.6.0
              variables:
                AWS_OIDC_ROLE_ARN: arn:aws:iam::⦃dig:12⦄:role/bb-deploy
                S3_BUCKET: acme-static-⦃low:5⦄
                LOCAL_PATH: dist"""),
    ("ci_config_safe", """stage('Deploy') {
  environment {
    KUBECONFIG = credentials('kubeconfig-prod')
  }
  steps {
    sh 'helm upgrade --install api ./chart --set image.tag=${GIT_COMMIT}'
  }
} // build ⦃int:100000-9999999⦄"""),
    # ---- Kubernetes manifests without secrets
    ("k8s_manifest_safe", """spec:
  template:
    metadata:
      annotations:
        checksum/config: ⦃hex:64⦄
        checksum/secret: ⦃hex:64⦄
    spec:
      serviceAccountName: api"""),
    ("k8s_manifest_safe", """apiVersion: v1
kind: ServiceAccount
metadata:
  name: s3-reader
  annotations:
    eks.amazonaws.com/role-arn: arn:aws:iam::⦃dig:12⦄:role/s3-reader-⦃low:6⦄"""),
    ("k8s_manifest_safe", """apiVersion: v1
kind: ConfigMap
metadata:
  name: api-config
data:
  LOG_LEVEL: info
  FEATURE_FLAGS: "search_v2,new_checkout"
  CACHE_NAMESPACE: "⦃hex:12⦄"
  DB_HOST: pg.payments.svc.cluster.local"""),
    ("k8s_manifest_safe", """apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: web
  annotations:
    cert-manager.io/cluster-issuer: letsencrypt-prod
spec:
  tls:
    - hosts: [shop-⦃low:5⦄.acme.io]
      secretName: web-tls"""),
    ("k8s_manifest_safe", """apiVersion: v1
kind: Secret
metadata:
  name: build-robot-token
  annotations:
    kubernetes.io/service-account.name: build-robot
type: kubernetes.io/service-account-token
# token is filled in by the control plane; uid ⦃uuid⦄"""),
    ("k8s_manifest_safe", """$ kubectl get pods -n jobs
NAME                              READY   STATUS      RESTARTS   AGE
export-⦃low:10⦄-⦃low:5⦄      0/1     Completed   0          ⦃int:2-59⦄m
api-⦃low:10⦄-⦃low:5⦄         1/1     Running     0          3d"""),
    # ---- log lines
    ("log_line", "⦃ip⦄ - - [03/Jun/2025:10:12:44 +0000] \"GET /assets/app.⦃hex:8⦄.js HTTP/2.0\" 200 ⦃int:1000-900000⦄ \"-\" "
     "\"Mozilla/5.0\" rt=0.004 rid=⦃hex:32⦄"),
    ("log_line", """Exception in thread "pool-3-thread-⦃int:1-64⦄" java.lang.IllegalStateException: Connection pool shut down
	at org.apache.http.util.Asserts.check(Asserts.java:34)
	at com.acme.orders.SyncJob@⦃hex:8⦄.run(SyncJob.java:⦃int:20-400⦄)
	at java.base/java.util.concurrent.ThreadPoolExecutor.runWorker(ThreadPoolExecutor.java:1144)"""),
    ("log_line", """Traceback (most recent call last):
  File "/srv/app/settings.py", line ⦃int:10-300⦄, in <module>
    STRIPE_SECRET_KEY = os.environ["STRIPE_SECRET_KEY"]
  File "<frozen os>", line 714, in __getitem__
KeyError: 'STRIPE_SECRET_KEY'
[⦃ts⦄] [ERROR] Worker (pid:⦃int:1000-99999⦄) exited with code 3"""),
    ("log_line", "-- Boot ⦃hex:32⦄ --\nJun 03 10:12:44 web-⦃int:1-9⦄ systemd[1]: Started api.service - Acme API.\n"
     "Jun 03 10:12:45 web-⦃int:1-9⦄ api[⦃int:1000-99999⦄]: listening on :8080"),
    ("log_line", "Jun  3 10:12:44 bastion sshd[⦃int:1000-99999⦄]: Accepted publickey for deploy from ⦃ip⦄ port ⦃int:1024-65535⦄ "
     "ssh2: ED25519 SHA256:⦃rb64n:32⦄"),
    ("log_line", "Jun  3 03:14:07 bastion sshd[⦃int:1000-99999⦄]: Failed password for invalid user admin from ⦃ip⦄ port ⦃int:1024-65535⦄ ssh2"),
    ("log_line", "version https://git-lfs.github.com/spec/v1\noid sha256:⦃hex:64⦄\nsize ⦃int:10000-900000000⦄"),
    ("log_line", '{"time":"⦃ts⦄","type":"response","auth":{"client_token":"hmac-sha256:⦃hex:64⦄","accessor":"hmac-sha256:⦃hex:64⦄",'
     '"display_name":"approle"},"request":{"path":"secret/data/payments/stripe","operation":"read"}}'),
    ("log_line", "aws_instance.web[0]: Creation complete after 42s [id=i-⦃hex:17⦄]\nApply complete! Resources: ⦃int:1-40⦄ added, 0 changed, 0 destroyed."),
    ("log_line", "⦃ts⦄ WARN cache miss key=product:⦃uuid⦄:v⦃int:1-9⦄ hash=⦃hex:16⦄ fallback=db"),
    # ---- HTTP exchanges without credentials
    ("http_exchange", """HTTP/1.1 200 OK
x-amz-id-2: ⦃rb64:56⦄
x-amz-request-id: ⦃UP:16⦄
ETag: "⦃hex:32⦄"
x-amz-version-id: ⦃b64u:32⦄
Content-Length: ⦃int:100-999999⦄"""),
    ("http_exchange", """GET /api/catalog HTTP/1.1
Host: api.acme.io
If-None-Match: W/"⦃hex:40⦄"

HTTP/1.1 304 Not Modified
ETag: W/"⦃hex:40⦄"
Cache-Control: max-age=60"""),
    ("http_exchange", "Repr-Digest: sha-256=:⦃rb64:32⦄:\nContent-MD5: ⦃rb64:16⦄\nContent-Type: application/json"),
    ("http_exchange", """HTTP/1.1 401 Unauthorized
WWW-Authenticate: Bearer realm="api", error="invalid_token", error_description="The access token expired"
X-Request-Id: ⦃uuid⦄"""),
    ("http_exchange", """<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">
  <Name>acme-exports</Name>
  <Contents><Key>daily/⦃date⦄.csv.gz</Key><ETag>"⦃hex:32⦄"</ETag><Size>⦃int:1000-9999999⦄</Size></Contents>
  <Contents><Key>daily/⦃date⦄.csv.gz</Key><ETag>"⦃hex:32⦄-4"</ETag><Size>⦃int:1000-9999999⦄</Size></Contents>
</ListBucketResult>"""),
    ("http_exchange", '{"error":"invalid_client","error_description":"Client authentication failed","trace_id":"⦃hex:32⦄"}'),
    ("http_exchange", "x-ratelimit-limit: 5000\nx-ratelimit-remaining: ⦃int:0-4999⦄\nx-ratelimit-reset: ⦃epoch⦄\nx-github-request-id: ⦃HEX:4⦄:⦃HEX:5⦄:⦃HEX:7⦄:⦃HEX:7⦄:⦃HEX:8⦄"),
    ("http_exchange", "<link rel=\"stylesheet\" href=\"/static/main.css?v=⦃hex:10⦄\">\n<script src=\"/static/app.js?v=⦃hex:10⦄\" defer></script>"),
]


# -------------------------------------------------------------------------- generator

# The seventh set's filler (imported above) draws every shape it knows; these few are added.
_PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
_WOFF2_HEAD = b"wOF2\x00\x01\x00\x00"
_GZIP_HEAD = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
# Words for passphrases (English and Spanish, none a known default).
_PASS_WORDS = ("lighthouse ombligo paraguas cobalt trombone almendra glacier cactus vinagre nebula "
               "pelican tornillo saffron quiver marmalade relampago falcon escalera juniper cometa").split()
# Stems for passwords a person might pick in Spanish-speaking teams.
_MEMORABLE = ("Ornitorrinco Alcachofa Berenjena Murcielago Calabaza Girasol Pimiento Golondrina "
              "Mariposa Zanahoria Tiburon Chirimoya").split()


def _passphrase(rng: random.Random, words: int) -> str:
    sep = rng.choice("-._")
    return sep.join(rng.choice(_PASS_WORDS) for _ in range(words)) + sep + str(rng.randint(10, 9999))


def _memorable(rng: random.Random) -> str:
    return (rng.choice(_MEMORABLE) + rng.choice(["", "_", ".", "#"]) + str(rng.randint(1960, 2031))
            + rng.choice(["!", "$", "*", "?"]) + _chars(rng, string.ascii_lowercase, 2))


def _timestamp(rng: random.Random) -> datetime.datetime:
    seconds = rng.randint(1_700_000_000, 1_760_000_000)
    return datetime.datetime.fromtimestamp(seconds, tz=datetime.timezone.utc)


def _extra(rng: random.Random, name: str, arg: str) -> str | None:
    """Shapes this set adds; None for a shape left to the seventh set's filler."""
    if name == "ip":
        return ".".join(str(rng.randint(1, 254)) for _ in range(4))
    if name == "ts":
        return _timestamp(rng).strftime("%Y-%m-%dT%H:%M:%S.") + f"{rng.randrange(1000):03d}Z"
    if name == "date":
        return _timestamp(rng).strftime("%Y-%m-%d")
    if name == "ver":
        return f"{rng.randint(0, 9)}.{rng.randint(0, 40)}.{rng.randint(0, 60)}"
    if name == "png":
        return _b64(_PNG_HEAD + _noise(rng, int(arg or 96)))
    if name == "woff":
        return _b64(_WOFF2_HEAD + _noise(rng, int(arg or 200)))
    if name == "gz":
        return _b64(_GZIP_HEAD + _noise(rng, int(arg or 64)))
    if name == "cid":
        return "bafybei" + _chars(rng, _ALPHABETS["b32l"], 52)
    if name == "pp":
        return _passphrase(rng, int(arg or 4))
    if name == "pwm":
        return _memorable(rng)
    return None


def eighth_cases(seed: int = 47) -> tuple[list[FreshCase], list[FreshCase]]:
    """The eighth split drawn from ``seed``: (secrets, ordinary); each ordinary template is
    drawn twice, independently."""
    return drawn_cases("eighth", seed, SECRETS, ORDINARY, _extra)
