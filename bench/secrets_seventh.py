"""A seventh held-out secrets set, split ``"seventh"``: written blind, to be measured once.

What it is. Texts like the ones a coding agent's memory is handed in real use: notes kept
after a debugging session, shell history and one-liners, CI definitions (GitHub Actions,
GitLab CI, CircleCI, Jenkinsfile, Buildkite), Dockerfiles and compose files, Kubernetes
manifests and Helm values, Terraform, Pulumi and Ansible, application settings in many
formats and languages (.env, YAML, TOML, INI, JSON, XML, Java properties, PHP, Ruby, Java,
Go, Rust, C#, Elixir), log lines and stack traces, HTTP exchanges, curl and httpie calls,
database URLs and command lines, chat messages pasted by a user, commit messages, READMEs,
issue comments, and prose in English and Spanish. The texts are split into ones that hold
a secret and ordinary ones that only look dangerous.

How it was written. Blind, from general knowledge of the formats vendors publish for their
credentials, before any measurement and without looking at the detector. Exactly these
were read, and nothing else of the secrets work:

* ``bench/secrets_fresh.py``: its first twelve lines (the start of its docstring), a
  ``grep -n`` of its ``def``/``class`` lines (names only), lines 45-70 (two word lists, the
  ``FreshCase`` dataclass, and, by overlap, its first five secret templates, all AWS
  formats) and the ``marked`` helper.
* ``bench/secrets_sixth.py``: its module docstring (the first 85 lines, through the
  imports) and its helper functions from line 1150 to the end (``_chars`` ... ``render``,
  ``sixth_cases``), to keep the same case format and way of filling shapes. None of its
  templates were read; the generator below is written anew.
* The first five lines of ``bench/__init__.py``.

Not read: the detector (``src/ihmt/secrets/``), its tests, ``RELIABILITY.md``,
``BENCHMARKS.md``, and the templates of every earlier set (``secrets_corpus``,
``secrets_fresh``, ``secrets_third``, ``secrets_fourth``, ``secrets_fifth``,
``secrets_sixth``). The detector was never run on this set while it was written. It is
meant to be measured once and then frozen: if a rule change needs one of these texts
changed, that rule was fitted to the set.

No real credential is in this file. A template names *shapes* (``⦃hex:32⦄``,
``⦃b62:36⦄``, ``⦃pw⦄``, ``⦃jwt:rs⦄``, ``⦃pem:rsa⦄`` ...) that a generator seeded with
``seed`` fills at run time; only public format prefixes (``ghp_``, ``glpat-``, ``xoxb-``,
``sk_live_``, ``AKIA``, ...) are written literally. What is drawn is random noise, so
checksummed formats fail their checksums. A shape may hold inner shapes written
``⟨name:arg⟩`` (filled first). In a secret template the part a detector must mask sits
between ``«`` and ``»``; ``marked`` strips the marks and records the spans, and a secret
case counts as caught only when every span is covered. Ordinary templates have no marks
and each is rendered twice, with independent draws.

Policy (the same as the sixth set's, restated; differences are listed at the end):

* Secret: any value that on its own lets someone in, signs, or decrypts. That covers
  passwords and passphrases, API keys and access/refresh tokens, private keys in any
  wrapping (PEM, encrypted PEM, escaped onto one JSON line, base64 of a whole PEM as in
  kubeconfig or a Kubernetes Secret, PuTTY files, JWK ``d`` members), session cookies,
  app signing/encryption secrets (Django, Rails, Laravel, Flask, JWT HMAC secrets, Fernet
  keys), URLs whose path or query is itself the capability (chat webhooks, presigned
  object-store URLs, reset and magic links, API keys passed as query parameters), TOTP
  seeds, recovery codes, wallet seed phrases and wallet private keys.
* The value decides, not the label: test-mode keys, ``django-insecure-`` keys and
  tokens said to be revoked or expired still count when their value is present.
* AWS access key ids (``AKIA``/``ASIA``) count as secrets. Identifiers that merely sit
  next to a secret (account SIDs, key ids used as user names, OAuth client ids, a GCP
  ``private_key_id``, the numeric id of a webhook) are left unmarked.
* Google ``AIza`` keys count as secrets everywhere, so none appears in an ordinary text.
* Well-known weak defaults and placeholders (``changeme``, ``password``, ``admin``,
  ``<your-token>``, ``xxxx``, ``****``, ``[REDACTED]``, ``${VAR}``) are not secrets; they
  appear only in ordinary texts, and no secret template uses one.
* Keys a provider documents as public are ordinary (Stripe and Clerk publishable keys,
  Mapbox ``pk.``, Sentry DSNs, the Supabase anon key, Algolia search-only keys,
  reCAPTCHA site keys, PostHog project keys, analytics ids, OAuth client ids); their
  private counterparts are secrets.
* Ciphertext meant to be committed is ordinary (sops ``ENC[...]``, ``$ANSIBLE_VAULT``,
  SealedSecret ``encryptedData``).
* Per-message signatures and nonces are ordinary (webhook signature headers, CSP nonces,
  ``Sec-WebSocket-Key``, PKCE challenges, OAuth ``state``); the signature of a presigned
  URL is a secret, since it is what makes the URL work.
* Resource ids inside URLs (documents, dashboards, payment objects) are ordinary, as are
  analytics and preference cookies; password hashes appear on neither side.
* Marks are minimal: only the value (the password inside a URL, the body of a PEM block
  between its BEGIN and END lines, the credential segment of a webhook URL), the whole
  token for JWTs and prefixed tokens, and each recovery code by itself.

Differences from the sixth set: none in policy, only in emphasis and in two points the
sixth set's notes did not name. Public blockchain data (addresses, transaction and block
hashes, some of them shaped exactly like a wallet private key) and public key material in
many wrappings are put on the ordinary side on purpose. CSRF tokens and captcha responses
are treated like the per-message values above (ordinary), and a Segment write key used in
a browser snippet like the other documented-public keys (ordinary). Ordinary templates
without any shape render to the same text on both draws.

``seventh_cases(seed)`` returns ``(secrets, ordinary)``: two lists of :class:`FreshCase`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable

from bench.secrets_fresh import FreshCase, marked

SPLIT = "seventh"

# ----------------------------------------------------------------------------- secrets
# (kind, template). A kind names one credential format or one way of writing a secret.

SECRETS: list[tuple[str, str]] = [
    # --- AWS and other clouds
    ("aws_access_key_id", "# ~/.aws/credentials (laptop, profile billing)\n[billing]\n"
                          "aws_access_key_id = «AKIA⦃up:16⦄»\naws_secret_access_key = «⦃b64:40⦄»\n"),
    ("aws_access_key_id", "ci failed again, used key «AKIA⦃up:16⦄» from the old deploy user — rotate it"),
    ("aws_secret_access_key", "  env:\n    AWS_ACCESS_KEY_ID: «AKIA⦃up:16⦄»\n"
                              "    AWS_SECRET_ACCESS_KEY: \"«⦃b64:40⦄»\"\n    AWS_REGION: eu-central-1"),
    ("aws_secret_access_key", "$ aws configure set aws_secret_access_key «⦃b64:40⦄» --profile staging"),
    ("aws_sts_temporary", "export AWS_ACCESS_KEY_ID=«ASIA⦃up:16⦄»\nexport AWS_SECRET_ACCESS_KEY=«⦃b64:40⦄»\n"
                          "export AWS_SESSION_TOKEN=«IQoJb3JpZ2luX2VjE⦃b64:380⦄»"),
    ("aws_sts_temporary", '{"Credentials": {"AccessKeyId": "«ASIA⦃up:16⦄»", "SecretAccessKey": '
                          '"«⦃b64:40⦄»", "SessionToken": "«FwoGZXIvYXdzE⦃b64:300⦄»", '
                          '"Expiration": "2025-03-02T11:04:19Z"}}'),
    ("gcp_service_account_key", '{\n  "type": "service_account",\n  "project_id": "acme-data-prod",\n'
                                '  "private_key_id": "⦃hex:40⦄",\n  "private_key": "-----BEGIN PRIVATE KEY-----\\n'
                                '«⦃pemesc:pkcs8⦄»\\n-----END PRIVATE KEY-----\\n",\n'
                                '  "client_email": "loader@acme-data-prod.iam.gserviceaccount.com"\n}'),
    ("google_api_key", "const mapsKey = '«AIza⦃b64u:35⦄»'; // restricted to *.acme.io referrers"),
    ("google_api_key", "curl 'https://generativelanguage.googleapis.com/v1beta/models?key=«AIza⦃b64u:35⦄»'"),
    ("google_oauth_client_secret", "GOOGLE_CLIENT_ID=⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com\n"
                                   "GOOGLE_CLIENT_SECRET=«GOCSPX-⦃b64u:28⦄»"),
    ("google_oauth_refresh_token", "token.json after the consent screen:\n"
                                   '{"refresh_token": "«1//0⦃b64u:100⦄»", "scope": "https://www.googleapis.com/auth/drive"}'),
    ("google_oauth_access_token", "Authorization: Bearer «ya29.a0⦃b64u:150⦄»"),
    ("azure_storage_key", "DefaultEndpointsProtocol=https;AccountName=acmelogs;AccountKey=«⦃rb64:64⦄»;"
                          "EndpointSuffix=core.windows.net"),
    ("azure_sas_url", "upload target: https://acmebackups.blob.core.windows.net/db/dump.gz?sv=2022-11-02&ss=b"
                      "&srt=o&sp=rwc&se=2025-06-01T00:00:00Z&spr=https&sig=«⦃rb64pct:32⦄»"),
    ("azure_client_secret", "az login --service-principal -u ⦃uuid⦄ -p «⦃b62:3⦄8Q~⦃azs:34⦄» --tenant ⦃uuid⦄"),
    ("azure_client_secret", '"AzureAd": {\n  "TenantId": "⦃uuid⦄",\n  "ClientId": "⦃uuid⦄",\n'
                            '  "ClientSecret": "«⦃b62:3⦄8Q~⦃azs:34⦄»"\n}'),
    ("azure_devops_pat", "git clone https://pat:«⦃b32l:52⦄»@dev.azure.com/acme/Platform/_git/infra"),
    ("azure_service_bus", "Endpoint=sb://acme-events.servicebus.windows.net/;SharedAccessKeyName=RootManageSharedAccessKey;"
                          "SharedAccessKey=«⦃rb64:32⦄»"),
    ("azure_cosmos_key", "cosmos:\n  endpoint: https://acme-cosmos.documents.azure.com:443/\n  key: «⦃rb64:64⦄»"),
    ("alibaba_access_key", "ALIBABA_CLOUD_ACCESS_KEY_ID=«LTAI⦃b62:20⦄»\nALIBABA_CLOUD_ACCESS_KEY_SECRET=«⦃b62:30⦄»"),
    ("tencent_secret", "tccli configure set secretId «AKID⦃b62:32⦄» secretKey «⦃b62:32⦄»"),
    ("scaleway_secret", "[profiles.prod]\naccess_key = \"«SCW⦃up:17⦄»\"\nsecret_key = \"«⦃uuid⦄»\""),
    ("ibm_cloud_api_key", "ibmcloud login --apikey «⦃b64u:44⦄» -r us-south"),
    ("oracle_oci_key", "[DEFAULT]\nuser=ocid1.user.oc1..⦃lower:60⦄\nfingerprint=⦃hexcolon:16⦄\n"
                       "key_file=~/.oci/oci_api_key.pem\ntenancy=ocid1.tenancy.oc1..⦃lower:60⦄\n\n"
                       "# contents of the key file, pasted so I don't lose it:\n-----BEGIN RSA PRIVATE KEY-----\n"
                       "«⦃pem:rsa⦄»\n-----END RSA PRIVATE KEY-----"),
    ("digitalocean_token", "doctl auth init --access-token «dop_v1_⦃hex:64⦄»"),
    ("digitalocean_oauth", "DO_OAUTH=«doo_v1_⦃hex:64⦄»  # from the marketplace app flow"),
    ("hetzner_token", "provider \"hcloud\" {\n  token = \"«⦃b62:64⦄»\"\n}"),
    ("linode_token", "export LINODE_TOKEN=«⦃hex:64⦄»"),
    ("vultr_api_key", "vultr-cli instance list  # with VULTR_API_KEY=«⦃up:36⦄»"),
    ("cloudflare_api_token", "CLOUDFLARE_API_TOKEN=«⦃b64u:40⦄» wrangler deploy"),
    ("cloudflare_global_key", "curl -H 'X-Auth-Email: ops@acme.io' -H 'X-Auth-Key: «⦃hex:37⦄»' "
                              "https://api.cloudflare.com/client/v4/zones"),
    ("cloudflare_origin_ca_key", "origin_ca_key = \"«v1.0-⦃hex:24⦄-⦃hex:146⦄»\""),
    ("heroku_api_key", "heroku authorizations:create printed Token: «HRKU-⦃b64u:60⦄»"),
    ("heroku_api_key", "HEROKU_API_KEY=«⦃uuid⦄» git push heroku main"),
    ("fly_token", "fly tokens create deploy -> «FlyV1 fm2_⦃b64:220⦄»"),
    ("vercel_token", "- run: vercel deploy --prod --token=«⦃b62:24⦄»"),
    ("netlify_token", "NETLIFY_AUTH_TOKEN=«nfp_⦃b62:36⦄»"),
    ("render_api_key", "curl -H 'Authorization: Bearer «rnd_⦃b62:32⦄»' https://api.render.com/v1/services"),
    ("railway_token", "RAILWAY_TOKEN=«⦃uuid⦄» railway up --service api"),
    # --- code hosting and CI
    ("github_pat_classic", "git remote set-url origin https://«ghp_⦃b62:36⦄»@github.com/acme/api.git"),
    ("github_pat_classic", "Para el bot usé el token «ghp_⦃b62:36⦄», caduca en 90 días."),
    ("github_pat_fine_grained", "GH_TOKEN=«github_pat_⦃b62:22⦄_⦃b62:59⦄» gh pr list --repo acme/web"),
    ("github_oauth_token", "~/.config/gh/hosts.yml\ngithub.com:\n    user: jdoe\n    oauth_token: «gho_⦃b62:36⦄»\n"
                           "    git_protocol: ssh"),
    ("github_app_token", "[debug] installation token «ghs_⦃b62:36⦄» expires_at=2025-01-09T10:22:01Z"),
    ("github_refresh_token", "refresh_token=«ghr_⦃b62:76⦄»&grant_type=refresh_token"),
    ("github_user_to_server", "access_token: «ghu_⦃b62:36⦄»"),
    ("gitlab_pat", "curl --header \"PRIVATE-TOKEN: «glpat-⦃b64u:20⦄»\" https://gitlab.acme.io/api/v4/projects"),
    ("gitlab_pat", "[credential]\n\thelper = store\n# ~/.git-credentials\nhttps://oauth2:«glpat-⦃b64u:20⦄»@gitlab.com"),
    ("gitlab_runner_token", "gitlab-runner register --url https://gitlab.com --token «glrt-⦃b64u:20⦄» --executor docker"),
    ("gitlab_deploy_token", "docker login registry.gitlab.com -u gitlab+deploy-token-⦃int:100-9999⦄ -p «gldt-⦃b64u:20⦄»"),
    ("gitlab_trigger_token", "curl -X POST -F token=«glptt-⦃hex:40⦄» -F ref=main "
                             "https://gitlab.com/api/v4/projects/⦃int:1000-99999⦄/trigger/pipeline"),
    ("gitlab_oauth_secret", "gitlab_rails['omniauth_providers'] = [{ name: 'openid_connect', args: "
                            "{ client_options: { identifier: '⦃hex:64⦄', secret: '«gloas-⦃hex:64⦄»' } } }]"),
    ("bitbucket_app_password", "BITBUCKET_APP_PASSWORD=«ATBB⦃b62:32⦄⦃HEX:8⦄»"),
    ("circleci_token", "curl -H 'Circle-Token: «CCIPAT_⦃b62:22⦄_⦃hex:40⦄»' https://circleci.com/api/v2/me"),
    ("buildkite_token", "steps:\n  - label: release\n    command: bk build create --token «bkua_⦃hex:40⦄»"),
    ("jenkins_api_token", "curl -u deploy:«11⦃hex:32⦄» https://jenkins.acme.io/job/api/build?delay=0sec"),
    ("sonarqube_token", "mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.io -Dsonar.token=«squ_⦃hex:40⦄»"),
    ("sonarqube_token", "SONAR_TOKEN=«sqp_⦃hex:40⦄»"),
    ("sourcegraph_token", "export SRC_ACCESS_TOKEN=«sgp_⦃hex:16⦄_⦃hex:40⦄»"),
    ("snyk_token", "snyk auth «⦃uuid⦄»  # my personal one, swap for the org service account"),
    ("codecov_token", "- uses: codecov/codecov-action@v4\n  with:\n    token: «⦃uuid⦄»  # TODO move to secrets"),
    ("travis_token", "travis encrypt --pro --token «⦃b62:22⦄» SOMEVAR=1"),
    ("drone_token", "export DRONE_SERVER=https://drone.acme.io\nexport DRONE_TOKEN=«⦃b62:32⦄»"),
    # --- chat, webhooks, notifications
    ("slack_bot_token", "SLACK_BOT_TOKEN=«xoxb-⦃dig:12⦄-⦃dig:13⦄-⦃b62:24⦄»"),
    ("slack_bot_token", "slack_sdk.WebClient(token=\"«xoxb-⦃dig:11⦄-⦃dig:13⦄-⦃b62:24⦄»\").chat_postMessage(channel=\"#deploys\", text=msg)"),
    ("slack_user_token", "the legacy user token «xoxp-⦃dig:12⦄-⦃dig:12⦄-⦃dig:13⦄-⦃hex:32⦄» still works for search"),
    ("slack_app_token", "SLACK_APP_TOKEN=«xapp-1-A⦃up:10⦄-⦃dig:13⦄-⦃hex:64⦄»  # socket mode"),
    ("slack_webhook", "alertmanager:\n  receivers:\n  - name: oncall\n    slack_configs:\n"
                      "    - api_url: https://hooks.slack.com/services/T⦃up:9⦄/B⦃up:10⦄/«⦃b62:24⦄»"),
    ("slack_webhook", "curl -X POST -d '{\"text\":\"deploy ok\"}' https://hooks.slack.com/services/T⦃up:8⦄/B⦃up:11⦄/«⦃b62:24⦄»"),
    ("discord_bot_token", "client.run('«⦃b64uof:⟨dig:18⟩⦄.⦃b64u:6⦄.⦃b64u:38⦄»')"),
    ("discord_webhook", "DISCORD_WEBHOOK=https://discord.com/api/webhooks/⦃dig:19⦄/«⦃b64u:68⦄»"),
    ("telegram_bot_token", "bot = telebot.TeleBot(\"«⦃int:100000000-7999999999⦄:AA⦃b64u:33⦄»\")"),
    ("telegram_bot_token", "curl https://api.telegram.org/bot«⦃int:100000000-7999999999⦄:AA⦃b64u:33⦄»/getUpdates"),
    ("teams_webhook", "teams_url: https://acme.webhook.office.com/webhookb2/⦃uuid⦄@⦃uuid⦄/IncomingWebhook/"
                      "«⦃hex:32⦄/⦃uuid⦄»"),
    ("mattermost_webhook", "POST https://chat.acme.io/hooks/«⦃low:26⦄» {\"text\": \"nightly build red\"}"),
    ("google_chat_webhook", "https://chat.googleapis.com/v1/spaces/AAAA⦃b64u:7⦄/messages?key=«AIza⦃b64u:35⦄»"
                            "&token=«⦃b64u:43⦄»"),
    ("zapier_webhook", "Zap trigger: https://hooks.zapier.com/hooks/catch/⦃dig:7⦄/«⦃low:6⦄»/"),
    ("ifttt_webhook", "https://maker.ifttt.com/trigger/door_open/with/key/«⦃b64u:22⦄»"),
    ("pagerduty_key", "PAGERDUTY_API_KEY=«u+⦃b64u:18⦄»"),
    ("pagerduty_routing_key", "routing_key: «⦃hex:32⦄»  # events v2 integration for payments-api"),
    ("opsgenie_key", "opsgenie_configs:\n  - api_key: «⦃uuid⦄»\n    responders: [{name: sre, type: team}]"),
    ("pushover_token", "PUSHOVER_APP_TOKEN=«a⦃low:29⦄»\nPUSHOVER_USER=u⦃low:29⦄"),
    # --- payments and commerce
    ("stripe_secret_key", "STRIPE_SECRET_KEY=«sk_live_51⦃b62:96⦄»"),
    ("stripe_secret_key", "Stripe::api_key = '«sk_live_⦃b62:24⦄»'"),
    ("stripe_test_key", "stripe.api_key = \"«sk_test_51⦃b62:96⦄»\"  # test mode, fine for local"),
    ("stripe_restricted_key", "reports job uses «rk_live_51⦃b62:96⦄» (read-only restricted key)"),
    ("stripe_webhook_secret", "stripe listen --forward-to localhost:4242/webhook\n"
                              "> Ready! Your webhook signing secret is «whsec_⦃b62:32⦄» (^C to quit)"),
    ("square_access_token", "SQUARE_ACCESS_TOKEN=«EAAA⦃b64u:60⦄»"),
    ("square_app_secret", "square:\n  application_id: sq0idp-⦃b64u:22⦄\n  application_secret: «sq0csp-⦃b64u:43⦄»"),
    ("braintree_token", "BRAINTREE_ACCESS_TOKEN=«access_token$production$⦃low:16⦄$⦃hex:32⦄»"),
    ("paypal_client_secret", "PAYPAL_CLIENT_ID=A⦃b64u:79⦄\nPAYPAL_CLIENT_SECRET=«E⦃b64u:79⦄»"),
    ("shopify_admin_token", "X-Shopify-Access-Token: «shpat_⦃hex:32⦄»"),
    ("shopify_shared_secret", "SHOPIFY_API_SECRET=«shpss_⦃hex:32⦄»"),
    ("shopify_custom_app", "custom app token for the acme-dev store: «shpca_⦃hex:32⦄»"),
    ("plaid_secret", "PLAID_CLIENT_ID=⦃hex:24⦄\nPLAID_SECRET=«⦃hex:30⦄»\nPLAID_ENV=production"),
    ("plaid_access_token", "item linked, access_token=«access-production-⦃uuid⦄» item_id=⦃b62:37⦄"),
    ("coinbase_api_secret", "coinbase:\n  api_key: ⦃b62:16⦄\n  api_secret: «⦃b62:32⦄»"),
    ("binance_secret", "BINANCE_API_KEY=⦃b62:64⦄\nBINANCE_SECRET_KEY=«⦃b62:64⦄»"),
    ("shippo_token", "shippo.config.api_key = \"«shippo_live_⦃hex:40⦄»\""),
    ("easypost_key", "EasyPost::Client.new(api_key: '«EZAK⦃b62:54⦄»')"),
    ("lemonsqueezy_key", "LEMONSQUEEZY_API_KEY=«⦃jwt:rs⦄»"),
    # --- AI / ML providers
    ("openai_key", "OPENAI_API_KEY=«sk-proj-⦃b64u:156⦄»"),
    ("openai_key", "client = OpenAI(api_key=\"«sk-⦃b62:20⦄T3BlbkFJ⦃b62:20⦄»\")"),
    ("openai_admin_key", "curl https://api.openai.com/v1/organization/users -H \"Authorization: Bearer «sk-admin-⦃b64u:120⦄»\""),
    ("anthropic_key", "ANTHROPIC_API_KEY=«sk-ant-api03-⦃b64u:93⦄AA»"),
    ("anthropic_key", "ayer pegué mi clave en el chat sin querer: «sk-ant-api03-⦃b64u:93⦄AA» — ya la roté"),
    ("anthropic_admin_key", "x-api-key: «sk-ant-admin01-⦃b64u:93⦄AA»"),
    ("huggingface_token", "huggingface-cli login --token «hf_⦃alpha:34⦄»"),
    ("huggingface_token", "HF_TOKEN=«hf_⦃alpha:34⦄» python train.py --push-to-hub"),
    ("replicate_token", "REPLICATE_API_TOKEN=«r8_⦃b62:37⦄»"),
    ("groq_key", "groq = Groq(api_key='«gsk_⦃b62:52⦄»')"),
    ("perplexity_key", "PPLX_API_KEY=«pplx-⦃b62:48⦄»"),
    ("openrouter_key", "OPENROUTER_API_KEY=«sk-or-v1-⦃hex:64⦄»"),
    ("cohere_key", "co = cohere.Client(\"«⦃b62:40⦄»\")"),
    ("mistral_key", "[mistral]\napi_key = «⦃b62:32⦄»"),
    ("pinecone_key", "PINECONE_API_KEY=«pcsk_⦃b62:5⦄_⦃b62:60⦄»"),
    ("langsmith_key", "LANGCHAIN_TRACING_V2=true\nLANGCHAIN_API_KEY=«lsv2_pt_⦃hex:32⦄_⦃hex:10⦄»"),
    ("wandb_key", "wandb login «⦃hex:40⦄»"),
    ("elevenlabs_key", "curl -H 'xi-api-key: «sk_⦃hex:48⦄»' https://api.elevenlabs.io/v1/voices"),
    ("deepgram_key", "headers = {'Authorization': 'Token «⦃hex:40⦄»'}  # deepgram"),
    ("assemblyai_key", "aai.settings.api_key = \"«⦃hex:32⦄»\""),
    ("together_key", "TOGETHER_API_KEY=«⦃hex:64⦄»"),
    ("fireworks_key", "FIREWORKS_API_KEY=«fw_⦃b62:24⦄»"),
    ("stability_key", "STABILITY_API_KEY=«sk-⦃b62:48⦄»"),
    ("voyage_key", "vo = voyageai.Client(api_key=\"«pa-⦃b64u:43⦄»\")"),
]

SECRETS += [
    # --- package registries and artifact stores
    ("npm_token", "//registry.npmjs.org/:_authToken=«npm_⦃b62:36⦄»"),
    ("npm_token", "- run: npm publish\n  env:\n    NODE_AUTH_TOKEN: «npm_⦃b62:36⦄»"),
    ("pypi_token", "[pypi]\n  username = __token__\n  password = «pypi-AgEIcHlwaS5vcmc⦃b64u:150⦄»"),
    ("pypi_token", "twine upload dist/* -u __token__ -p «pypi-AgEIcHlwaS5vcmc⦃b64u:140⦄»"),
    ("rubygems_key", "---\n:rubygems_api_key: «rubygems_⦃hex:48⦄»"),
    ("nuget_key", "dotnet nuget push bin/Release/*.nupkg --api-key «oy2⦃low:43⦄» --source https://api.nuget.org/v3/index.json"),
    ("nuget_config_password", "<packageSourceCredentials>\n  <acme>\n    <add key=\"Username\" value=\"ci\" />\n"
                              "    <add key=\"ClearTextPassword\" value=\"«⦃pw⦄»\" />\n  </acme>\n</packageSourceCredentials>"),
    ("dockerhub_pat", "echo «dckr_pat_⦃b64u:27⦄» | docker login -u acmebot --password-stdin"),
    ("docker_config_auth", '{\n  "auths": {\n    "ghcr.io": {\n      "auth": "«⦃basic:acme-ci⦄»"\n    }\n  }\n}'),
    ("crates_token", "[registry]\ntoken = \"«cio⦃b62:32⦄»\""),
    ("hex_pm_key", "HEX_API_KEY=«⦃hex:32⦄» mix hex.publish --yes"),
    ("composer_auth", '{\n    "github-oauth": {\n        "github.com": "«ghp_⦃b62:36⦄»"\n    },\n'
                      '    "http-basic": {"repo.packagist.com": {"username": "token", "password": "«⦃hex:40⦄»"}}\n}'),
    ("artifactory_key", "curl -H 'X-JFrog-Art-Api: «AKCp⦃b62:69⦄»' https://acme.jfrog.io/artifactory/api/repositories"),
    ("artifactory_token", "ARTIFACTORY_ACCESS_TOKEN=«cmVmdGtuOjAxOj⦃b62:50⦄»"),
    ("maven_settings_password", "<server>\n  <id>ossrh</id>\n  <username>acme-release</username>\n"
                                "  <password>«⦃pw⦄»</password>\n</server>"),
    ("gradle_properties_password", "signing.keyId=⦃HEX:8⦄\nsigning.password=«⦃pw⦄»\n"
                                   "signing.secretKeyRingFile=/home/ci/.gnupg/secring.gpg\nossrhPassword=«⦃pw⦄»"),
    ("pip_index_credentials", "pip install --extra-index-url https://ci:«⦃pwu⦄»@pypi.acme.io/simple/ acme-core"),
    ("harbor_robot_secret", "docker login harbor.acme.io -u 'robot$ci-push' -p «⦃b62:32⦄»"),
    ("quay_robot_token", "QUAY_USERNAME=acme+builder\nQUAY_PASSWORD=«⦃UP:64⦄»"),
    ("postman_key", "newman run collection.json --postman-api-key «PMAK-⦃hex:24⦄-⦃hex:34⦄»"),
    # --- observability and ops SaaS
    ("datadog_api_key", "DD_API_KEY=«⦃hex:32⦄»\nDD_SITE=datadoghq.eu"),
    ("datadog_app_key", "datadog:\n  apiKeyExistingSecret: dd-secret\n  appKey: «⦃hex:40⦄»"),
    ("newrelic_user_key", "NEW_RELIC_API_KEY=«NRAK-⦃up:27⦄»"),
    ("newrelic_license_key", "license_key: «⦃hex:36⦄NRAL»"),
    ("grafana_cloud_token", "GRAFANA_CLOUD_API_KEY=«glc_⦃b64:120⦄»"),
    ("grafana_sa_token", "curl -H \"Authorization: Bearer «glsa_⦃b62:32⦄_⦃hex:8⦄»\" https://grafana.acme.io/api/dashboards/uid/x"),
    ("sentry_auth_token", "SENTRY_AUTH_TOKEN=«sntrys_eyJ⦃b64u:160⦄»"),
    ("sentry_user_token", "sentry-cli --auth-token «sntryu_⦃hex:64⦄» releases new 2.14.0"),
    ("dynatrace_token", "DT_API_TOKEN=«dt0c01.⦃up:24⦄.⦃up:64⦄»"),
    ("honeycomb_key", "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=«⦃b62:32⦄»"),
    ("splunk_hec_token", "curl -k https://splunk.acme.io:8088/services/collector -H 'Authorization: Splunk «⦃uuid⦄»' -d '{\"event\":\"hi\"}'"),
    ("elastic_api_key", "curl -H \"Authorization: ApiKey «⦃rb64:40⦄»\" https://es.acme.io:9200/_cat/indices"),
    ("logzio_token", "LOGZIO_TOKEN=«⦃alpha:32⦄»"),
    ("rollbar_token", "ROLLBAR_ACCESS_TOKEN=«⦃hex:32⦄»  # post_server_item scope"),
    ("bugsnag_key", "Bugsnag.configure { |c| c.api_key = '«⦃hex:32⦄»' }"),
    ("mixpanel_secret", "MIXPANEL_API_SECRET=«⦃hex:32⦄»"),
    ("amplitude_secret", "AMPLITUDE_API_KEY=⦃hex:32⦄\nAMPLITUDE_SECRET_KEY=«⦃hex:32⦄»"),
    ("launchdarkly_sdk_key", "LD_SDK_KEY=«sdk-⦃uuid⦄»"),
    ("launchdarkly_api_token", "ldcli config --set access-token «api-⦃uuid⦄»"),
    # --- productivity SaaS
    ("atlassian_api_token", "JIRA_USER=ana@acme.io\nJIRA_API_TOKEN=«ATATT3xFfGF0⦃b64u:180⦄=⦃HEX:8⦄»"),
    ("notion_token", "NOTION_TOKEN=«secret_⦃b62:43⦄»"),
    ("notion_token", "const notion = new Client({ auth: \"«ntn_⦃dig:11⦄⦃b62:35⦄»\" })"),
    ("linear_key", "curl https://api.linear.app/graphql -H 'Authorization: «lin_api_⦃b62:40⦄»' -d @query.json"),
    ("airtable_pat", "AIRTABLE_TOKEN=«pat⦃b62:14⦄.⦃hex:64⦄»"),
    ("figma_token", "curl -H 'X-Figma-Token: «figd_⦃b64u:40⦄»' https://api.figma.com/v1/files/⦃b62:22⦄"),
    ("hubspot_token", "HUBSPOT_ACCESS_TOKEN=«pat-na1-⦃uuid⦄»"),
    ("asana_pat", "ASANA_PAT=«2/⦃dig:16⦄/⦃dig:16⦄:⦃hex:32⦄»"),
    ("zendesk_token", "curl -u agent@acme.io/token:«⦃b62:40⦄» https://acme.zendesk.com/api/v2/tickets.json"),
    ("intercom_token", "INTERCOM_ACCESS_TOKEN=«dG9rOj⦃b64:52⦄=»"),
    ("contentful_token", "CONTENTFUL_MANAGEMENT_TOKEN=«CFPAT-⦃b64u:43⦄»"),
    ("sanity_token", "SANITY_API_WRITE_TOKEN=«sk⦃b62:180⦄»"),
    ("typeform_token", "TYPEFORM_TOKEN=«tfp_⦃b62:44⦄_⦃b62:14⦄»"),
    ("dropbox_token", "dbx = dropbox.Dropbox('«sl.⦃b64u:136⦄»')"),
    ("calendly_token", "CALENDLY_PAT=«⦃jwt:hs⦄»"),
    ("monday_token", "MONDAY_API_TOKEN=«⦃jwt:hs⦄»"),
    ("zoom_client_secret", "ZOOM_ACCOUNT_ID=⦃b62:22⦄\nZOOM_CLIENT_ID=⦃b62:22⦄\nZOOM_CLIENT_SECRET=«⦃b62:32⦄»"),
    # --- email, SMS, realtime, media
    ("sendgrid_key", "SENDGRID_API_KEY=«SG.⦃b64u:22⦄.⦃b64u:43⦄»"),
    ("sendgrid_key", "sg = SendGridAPIClient('«SG.⦃b64u:22⦄.⦃b64u:43⦄»')"),
    ("mailgun_key", "curl -s --user 'api:«key-⦃hex:32⦄»' https://api.mailgun.net/v3/mg.acme.io/messages"),
    ("mailchimp_key", "MAILCHIMP_API_KEY=«⦃hex:32⦄-us⦃int:2-21⦄»"),
    ("mandrill_key", "MANDRILL_APIKEY=«md-⦃b64u:22⦄»"),
    ("brevo_key", "BREVO_API_KEY=«xkeysib-⦃hex:64⦄-⦃b62:16⦄»"),
    ("postmark_token", "POSTMARK_SERVER_TOKEN=«⦃uuid⦄»"),
    ("resend_key", "const resend = new Resend('«re_⦃b62:8⦄_⦃b62:24⦄»');"),
    ("sparkpost_key", "SPARKPOST_API_KEY=«⦃hex:40⦄»"),
    ("twilio_auth_token", "TWILIO_ACCOUNT_SID=AC⦃hex:32⦄\nTWILIO_AUTH_TOKEN=«⦃hex:32⦄»"),
    ("twilio_api_secret", "client = Client('SK⦃hex:32⦄', '«⦃b62:32⦄»', 'AC⦃hex:32⦄')"),
    ("vonage_secret", "VONAGE_API_KEY=⦃hex:8⦄\nVONAGE_API_SECRET=«⦃b62:16⦄»"),
    ("plivo_token", "PLIVO_AUTH_ID=MA⦃up:18⦄\nPLIVO_AUTH_TOKEN=«⦃b62:40⦄»"),
    ("pusher_secret", "PUSHER_APP_ID=⦃dig:7⦄\nPUSHER_KEY=⦃hex:20⦄\nPUSHER_SECRET=«⦃hex:20⦄»"),
    ("ably_key", "ABLY_API_KEY=⦃b64u:6⦄.⦃b64u:6⦄:«⦃b64u:43⦄»"),
    ("cloudinary_url", "CLOUDINARY_URL=cloudinary://⦃dig:15⦄:«⦃b64u:27⦄»@acme-media"),
    ("mux_secret", "MUX_TOKEN_ID=⦃uuid⦄\nMUX_TOKEN_SECRET=«⦃b64:75⦄»"),
    ("imagekit_private", "IMAGEKIT_PRIVATE_KEY=«private_⦃b64:28⦄»"),
    ("fcm_server_key", "Authorization: key=«AAAA⦃b64u:7⦄:APA91b⦃b64u:134⦄»"),
    ("onesignal_key", "ONESIGNAL_REST_API_KEY=«os_v2_app_⦃b32l:110⦄»"),
    ("twitter_bearer", "TWITTER_BEARER_TOKEN=«AAAAAAAAAAAAAAAAAAAAA⦃b62:20⦄%3D⦃b62:50⦄»"),
    ("twitter_consumer_secret", "consumer_key = '⦃b62:25⦄'\nconsumer_secret = '«⦃b62:50⦄»'"),
    ("facebook_token", "FB_PAGE_ACCESS_TOKEN=«EAAG⦃b62:170⦄»"),
    ("facebook_app_secret", "FACEBOOK_APP_ID=⦃dig:15⦄\nFACEBOOK_APP_SECRET=«⦃hex:32⦄»"),
    ("twitch_oauth", "PASS «oauth:⦃low:30⦄»\nNICK acme_bot"),
    ("spotify_secret", "SPOTIPY_CLIENT_ID=⦃hex:32⦄\nSPOTIPY_CLIENT_SECRET=«⦃hex:32⦄»"),
    ("etherscan_key", "ETHERSCAN_API_KEY=«⦃up:34⦄»"),
    ("alchemy_key", "ALCHEMY_URL=https://eth-mainnet.g.alchemy.com/v2/«⦃b64u:32⦄»"),
    ("infura_secret", "INFURA_PROJECT_ID=⦃hex:32⦄\nINFURA_PROJECT_SECRET=«⦃hex:32⦄»"),
    ("openweather_key", "fetch(`https://api.openweathermap.org/data/2.5/weather?q=Madrid&appid=«⦃hex:32⦄»`)"),
    ("mapbox_secret", "MAPBOX_DOWNLOADS_TOKEN=«sk.⦃b64uof:{\"u\":\"acme-geo\",\"a\":\"⟨low:25⟩\"}⦄.⦃b64u:22⦄»"),
    ("algolia_admin_key", "ALGOLIA_APP_ID=⦃up:10⦄\nALGOLIA_ADMIN_API_KEY=«⦃hex:32⦄»"),
    ("meilisearch_master", "docker run -e MEILI_MASTER_KEY='«⦃b64u:32⦄»' getmeili/meilisearch:v1.7"),
    ("typesense_admin", "typesense-server --data-dir /data --api-key=«⦃b62:32⦄» --enable-cors"),
    ("clerk_secret", "CLERK_PUBLISHABLE_KEY=pk_live_⦃b64of:clerk.acme.io$⦄\nCLERK_SECRET_KEY=«sk_live_⦃b62:40⦄»"),
    ("supabase_service_role", "SUPABASE_SERVICE_ROLE_KEY=«⦃jwt:service_role⦄»"),
    ("supabase_access_token", "supabase link --project-ref ⦃lower:20⦄ # SUPABASE_ACCESS_TOKEN=«sbp_⦃hex:40⦄»"),
    ("planetscale_password", "DATABASE_URL=mysql://⦃low:12⦄:«pscale_pw_⦃b64u:43⦄»@aws.connect.psdb.cloud/shop?sslaccept=strict"),
    ("planetscale_token", "PLANETSCALE_SERVICE_TOKEN=«pscale_tkn_⦃b64u:43⦄»"),
    ("databricks_token", "[DEFAULT]\nhost  = https://dbc-⦃hex:8⦄-⦃hex:4⦄.cloud.databricks.com\ntoken = «dapi⦃hex:32⦄»"),
    ("snowflake_password", "snowsql -a acme-xy12345 -u ETL_USER -o log_level=DEBUG  # SNOWSQL_PWD=«⦃pw⦄»"),
    ("okta_token", "OKTA_ORG_URL=https://acme.okta.com\nOKTA_API_TOKEN=«00⦃b64u:40⦄»"),
    ("auth0_client_secret", "AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID=⦃b62:32⦄\nAUTH0_CLIENT_SECRET=«⦃b64u:64⦄»"),
    ("keycloak_client_secret", "spring.security.oauth2.client.registration.keycloak.client-id=orders\n"
                               "spring.security.oauth2.client.registration.keycloak.client-secret=«⦃b62:32⦄»"),
    ("oauth_refresh_token", "saved session: {\"access_token\": \"«⦃jwt:rs⦄»\", \"refresh_token\": \"«v1.⦃b64u:80⦄»\", \"expires_in\": 3600}"),
    # --- infra secrets tooling
    ("vault_token", "export VAULT_ADDR=https://vault.acme.io:8200\nexport VAULT_TOKEN=«hvs.⦃b64u:90⦄»"),
    ("vault_token", "Unseal Key 1: «⦃rb64:33⦄»\nUnseal Key 2: «⦃rb64:33⦄»\n\nInitial Root Token: «hvs.⦃b62:24⦄»"),
    ("vault_batch_token", "token=«hvb.⦃b64u:130⦄»"),
    ("terraform_cloud_token", "credentials \"app.terraform.io\" {\n  token = \"«⦃b62:14⦄.atlasv1.⦃b62:67⦄»\"\n}"),
    ("doppler_token", "DOPPLER_TOKEN=«dp.st.prd.⦃b62:43⦄» doppler run -- ./server"),
    ("pulumi_token", "PULUMI_ACCESS_TOKEN=«pul-⦃hex:40⦄»"),
    ("onepassword_sa_token", "OP_SERVICE_ACCOUNT_TOKEN=«ops_eyJ⦃b64u:300⦄»"),
    ("age_secret_key", "# created: 2024-11-02T10:11:12Z\n# public key: age1⦃bech:58⦄\n«AGE-SECRET-KEY-1⦃BECH:58⦄»"),
    ("consul_token", "CONSUL_HTTP_TOKEN=«⦃uuid⦄»"),
    ("nomad_token", "nomad job run -token=«⦃uuid⦄» api.nomad.hcl"),
    ("tailscale_auth_key", "tailscale up --authkey=«tskey-auth-k⦃b62:11⦄CNTRL-⦃b62:32⦄»"),
    ("tailscale_api_key", "TS_API_KEY=«tskey-api-k⦃b62:11⦄CNTRL-⦃b62:32⦄»"),
    ("ngrok_authtoken", "ngrok config add-authtoken «2⦃b62:26⦄_⦃b62:21⦄»"),
    ("k8s_sa_token", "kubectl --server https://10.0.0.1:6443 --token «⦃jwt:k8s⦄» get pods -A"),
    ("kubeconfig_client_key", "users:\n- name: admin@prod\n  user:\n    client-certificate-data: ⦃pemb64:cert⦄\n"
                              "    client-key-data: «⦃pemb64:rsa⦄»"),
    ("k8s_secret_data", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-creds\ntype: Opaque\ndata:\n"
                        "  username: YXBw\n  password: «⦃b64pw⦄»"),
    ("k8s_secret_stringdata", "kind: Secret\nstringData:\n  REDIS_PASSWORD: \"«⦃pw⦄»\"\n  SMTP_PASS: «⦃pw⦄»"),
    ("k8s_tls_secret", "kind: Secret\ntype: kubernetes.io/tls\ndata:\n  tls.crt: ⦃pemb64:cert⦄\n  tls.key: «⦃pemb64:ec⦄»"),
    ("kubectl_from_literal", "kubectl create secret generic api-keys --from-literal=STRIPE_KEY=«sk_live_⦃b62:24⦄» "
                             "--from-literal=DB_PASSWORD='«⦃pw⦄»' -n shop"),
    ("helm_set_password", "helm upgrade --install pg bitnami/postgresql --set auth.postgresPassword=«⦃pwu⦄»"),
    ("helm_values_password", "postgresql:\n  auth:\n    username: shop\n    password: \"«⦃pw⦄»\"\n    database: shop"),
    ("ansible_become_pass", "ansible-playbook site.yml -i prod.ini -e 'ansible_become_pass=«⦃pw⦄»'"),
    ("ansible_vars_password", "all:\n  vars:\n    ansible_user: deploy\n    ansible_password: «⦃pw⦄»\n    mysql_root_password: «⦃pw⦄»"),
    ("terraform_tfvars_password", "db_username = \"admin_app\"\ndb_password = \"«⦃pw⦄»\"\nregion      = \"eu-west-3\""),
    ("terraform_provider_secret", "provider \"github\" {\n  owner = \"acme\"\n  token = \"«ghp_⦃b62:36⦄»\"\n}"),
    ("pulumi_config_plain", "config:\n  shop:dbPassword: «⦃pw⦄»\n  aws:region: us-east-2"),
    ("docker_compose_password", "services:\n  db:\n    image: postgres:16\n    environment:\n"
                                "      POSTGRES_USER: shop\n      POSTGRES_PASSWORD: «⦃pw⦄»"),
    ("dockerfile_env_secret", "FROM node:20-alpine\nWORKDIR /app\nENV NPM_TOKEN=«npm_⦃b62:36⦄»\nRUN npm ci --omit=dev"),
    ("dockerfile_arg_password", "ARG DB_PASSWORD=«⦃pw⦄»\nRUN ./migrate --password \"$DB_PASSWORD\""),
    ("github_actions_inline", "jobs:\n  deploy:\n    runs-on: ubuntu-latest\n    env:\n"
                              "      DEPLOY_KEY: «⦃b62:40⦄»\n    steps:\n      - run: ./deploy.sh"),
    ("gitlab_ci_variable", "variables:\n  SONAR_HOST_URL: https://sonar.acme.io\n  SONAR_TOKEN: «squ_⦃hex:40⦄»"),
    ("jenkinsfile_password", "withEnv(['REGISTRY_PASS=«⦃pw⦄»']) {\n    sh 'docker login -u ci -p $REGISTRY_PASS registry.acme.io'\n}"),
    ("circleci_env", "      - run:\n          name: publish\n          command: TWINE_PASSWORD=«pypi-AgEIcHlwaS5vcmc⦃b64u:140⦄» twine upload dist/*"),
    ("buildkite_env", "env:\n  SLACK_WEBHOOK: \"https://hooks.slack.com/services/T⦃up:9⦄/B⦃up:9⦄/«⦃b62:24⦄»\""),
]

SECRETS += [
    # --- connection strings and database CLIs
    ("postgres_url", "DATABASE_URL=postgres://shop:«⦃pwu⦄»@db.internal:5432/shop?sslmode=require"),
    ("postgres_url", "psycopg2.OperationalError: connection to server failed\n  dsn='postgresql://etl:«⦃pwu⦄»@10.2.0.14/warehouse'"),
    ("postgres_cli", "PGPASSWORD='«⦃pw⦄»' psql -h pg-prod.acme.io -U report -d analytics -c 'select 1'"),
    ("pgpass_line", "# ~/.pgpass\npg-prod.acme.io:5432:*:report:«⦃pwu⦄»"),
    ("mysql_url", "spring.datasource.url=jdbc:mysql://db:3306/orders\nspring.datasource.username=orders\n"
                  "spring.datasource.password=«⦃pw⦄»"),
    ("mysql_cli", "mysql -h 127.0.0.1 -u root -p'«⦃pw⦄»' -e 'show databases'"),
    ("mysql_cli", "mysqldump --user=backup --password=«⦃pwu⦄» --all-databases | gzip > all.sql.gz"),
    ("mongodb_url", "MONGO_URI=mongodb+srv://app:«⦃pwu⦄»@cluster0.⦃low:5⦄.mongodb.net/prod?retryWrites=true&w=majority"),
    ("redis_url", "REDIS_URL=rediss://default:«⦃pwu⦄»@redis-⦃dig:5⦄.c1.eu-west-1-2.ec2.cloud.redislabs.com:⦃dig:5⦄"),
    ("redis_cli", "redis-cli -h cache.acme.io -a «⦃pwu⦄» --no-auth-warning info keyspace"),
    ("redis_conf", "# /etc/redis/redis.conf\nbind 0.0.0.0\nrequirepass «⦃pw⦄»\nmaxmemory 2gb"),
    ("amqp_url", "CELERY_BROKER_URL = 'amqp://celery:«⦃pwu⦄»@rabbit.acme.io:5672/prod'"),
    ("sqlserver_conn", "\"ConnectionStrings\": {\n  \"Default\": \"Server=tcp:acme.database.windows.net,1433;Database=crm;"
                       "User ID=crmapp;Password=«⦃pwu⦄»;Encrypt=True;\"\n}"),
    ("jdbc_password_param", "jdbc:sqlserver://sql01:1433;databaseName=hr;user=hr_app;password=«⦃pwu⦄»"),
    ("oracle_conn", "sqlplus system/«⦃pwu⦄»@//ora-prod:1521/ORCLPDB1"),
    ("clickhouse_url", "clickhouse-client --host ch.acme.io --user ingest --password «⦃pwu⦄» --secure"),
    ("cassandra_password", "cqlsh cass01 -u cassandra_app -p «⦃pwu⦄»"),
    ("elastic_basic", "curl -u elastic:«⦃pwu⦄» -k https://localhost:9200/_cluster/health"),
    ("neo4j_url", "NEO4J_AUTH=neo4j/«⦃pwu⦄»"),
    ("influx_token", "influx write -b metrics -o acme -t «⦃rb64u:64⦄==» -p s 'cpu v=1'"),
    ("couchdb_url", "COUCHDB_URL=http://admin:«⦃pwu⦄»@couch:5984"),
    ("ldap_bind", "ldapsearch -x -H ldaps://ldap.acme.io -D 'cn=svc-read,ou=svc,dc=acme,dc=io' -w '«⦃pw⦄»' '(uid=jdoe)'"),
    ("smtp_password", "EMAIL_HOST=smtp.sendgrid.net\nEMAIL_HOST_USER=apikey\nEMAIL_HOST_PASSWORD=«SG.⦃b64u:22⦄.⦃b64u:43⦄»"),
    ("smtp_password", "[smtp]\nhost = mail.acme.io\nuser = noreply@acme.io\npassword = «⦃pw⦄»"),
    ("ftp_url", "lftp -e 'mirror -R dist /www' ftp://webmaster:«⦃pwu⦄»@ftp.acme-legacy.com"),
    ("sftp_sshpass", "sshpass -p '«⦃pw⦄»' scp -o StrictHostKeyChecking=no build.tar deploy@10.1.4.7:/srv"),
    ("kafka_jaas", "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required "
                   "username=\"⦃up:16⦄\" password=\"«⦃b64:64⦄»\";"),
    ("minio_secret", "MINIO_ROOT_USER=minioadmin-acme\nMINIO_ROOT_PASSWORD=«⦃b62:40⦄»"),
    ("s3_compatible_secret", "[r2]\ntype = s3\nprovider = Cloudflare\naccess_key_id = ⦃hex:32⦄\n"
                             "secret_access_key = «⦃hex:64⦄»\nendpoint = https://⦃hex:32⦄.r2.cloudflarestorage.com"),
    ("erlang_cookie", "echo '«⦃UP:20⦄»' > /var/lib/rabbitmq/.erlang.cookie && chmod 400 /var/lib/rabbitmq/.erlang.cookie"),
    # --- application secrets in many languages
    ("django_secret_key", "SECRET_KEY = 'django-insecure-«⦃djs:50⦄»'"),
    ("django_secret_key", "# settings/prod.py\nSECRET_KEY = \"«⦃djs:50⦄»\"\nDEBUG = False"),
    ("rails_secret_key_base", "production:\n  secret_key_base: «⦃hex:128⦄»"),
    ("rails_master_key", "echo «⦃hex:32⦄» > config/master.key  # so CI can decrypt credentials.yml.enc"),
    ("laravel_app_key", "APP_NAME=Shop\nAPP_ENV=production\nAPP_KEY=base64:«⦃rb64:32⦄»\nAPP_DEBUG=false"),
    ("flask_secret", "app.config['SECRET_KEY'] = '«⦃hex:48⦄»'"),
    ("jwt_hmac_secret", "JWT_SECRET=«⦃b64u:64⦄»\nJWT_EXPIRES_IN=15m"),
    ("jwt_hmac_secret", "jwt:\n  signing-key: «⦃rb64:48⦄»\n  issuer: https://auth.acme.io"),
    ("nextauth_secret", "NEXTAUTH_URL=https://app.acme.io\nNEXTAUTH_SECRET=«⦃rb64:32⦄»"),
    ("session_secret_node", "app.use(session({ secret: '«⦃b62:48⦄»', resave: false, saveUninitialized: false }))"),
    ("fernet_key", "AIRFLOW__CORE__FERNET_KEY=«⦃rb64u:32⦄=»"),
    ("aes_key_hex", "ENCRYPTION_KEY=«⦃hex:64⦄»  # AES-256-GCM for PII columns"),
    ("php_config_password", "<?php\n$config['db'] = [\n    'host' => 'localhost',\n    'user' => 'wp_shop',\n"
                            "    'pass' => '«⦃pw⦄»',\n];"),
    ("php_define_password", "define( 'DB_PASSWORD', '«⦃pw⦄»' );\ndefine( 'AUTH_KEY', '«⦃wps:64⦄»' );"),
    ("ruby_config_secret", "Rails.application.configure do\n  config.x.payments.api_secret = \"«⦃b62:40⦄»\"\nend"),
    ("java_hardcoded_password", "DataSource ds = DataSourceBuilder.create()\n    .url(\"jdbc:postgresql://db/app\")\n"
                                "    .username(\"app\")\n    .password(\"«⦃pw⦄»\")\n    .build();"),
    ("go_hardcoded_token", "client := github.NewClient(nil).WithAuthToken(\"«ghp_⦃b62:36⦄»\")"),
    ("go_dsn", "dsn := \"app:«⦃pwu⦄»@tcp(127.0.0.1:3306)/shop?parseTime=true\""),
    ("rust_hardcoded_key", "let client = reqwest::Client::new();\nlet res = client.get(url)\n"
                           "    .header(\"X-Api-Key\", \"«⦃b62:40⦄»\")\n    .send().await?;"),
    ("csharp_connection", "services.AddDbContext<ShopDb>(o => o.UseNpgsql(\n"
                          "    \"Host=pg;Database=shop;Username=shop;Password=«⦃pwu⦄»\"));"),
    ("elixir_config_secret", "config :shop, ShopWeb.Endpoint,\n  secret_key_base: \"«⦃b64:64⦄»\"\n\n"
                             "config :shop, Shop.Repo, password: \"«⦃pw⦄»\""),
    ("toml_password", "[database]\nhost = \"10.0.3.5\"\nuser = \"ledger\"\npassword = \"«⦃pw⦄»\"\npool = 20"),
    ("ini_password", "[client]\nuser=backup\npassword=«⦃pw⦄»\nhost=db-replica"),
    ("properties_password", "mail.smtp.user=alerts@acme.io\nmail.smtp.password=«⦃pw⦄»\nmail.smtp.port=587"),
    ("xml_password", "<connectionStrings>\n  <add name=\"Legacy\" connectionString=\"Data Source=sql02;Initial Catalog=erp;"
                     "User Id=erp;Password=«⦃pwu⦄»;\" />\n</connectionStrings>"),
    ("json_password", "{\n  \"db\": {\n    \"host\": \"mongo\",\n    \"user\": \"reader\",\n    \"password\": \"«⦃pw⦄»\"\n  }\n}"),
    ("yaml_api_key", "integrations:\n  geocoder:\n    provider: here\n    api_key: «⦃b64u:43⦄»"),
    ("env_generic_secret", "# .env.local — do NOT commit\nINTERNAL_API_SECRET=«⦃b62:48⦄»\nFEATURE_FLAGS=new-checkout"),
    ("netrc_password", "machine api.heroku.com\n  login ops@acme.io\n  password «⦃uuid⦄»\n"
                       "machine git.heroku.com\n  login ops@acme.io\n  password «⦃uuid⦄»"),
    ("git_credentials_url", "https://jdoe:«⦃pwu⦄»@git.acme.io"),
    ("wpa_psk", "network={\n    ssid=\"acme-office\"\n    psk=\"«⦃pw⦄»\"\n}"),
    ("wireguard_private_key", "[Interface]\nPrivateKey = «⦃rb64:32⦄»\nAddress = 10.8.0.2/24\n\n[Peer]\n"
                              "PublicKey = ⦃rb64:32⦄\nEndpoint = vpn.acme.io:51820"),
    ("wireguard_preshared", "[Peer]\nPublicKey = ⦃rb64:32⦄\nPresharedKey = «⦃rb64:32⦄»\nAllowedIPs = 0.0.0.0/0"),
    ("ipsec_psk", "# /etc/ipsec.secrets\n%any 203.0.113.10 : PSK \"«⦃pw⦄»\""),
    ("openvpn_static_key", "<tls-auth>\n-----BEGIN OpenVPN Static key V1-----\n«⦃hexlines:16:32⦄»\n"
                           "-----END OpenVPN Static key V1-----\n</tls-auth>"),
    ("snmp_v3_auth", "snmpwalk -v3 -l authPriv -u monitor -a SHA -A '«⦃pw⦄»' -x AES -X '«⦃pw⦄»' 10.0.0.1"),
    ("radius_secret", "client office-ap {\n    ipaddr = 10.20.0.0/16\n    secret = «⦃b62:24⦄»\n}"),
    ("keystore_password", "android {\n  signingConfigs {\n    release {\n      storeFile file('release.jks')\n"
                          "      storePassword '«⦃pw⦄»'\n      keyAlias 'upload'\n      keyPassword '«⦃pw⦄»'\n    }\n  }\n}"),
    ("gpg_passphrase", "echo '«⦃pw⦄»' | gpg --batch --yes --passphrase-fd 0 --pinentry-mode loopback -d backup.tar.gpg"),
    ("pkcs12_password", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«⦃pw⦄»"),
    ("openssl_passin", "openssl rsa -in encrypted.key -out plain.key -passin 'pass:«⦃pw⦄»'"),
    # --- private keys in many wrappings
    ("openssh_private_key", "-----BEGIN OPENSSH PRIVATE KEY-----\n«⦃pem:openssh⦄»\n-----END OPENSSH PRIVATE KEY-----"),
    ("openssh_private_key", "      - name: add deploy key\n        run: |\n          mkdir -p ~/.ssh\n"
                            "          cat > ~/.ssh/id_ed25519 <<'EOF'\n          -----BEGIN OPENSSH PRIVATE KEY-----\n"
                            "          «⦃pem:openssh:10⦄»\n          -----END OPENSSH PRIVATE KEY-----\n          EOF"),
    ("rsa_private_key", "-----BEGIN RSA PRIVATE KEY-----\n«⦃pem:rsa⦄»\n-----END RSA PRIVATE KEY-----\n"),
    ("rsa_private_key", "tls:\n  key: |\n    -----BEGIN RSA PRIVATE KEY-----\n    «⦃pem:rsa:4⦄»\n    -----END RSA PRIVATE KEY-----"),
    ("ec_private_key", "cat server.key\n-----BEGIN EC PRIVATE KEY-----\n«⦃pem:ec⦄»\n-----END EC PRIVATE KEY-----"),
    ("pkcs8_private_key", "SAML_SP_KEY=\"-----BEGIN PRIVATE KEY-----\\n«⦃pemesc:pkcs8⦄»\\n-----END PRIVATE KEY-----\""),
    ("pkcs8_private_key", "<ds:KeyInfo/>\n<!-- signing key for the IdP test, kept here for now -->\n"
                          "<PrivateKey>-----BEGIN PRIVATE KEY-----\n«⦃pem:pkcs8⦄»\n-----END PRIVATE KEY-----</PrivateKey>"),
    ("encrypted_private_key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n«⦃pem:enc⦄»\n-----END ENCRYPTED PRIVATE KEY-----"),
    ("apns_p8_key", "AuthKey_⦃UP:10⦄.p8\n-----BEGIN PRIVATE KEY-----\n«⦃pem:ec8⦄»\n-----END PRIVATE KEY-----"),
    ("pgp_private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n«⦃pgp⦄»\n-----END PGP PRIVATE KEY BLOCK-----"),
    ("putty_private_key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: jdoe@laptop\nPublic-Lines: 2\n"
                          "⦃b64lines:51:64⦄\nPrivate-Lines: 1\n«⦃rb64:36⦄»\nPrivate-MAC: ⦃hex:64⦄"),
    ("jwk_private", "{\"kty\":\"EC\",\"crv\":\"P-256\",\"kid\":\"⦃hex:8⦄\",\"x\":\"⦃rb64u:32⦄\",\"y\":\"⦃rb64u:32⦄\","
                    "\"d\":\"«⦃rb64u:32⦄»\"}"),
    ("private_key_base64_env", "GITHUB_APP_PRIVATE_KEY_B64=«⦃pemb64:rsa⦄»"),
    ("ethereum_private_key", "PRIVATE_KEY=«0x⦃hex:64⦄»  # hardhat deployer on mainnet"),
    ("ethereum_private_key", "const wallet = new ethers.Wallet(\"«⦃hex:64⦄»\", provider);"),
    ("bitcoin_wif", "importprivkey «⦃wif⦄» \"cold-1\" false"),
    ("seed_phrase", "mi frase semilla (no la pierdas): «⦃words:12⦄»"),
    ("seed_phrase", "MNEMONIC=\"«⦃words:24⦄»\""),
    ("solana_keypair", "cat ~/.config/solana/id.json\n[«⦃intlist:64⦄»]"),
    # --- tokens in HTTP, cookies, logs
    ("bearer_jwt_header", "GET /api/v2/orders HTTP/1.1\nHost: api.acme.io\nAuthorization: Bearer «⦃jwt:rs⦄»\nAccept: */*"),
    ("bearer_jwt_header", "http GET :8080/me 'Authorization:Bearer «⦃jwt:hs⦄»'"),
    ("basic_auth_header", "> POST /v1/charge HTTP/2\n> authorization: Basic «⦃basic:svc_billing⦄»\n> content-type: application/json"),
    ("curl_user_password", "curl -u admin:«⦃pwu⦄» -X PUT https://nexus.acme.io/service/rest/v1/security/users"),
    ("httpie_auth", "http -a deploy:«⦃pwu⦄» POST https://registry.acme.io/v2/token"),
    ("api_key_header", "curl -H 'X-API-Key: «⦃b62:40⦄»' https://api.partner.example/v3/quotes"),
    ("api_key_query", "GET https://api.partner.example/v1/rates?base=EUR&api_key=«⦃b62:32⦄» 200 OK"),
    ("api_key_query", "2025-02-11T08:14:02Z INFO http out GET https://maps.example.net/geocode?address=Gran+Via&access_token=«⦃b64u:40⦄»"),
    ("session_cookie", "Cookie: _ga=GA1.2.⦃dig:10⦄.⦃epoch⦄; sessionid=«⦃low:32⦄»; theme=dark"),
    ("session_cookie", "HTTP/1.1 302 Found\nLocation: /dashboard\nSet-Cookie: connect.sid=«s%3A⦃b64u:32⦄.⦃b64u:43⦄»; Path=/; HttpOnly"),
    ("php_session_cookie", "curl -b 'PHPSESSID=«⦃low:26⦄»' https://intranet.acme.io/admin/export.php"),
    ("rails_session_cookie", "Set-Cookie: _shop_session=«⦃b64:200⦄--⦃hex:40⦄»; path=/; secure; HttpOnly; SameSite=Lax"),
    ("aspnet_cookie", "Cookie: .AspNetCore.Cookies=«CfDJ8⦃b64u:300⦄»"),
    ("jsessionid", "GET /portal/home;jsessionid=«⦃HEX:32⦄» HTTP/1.1"),
    ("presigned_s3", "https://acme-exports.s3.eu-west-1.amazonaws.com/reports/q3.csv?X-Amz-Algorithm=AWS4-HMAC-SHA256"
                     "&X-Amz-Credential=«AKIA⦃up:16⦄»%2F20250102%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20250102T101500Z"
                     "&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=«⦃hex:64⦄»"),
    ("presigned_gcs", "signed url for the vendor: https://storage.googleapis.com/acme-share/data.zip?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                      "&X-Goog-Credential=share%40acme.iam.gserviceaccount.com%2F20250102%2Fauto%2Fstorage%2Fgoog4_request"
                      "&X-Goog-Date=20250102T000000Z&X-Goog-Expires=86400&X-Goog-SignedHeaders=host&X-Goog-Signature=«⦃hex:512⦄»"),
    ("cloudfront_signed", "https://d⦃low:13⦄.cloudfront.net/video.m3u8?Expires=⦃epoch⦄&Signature=«⦃b64u:172⦄__»&Key-Pair-Id=K⦃up:13⦄"),
    ("password_reset_link", "Reset your password: https://app.acme.io/reset-password?token=«⦃b64u:43⦄» (valid for 1 hour)"),
    ("magic_link", "El enlace de acceso que me llegó: https://acme.io/auth/magic?code=«⦃b62:48⦄»&email=ana%40acme.io"),
    ("invite_link", "join the workspace with https://acme.io/invite/«⦃b62:32⦄»"),
    ("oauth_auth_code_token_exchange", "POST /oauth/token\ngrant_type=client_credentials&client_id=⦃hex:24⦄&client_secret=«⦃b64u:48⦄»"),
    ("log_leaked_password", "2025-01-30 02:11:45,301 ERROR [auth] login failed for user=svc_batch password=«⦃pw⦄» ip=10.4.2.9"),
    ("log_leaked_token", "DEBUG requests.sessions: headers={'User-Agent': 'python-requests/2.31', "
                         "'Authorization': 'token «ghp_⦃b62:36⦄»'}"),
    ("stacktrace_conn", "Traceback (most recent call last):\n  File \"worker.py\", line 88, in <module>\n"
                        "    engine = create_engine(\"mysql+pymysql://worker:«⦃pwu⦄»@db-prod/jobs\")\n"
                        "sqlalchemy.exc.OperationalError: (2003, \"Can't connect to MySQL server\")"),
    ("java_exception_password", "Caused by: org.postgresql.util.PSQLException: FATAL: password authentication failed\n"
                                "  at ... url=jdbc:postgresql://pg:5432/app?user=app&password=«⦃pwu⦄»"),
    # --- one-time codes, recovery, 2FA
    ("totp_seed", "otpauth://totp/Acme:ana%40acme.io?secret=«⦃b32:32⦄»&issuer=Acme&digits=6"),
    ("totp_seed", "2FA for the shared admin account — setup key «⦃b32g:8⦄» (Google Authenticator)"),
    ("recovery_codes", "GitHub recovery codes (acme-admin):\n«⦃hexl:5⦄-⦃hexl:5⦄»\n«⦃hexl:5⦄-⦃hexl:5⦄»\n"
                       "«⦃hexl:5⦄-⦃hexl:5⦄»\n«⦃hexl:5⦄-⦃hexl:5⦄»"),
    ("recovery_codes", "códigos de respaldo: «⦃dig:8⦄», «⦃dig:8⦄», «⦃dig:8⦄»"),
    ("app_specific_password", "iCloud app-specific password for the CI notarization: «⦃lower:4⦄-⦃lower:4⦄-⦃lower:4⦄-⦃lower:4⦄»"),
    ("google_app_password", "GMAIL_APP_PASSWORD=\"«⦃lower:4⦄ ⦃lower:4⦄ ⦃lower:4⦄ ⦃lower:4⦄»\""),
    ("backup_encryption_passphrase", "restic -r s3:s3.amazonaws.com/acme-restic init  # RESTIC_PASSWORD=«⦃pw⦄»"),
    ("borg_passphrase", "export BORG_PASSPHRASE='«⦃pw⦄»'\nborg create ::'{hostname}-{now}' /srv"),
    # --- passwords in prose, chat, commits
    ("prose_password_en", "Note to self: the staging admin login is ops / «⦃pwh⦄» (changed after the incident)."),
    ("prose_password_en", "user pasted: \"can you check why login fails? my password is «⦃pw⦄» and the username is marta\""),
    ("prose_password_es", "La contraseña del servidor de pruebas es «⦃pwh⦄», no la compartas con nadie."),
    ("prose_password_es", "Acceso a la base de datos de producción: usuario `lectura`, clave «⦃pw⦄»."),
    ("prose_wifi_password", "guest wifi: acme-guest / «⦃pwh⦄»"),
    ("chat_token_paste", "[10:42] jdoe: here's the token for the staging api «⦃b62:40⦄» — expires friday"),
    ("commit_message_secret", "commit 3f1c2a9\nAuthor: dev <dev@acme.io>\n\n    temp: hardcode slack token «xoxb-⦃dig:12⦄-⦃dig:13⦄-⦃b62:24⦄» to unblock demo"),
    ("issue_comment_secret", "> Still failing for me. I ran it with `SENDGRID_KEY=«SG.⦃b64u:22⦄.⦃b64u:43⦄» npm test` and got 401."),
    ("readme_secret", "## Local setup\n\n1. Copy `.env.example` to `.env`\n2. Ask for the shared key or use mine: `«sk_live_⦃b62:24⦄»`"),
    ("sudo_password_history", "  512  echo '«⦃pw⦄»' | sudo -S systemctl restart nginx"),
    ("vnc_password", "x11vnc -passwd «⦃pwu⦄» -forever -display :0"),
    ("router_admin_password", "router admin UI http://192.168.1.1 — user admin, pass «⦃pwh⦄»"),
]

# ---------------------------------------------------------------------------- ordinary
# (kind, template). No marks: nothing here grants access. Each is drawn twice.

ORDINARY: list[tuple[str, str]] = [
    # --- public keys and certificates
    ("ssh_public_key", "ssh-ed25519 ⦃sshpub:ed25519⦄ jdoe@laptop"),
    ("ssh_public_key", "# ~/.ssh/authorized_keys on bastion-1\nssh-rsa ⦃sshpub:rsa⦄ deploy@ci\n"
                       "ssh-ed25519 ⦃sshpub:ed25519⦄ ana@mbp"),
    ("ssh_public_key", "users:\n  - name: deploy\n    ssh_authorized_keys:\n      - ssh-ed25519 ⦃sshpub:ed25519⦄ deploy"),
    ("ssh_public_key", "resource \"aws_key_pair\" \"ops\" {\n  key_name   = \"ops\"\n"
                       "  public_key = \"ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄ ops@acme\"\n}"),
    ("ssh_public_key", "Añadí mi clave pública al servidor: ssh-ed25519 ⦃sshpub:ed25519⦄ lucia@portatil"),
    ("ssh_public_key", "gh ssh-key add ~/.ssh/id_ed25519.pub --title work\n✓ Public key added: ssh-ed25519 ⦃sshpub:ed25519⦄"),
    ("known_hosts", "github.com ssh-ed25519 ⦃sshpub:ed25519⦄\n|1|⦃rb64:20⦄|⦃rb64:20⦄ ecdsa-sha2-nistp256 ⦃sshpub:ecdsa⦄"),
    ("known_hosts", "The authenticity of host '10.0.4.2' can't be established.\nED25519 key fingerprint is SHA256:⦃rb64n:32⦄.\n"
                    "Are you sure you want to continue connecting (yes/no/[fingerprint])? yes"),
    ("ssh_fingerprint", "$ ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:⦃rb64n:32⦄ jdoe@laptop (ED25519)"),
    ("ssh_fingerprint", "Deploy key fingerprint (MD5): ⦃hexcolon:16⦄ — added read-only to acme/infra"),
    ("pem_public_key", "-----BEGIN PUBLIC KEY-----\n⦃pem:pub⦄\n-----END PUBLIC KEY-----"),
    ("pem_public_key", "JWT_PUBLIC_KEY=\"-----BEGIN PUBLIC KEY-----\\n⦃pemesc:pub⦄\\n-----END PUBLIC KEY-----\""),
    ("pem_public_key", "jwt:\n  verify:\n    public-key: |\n      -----BEGIN PUBLIC KEY-----\n      ⦃pem:ecpub:6⦄\n"
                       "      -----END PUBLIC KEY-----"),
    ("pem_public_key", "La clave pública para verificar los webhooks es:\n-----BEGIN PUBLIC KEY-----\n⦃pem:ecpub⦄\n-----END PUBLIC KEY-----"),
    ("certificate", "-----BEGIN CERTIFICATE-----\n⦃pem:cert⦄\n-----END CERTIFICATE-----"),
    ("certificate", "ca.crt: |\n  -----BEGIN CERTIFICATE-----\n  ⦃pem:cert:2⦄\n  -----END CERTIFICATE-----"),
    ("certificate", "clusters:\n- cluster:\n    certificate-authority-data: ⦃pemb64:cert⦄\n    server: https://k8s.acme.io:6443\n  name: prod"),
    ("certificate", "openssl s_client -connect api.acme.io:443 -showcerts </dev/null\nCONNECTED(00000003)\n"
                    "depth=2 C = US, O = Internet Security Research Group, CN = ISRG Root X1\n---\nCertificate chain\n"
                    " 0 s:CN = api.acme.io\n-----BEGIN CERTIFICATE-----\n⦃pem:cert⦄\n-----END CERTIFICATE-----"),
    ("certificate", "<X509Certificate>⦃pemline:cert⦄</X509Certificate>"),
    ("cert_fingerprint", "SHA256 Fingerprint=⦃HEXcolon:32⦄"),
    ("cert_fingerprint", "Certificate pinning: pin-sha256=\"⦃rb64:32⦄\"; pin-sha256=\"⦃rb64:32⦄\"; max-age=5184000"),
    ("gpg_public_key", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n⦃pgp⦄\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("gpg_fingerprint", "gpg: key ⦃HEX:16⦄: public key \"Release Bot <release@acme.io>\" imported\n"
                        "      Key fingerprint = ⦃HEX4g:10⦄"),
    ("gpg_fingerprint", "signing releases with 0x⦃HEX:16⦄ (fingerprint ⦃HEX:40⦄), verify with gpg --verify"),
    ("pgp_signature", "-----BEGIN PGP SIGNATURE-----\n\n⦃pgp⦄\n-----END PGP SIGNATURE-----"),
    ("age_public_key", "creation_rules:\n  - path_regex: secrets/.*\\.yaml$\n    age: age1⦃bech:58⦄"),
    ("age_public_key", "recipients.txt\nage1⦃bech:58⦄\nage1⦃bech:58⦄"),
    ("wireguard_public_key", "[Peer]\n# laptop-ana\nPublicKey = ⦃rb64:32⦄\nAllowedIPs = 10.8.0.5/32"),
    ("wireguard_public_key", "wg show\ninterface: wg0\n  public key: ⦃rb64:32⦄\n  private key: (hidden)\n  listening port: 51820"),
    ("jwk_public", "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"kid\":\"⦃b64u:43⦄\",\"alg\":\"RS256\",\"n\":\"⦃rb64u:256⦄\",\"e\":\"AQAB\"}]}"),
    ("jwk_public", "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"⦃rb64u:32⦄\",\"y\":\"⦃rb64u:32⦄\",\"use\":\"sig\"}"),
    ("dkim_record", "selector1._domainkey.acme.io. 300 IN TXT \"v=DKIM1; k=rsa; p=⦃pemline:pub⦄\""),
    ("ssh_host_keys_log", "cloud-init: -----BEGIN SSH HOST KEY FINGERPRINTS-----\n256 SHA256:⦃rb64n:32⦄ root@ip-10-0-1-5 (ECDSA)\n"
                          "256 SHA256:⦃rb64n:32⦄ root@ip-10-0-1-5 (ED25519)\n-----END SSH HOST KEY FINGERPRINTS-----"),
    # --- hashes and checksums
    ("git_sha", "commit ⦃hex:40⦄\nAuthor: Ana <ana@acme.io>\nDate:   Tue Jan 7 10:12:00 2025 +0100\n\n    fix: retry on 503"),
    ("git_sha", "git cherry-pick ⦃hex:40⦄ && git push origin hotfix/2.3.1"),
    ("git_sha", "Reverted ⦃hex:7⦄ (\"bump deps\") — it broke the arm64 build."),
    ("git_sha", "  - uses: actions/checkout@⦃hex:40⦄ # v4.1.1\n  - uses: actions/setup-node@⦃hex:40⦄ # v4.0.2"),
    ("git_sha", "Merge pull request #⦃int:100-9999⦄ from acme/feat/export\n\n⦃hex:40⦄...⦃hex:40⦄"),
    ("git_sha", "$ git log --oneline -3\n⦃hex:7⦄ docs: explain token rotation\n⦃hex:7⦄ ci: cache pip\n⦃hex:7⦄ feat: add /health"),
    ("git_sha", "El bug aparece desde el commit ⦃hex:12⦄; antes de ese todo pasaba."),
    ("git_sha", "go: downloading github.com/acme/lib v0.0.0-2024⦃dig:10⦄-⦃hex:12⦄"),
    ("docker_digest", "FROM python:3.12-slim@sha256:⦃hex:64⦄"),
    ("docker_digest", "image: ghcr.io/acme/api@sha256:⦃hex:64⦄"),
    ("docker_digest", "latest: digest: sha256:⦃hex:64⦄ size: 2416"),
    ("docker_digest", "$ docker ps\nCONTAINER ID   IMAGE        STATUS\n⦃hex:12⦄   redis:7      Up 3 hours\n⦃hex:12⦄   postgres:16  Up 3 hours"),
    ("docker_digest", " => [internal] load metadata for docker.io/library/node:20\n => CACHED [2/6] WORKDIR /app\n"
                      " => exporting to image\n => => writing image sha256:⦃hex:64⦄"),
    ("sri_hash", "<script src=\"https://cdn.jsdelivr.net/npm/htmx.org@1.9.10\" integrity=\"⦃sri:384⦄\" crossorigin=\"anonymous\"></script>"),
    ("sri_hash", "<link rel=\"stylesheet\" href=\"/assets/app.css\" integrity=\"⦃sri:256⦄\">"),
    ("lockfile_integrity", "\"node_modules/lodash\": {\n  \"version\": \"4.17.21\",\n  \"resolved\": \"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n"
                           "  \"integrity\": \"⦃sri:512⦄\"\n}"),
    ("lockfile_integrity", "lodash@^4.17.21:\n  version \"4.17.21\"\n  resolved \"https://registry.yarnpkg.com/lodash/-/lodash-4.17.21.tgz#⦃hex:40⦄\"\n"
                           "  integrity ⦃sri:512⦄"),
    ("lockfile_integrity", "  /react@18.2.0:\n    resolution: {integrity: ⦃sri:512⦄}\n    engines: {node: '>=0.10.0'}"),
    ("go_sum", "github.com/stretchr/testify v1.9.0 h1:⦃rb64:32⦄\ngithub.com/stretchr/testify v1.9.0/go.mod h1:⦃rb64:32⦄"),
    ("cargo_checksum", "[[package]]\nname = \"serde\"\nversion = \"1.0.197\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n"
                       "checksum = \"⦃hex:64⦄\""),
    ("pip_hash", "requests==2.31.0 \\\n    --hash=sha256:⦃hex:64⦄ \\\n    --hash=sha256:⦃hex:64⦄"),
    ("poetry_lock", "[[package]]\nname = \"idna\"\nversion = \"3.6\"\nfiles = [\n    {file = \"idna-3.6-py3-none-any.whl\", hash = \"sha256:⦃hex:64⦄\"},\n]"),
    ("gemfile_lock", "CHECKSUMS\n  rack (3.0.9) sha256=⦃hex:64⦄\n  rake (13.1.0) sha256=⦃hex:64⦄"),
    ("composer_lock", "\"dist\": {\"type\": \"zip\", \"url\": \"https://api.github.com/repos/guzzle/guzzle/zipball/⦃hex:40⦄\", \"reference\": \"⦃hex:40⦄\", \"shasum\": \"\"}"),
    ("checksum_file", "⦃hex:64⦄  ihmt-0.9.2-linux-amd64.tar.gz\n⦃hex:64⦄  ihmt-0.9.2-darwin-arm64.tar.gz"),
    ("checksum_file", "$ sha256sum backup-2025-01-03.sql.gz\n⦃hex:64⦄  backup-2025-01-03.sql.gz"),
    ("checksum_file", "MD5 (installer.dmg) = ⦃hex:32⦄"),
    ("checksum_file", "curl -LO https://dl.acme.io/cli.tgz && echo \"⦃hex:64⦄  cli.tgz\" | sha256sum -c -"),
    ("checksum_file", "Verificado: el SHA-1 del ISO es ⦃hex:40⦄, coincide con la web."),
    ("terraform_lock", "provider \"registry.terraform.io/hashicorp/aws\" {\n  version = \"5.31.0\"\n  hashes = [\n"
                       "    \"h1:⦃rb64:32⦄\",\n    \"zh:⦃hex:64⦄\",\n  ]\n}"),
    ("nix_hash", "src = fetchFromGitHub {\n  owner = \"acme\";\n  repo = \"cli\";\n  rev = \"v2.1.0\";\n  hash = \"⦃sri:256⦄\";\n};"),
    ("helm_lock", "dependencies:\n- name: redis\n  repository: https://charts.bitnami.com/bitnami\n  version: 18.6.1\n"
                  "digest: sha256:⦃hex:64⦄\ngenerated: \"2024-12-01T10:00:00Z\""),
    ("lfs_pointer", "version https://git-lfs.github.com/spec/v1\noid sha256:⦃hex:64⦄\nsize ⦃int:10000-99999999⦄"),
    ("webpack_hash", "asset main.⦃hex:20⦄.js 312 KiB [emitted] [immutable] [minimized] (name: main)\n"
                     "asset vendors.⦃hex:20⦄.js 1.1 MiB [emitted] [immutable] [big]"),
    ("webpack_hash", "<script defer src=\"/static/js/main.⦃hex:8⦄.js\"></script><link href=\"/static/css/main.⦃hex:8⦄.css\" rel=\"stylesheet\">"),
    ("cache_key", "Cache restored from key: Linux-pip-⦃hex:64⦄"),
    ("cache_key", "- uses: actions/cache@v4\n  with:\n    path: ~/.npm\n    key: ${{ runner.os }}-npm-${{ hashFiles('**/package-lock.json') }}"),
    ("etag", "HTTP/1.1 304 Not Modified\nETag: \"⦃hex:32⦄\"\nCache-Control: max-age=0, must-revalidate"),
    ("etag", "< etag: W/\"⦃hex:8⦄-⦃b64u:27⦄\"\n< x-cache: HIT"),
    ("hash_in_prose", "The file hash changed from ⦃hex:32⦄ to ⦃hex:32⦄ after the re-export, so the cache missed."),
    ("ipfs_cid", "pinned: ipfs://bafybei⦃b32l:52⦄"),
    ("ipfs_cid", "ipfs add logo.png\nadded Qm⦃b58:44⦄ logo.png"),
    # --- ids of many kinds
    ("uuid_ids", "INFO request_id=⦃uuid⦄ user_id=⦃uuid⦄ route=/api/orders status=200 dur=41ms"),
    ("uuid_ids", "metadata:\n  name: api-7d9f8c6b5-x2k4p\n  uid: ⦃uuid⦄\n  resourceVersion: \"⦃int:100000-9999999⦄\""),
    ("uuid_ids", "SELECT * FROM orders WHERE tenant_id = '⦃uuid⦄' AND id = '⦃uuid⦄';"),
    ("uuid_ids", "{\"id\": \"⦃uuid⦄\", \"type\": \"invoice.paid\", \"created\": ⦃epoch⦄}"),
    ("uuid_ids", "Project GUID {⦃UUID⦄} in the .sln — harmless, just VS bookkeeping."),
    ("uuid_ids", "Microsoft Visual Studio Solution File, Format Version 12.00\nProject(\"{⦃UUID⦄}\") = \"Api\", \"Api\\Api.csproj\", \"{⦃UUID⦄}\""),
    ("azure_ids", "az account set --subscription ⦃uuid⦄\naz aks get-credentials -g rg-prod -n aks-prod\n# tenant ⦃uuid⦄"),
    ("azure_ids", "ARM_CLIENT_ID=⦃uuid⦄\nARM_TENANT_ID=⦃uuid⦄\nARM_SUBSCRIPTION_ID=⦃uuid⦄\nARM_USE_OIDC=true"),
    ("oauth_client_id", "GOOGLE_CLIENT_ID=⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com"),
    ("oauth_client_id", "auth0:\n  domain: acme.eu.auth0.com\n  clientId: ⦃b62:32⦄\n  audience: https://api.acme.io"),
    ("oauth_client_id", "<meta name=\"google-signin-client_id\" content=\"⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com\">"),
    ("aws_ids", "arn:aws:iam::⦃dig:12⦄:role/github-actions-deploy"),
    ("aws_ids", "Instance i-0⦃hex:16⦄ in subnet-0⦃hex:16⦄ (vpc-0⦃hex:16⦄) failed health checks; sg-0⦃hex:16⦄ blocks 8080."),
    ("aws_ids", "\"Resource\": \"arn:aws:kms:eu-west-1:⦃dig:12⦄:key/⦃uuid⦄\""),
    ("aws_ids", "ami-0⦃hex:16⦄ is the new base image (built by packer run ⦃uuid⦄)"),
    ("aws_ids", "aws secretsmanager get-secret-value --secret-id arn:aws:secretsmanager:us-east-1:⦃dig:12⦄:secret:prod/db-⦃b62:6⦄ --query SecretString"),
    ("aws_ids", "x-amzn-RequestId: ⦃uuid⦄\nx-amz-id-2: ⦃rb64:48⦄\nx-amz-request-id: ⦃HEX:16⦄"),
    ("gcp_ids", "gcloud projects add-iam-policy-binding acme-prod-⦃dig:6⦄ --member serviceAccount:deployer@acme-prod-⦃dig:6⦄.iam.gserviceaccount.com --role roles/run.admin"),
    ("gcp_ids", "workload_identity_provider: projects/⦃dig:12⦄/locations/global/workloadIdentityPools/github/providers/acme"),
    ("stripe_object_ids", "Payment failed: pi_⦃b62:24⦄ for cus_⦃b62:14⦄ (invoice in_⦃b62:24⦄), card declined."),
    ("stripe_object_ids", "evt_⦃b62:24⦄ checkout.session.completed cs_live_⦃b62:58⦄"),
    ("stripe_object_ids", "refund re_⦃b62:24⦄ created for ch_⦃b62:24⦄ — price price_⦃b62:24⦄, product prod_⦃b62:14⦄"),
    ("twilio_sid", "Message SM⦃hex:32⦄ queued from AC⦃hex:32⦄ to +34 600 000 000"),
    ("slack_ids", "posted to channel C⦃up:10⦄ (thread ts ⦃epoch⦄.⦃dig:6⦄) by user U⦃up:10⦄ in team T⦃up:9⦄"),
    ("discord_ids", "guild ⦃dig:18⦄ channel ⦃dig:19⦄ message ⦃dig:19⦄ — reaction removed"),
    ("mongo_ids", "db.users.find({_id: ObjectId(\"⦃hex:24⦄\")})"),
    ("mongo_ids", "{\"_id\": {\"$oid\": \"⦃hex:24⦄\"}, \"sku\": \"A-19\", \"qty\": 3}"),
    ("trace_ids", "traceparent: 00-⦃hex:32⦄-⦃hex:16⦄-01"),
    ("trace_ids", "span_id=⦃hex:16⦄ trace_id=⦃hex:32⦄ service=checkout duration_ms=212"),
    ("trace_ids", "Sentry event ⦃hex:32⦄ grouped into issue ACME-API-⦃up:3⦄"),
    ("trace_ids", "X-Request-ID: ⦃uuid⦄\nX-Correlation-ID: ⦃ulid⦄\nX-Cloud-Trace-Context: ⦃hex:32⦄/⦃dig:19⦄;o=1"),
    ("ulid_ids", "created job ⦃ulid⦄; retried as ⦃ulid⦄"),
    ("nanoid_ids", "short link https://acme.link/⦃b64u:8⦄ -> /docs/getting-started (id ⦃b64u:21⦄)"),
    ("doc_urls", "Spec lives at https://docs.google.com/document/d/⦃b64u:44⦄/edit#heading=h.⦃low:12⦄"),
    ("doc_urls", "Figma: https://www.figma.com/file/⦃b62:22⦄/Checkout-v3?node-id=12-345"),
    ("doc_urls", "notion page https://www.notion.so/acme/Runbook-⦃hex:32⦄"),
    ("doc_urls", "Dashboard: https://grafana.acme.io/d/⦃b62:9⦄/api-latency?orgId=1&from=now-6h&to=now&var-env=prod"),
    ("doc_urls", "https://www.youtube.com/watch?v=⦃b64u:11⦄&t=42s — the talk that explains the retry storm"),
    ("doc_urls", "Drive folder: https://drive.google.com/drive/folders/1⦃b64u:32⦄?usp=sharing (view only, org)"),
    ("k8s_names", "NAME                          READY   STATUS    RESTARTS\napi-7f⦃low:8⦄-⦃low:5⦄      1/1     Running   0\n"
                  "worker-5c⦃low:8⦄-⦃low:5⦄   1/1     Running   2"),
    ("k8s_names", "Events:\n  Normal  Pulled  12s  kubelet  Container image \"ghcr.io/acme/api:⦃hex:7⦄\" already present on machine"),
    ("build_ids", "Build #⦃int:100-9999⦄ (⦃uuid⦄) finished: SUCCESS in 6m 12s — artifact api-⦃hex:7⦄.tar"),
    ("build_ids", "CI_PIPELINE_ID=⦃dig:9⦄ CI_JOB_ID=⦃dig:10⦄ CI_COMMIT_SHA=⦃hex:40⦄"),
    ("build_ids", "GITHUB_RUN_ID=⦃dig:10⦄ GITHUB_SHA=⦃hex:40⦄ GITHUB_REF=refs/heads/main"),
    ("device_ids", "iPhone UDID ⦃HEX:8⦄-⦃HEX:16⦄ registered in the dev profile"),
    ("device_ids", "adb devices\nList of devices attached\n⦃HEX:16⦄\tdevice"),
    ("mac_address", "eth0: link/ether ⦃hexcolon:6⦄ brd ff:ff:ff:ff:ff:ff"),
    ("crypto_address", "Send test funds to 0x⦃hex:40⦄ on Sepolia (public address, no keys here)."),
    ("crypto_address", "donations: bc1q⦃bech:38⦄"),
    ("crypto_address", "contract deployed at 0x⦃hex:40⦄, owner 0x⦃hex:40⦄"),
    ("tx_hash", "tx 0x⦃hex:64⦄ confirmed in block ⦃int:18000000-21000000⦄ (gas used 51,204)"),
    ("tx_hash", "https://etherscan.io/tx/0x⦃hex:64⦄"),
    ("tx_hash", "La transacción 0x⦃hex:64⦄ quedó pendiente por el gas bajo."),
    ("block_hash", "bitcoind: UpdateTip: new best=00000000000000000002⦃hex:44⦄ height=⦃int:800000-880000⦄"),
]

ORDINARY += [
    # --- keys documented as public
    ("stripe_publishable", "<script>const stripe = Stripe('pk_live_51⦃b62:96⦄');</script>"),
    ("stripe_publishable", "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_test_51⦃b62:96⦄"),
    ("clerk_publishable", "VITE_CLERK_PUBLISHABLE_KEY=pk_live_⦃b64of:clerk.acme.io$⦄"),
    ("mapbox_public", "mapboxgl.accessToken = 'pk.⦃b64uof:{\"u\":\"acme-geo\",\"a\":\"⟨low:25⟩\"}⦄.⦃b64u:22⦄';"),
    ("sentry_dsn", "Sentry.init({ dsn: \"https://⦃hex:32⦄@o⦃dig:6⦄.ingest.sentry.io/⦃dig:7⦄\", tracesSampleRate: 0.1 });"),
    ("sentry_dsn", "SENTRY_DSN=https://⦃hex:32⦄@o⦃dig:6⦄.ingest.us.sentry.io/⦃dig:7⦄"),
    ("supabase_anon", "const supabase = createClient('https://⦃lower:20⦄.supabase.co', '⦃jwt:anon⦄')"),
    ("supabase_anon", "NEXT_PUBLIC_SUPABASE_ANON_KEY=⦃jwt:anon⦄"),
    ("algolia_search_key", "const client = algoliasearch('⦃up:10⦄', '⦃hex:32⦄'); // search-only key, safe in the browser"),
    ("recaptcha_site_key", "<div class=\"g-recaptcha\" data-sitekey=\"6L⦃b64u:38⦄\"></div>"),
    ("posthog_key", "posthog.init('phc_⦃b62:43⦄', { api_host: 'https://eu.i.posthog.com' })"),
    ("analytics_ids", "<script async src=\"https://www.googletagmanager.com/gtag/js?id=G-⦃up:10⦄\"></script>\n"
                      "<!-- GTM-⦃up:7⦄ -->"),
    ("analytics_ids", "gtag('config', 'G-⦃up:10⦄'); fbq('init', '⦃dig:15⦄');"),
    ("launchdarkly_client_id", "const ldClient = LDClient.initialize('⦃hex:24⦄', { kind: 'user', key: userId });"),
    ("firebase_ids", "firebase: projectId acme-prod, messagingSenderId ⦃dig:12⦄, appId 1:⦃dig:12⦄:web:⦃hex:22⦄"),
    ("segment_public", "analytics.load(\"⦃b62:32⦄\") // Segment writeKey for the marketing site (public by design)"),
    ("publishable_prose", "The pk_live_ key is publishable, it ships in the JS bundle; only the sk_live_ one is secret."),
    ("vapid_public", "VAPID public key (goes to the browser): B⦃rb64u:64⦄"),
    ("paypal_client_id", "<script src=\"https://www.paypal.com/sdk/js?client-id=A⦃b64u:79⦄&currency=EUR\"></script>"),
    ("captcha_site_key", "hcaptcha sitekey ⦃uuid⦄ configured for /signup"),
    # --- placeholders and examples
    ("placeholder", "OPENAI_API_KEY=<your-openai-key>\nANTHROPIC_API_KEY=<your-anthropic-key>"),
    ("placeholder", "# .env.example\nDATABASE_URL=postgres://user:password@localhost:5432/app\nSECRET_KEY=changeme\n"
                    "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "db:\n  password: changeme   # placeholder, the chart reads the real one from a Secret"),
    ("placeholder", "export GITHUB_TOKEN=ghp_XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX  # replace with yours"),
    ("placeholder", "curl -H \"Authorization: Bearer $TOKEN\" https://api.acme.io/v1/me"),
    ("placeholder", "Set `SLACK_BOT_TOKEN` to the `xoxb-...` value from the OAuth page."),
    ("placeholder", "api_key = \"YOUR_API_KEY_HERE\""),
    ("placeholder", "aws_access_key_id = <ACCESS_KEY_ID>\naws_secret_access_key = <SECRET_ACCESS_KEY>"),
    ("placeholder", "Reemplaza TU_TOKEN por el token que te dé el administrador: curl -H 'Authorization: Bearer TU_TOKEN' ..."),
    ("placeholder", "mysql -u root -p\nEnter password:"),
    ("placeholder", "password: \"\"  # empty on purpose for the local sqlite profile"),
    ("placeholder", "spring.datasource.password=\nspring.datasource.username=sa"),
    ("placeholder", "POSTGRES_PASSWORD=postgres  # default for the throwaway dev container only"),
    ("placeholder", "username: admin\npassword: admin   # default creds of the vendor demo image, change on first login"),
    ("placeholder", "DJANGO_SECRET_KEY=replace-me-in-production"),
    ("placeholder", "\"apiKey\": \"{{API_KEY}}\",\n\"baseUrl\": \"{{BASE_URL}}\""),
    ("placeholder", "Authorization: Basic base64(username:password)"),
    ("placeholder", "mongodb+srv://<username>:<password>@cluster0.⦃low:5⦄.mongodb.net/?retryWrites=true"),
    ("placeholder", "redis://:<password>@localhost:6379/0"),
    ("placeholder", "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "[default]\nregion = us-east-1\noutput = json\n# credentials come from SSO: aws sso login --profile dev"),
    ("placeholder", "JWT_SECRET=dev-secret-do-not-use"),
    ("placeholder", "token: \"...\"  # paste yours here, never commit it"),
    ("placeholder", "`sk-ant-...` keys go in ANTHROPIC_API_KEY; the SDK picks it up automatically."),
    ("placeholder", "PRIVATE_KEY=0x0000000000000000000000000000000000000000000000000000000000000000"),
    ("placeholder", "<add key=\"ApiKey\" value=\"[YOUR KEY]\" />"),
    ("placeholder", "password = \"hunter2\"  # the classic joke from bash.org, used as a sample in the docs"),
    ("placeholder", "La contraseña por defecto es `admin`; el instalador pide cambiarla al primer inicio."),
    # --- references to secrets kept elsewhere
    ("env_reference", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/app"),
    ("env_reference", "environment:\n  - POSTGRES_PASSWORD=${POSTGRES_PASSWORD:?set it in .env}\n  - PGDATA=/var/lib/postgresql/data"),
    ("env_reference", "password = os.environ[\"DB_PASSWORD\"]\napi_key = os.getenv(\"STRIPE_SECRET_KEY\")"),
    ("env_reference", "String token = System.getenv(\"GITHUB_TOKEN\");\nif (token == null) throw new IllegalStateException(\"no token\");"),
    ("env_reference", "let key = std::env::var(\"OPENAI_API_KEY\").expect(\"OPENAI_API_KEY not set\");"),
    ("env_reference", "var secret = Environment.GetEnvironmentVariable(\"JWT_SECRET\") ?? throw new InvalidOperationException();"),
    ("env_reference", "config :shop, Shop.Repo, password: System.get_env(\"DB_PASSWORD\")"),
    ("env_reference", "api_key: ENV.fetch(\"SENDGRID_API_KEY\")"),
    ("env_reference", "$password = getenv('DB_PASSWORD');\n$dsn = \"mysql:host=db;dbname=shop\";"),
    ("env_reference", "const token = process.env.SLACK_BOT_TOKEN ?? '';"),
    ("env_reference", "token := os.Getenv(\"VAULT_TOKEN\")\nif token == \"\" {\n    log.Fatal(\"VAULT_TOKEN missing\")\n}"),
    ("env_reference", "spring.datasource.password=${DB_PASSWORD}\nspring.mail.password=${SMTP_PASSWORD:}"),
    ("env_reference", "ExecStart=/usr/bin/api --db-password-file=/run/credentials/api.service/db"),
    ("env_reference", "docker run -e STRIPE_SECRET_KEY -e DATABASE_URL --env-file .env acme/api"),
    ("ci_secret_reference", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_ROLE_ARN: ${{ vars.AWS_ROLE_ARN }}"),
    ("ci_secret_reference", "- uses: aws-actions/configure-aws-credentials@v4\n  with:\n    role-to-assume: arn:aws:iam::⦃dig:12⦄:role/gha\n"
                            "    aws-region: eu-west-1"),
    ("ci_secret_reference", "deploy:\n  script:\n    - echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" --password-stdin $CI_REGISTRY"),
    ("ci_secret_reference", "withCredentials([string(credentialsId: 'sonar-token', variable: 'SONAR_TOKEN')]) {\n    sh 'mvn sonar:sonar -Dsonar.token=$SONAR_TOKEN'\n}"),
    ("ci_secret_reference", "steps:\n  - label: \":rocket: deploy\"\n    command: ./deploy.sh\n    plugins:\n"
                            "      - seek-oss/aws-sm#v2.3.2:\n          env:\n            API_KEY: prod/api-key"),
    ("ci_secret_reference", "- run:\n    name: publish\n    command: npm publish\n    environment:\n      NODE_AUTH_TOKEN: $NPM_TOKEN\n"
                            "# NPM_TOKEN is set in the CircleCI context 'release'"),
    ("ci_secret_reference", "gh secret set STRIPE_SECRET_KEY --env production < /dev/stdin"),
    ("helm_reference", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-creds\n        key: password"),
    ("helm_reference", "password: {{ .Values.postgresql.auth.password | quote }}\napiKey: {{ required \"apiKey is required\" .Values.apiKey }}"),
    ("helm_reference", "envFrom:\n  - secretRef:\n      name: api-secrets\n  - configMapRef:\n      name: api-config"),
    ("secret_manager_reference", "DB_PASSWORD=op://Production/postgres/password\nSTRIPE_KEY=op://Production/stripe/secret-key"),
    ("secret_manager_reference", "value: \"@Microsoft.KeyVault(SecretUri=https://kv-acme.vault.azure.net/secrets/DbPassword/)\""),
    ("secret_manager_reference", "gcloud secrets versions access latest --secret=db-password --project acme-prod"),
    ("secret_manager_reference", "vault kv get -field=password secret/data/prod/db"),
    ("secret_manager_reference", "apiVersion: external-secrets.io/v1beta1\nkind: ExternalSecret\nspec:\n  secretStoreRef:\n"
                                 "    name: aws-sm\n  data:\n  - secretKey: password\n    remoteRef:\n      key: prod/db\n      property: password"),
    ("secret_manager_reference", "data \"aws_secretsmanager_secret_version\" \"db\" {\n  secret_id = \"prod/db\"\n}\n"
                                 "password = jsondecode(data.aws_secretsmanager_secret_version.db.secret_string)[\"password\"]"),
    ("secret_manager_reference", "resource \"random_password\" \"db\" {\n  length  = 32\n  special = true\n}\n"
                                 "password = random_password.db.result"),
    ("secret_manager_reference", "const dbPassword = config.requireSecret(\"dbPassword\");"),
    ("secret_manager_reference", "db_password: \"{{ lookup('community.hashi_vault.hashi_vault', 'secret=secret/data/db:password') }}\""),
    ("secret_manager_reference", "ansible_become_password: \"{{ vault_become_password }}\""),
    ("secret_manager_reference", "doppler secrets get STRIPE_KEY --plain --project api --config prd"),
    ("secret_manager_reference", "services:\n  api:\n    secrets:\n      - db_password\nsecrets:\n  db_password:\n    file: ./secrets/db_password.txt"),
    ("secret_manager_reference", "RUN --mount=type=secret,id=npmrc,target=/root/.npmrc npm ci"),
    ("secret_manager_reference", "aws ssm get-parameter --name /prod/api/jwt-secret --with-decryption --query Parameter.Value"),
    ("secret_manager_reference", "Las credenciales están en el gestor de secretos (prod/db); no las copies al repo."),
    ("secret_manager_reference", "password_command = \"pass show acme/smtp\""),
    ("secret_manager_reference", "[credential]\n\thelper = osxkeychain"),
    # --- redacted, masked, hidden
    ("redacted", "Run aws configure list\n      Name                    Value             Type    Location\n"
                 "access_key     ****************⦃up:4⦄ shared-credentials-file\nsecret_key     ****************⦃up:4⦄ shared-credentials-file"),
    ("redacted", "env:\n  NPM_TOKEN: ***\nRun npm publish\nnpm notice Publishing to https://registry.npmjs.org/"),
    ("redacted", "DATABASE_URL=postgres://app:********@db:5432/app"),
    ("redacted", "{\"level\":\"info\",\"msg\":\"outgoing request\",\"headers\":{\"Authorization\":\"[REDACTED]\",\"X-Api-Key\":\"[REDACTED]\"}}"),
    ("redacted", "token: ghp_************************************ (masked in the UI, last used 3 days ago)"),
    ("redacted", "Your API key: sk-...⦃b62:4⦄ (created Jan 3, never used)"),
    ("redacted", "password=<redacted> user=svc_batch ip=10.4.2.9 result=FAILED"),
    ("redacted", "Authorization: Bearer eyJ...(truncated)"),
    ("redacted", "kubectl get secret db-creds -o yaml\n...\ndata:\n  password: <hidden>\n"),
    ("redacted", "La clave se muestra como •••••••• en el panel; hay que regenerarla para verla."),
    ("redacted", "STRIPE_SECRET_KEY=sk_live_…REDACTED…"),
    ("redacted", "Set-Cookie: session=<omitted>; Path=/; HttpOnly"),
    ("redacted", "ERROR auth failed: invalid api key (key ending in ...⦃hex:4⦄)"),
    # --- fake fixtures said to be fake
    ("fake_fixture", "def test_rejects_bad_token(client):\n    r = client.get('/me', headers={'Authorization': 'Bearer not-a-real-token'})\n    assert r.status_code == 401"),
    ("fake_fixture", "FAKE_STRIPE_KEY = \"sk_test_\" + \"0\" * 24  # obviously fake, only for parser tests"),
    ("fake_fixture", "it('masks passwords', () => {\n  expect(mask('password=dummy')).toBe('password=*****');\n});"),
    ("fake_fixture", "@pytest.fixture\ndef creds():\n    return {\"user\": \"test\", \"password\": \"test\"}"),
    ("fake_fixture", "let key = \"EXAMPLEKEY\".to_string(); // fixture, not a credential"),
    ("fake_fixture", "const jwt = 'header.payload.signature'; // shape only, for the splitter test"),
    ("fake_fixture", "assertThat(redact(\"token=abc123\")).isEqualTo(\"token=***\");"),
    ("fake_fixture", "TEST_DATABASE_URL=sqlite:///:memory:"),
    ("fake_fixture", "# fixtures/users.yml\nalice:\n  email: alice@example.com\n  password_digest: <%= BCrypt::Password.create('secret') %>"),
    # --- docs describing token formats
    ("docs_token_format", "GitHub personal access tokens start with `ghp_`, fine-grained ones with `github_pat_`."),
    ("docs_token_format", "Slack bot tokens look like `xoxb-` followed by numbers and letters; user tokens use `xoxp-`."),
    ("docs_token_format", "AWS access key ids begin with AKIA (long-term) or ASIA (temporary) and are 20 characters long."),
    ("docs_token_format", "Los tokens de GitLab tienen el prefijo glpat- y 20 caracteres más."),
    ("docs_token_format", "Stripe secret keys start with sk_live_ or sk_test_; restricted ones with rk_. Never put them in the frontend."),
    ("docs_token_format", "| Prefix | Meaning |\n|---|---|\n| `sk-proj-` | OpenAI project key |\n| `hf_` | Hugging Face |\n| `npm_` | npm automation token |"),
    ("docs_token_format", "Our detector regex for JWTs: `eyJ[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]+`"),
    ("docs_token_format", "A PEM private key starts with a line `-----BEGIN PRIVATE KEY-----`; never paste one into a ticket."),
    ("docs_token_format", "`AGE-SECRET-KEY-1...` is an age identity; the matching `age1...` recipient is public."),
    ("docs_token_format", "Vault service tokens now start with hvs., batch tokens with hvb., recovery tokens with hvr."),
    ("docs_token_format", "gitleaks detect --source . --redact --report-format sarif --report-path gitleaks.sarif"),
    ("docs_token_format", "# .gitleaks.toml\n[[rules]]\nid = \"acme-internal-key\"\nregex = '''acme_[a-z0-9]{32}'''\ntags = [\"key\"]"),
    ("docs_token_format", "To rotate: Settings → Developer settings → Tokens → Regenerate. The old token stops working immediately."),
]

ORDINARY += [
    # --- ciphertext meant to be committed
    ("sops_encrypted", "db:\n    password: ENC[AES256_GCM,data:⦃rb64:18⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]\n"
                       "sops:\n    age:\n        - recipient: age1⦃bech:58⦄\n    lastmodified: \"2025-01-04T09:12:33Z\"\n"
                       "    mac: ENC[AES256_GCM,data:⦃rb64:48⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]"),
    ("sops_encrypted", "{\n  \"api_key\": \"ENC[AES256_GCM,data:⦃rb64:40⦄,iv:⦃rb64:32⦄,tag:⦃rb64:16⦄,type:str]\"\n}"),
    ("ansible_vault", "db_password: !vault |\n  $ANSIBLE_VAULT;1.1;AES256\n  ⦃hexlines:5:80:2⦄"),
    ("ansible_vault", "$ANSIBLE_VAULT;1.2;AES256;prod\n⦃hexlines:6:80⦄"),
    ("sealed_secret", "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: db-creds\nspec:\n"
                      "  encryptedData:\n    password: AgB⦃rb64:340⦄"),
    ("rails_credentials_enc", "config/credentials.yml.enc\n⦃rb64:180⦄--⦃rb64:12⦄--⦃rb64:16⦄"),
    ("git_crypt", "$ git-crypt status\n    encrypted: secrets/prod.env\nnot encrypted: README.md"),
    ("kms_ciphertext", "aws kms encrypt --key-id alias/app --plaintext fileb://note.txt --query CiphertextBlob --output text\n"
                       "AQICAHh⦃rb64:150⦄"),
    ("encrypted_travis", "env:\n  global:\n    - secure: \"⦃rb64:256⦄\""),
    # --- per-message signatures, nonces, challenges
    ("webhook_signature", "POST /webhooks/stripe HTTP/1.1\nStripe-Signature: t=⦃epoch⦄,v1=⦃hex:64⦄\nContent-Type: application/json"),
    ("webhook_signature", "X-Hub-Signature-256: sha256=⦃hex:64⦄\nX-GitHub-Event: push\nX-GitHub-Delivery: ⦃uuid⦄"),
    ("webhook_signature", "X-Slack-Request-Timestamp: ⦃epoch⦄\nX-Slack-Signature: v0=⦃hex:64⦄"),
    ("webhook_signature", "svix-id: msg_⦃b62:27⦄\nsvix-timestamp: ⦃epoch⦄\nsvix-signature: v1,⦃rb64:32⦄"),
    ("webhook_signature", "X-Shopify-Hmac-Sha256: ⦃rb64:32⦄\nX-Shopify-Topic: orders/create"),
    ("webhook_signature", "Verified signature ⦃hex:64⦄ against the body (hmac ok), processing delivery ⦃uuid⦄"),
    ("csp_nonce", "Content-Security-Policy: script-src 'self' 'nonce-⦃rb64:16⦄' 'sha256-⦃rb64:32⦄'; object-src 'none'"),
    ("csp_nonce", "<script nonce=\"⦃rb64:16⦄\">window.__INITIAL_STATE__ = {\"page\":1};</script>"),
    ("websocket_key", "GET /chat HTTP/1.1\nUpgrade: websocket\nSec-WebSocket-Key: ⦃rb64:16⦄\nSec-WebSocket-Version: 13"),
    ("websocket_key", "HTTP/1.1 101 Switching Protocols\nUpgrade: websocket\nSec-WebSocket-Accept: ⦃rb64:20⦄"),
    ("pkce", "GET /authorize?response_type=code&client_id=⦃b62:32⦄&redirect_uri=https%3A%2F%2Fapp.acme.io%2Fcb"
             "&code_challenge=⦃rb64u:32⦄&code_challenge_method=S256&state=⦃b64u:22⦄"),
    ("oauth_state", "Redirecting to https://app.acme.io/callback?state=⦃b64u:32⦄&error=access_denied"),
    ("digest_auth", "WWW-Authenticate: Digest realm=\"api\", qop=\"auth\", nonce=\"⦃hex:32⦄\", opaque=\"⦃hex:32⦄\""),
    ("sigv4_scope", "canonical request hash ⦃hex:64⦄, string to sign scope 20250102/eu-west-1/s3/aws4_request"),
    ("csrf_meta", "<meta name=\"csrf-param\" content=\"authenticity_token\">\n<meta name=\"csrf-token\" content=\"⦃rb64:64⦄\">"),
    ("captcha_response", "POST /signup  h-captcha-response=P1_⦃b64u:120⦄ (validated once by the server)"),
    # --- encoded data and blobs
    ("base64_image", "<img alt=\"logo\" src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA⦃rb64:240⦄\">"),
    ("base64_image", ".icon { background: url(data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci⦃rb64:120⦄); }"),
    ("base64_image", "\"avatar\": \"data:image/jpeg;base64,/9j/4AAQSkZJRgABAQ⦃rb64:300⦄\""),
    ("base64_font", "@font-face { font-family: Inter; src: url(data:font/woff2;base64,d09GMgABAAAAA⦃rb64:360⦄) format('woff2'); }"),
    ("base64_config", "kind: ConfigMap\nbinaryData:\n  logo.png: iVBORw0KGgoAAAANSUhEUgAA⦃rb64:180⦄"),
    ("base64_config", "echo ⦃b64of:{\"env\":\"prod\",\"replicas\":3,\"region\":\"eu-west-1\"}⦄ | base64 -d\n"
                      "{\"env\":\"prod\",\"replicas\":3,\"region\":\"eu-west-1\"}"),
    ("base64_config", "k8s Secret keys decode to non-secret config:\n  LOG_LEVEL: ⦃b64of:debug⦄\n  REGION: ⦃b64of:eu-west-1⦄"),
    ("protobuf_blob", "grpc payload (base64): CgR0ZXN0⦃rb64:60⦄ decoded to OrderRequest{id: 42}"),
    ("pagination_cursor", "GET /v1/events?limit=100&cursor=⦃b64of:{\"created\":⟨epoch⟩,\"id\":\"evt_⟨b62:14⟩\"}⦄"),
    ("pagination_cursor", "{\"data\": [...], \"next_page_token\": \"⦃rb64u:48⦄\", \"has_more\": true}"),
    ("hex_dump", "00000000  89 50 4e 47 0d 0a 1a 0a  00 00 00 0d 49 48 44 52  |.PNG........IHDR|\n"
                 "00000010  ⦃hexsp:8⦄  ⦃hexsp:8⦄  |................|"),
    ("hex_dump", "kernel: Code: ⦃hexsp:16⦄ <0f> 0b ⦃hexsp:8⦄"),
    ("uuencoded_blob", "begin 644 patch.bin\nM⦃b64:60⦄\nend"),
    ("random_seed", "np.random.seed(⦃int:0-99999⦄)  # fixed for reproducible splits\ntorch.manual_seed(⦃int:0-99999⦄)"),
    ("random_seed", "hypothesis: Falsifying example ... @reproduce_failure('6.98.0', b'AXicY2BgYGQAAA⦃rb64:12⦄')"),
    ("salt_public", "password_hash: argon2 params m=65536,t=3,p=4 — the salt is per-user and stored next to the hash"),
    # --- minified code and source maps
    ("minified_js", "!function(e,t){\"object\"==typeof exports?module.exports=t():e.lib=t()}(this,function(){var e=\"⦃hex:32⦄\",t=[⦃intlist:12⦄];"
                    "return function(n){return e+n.length}});"),
    ("minified_js", "(self.webpackChunkapp=self.webpackChunkapp||[]).push([[⦃int:100-999⦄],{⦃int:1000-99999⦄:(e,t,n)=>{\"use strict\";n.d(t,{Z:()=>r});"
                    "var r=n(⦃int:1000-99999⦄)}}]);\n//# sourceMappingURL=⦃int:100-999⦄.⦃hex:8⦄.chunk.js.map"),
    ("source_map", "{\"version\":3,\"file\":\"main.js\",\"sources\":[\"src/index.ts\"],\"names\":[],\"mappings\":\"⦃vlq:60⦄\"}"),
    ("minified_css", ".a-⦃low:6⦄{display:flex}.b-⦃low:6⦄{color:#⦃hex:6⦄}.c-⦃low:6⦄:hover{background:#⦃hex:6⦄}"),
    ("obfuscated_names", "var _0x⦃hex:4⦄=['\\x63\\x6f\\x6e\\x73\\x6f\\x6c\\x65','\\x6c\\x6f\\x67'];(function(_0x⦃hex:6⦄){})(_0x⦃hex:4⦄);"),
    ("wasm_blob", "const bytes = Uint8Array.from(atob('AGFzbQEAAAAB⦃rb64:90⦄'), c => c.charCodeAt(0));"),
    # --- URLs with harmless query strings
    ("harmless_url", "https://www.acme.io/pricing?utm_source=newsletter&utm_medium=email&utm_campaign=q1-launch&utm_content=⦃hex:8⦄"),
    ("harmless_url", "https://github.com/acme/api/compare/⦃hex:7⦄...⦃hex:7⦄?expand=1"),
    ("harmless_url", "https://api.acme.io/v2/search?q=token+rotation&page=3&per_page=50&sort=updated"),
    ("harmless_url", "https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#logsV2:log-groups/log-group/$252Faws$252Flambda$252Fapi"),
    ("harmless_url", "https://www.google.com/maps/place/Madrid/@40.4167754,-3.7037902,12z/data=!3m1!4b1!4m6!3m5!1s0xd422997800a3c81:0xc436dec1618c2269"),
    ("harmless_url", "https://app.datadoghq.eu/apm/trace/⦃dig:19⦄?spanID=⦃dig:19⦄&env=prod"),
    ("harmless_url", "https://fonts.googleapis.com/css2?family=Inter:wght@400;600&display=swap"),
    ("harmless_url", "https://acme.io/unsubscribe?list=weekly&email=ana%40acme.io&ref=⦃b62:8⦄"),
    ("harmless_url", "https://www.amazon.es/dp/B0⦃up:8⦄?ref_=⦃low:8⦄&th=1"),
    ("harmless_url", "https://cdn.acme.io/img/hero.webp?w=1200&q=80&fm=webp&v=⦃hex:10⦄"),
    ("harmless_url", "https://login.microsoftonline.com/⦃uuid⦄/oauth2/v2.0/authorize?client_id=⦃uuid⦄&response_type=code&scope=openid"),
    ("harmless_url", "https://accounts.google.com/o/oauth2/v2/auth?client_id=⦃dig:12⦄-⦃low:32⦄.apps.googleusercontent.com&scope=email&response_type=code"),
    ("harmless_url", "Artifact: https://github.com/acme/cli/releases/download/v2.4.0/cli_2.4.0_linux_amd64.tar.gz"),
    ("harmless_url", "http://localhost:3000/callback?code=&error=invalid_request&error_description=Missing+code_verifier"),
    # --- versions
    ("version_string", "Python 3.12.1 (main, Dec 12 2023, 10:14:33) [GCC 12.2.0] on linux"),
    ("version_string", "node v20.11.0, npm 10.2.4, pnpm 8.15.1 — built from ⦃hex:9⦄"),
    ("version_string", "ihmt 0.9.2+g⦃hex:7⦄.d20250104"),
    ("version_string", "kubectl version\nClient Version: v1.29.1\nServer Version: v1.28.5-eks-⦃hex:7⦄"),
    ("version_string", "Docker version 25.0.2, build 29cf629\nDocker Compose version v2.24.5"),
    ("version_string", "\"dependencies\": {\"react\": \"^18.2.0\", \"next\": \"14.1.0\", \"zod\": \"3.22.4\"}"),
    ("version_string", "rustc 1.75.0 (82e1608df 2023-12-21)\ncargo 1.75.0 (1d8b05cdd 2023-11-20)"),
    ("version_string", "require github.com/aws/aws-sdk-go-v2 v1.24.1\nrequire golang.org/x/crypto v0.0.0-2024⦃dig:10⦄-⦃hex:12⦄ // indirect"),
    ("version_string", "OpenSSL 3.0.13 30 Jan 2024 (Library: OpenSSL 3.0.13 30 Jan 2024)"),
    ("version_string", "Versión desplegada: 4.2.0-rc.3 (build ⦃dig:5⦄, commit ⦃hex:8⦄)"),
]

ORDINARY += [
    # --- config and infra files with no secret in them
    ("config_no_secret", "[server]\nhost = \"0.0.0.0\"\nport = 8080\nworkers = 4\n\n[auth]\ntoken_ttl = \"15m\"\npassword_min_length = 12"),
    ("config_no_secret", "auth:\n  jwt:\n    algorithm: RS256\n    jwks_url: https://auth.acme.io/.well-known/jwks.json\n    audience: api"),
    ("config_no_secret", "session.cookie_secure=true\nsession.cookie_httponly=true\nsecurity.password.bcrypt.cost=12"),
    ("config_no_secret", "<appSettings>\n  <add key=\"TokenLifetimeMinutes\" value=\"30\" />\n  <add key=\"RequireHttps\" value=\"true\" />\n</appSettings>"),
    ("config_no_secret", "config :shop, ShopWeb.Endpoint,\n  url: [host: \"acme.io\", port: 443],\n  cache_static_manifest: \"priv/static/cache_manifest.json\""),
    ("config_no_secret", "PASSWORD_RESET_TIMEOUT=3600\nTOKEN_EXPIRY_SECONDS=900\nMAX_LOGIN_ATTEMPTS=5"),
    ("config_no_secret", "provider \"aws\" {\n  region  = var.region\n  profile = \"acme-prod\"\n  assume_role {\n"
                         "    role_arn = \"arn:aws:iam::⦃dig:12⦄:role/terraform\"\n  }\n}"),
    ("config_no_secret", "- name: create app user\n  ansible.builtin.user:\n    name: app\n    password_lock: true\n    shell: /usr/sbin/nologin"),
    ("config_no_secret", "FROM golang:1.22 AS build\nWORKDIR /src\nCOPY . .\nRUN CGO_ENABLED=0 go build -o /out/api ./cmd/api\n"
                         "FROM gcr.io/distroless/static\nCOPY --from=build /out/api /api\nUSER nonroot\nENTRYPOINT [\"/api\"]"),
    ("config_no_secret", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: deployer\n  annotations:\n"
                         "    eks.amazonaws.com/role-arn: arn:aws:iam::⦃dig:12⦄:role/deployer"),
    ("config_no_secret", "permissions:\n  id-token: write\n  contents: read\njobs:\n  deploy:\n    runs-on: ubuntu-latest\n"
                         "    steps:\n      - uses: actions/checkout@v4\n      - run: make deploy"),
    ("config_no_secret", "stages: [test, deploy]\ntest:\n  image: python:3.12\n  script:\n    - pip install -e .[dev]\n    - pytest -q"),
    ("config_no_secret", "pipeline {\n  agent any\n  stages {\n    stage('Build') { steps { sh './gradlew build' } }\n  }\n}"),
    ("config_no_secret", "ssh_config:\nHost bastion\n  HostName 52.⦃int:0-255⦄.⦃int:0-255⦄.⦃int:1-254⦄\n  User ec2-user\n  IdentityFile ~/.ssh/acme_ed25519\n  IdentitiesOnly yes"),
    ("config_no_secret", "[mysqld]\nbind-address = 127.0.0.1\nssl-ca = /etc/mysql/ca.pem\nssl-cert = /etc/mysql/server-cert.pem\nssl-key = /etc/mysql/server-key.pem"),
    ("config_no_secret", "server {\n  listen 443 ssl;\n  ssl_certificate     /etc/letsencrypt/live/acme.io/fullchain.pem;\n"
                         "  ssl_certificate_key /etc/letsencrypt/live/acme.io/privkey.pem;\n}"),
    ("config_no_secret", "pub struct Config {\n    pub api_key: Secret<String>,\n    pub timeout: Duration,\n}"),
    ("config_no_secret", "public record DbOptions(string Host, int Port, string User, string PasswordSecretName);"),
    ("config_no_secret", "type Credentials struct {\n\tAccessKeyID     string `json:\"access_key_id\"`\n\tSecretAccessKey string `json:\"secret_access_key\"`\n}"),
    ("config_no_secret", "class Settings(BaseSettings):\n    database_url: PostgresDsn\n    secret_key: SecretStr\n    model_config = SettingsConfigDict(env_file='.env')"),
    # --- logs and traces without secrets
    ("log_lines", "2025-01-30T02:11:45Z WARN auth: invalid password for user=svc_batch (attempt 3/5) ip=10.4.2.9"),
    ("log_lines", "level=info msg=\"token refreshed\" subject=user:⦃int:1000-99999⦄ expires_in=3600 kid=⦃hex:16⦄"),
    ("log_lines", "[ssh] Accepted publickey for deploy from 10.0.3.4 port 51122 ssh2: ED25519 SHA256:⦃rb64n:32⦄"),
    ("log_lines", "Jan 04 10:12:13 web1 sshd[⦃int:1000-99999⦄]: Failed password for invalid user admin from 45.⦃int:0-255⦄.⦃int:0-255⦄.⦃int:1-254⦄ port 40022 ssh2"),
    ("log_lines", "INFO  [main] o.s.b.w.e.tomcat.TomcatWebServer: Tomcat started on port(s): 8080 (http)\n"
                  "INFO  Using generated security password: see the startup banner — disabled in prod profile"),
    ("log_lines", "vault: core: successfully unsealed with 3 key shares, cluster_id=⦃uuid⦄"),
    ("log_lines", "certbot: Congratulations! Your certificate and chain have been saved at /etc/letsencrypt/live/acme.io/fullchain.pem"),
    ("log_lines", "npm ERR! code E401\nnpm ERR! Unable to authenticate, your authentication token seems to be invalid."),
    ("log_lines", "Error: error configuring Terraform AWS Provider: no valid credential sources for Terraform AWS Provider found."),
    ("log_lines", "fatal: Authentication failed for 'https://github.com/acme/private.git/'"),
    ("log_lines", "E0104 10:00:01.123456 1 reflector.go:147] failed to list *v1.Secret: secrets is forbidden: User \"system:serviceaccount:ci:deployer\" cannot list resource \"secrets\""),
    ("stack_trace", "Traceback (most recent call last):\n  File \"app.py\", line 12, in <module>\n    key = os.environ[\"STRIPE_SECRET_KEY\"]\n"
                    "  File \"<frozen os>\", line 679, in __getitem__\nKeyError: 'STRIPE_SECRET_KEY'"),
    ("stack_trace", "java.lang.IllegalArgumentException: JWT signature does not match locally computed signature.\n"
                    "\tat io.jsonwebtoken.impl.DefaultJwtParser.parse(DefaultJwtParser.java:411)"),
    ("stack_trace", "thread 'main' panicked at src/main.rs:14:46:\ncalled `Result::unwrap()` on an `Err` value: NotPresent"),
    ("stack_trace", "botocore.exceptions.ClientError: An error occurred (ExpiredToken) when calling the GetObject operation: "
                    "The provided token has expired."),
    ("stack_trace", "Unhandled exception. System.InvalidOperationException: The ConnectionString property has not been initialized."),
    # --- HTTP exchanges without credentials
    ("http_exchange", "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer realm=\"api\", error=\"invalid_token\", error_description=\"The access token expired\""),
    ("http_exchange", "< HTTP/2 200\n< content-type: application/json\n< x-ratelimit-remaining: 4999\n< x-github-request-id: ⦃HEX:4⦄:⦃HEX:6⦄:⦃HEX:7⦄:⦃HEX:8⦄:⦃HEX:8⦄"),
    ("http_exchange", "Set-Cookie: theme=dark; Path=/; Max-Age=31536000\nSet-Cookie: _ga=GA1.1.⦃dig:10⦄.⦃epoch⦄; Domain=.acme.io"),
    ("http_exchange", "Cookie: cookie_consent=accepted; lang=es; _gid=GA1.2.⦃dig:9⦄.⦃epoch⦄"),
    ("http_exchange", "{\"token_type\":\"Bearer\",\"expires_in\":3599,\"scope\":\"read write\",\"access_token\":\"<elided>\"}"),
    ("http_exchange", "curl -s https://api.github.com/meta | jq '.ssh_keys[0]'\n\"ssh-ed25519 ⦃sshpub:ed25519⦄\""),
    ("http_exchange", "GET /.well-known/openid-configuration\n{\"issuer\":\"https://auth.acme.io\",\"jwks_uri\":\"https://auth.acme.io/.well-known/jwks.json\"}"),
    ("http_exchange", "http POST :8000/login username=ana password=  # httpie prompts for the password"),
    # --- prose, chat, commits, issues
    ("prose_no_secret", "Rotated the Stripe key today; the new one is in the vault under prod/stripe. Nothing to change in code."),
    ("prose_no_secret", "Reminder: never paste tokens here. If you did, revoke it in the provider console first, then tell #security."),
    ("prose_no_secret", "He cambiado la contraseña de la base de datos; la nueva está en 1Password, bóveda Producción."),
    ("prose_no_secret", "The login failed because the password had a trailing newline from `echo`; use `printf` instead."),
    ("prose_no_secret", "Le pedí a Marta el token de Sentry y me dijo que lo genere yo desde Settings → Auth Tokens."),
    ("prose_no_secret", "Debugging note: the 403 came from the IAM role, not the key — the policy lacked s3:GetObject on arn:aws:s3:::acme-exports/*."),
    ("prose_no_secret", "chat: ana: did the webhook secret change? | jdoe: no, it's the same one in the secret store, the signature check failed because of body parsing"),
    ("commit_message", "fix(auth): stop logging the Authorization header\n\nThe debug middleware dumped all headers; now it\nreplaces credentials with [REDACTED]."),
    ("commit_message", "chore: remove leaked key from history (already revoked)\n\nSee incident INC-⦃int:100-999⦄."),
    ("commit_message", "feat: read DB password from /run/secrets instead of env\n\nCloses #⦃int:100-9999⦄"),
    ("issue_comment", "> Token rotation broke the nightly job\n\nThe job uses `${{ secrets.DEPLOY_TOKEN }}`, which still points to the old PAT. Updating the secret fixed it."),
    ("issue_comment", "I can reproduce with any key format — e.g. `sk_test_` plus 24 x's — the validator rejects it before calling Stripe."),
    ("readme", "## Configuration\n\n| Variable | Required | Description |\n|---|---|---|\n| `DATABASE_URL` | yes | Postgres DSN |\n"
               "| `SECRET_KEY` | yes | 50 random chars, generate with `openssl rand -hex 32` |"),
    ("readme", "### Generating a key\n\n```sh\npython -c 'import secrets; print(secrets.token_urlsafe(32))'\n```\nPut the output in `APP_SECRET`; never commit it."),
    ("readme", "Para ejecutar localmente, copia `.env.example` a `.env` y rellena `API_KEY` con tu propia clave."),
    ("shell_history", "  301  ssh-keygen -t ed25519 -C \"ana@acme.io\"\n  302  cat ~/.ssh/id_ed25519.pub | pbcopy\n  303  gh auth login --web"),
    ("shell_history", "  88  aws sso login --profile prod\n  89  aws s3 ls s3://acme-exports --profile prod\n  90  export AWS_PROFILE=prod"),
    ("shell_history", "$ openssl rand -hex 32 > /run/secrets/app_key && chmod 600 /run/secrets/app_key"),
    ("shell_history", "psql \"host=db.internal dbname=app user=ana sslmode=verify-full\"  # password from ~/.pgpass"),
    ("shell_history", "kubectl create secret generic db-creds --from-file=password=./db_password.txt -n shop"),
    ("shell_history", "gpg --export --armor release@acme.io > public.asc"),
    ("shell_history", "ssh -i ~/.ssh/acme_deploy -o IdentitiesOnly=yes deploy@10.0.4.2 'sudo systemctl status api'"),
    ("shell_history", "docker login ghcr.io -u jdoe --password-stdin < ~/.config/ghcr_token"),
    ("db_cli_no_password", "mysql -h db.internal -u report -p analytics\nEnter password: \nmysql> SELECT count(*) FROM events;"),
    ("db_cli_no_password", "postgresql://app@db.internal:5432/app?sslmode=verify-full&sslrootcert=/etc/ssl/rds-ca.pem"),
    ("db_cli_no_password", "redis-cli -h cache.internal --tls --user app --askpass"),
    ("db_cli_no_password", "Server=tcp:acme.database.windows.net,1433;Database=crm;Authentication=Active Directory Managed Identity;"),
    ("db_cli_no_password", "jdbc:postgresql://pg:5432/app?ssl=true&sslmode=verify-full&ApplicationName=orders"),
]


# -------------------------------------------------------------------------- generator

_ALPHABETS = {
    "hex": "0123456789abcdef",
    "hexl": "0123456789abcdef",
    "HEX": "0123456789ABCDEF",
    "dig": string.digits,
    "up": string.ascii_uppercase + string.digits,
    "UP": string.ascii_uppercase,
    "low": string.ascii_lowercase + string.digits,
    "lower": string.ascii_lowercase,
    "alpha": string.ascii_letters,
    "b62": string.ascii_letters + string.digits,
    "b64": string.ascii_letters + string.digits + "+/",
    "b64u": string.ascii_letters + string.digits + "-_",
    "b32": string.ascii_uppercase + "234567",
    "b32l": string.ascii_lowercase + "234567",
    "b58": "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz",
    "bech": "qpzry9x8gf2tvdw0s3jn54khce6mua7l",
    "BECH": "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
    "crock": "0123456789ABCDEFGHJKMNPQRSTVWXYZ",
    # Azure client secrets: letters, digits and a few marks.
    "azs": string.ascii_letters + string.digits + "_-.~",
    # Django's key generator alphabet (lowercase, digits, punctuation).
    "djs": string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)",
    # WordPress-style salts: printable, minus quotes, backslash and spaces.
    "wps": string.ascii_letters + string.digits + "!@#%^&*()-_=+[]{}|;:,.<>/?~",
}

_SYMBOLS = "!#%*+-=?@^_~"
_URL_SAFE_SYMBOLS = "-_.~"
# Words for human-looking passwords: none is a known default.
_PW_STEMS = ("Tangerine Marmota Quokka Velvet Lantern Caramelo Ventisca Granito Orchid Pistacho "
             "Hornet Brisa Zeppelin Mandarina Bramble Tucan Oregano Galleta Kestrel Farola").split()
# Words for wallet-style seed phrases (any common words do; the checksum will not hold).
_SEED_WORDS = ("acid alpine bamboo canvas cherry cousin desert dragon eagle elbow fabric filter "
               "garlic genius harbor hockey island ivory jacket jungle kettle kidney ladder lemon "
               "magnet meadow napkin noble orbit oyster pencil pepper quarter quiz rabbit radar "
               "saddle salmon tennis ticket uncle useful valley velvet walnut wealth yellow zebra").split()

_SHAPE = re.compile(r"⦃([A-Za-z0-9]+)(?::([^⦄]*))?⦄")
_INNER = re.compile(r"⟨([A-Za-z0-9]+)(?::([^⟩]*))?⟩")


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _noise(rng: random.Random, n: int) -> bytes:
    return bytes(rng.getrandbits(8) for _ in range(n))


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def _b64u(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _password(rng: random.Random, symbols: str = _SYMBOLS) -> str:
    """A strong random password: a letter first, then a mix that surely holds an upper- and
    a lowercase letter, a digit and a symbol."""
    size = rng.randint(16, 24)
    needed = [rng.choice(string.ascii_uppercase), rng.choice(string.ascii_lowercase),
              rng.choice(string.digits), rng.choice(symbols)]
    rest = [rng.choice(string.ascii_letters + string.digits + symbols) for _ in range(size - 5)]
    tail = needed + rest
    rng.shuffle(tail)
    return rng.choice(string.ascii_letters) + "".join(tail)


def _human_password(rng: random.Random) -> str:
    """What a person might choose: a word, a separator, a number, maybe a mark."""
    return (rng.choice(_PW_STEMS) + rng.choice(["", "_", ".", "-", "@"])
            + str(rng.randint(100, 99999)) + rng.choice(["", "!", "?", "#", "%"]))


# DER (or OpenSSH) headers of the key and certificate encodings drawn here, with the length
# of random filler that follows each. Only the framing is real; the content is noise.
_DER = {
    "rsa": ("308204a40201000282010100", 1180),
    "pkcs8": ("308204bd020100300d06092a864886f70d0101010500048204a7", 1190),
    "enc": ("3082050e304006092a864886f70d01050d3033", 1280),
    "cert": ("3082035a30820242a003020102021400", 840),
    "pub": ("30820122300d06092a864886f70d01010105000382010f003082010a0282010100", 262),
}


def _key_bytes(rng: random.Random, kind: str) -> bytes:
    if kind in _DER:
        head, size = _DER[kind]
        return bytes.fromhex(head) + _noise(rng, size)
    if kind == "ec":
        return (bytes.fromhex("30770201010420") + _noise(rng, 32)
                + bytes.fromhex("a00a06082a8648ce3d030107a14403420004") + _noise(rng, 64))
    if kind == "ec8":
        return (bytes.fromhex("308187020100301306072a8648ce3d020106082a8648ce3d030107046d306b0201010420")
                + _noise(rng, 32) + bytes.fromhex("a14403420004") + _noise(rng, 64))
    if kind == "ecpub":
        return (bytes.fromhex("3059301306072a8648ce3d020106082a8648ce3d03010703420004")
                + _noise(rng, 64))
    if kind == "openssh":
        return (b"openssh-key-v1\x00" + b"\x00\x00\x00\x04none" * 2 + b"\x00\x00\x00\x00\x00\x00\x00\x01"
                + b"\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + _noise(rng, 330))
    raise ValueError(f"no key kind {kind!r}")


_LABELS = {"rsa": "RSA PRIVATE KEY", "pkcs8": "PRIVATE KEY", "ec8": "PRIVATE KEY", "ec": "EC PRIVATE KEY",
           "enc": "ENCRYPTED PRIVATE KEY", "openssh": "OPENSSH PRIVATE KEY", "cert": "CERTIFICATE",
           "pub": "PUBLIC KEY", "ecpub": "PUBLIC KEY"}


def _lines(text: str, width: int) -> list[str]:
    return [text[i:i + width] for i in range(0, len(text), width)]


def _pem_body(rng: random.Random, kind: str) -> list[str]:
    return _lines(_b64(_key_bytes(rng, kind)), 70 if kind == "openssh" else 64)


def _ssh_blob(rng: random.Random, kind: str) -> str:
    def field(data: bytes) -> bytes:
        return len(data).to_bytes(4, "big") + data

    if kind == "rsa":
        blob = field(b"ssh-rsa") + field(b"\x01\x00\x01") + field(b"\x00" + _noise(rng, 384))
    elif kind == "ecdsa":
        blob = field(b"ecdsa-sha2-nistp256") + field(b"nistp256") + field(b"\x04" + _noise(rng, 64))
    else:
        blob = field(b"ssh-ed25519") + field(_noise(rng, 32))
    return _b64(blob)


def _jwt(rng: random.Random, variant: str) -> str:
    issued = rng.randint(1_700_000_000, 1_760_000_000)
    if variant == "rs":
        head = {"alg": "RS256", "typ": "JWT", "kid": _chars(rng, _ALPHABETS["b64u"], 22)}
        body = {"iss": "https://login.acme.io/", "sub": _chars(rng, _ALPHABETS["hex"], 24),
                "aud": ["orders-api"], "iat": issued, "exp": issued + 3600, "scope": "openid orders:write"}
        sig_len = 256
    elif variant == "k8s":
        head = {"alg": "RS256", "kid": _chars(rng, _ALPHABETS["b64u"], 43)}
        body = {"aud": ["https://kubernetes.default.svc"], "iat": issued, "exp": issued + 31_536_000,
                "iss": "https://kubernetes.default.svc.cluster.local",
                "sub": "system:serviceaccount:ci:deployer"}
        sig_len = 256
    elif variant in ("anon", "service_role"):
        head = {"alg": "HS256", "typ": "JWT"}
        body = {"iss": "supabase", "ref": _chars(rng, string.ascii_lowercase, 20), "role": variant,
                "iat": issued, "exp": issued + 315_000_000}
        sig_len = 32
    else:
        head = {"alg": "HS256", "typ": "JWT"}
        body = {"uid": rng.randint(10_000, 9_999_999), "iat": issued, "exp": issued + 7200}
        sig_len = 32
    parts = [_b64u(json.dumps(p, separators=(",", ":")).encode()) for p in (head, body)]
    return ".".join(parts + [_b64u(_noise(rng, sig_len))])


def _vlq(rng: random.Random, segments: int) -> str:
    out = []
    for i in range(segments):
        if i:
            out.append(";" if rng.random() < 0.2 else ",")
        out.append(_chars(rng, _ALPHABETS["b64"], rng.choice((4, 4, 5, 6))))
    return "".join(out)


def _pem_shape(rng: random.Random, name: str, arg: str) -> str:
    """The PEM-related shapes: a wrapped body, an escaped one, one line, or a whole base64 PEM."""
    kind, _, indent = arg.partition(":")
    if name == "pem":
        return ("\n" + " " * int(indent or 0)).join(_pem_body(rng, kind))
    if name == "pemesc":
        return "\\n".join(_pem_body(rng, kind))
    if name == "pemline":
        return _b64(_key_bytes(rng, kind))
    label = _LABELS[kind]
    whole = "\n".join([f"-----BEGIN {label}-----", *_pem_body(rng, kind), f"-----END {label}-----", ""])
    return _b64(whole.encode())


def _grouped(rng: random.Random, name: str, arg: str) -> str:
    """Shapes made of repeated groups: hex lines, hex bytes, colon pairs, lists."""
    parts = [int(p) for p in arg.split(":") if p] if arg else []
    if name == "hexlines":
        count, width, indent = (parts + [0])[:3]
        return ("\n" + " " * indent).join(_chars(rng, _ALPHABETS["hex"], width) for _ in range(count))
    if name == "b64lines":
        size, width = parts
        return "\n".join(_lines(_b64(_noise(rng, size)), width))
    if name == "hexsp":
        return " ".join(_chars(rng, _ALPHABETS["hex"], 2) for _ in range(parts[0]))
    if name in ("hexcolon", "HEXcolon"):
        return ":".join(_chars(rng, _ALPHABETS["hex" if name == "hexcolon" else "HEX"], 2) for _ in range(parts[0]))
    if name == "HEX4g":
        groups = [_chars(rng, _ALPHABETS["HEX"], 4) for _ in range(parts[0])]
        half = len(groups) // 2
        return " ".join(groups[:half]) + "  " + " ".join(groups[half:])
    if name == "b32g":
        return " ".join(_chars(rng, _ALPHABETS["b32l"], 4) for _ in range(parts[0]))
    if name == "intlist":
        return ",".join(str(rng.randrange(256)) for _ in range(parts[0]))
    if name == "words":
        return " ".join(rng.choice(_SEED_WORDS) for _ in range(parts[0]))
    raise ValueError(f"no grouped shape {name!r}")


_GROUPED = {"hexlines", "b64lines", "hexsp", "hexcolon", "HEXcolon", "HEX4g", "b32g", "intlist", "words"}


def _fill(rng: random.Random, name: str, arg: str | None) -> str:
    """The text drawn for one shape."""
    arg = arg or ""
    if name in _ALPHABETS:
        return _chars(rng, _ALPHABETS[name], int(arg or 16))
    if name in _GROUPED:
        return _grouped(rng, name, arg)
    if name in ("pem", "pemesc", "pemline", "pemb64"):
        return _pem_shape(rng, name, arg or "rsa")
    if name == "rb64":
        return _b64(_noise(rng, int(arg or 32)))
    if name == "rb64n":
        return _b64(_noise(rng, int(arg or 32))).rstrip("=")
    if name == "rb64u":
        return _b64u(_noise(rng, int(arg or 32)))
    if name == "rb64pct":
        raw = _b64(_noise(rng, int(arg or 32)))
        return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    if name == "pw":
        return _password(rng)
    if name == "pwu":
        return _password(rng, _URL_SAFE_SYMBOLS)
    if name == "pwh":
        return _human_password(rng)
    if name == "b64pw":
        return _b64(_password(rng).encode())
    if name == "basic":
        return _b64(f"{arg or 'svc'}:{_password(rng)}".encode())
    if name == "b64of":
        return _b64(arg.encode())
    if name == "b64uof":
        return _b64u(arg.encode())
    if name == "sri":
        bits = int(arg or 384)
        return f"sha{bits}-" + _b64(_noise(rng, bits // 8))
    if name in ("uuid", "UUID"):
        h = _chars(rng, _ALPHABETS["hex"], 32)
        h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
        u = "-".join((h[:8], h[8:12], h[12:16], h[16:20], h[20:]))
        return u.upper() if name == "UUID" else u
    if name == "ulid":
        return rng.choice("01234567") + _chars(rng, _ALPHABETS["crock"], 25)
    if name == "jwt":
        return _jwt(rng, arg or "hs")
    if name == "sshpub":
        return _ssh_blob(rng, arg or "ed25519")
    if name == "pgp":
        body = _b64(_noise(rng, rng.randint(600, 900)))
        return "\n".join(_lines(body, 64)) + "\n=" + _chars(rng, _ALPHABETS["b64"], 4)
    if name == "wif":
        return rng.choice("KL") + _chars(rng, _ALPHABETS["b58"], 51)
    if name == "int":
        low, _, high = (arg or "1-9999").partition("-")
        return str(rng.randint(int(low), int(high)))
    if name == "epoch":
        return str(rng.randint(1_700_000_000, 1_760_000_000))
    if name == "vlq":
        return _vlq(rng, int(arg or 40))
    raise ValueError(f"no shape {name!r}")


def drawn_cases(label: str, seed: int, secrets: list[tuple[str, str]],
                ordinary: list[tuple[str, str]],
                extra: Callable[[random.Random, str, str], str | None] | None = None,
                ) -> tuple[list[FreshCase], list[FreshCase]]:
    """A split's cases from its templates, drawn from ``random.Random(f"{label}:{seed}")``:
    inner shapes filled, then outer ones, then the «» marks turned into spans; a set's own
    shapes (``extra(rng, name, arg)``, None for one it leaves to :func:`_fill`) tried
    first. (secrets, ordinary); each ordinary template is drawn twice, independently."""
    rng = random.Random(f"{label}:{seed}")

    def draw(m: re.Match[str]) -> str:
        got = extra(rng, m.group(1), m.group(2) or "") if extra is not None else None
        return got if got is not None else _fill(rng, m.group(1), m.group(2))

    def render(kind: str, template: str) -> FreshCase:
        return marked(kind, _SHAPE.sub(draw, _INNER.sub(draw, template)))

    return ([render(kind, template) for kind, template in secrets],
            [render(kind, template) for _ in range(2) for kind, template in ordinary])


def seventh_cases(seed: int = 43) -> tuple[list[FreshCase], list[FreshCase]]:
    """The seventh split drawn from ``seed``: (secrets, ordinary); each ordinary template is
    drawn twice, independently."""
    return drawn_cases("seventh", seed, SECRETS, ORDINARY)
