"""A sixth held-out secrets set, split ``"sixth"``: written blind, to be measured once.

What it is. A set of texts of the kind a coding agent's memory really receives (notes saved
after a debugging session, shell history, CI/CD files, Dockerfiles and compose files,
Kubernetes and Helm values, Terraform, app config in many formats and languages, log lines
and stack traces, HTTP exchanges, chat messages pasted by the user, prose in English and
Spanish), split into texts that hold a secret and ordinary texts that only look risky. It
was written before reading the detector's rules, its tests, its reliability notes or any
earlier held-out set (``secrets_corpus``, ``secrets_fresh``, ``secrets_third``,
``secrets_fourth``, ``secrets_fifth``), from general knowledge of published credential
formats. The only things read were the ``FreshCase`` dataclass and the ``marked`` helper
of ``bench.secrets_fresh`` and ``evaluate_split``/``covered`` of ``bench.secrets`` (a
``grep -A`` for the dataclass also showed that module's docstring and its first dozen
secret templates, AWS formats; nothing else of it was read). It is meant to be measured
once and then left alone: a rule change that needs one of these texts to change is a rule
fitted to this set.

Nothing here is a credential. Every template names *shapes* (``‹hex:32›``, ``‹b62:40›``,
``‹pw›``, ``‹jwt:hs›``, ``‹pem:rsa›`` ...) that a generator seeded by ``seed`` fills at run
time, so the file holds no key-like literal: only public format prefixes (``ghp_``,
``sk_live_``, ``AKIA``, ``xoxb-``, the base64 of a JWT header, ...). Every value drawn is
random noise; checksummed formats fail their checksums. In a secret template the span a
detector must mask is marked ``«...»`` (removed from the text by ``marked``); a secret case
is caught when every marked span is covered. Ordinary templates carry no marks and each is
rendered twice with independent draws.

Decided before measuring (what counts as a secret, what as ordinary):

* A secret is a value that by itself grants access, signs, or decrypts: passwords and
  passphrases, API keys and tokens, private keys (also when encrypted, escaped onto one
  line, or base64-wrapped as in a kubeconfig or a Kubernetes Secret), session cookies,
  signing and encryption secrets (Django ``SECRET_KEY``, Rails ``secret_key_base``,
  Laravel ``APP_KEY``, JWT secrets), capability URLs whose path or query is the credential
  (chat webhooks, presigned S3/GCS URLs, password-reset and magic links, API keys in query
  strings), TOTP seeds, recovery codes, wallet seed phrases and wallet private keys.
* Test-mode keys (``sk_test_``), ``django-insecure-`` keys, and tokens said to be revoked
  or expired are still secrets when their value is present: the format cannot tell.
* AWS access key ids (``AKIA``/``ASIA``) are counted as secrets (half of a credential
  pair, conventionally treated as one). Other identifiers that sit next to a secret
  (Twilio ``AC`` account SIDs, API-key ids used as usernames, a GCP ``private_key_id``, a
  Discord webhook's numeric id, OAuth client ids) are not marked.
* Google ``AIza`` keys are secrets wherever they appear (none appears in an ordinary text).
* Weak, well-known defaults and placeholders (``changeme``, ``password``, ``admin``,
  ``your_key_here``, ``xxxx``, ``<your-token>``, ``****``, ``[REDACTED]``) are NOT
  secrets; they appear only in ordinary texts (``.env.example``, docs, masked logs). No
  secret template uses a weak password: every secret value is random.
* Keys that providers document as public are ordinary: Stripe ``pk_live_``/``pk_test_``,
  Mapbox ``pk.``, Sentry DSNs, the Supabase anon key, Algolia search-only keys, reCAPTCHA
  site keys, PostHog ``phc_`` keys, LaunchDarkly client-side ids, Clerk publishable keys,
  OAuth client ids, Google Analytics/GTM ids. Their secret counterparts (``sk_live_``,
  Mapbox ``sk.``, Supabase ``service_role``, Algolia admin keys, LaunchDarkly ``sdk-``) are
  secrets.
* Ciphertext made to be committed is ordinary: sops ``ENC[...]`` values, ``$ANSIBLE_VAULT``
  blobs, SealedSecret ``encryptedData``.
* Per-message signatures and nonces are ordinary (``Stripe-Signature``,
  ``X-Hub-Signature-256``, CSP nonces and hashes, ``Sec-WebSocket-Key``, Digest-auth
  nonces, PKCE ``code_challenge``, OAuth ``state``): they authenticate one message and
  grant nothing. The signature of a presigned URL is different: it is what makes the URL a
  capability, so it is marked.
* Resource ids in URLs (Google Docs, Figma, Notion, Grafana, object ids, Stripe ``ch_``/
  ``cus_`` ids) are ordinary: access to them is governed elsewhere.
* Analytics and preference cookies (``_ga``, ``theme``) are ordinary; session cookies are
  secrets.
* Password hashes (bcrypt, argon2) are left out of both sides.
* Marks are minimal: only the value (the password inside a connection URL, the base64
  body between a PEM's BEGIN and END lines, the credential part of a webhook path), the
  whole token for JWTs and prefixed tokens, and each recovery code on its own.

``sixth_cases(seed)`` returns ``(secrets, ordinary)``: lists of :class:`FreshCase`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string

from bench.secrets_fresh import FreshCase, marked

SPLIT = "sixth"

# ----------------------------------------------------------------------------- secrets

# (kind, template). Kinds name a *format*; several phrasings and file forms per kind.
SECRETS: list[tuple[str, str]] = [
    # --- AWS
    ("aws_key_pair", "[profile staging]\naws_access_key_id = «AKIA‹b32:16›»\n"
                     "aws_secret_access_key = «‹b64:40›»\nregion = eu-central-1\noutput = json"),
    ("aws_key_pair", "$ aws configure\nAWS Access Key ID [None]: «AKIA‹b32:16›»\n"
                     "AWS Secret Access Key [None]: «‹b64:40›»\nDefault region name [None]: "
                     "us-west-2\nDefault output format [None]: json"),
    ("aws_access_key_id", "- name: Configure AWS\n  uses: aws-actions/configure-aws-credentials@v4\n"
                          "  with:\n    aws-access-key-id: «AKIA‹b32:16›»\n    aws-secret-access-key: "
                          "${{ secrets.AWS_SECRET_ACCESS_KEY }}\n    aws-region: eu-west-1"),
    ("aws_secret_access_key", "s3 = boto3.client(\"s3\", aws_access_key_id=os.environ[\"AWS_KEY_ID\"],\n"
                              "                  aws_secret_access_key=\"«‹b64:40›»\")"),
    ("aws_secret_access_key", "FROM amazon/aws-cli:2.15.30\nENV AWS_DEFAULT_REGION=eu-west-1 \\\n"
                              "    AWS_SECRET_ACCESS_KEY=«‹b64:40›»\nENTRYPOINT [\"aws\"]"),
    ("aws_session_token", "export AWS_ACCESS_KEY_ID=«ASIA‹b32:16›»\nexport AWS_SECRET_ACCESS_KEY="
                          "«‹b64:40›»\nexport AWS_SESSION_TOKEN=«IQoJb3JpZ2luX2Vj‹b64:360›»"),
    ("aws_presigned_url", "here's the export link I generated for finance (valid 7 days): "
                          "https://acme-exports.s3.eu-west-1.amazonaws.com/reports/q3.csv?"
                          "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=«AKIA‹b32:16›»"
                          "%2F20250312%2Feu-west-1%2Fs3%2Faws4_request&X-Amz-Date=20250312T101500Z"
                          "&X-Amz-Expires=604800&X-Amz-SignedHeaders=host&X-Amz-Signature=«‹hex:64›»"),
    # --- Google Cloud
    ("gcp_service_account_key", "{\n  \"type\": \"service_account\",\n  \"project_id\": \"acme-prod-‹dig:6›\",\n"
                                "  \"private_key_id\": \"‹hex:40›\",\n  \"private_key\": \"-----BEGIN PRIVATE "
                                "KEY-----\\n«‹pemesc:pkcs8›»\\n-----END PRIVATE KEY-----\\n\",\n  \"client_email\": "
                                "\"exporter@acme-prod-‹dig:6›.iam.gserviceaccount.com\",\n  \"client_id\": "
                                "\"‹dig:21›\",\n  \"token_uri\": \"https://oauth2.googleapis.com/token\"\n}"),
    ("google_api_key", "GOOGLE_MAPS_SERVER_KEY=«AIza‹b64u:35›»\nGEOCODE_CACHE_TTL=86400"),
    ("google_api_key", "curl 'https://generativelanguage.googleapis.com/v1beta/models/gemini-1.5-flash:"
                       "generateContent?key=«AIza‹b64u:35›»' -H 'Content-Type: application/json' -d @req.json"),
    ("google_oauth_client_secret", "{\"web\":{\"client_id\":\"‹dig:12›-‹low:32›.apps.googleusercontent.com\","
                                   "\"project_id\":\"acme-login\",\"client_secret\":\"«GOCSPX-‹b64u:28›»\","
                                   "\"redirect_uris\":[\"http://localhost:8080/callback\"]}}"),
    ("google_oauth_token", "gcloud auth print-access-token\n«ya29.‹b64u:200›»"),
    ("google_oauth_token", "creds.json after the consent flow:\n{\"token\": \"«ya29.‹b64u:180›»\", "
                           "\"refresh_token\": \"«1//0‹b64u:100›»\", \"client_id\": "
                           "\"‹dig:12›-‹low:32›.apps.googleusercontent.com\", \"scopes\": "
                           "[\"https://www.googleapis.com/auth/drive.readonly\"]}"),
    # --- Azure
    ("azure_storage_key", "AZURE_STORAGE_CONNECTION_STRING=\"DefaultEndpointsProtocol=https;"
                          "AccountName=acmelogs‹dig:2›;AccountKey=«‹rb64:64›»;EndpointSuffix=core.windows.net\""),
    ("azure_client_secret", "az login --service-principal -u ‹uuid› -p «‹b62:3›‹dig:1›Q~‹b64u:34›» "
                            "--tenant ‹uuid›"),
    ("azure_client_secret", "provider \"azurerm\" {\n  features {}\n  subscription_id = \"‹uuid›\"\n"
                            "  client_id       = \"‹uuid›\"\n  client_secret   = \"«‹b62:3›‹dig:1›Q~‹b64u:34›»\"\n"
                            "  tenant_id       = \"‹uuid›\"\n}"),
    ("azure_sas_token", "BlobEndpoint=https://acmebackup.blob.core.windows.net/;SharedAccessSignature="
                        "sv=2022-11-02&ss=bfqt&srt=sco&sp=rwdlacupiytfx&se=2025-09-30T17:00:00Z"
                        "&st=2025-03-01T09:00:00Z&spr=https&sig=«‹rb64pct:32›»"),
    ("azure_devops_pat", "git clone https://pat:«‹low:52›»@dev.azure.com/acme/platform/_git/infra"),
    ("azure_service_bus", "\"ServiceBus\": \"Endpoint=sb://acme-bus.servicebus.windows.net/;"
                          "SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey=«‹rb64:32›»\""),
    ("azure_cosmos_key", "COSMOS_CONNECTION=AccountEndpoint=https://acme-cosmos.documents.azure.com:443/;"
                         "AccountKey=«‹rb64:64›»;"),
    # --- other clouds and platforms
    ("digitalocean_token", "doctl auth init --access-token «dop_v1_‹hex:64›»"),
    ("cloudflare_api_token", "CLOUDFLARE_API_TOKEN=«‹b64u:40›»  # zone:dns:edit on acme.dev"),
    ("cloudflare_global_key", "curl -X GET \"https://api.cloudflare.com/client/v4/zones\" \\\n"
                              "  -H \"X-Auth-Email: ops@acme.dev\" \\\n  -H \"X-Auth-Key: «‹hex:37›»\""),
    ("alibaba_access_key", "[default]\naccess_key_id = «LTAI‹b62:20›»\naccess_key_secret = «‹b62:30›»\n"
                           "region_id = cn-hangzhou"),
    ("hetzner_token", "export HCLOUD_TOKEN=«‹b62:64›»\nhcloud server list"),
    ("ibm_cloud_api_key", "ibmcloud login --apikey «‹b64u:44›» -r us-south -g default"),
    ("heroku_api_key", "machine api.heroku.com\n  login marta@acme.dev\n  password «‹uuid›»\n"
                       "machine git.heroku.com\n  login marta@acme.dev\n  password «‹uuid›»"),
    ("heroku_api_key", "HEROKU_API_KEY=«HRKU-‹b64u:60›» heroku releases -a acme-api"),
    ("vercel_token", "vercel deploy --prod --token=«‹b62:24›» --scope acme"),
    ("netlify_token", "NETLIFY_AUTH_TOKEN=«nfp_‹b62:36›» netlify deploy --prod --dir=dist"),
    ("fly_token", "fly tokens create deploy -a acme-api\n«FlyV1 fm2_‹rb64:180›»"),
    ("supabase_service_role", "SUPABASE_URL=https://‹low:20›.supabase.co\n"
                              "SUPABASE_SERVICE_ROLE_KEY=«‹jwt:service_role›»"),
    ("supabase_access_token", "supabase login --token «sbp_‹hex:40›»\nsupabase link --project-ref ‹low:20›"),
    ("terraform_cloud_token", "# ~/.terraform.d/credentials.tfrc.json\n{\n  \"credentials\": {\n"
                              "    \"app.terraform.io\": {\n      \"token\": \"«‹b62:14›.atlasv1.‹b62:67›»\"\n"
                              "    }\n  }\n}"),
    ("vault_token", "export VAULT_ADDR=https://vault.internal:8200\nexport VAULT_TOKEN=«hvs.‹b64u:90›»\n"
                    "vault kv get secret/prod/api"),
    ("pulumi_token", "PULUMI_ACCESS_TOKEN=«pul-‹hex:40›» pulumi up --stack prod --yes"),
    ("doppler_token", "doppler run --token «dp.st.prd.‹b62:43›» -- npm start"),
    ("tailscale_auth_key", "tailscale up --authkey=«tskey-auth-‹b62:12›CNTRL-‹b62:33›» --hostname=build-07"),
    ("onepassword_sa_token", "OP_SERVICE_ACCOUNT_TOKEN=«ops_‹rb64u:420›»"),
    ("ngrok_authtoken", "ngrok config add-authtoken «‹dig:1›‹b62:26›_‹b62:21›»"),
    # --- payments
    ("stripe_secret_key", "STRIPE_SECRET_KEY=«sk_live_‹b62:99›»\nSTRIPE_API_VERSION=2024-04-10"),
    ("stripe_secret_key", "Stripe.api_key = '«sk_test_‹b62:24›»'"),
    ("stripe_secret_key", "<appSettings>\n  <add key=\"StripeSecretKey\" value=\"«sk_live_‹b62:24›»\" />\n"
                          "  <add key=\"Currency\" value=\"EUR\" />\n</appSettings>"),
    ("stripe_restricted_key", "curl https://api.stripe.com/v1/charges -u «rk_live_‹b62:99›»: -d limit=3"),
    ("stripe_webhook_secret", "endpoint_secret = \"«whsec_‹b62:32›»\"\nevent = stripe.Webhook.construct_event("
                              "payload, sig_header, endpoint_secret)"),
    ("braintree_access_token", "BRAINTREE_ACCESS_TOKEN=«access_token$production$‹low:16›$‹hex:32›»"),
    ("square_access_token", "square:\n  environment: production\n  access_token: «EAAA‹b64u:60›»"),
    ("shopify_access_token", "X-Shopify-Access-Token: «shpat_‹hex:32›»"),
    ("shopify_shared_secret", "SHOPIFY_API_KEY=‹hex:32›\nSHOPIFY_API_SECRET=«shpss_‹hex:32›»"),
    ("paypal_client_secret", "PAYPAL_CLIENT_ID=A‹b64u:79›\nPAYPAL_CLIENT_SECRET=«E‹b64u:79›»\nPAYPAL_MODE=live"),
    ("mercadopago_access_token", "el access token de Mercado Pago de producción es "
                                 "«APP_USR-‹dig:16›-‹dig:6›-‹hex:32›-‹dig:9›», no lo subas al repo"),
    ("razorpay_secret", "RAZORPAY_KEY_ID=rzp_live_‹b62:14›\nRAZORPAY_KEY_SECRET=«‹b62:24›»"),
    # --- messaging and chat
    ("slack_bot_token", "SLACK_BOT_TOKEN=«xoxb-‹dig:12›-‹dig:13›-‹b62:24›»\nSLACK_CHANNEL=#deploys"),
    ("slack_user_token", "curl -H 'Authorization: Bearer «xoxp-‹dig:12›-‹dig:12›-‹dig:13›-‹hex:32›»' "
                         "https://slack.com/api/conversations.list"),
    ("slack_app_token", "socket mode needs the app-level token too: «xapp-1-A‹UP:10›-‹dig:13›-‹hex:64›»"),
    ("slack_webhook", "notify:\n  stage: .post\n  script:\n    - curl -X POST --data '{\"text\":\"deploy done\"}' "
                      "https://hooks.slack.com/services/«T‹UP:10›/B‹UP:10›/‹b62:24›»"),
    ("slack_webhook", "SLACK_WEBHOOK_URL: https://hooks.slack.com/services/«T‹UP:8›/B‹UP:11›/‹b62:24›»"),
    ("discord_bot_token", "DISCORD_TOKEN=«M‹b64u:25›.‹b64u:6›.‹b64u:38›»\nGUILD_ID=‹dig:19›"),
    ("discord_webhook", "webhook_url = \"https://discord.com/api/webhooks/‹dig:19›/«‹b64u:68›»\""),
    ("telegram_bot_token", "bot = telebot.TeleBot(\"«‹dig:10›:AA‹b64u:33›»\")"),
    ("telegram_bot_token", "el token del bot de Telegram de alertas es «‹dig:10›:AA‹b64u:33›», "
                           "el chat_id es -100‹dig:10›"),
    ("twilio_auth_token", "TWILIO_ACCOUNT_SID=AC‹hex:32›\nTWILIO_AUTH_TOKEN=«‹hex:32›»\n"
                          "TWILIO_FROM=+3491‹dig:7›"),
    ("twilio_api_secret", "client = Client(\"SK‹hex:32›\", \"«‹b62:32›»\", account_sid)"),
    ("sendgrid_api_key", "SENDGRID_API_KEY='«SG.‹b64u:22›.‹b64u:43›»'"),
    ("sendgrid_api_key", "config.action_mailer.smtp_settings = {\n  address: 'smtp.sendgrid.net',\n"
                         "  port: 587,\n  user_name: 'apikey',\n  password: '«SG.‹b64u:22›.‹b64u:43›»'\n}"),
    ("mailgun_api_key", "MAILGUN_API_KEY=«key-‹hex:32›»\nMAILGUN_DOMAIN=mg.acme.dev"),
    ("mailgun_api_key", "curl -s --user 'api:«‹hex:32›-‹hex:8›-‹hex:8›»' "
                        "https://api.eu.mailgun.net/v3/mg.acme.dev/messages -F to=ops@acme.dev"),
    ("mailchimp_api_key", "mailchimp.setConfig({ apiKey: \"«‹hex:32›-us‹int:1-21›»\", server: \"us14\" });"),
    ("postmark_server_token", "X-Postmark-Server-Token: «‹uuid›»"),
    ("teams_webhook", "TEAMS_WEBHOOK=https://acme.webhook.office.com/webhookb2/«‹uuid›@‹uuid›"
                      "/IncomingWebhook/‹hex:32›/‹uuid›»"),
    ("google_chat_webhook", "https://chat.googleapis.com/v1/spaces/AAAA‹b64u:7›/messages?"
                            "key=«AIza‹b64u:35›»&token=«‹b64u:43›»"),
    ("mattermost_webhook", "curl -i -X POST -d 'payload={\"text\": \"backup ok\"}' "
                           "https://chat.acme.dev/hooks/«‹low:26›»"),
    ("fcm_server_key", "Authorization: key=«AAAA‹b64u:7›:APA91b‹b64u:134›»"),
    # --- source hosting
    ("github_pat", "git remote set-url origin https://«ghp_‹b62:36›»@github.com/acme/api.git"),
    ("github_pat", "GITHUB_TOKEN=«ghp_‹b62:36›» gh pr list --state merged --limit 20"),
    ("github_pat", "provider \"github\" {\n  token = \"«ghp_‹b62:36›»\"\n  owner = \"acme\"\n}"),
    ("github_pat", "npmRegistries:\n  \"https://npm.pkg.github.com\":\n    npmAlwaysAuth: true\n"
                   "    npmAuthToken: «ghp_‹b62:36›»"),
    ("github_pat", "I revoked this one yesterday after it leaked into a gist, but for the record it was "
                   "«ghp_‹b62:36›»"),
    ("github_fine_grained_pat", "export GH_TOKEN=«github_pat_11‹UP:9›0‹b62:12›_‹b62:59›»"),
    ("github_app_token", "git clone https://x-access-token:«ghs_‹b62:36›»@github.com/acme/infra.git"),
    ("github_oauth_token", "# ~/.config/gh/hosts.yml\ngithub.com:\n    user: mdiaz\n"
                           "    oauth_token: «gho_‹b62:36›»\n    git_protocol: ssh"),
    ("gitlab_pat", "curl --header \"PRIVATE-TOKEN: «glpat-‹b64u:20›»\" "
                   "\"https://gitlab.acme.dev/api/v4/projects?membership=true\""),
    ("gitlab_runner_token", "gitlab-runner register --non-interactive --url https://gitlab.com "
                            "--token «glrt-‹b64u:20›» --executor docker"),
    ("gitlab_deploy_token", "docker login registry.gitlab.com -u gitlab+deploy-token-‹dig:6› "
                            "-p «gldt-‹b64u:20›»"),
    ("bitbucket_app_password", "BITBUCKET_USER=acme-ci\nBITBUCKET_APP_PASSWORD=«ATBB‹b62:32›‹HEX:8›»"),
    ("gitea_token", "tea login add --name acme --url https://git.acme.dev --token «‹hex:40›»"),
    ("git_credentials", "cat ~/.git-credentials\nhttps://mdiaz:«‹pwu›»@git.acme.dev"),
    # --- package registries
    ("npm_token", "# .npmrc\n//registry.npmjs.org/:_authToken=«npm_‹b62:36›»\n@acme:registry=https://registry.npmjs.org/"),
    ("npm_token", "      - run: npm publish --access public\n        env:\n          NODE_AUTH_TOKEN: «npm_‹b62:36›»"),
    ("pypi_token", "[pypi]\n  username = __token__\n  password = «pypi-AgEIcHlwaS5vcmc‹b64u:150›»"),
    ("pypi_token", "twine upload -u __token__ -p «pypi-AgEIcHlwaS5vcmc‹b64u:150›» dist/*"),
    ("rubygems_api_key", "---\n:rubygems_api_key: «rubygems_‹hex:48›»"),
    ("nuget_api_key", "dotnet nuget push bin/Release/Acme.Core.1.4.2.nupkg --api-key «oy2‹low:43›» "
                      "--source https://api.nuget.org/v3/index.json"),
    ("dockerhub_pat", "echo «dckr_pat_‹b64u:27›» | docker login -u acmebot --password-stdin"),
    ("crates_io_token", "# ~/.cargo/credentials.toml\n[registry]\ntoken = \"«cio‹b62:32›»\""),
    ("artifactory_api_key", "curl -H \"X-JFrog-Art-Api: «AKCp‹b62:69›»\" "
                            "-T build.zip https://acme.jfrog.io/artifactory/generic-local/build.zip"),
    ("docker_config_auth", "{\n  \"auths\": {\n    \"registry.acme.dev\": {\n      \"auth\": \"«‹basic:ci-bot›»\"\n"
                           "    }\n  }\n}"),
    ("pip_index_credentials", "pip install --index-url https://build:«‹pwu›»@pypi.acme.dev/simple acme-core==0.9.1"),
    ("maven_settings_password", "<servers>\n  <server>\n    <id>acme-releases</id>\n    <username>deploy</username>\n"
                                "    <password>«‹pw›»</password>\n  </server>\n</servers>"),
    ("gradle_properties_password", "ossrhUsername=acme-release\nossrhPassword=«‹pw›»\n"
                                   "signing.keyId=‹HEX:8›\nsigning.password=«‹pw›»"),
    # --- observability
    ("datadog_api_key", "DD_API_KEY=«‹hex:32›»\nDD_SITE=datadoghq.eu\nDD_ENV=staging"),
    ("datadog_app_key", "helm install datadog-agent datadog/datadog --set datadog.apiKey=«‹hex:32›» "
                        "--set datadog.appKey=«‹hex:40›» --set datadog.site=datadoghq.eu"),
    ("newrelic_license_key", "common: &default_settings\n  license_key: «eu01xx‹hex:30›NRAL»\n"
                             "  app_name: acme-api (staging)"),
    ("newrelic_user_key", "NEW_RELIC_API_KEY=«NRAK-‹UP:27›» newrelic nerdgraph query '{ actor { user { name } } }'"),
    ("sentry_auth_token", "SENTRY_AUTH_TOKEN=«sntrys_‹rb64u:120›»\nSENTRY_ORG=acme"),
    ("sentry_auth_token", "sentry-cli --auth-token «sntryu_‹hex:64›» releases new 1.4.2"),
    ("grafana_token", "GRAFANA_TOKEN=«glsa_‹b62:32›_‹hex:8›»\ncurl -H \"Authorization: Bearer $GRAFANA_TOKEN\" "
                      "https://grafana.acme.dev/api/dashboards/home"),
    ("grafana_cloud_token", "grafana_cloud_access_policy_token = \"«glc_‹rb64:100›»\""),
    ("honeycomb_key", "OTEL_EXPORTER_OTLP_ENDPOINT=https://api.honeycomb.io\n"
                      "OTEL_EXPORTER_OTLP_HEADERS=x-honeycomb-team=«‹b62:22›»"),
    ("splunk_hec_token", "curl -k https://splunk.acme.dev:8088/services/collector/event "
                         "-H \"Authorization: Splunk «‹uuid›»\" -d '{\"event\": \"hello\"}'"),
    ("pagerduty_routing_key", "alertmanager:\n  receivers:\n    - name: oncall\n      pagerduty_configs:\n"
                              "        - routing_key: «‹hex:32›»"),
    ("elastic_api_key", "curl -H \"Authorization: ApiKey «‹rb64:45›»\" https://es.acme.dev:9200/_cat/indices"),
    # --- AI APIs
    ("openai_api_key", "OPENAI_API_KEY=«sk-proj-‹b64u:74›T3BlbkFJ‹b64u:74›»"),
    ("openai_api_key", "client = OpenAI(api_key=\"«sk-‹b62:20›T3BlbkFJ‹b62:20›»\")"),
    ("openai_api_key", "env:\n  OPENAI_API_KEY: «sk-proj-‹b64u:74›T3BlbkFJ‹b64u:74›»\n  MODEL: gpt-4o-mini"),
    ("anthropic_api_key", "ANTHROPIC_API_KEY=«sk-ant-api03-‹b64u:93›AA»"),
    ("anthropic_api_key", "curl https://api.anthropic.com/v1/messages -H \"x-api-key: «sk-ant-api03-‹b64u:93›AA»\" "
                          "-H \"anthropic-version: 2023-06-01\" -H \"content-type: application/json\" -d @body.json"),
    ("huggingface_token", "huggingface-cli login --token «hf_‹b62:34›»"),
    ("replicate_token", "REPLICATE_API_TOKEN=«r8_‹b62:37›»"),
    ("groq_api_key", "GROQ_API_KEY=«gsk_‹b62:52›»"),
    ("cohere_api_key", "co = cohere.Client(\"«‹b62:40›»\")"),
    ("mistral_api_key", "MISTRAL_API_KEY: «‹b62:32›»"),
    ("pinecone_api_key", "pc = Pinecone(api_key=\"«pcsk_‹b62:6›_‹b62:64›»\")"),
    ("langsmith_api_key", "LANGCHAIN_TRACING_V2=true\nLANGCHAIN_API_KEY=«lsv2_pt_‹hex:32›_‹hex:10›»"),
    ("perplexity_api_key", "PERPLEXITY_API_KEY=«pplx-‹b62:48›»"),
    # --- SaaS
    ("linear_api_key", "LINEAR_API_KEY=«lin_api_‹b62:40›»"),
    ("notion_token", "const notion = new Client({ auth: \"«ntn_‹dig:11›‹b62:35›»\" });"),
    ("airtable_pat", "Authorization: Bearer «pat‹b62:14›.‹hex:64›»"),
    ("atlassian_api_token", "jira-cli init --login mdiaz@acme.dev --token «ATATT3xFfGF0‹b64u:180›=‹HEX:8›»"),
    ("figma_token", "curl -H 'X-Figma-Token: «figd_‹b64u:40›»' https://api.figma.com/v1/me"),
    ("postman_api_key", "postman login --with-api-key «PMAK-‹hex:24›-‹hex:34›»"),
    ("okta_api_token", "Authorization: SSWS «00‹b64u:40›»"),
    ("auth0_client_secret", "AUTH0_DOMAIN=acme.eu.auth0.com\nAUTH0_CLIENT_ID=‹b62:32›\n"
                            "AUTH0_CLIENT_SECRET=«‹b64u:64›»"),
    ("dropbox_token", "DROPBOX_ACCESS_TOKEN=«sl.‹b64u:135›»"),
    ("mapbox_secret_token", "MAPBOX_DOWNLOADS_TOKEN=«sk.‹mapbox›»"),
    ("contentful_token", "CONTENTFUL_MANAGEMENT_TOKEN=«CFPAT-‹b64u:43›»"),
    ("facebook_access_token", "FB_PAGE_ACCESS_TOKEN=«EAA‹b62:180›»"),
    ("twitter_bearer_token", "TWITTER_BEARER_TOKEN=«AAAAAAAAAAAAAAAAAAAAA‹b62:80›»"),
    ("cloudinary_url", "CLOUDINARY_URL=cloudinary://‹dig:15›:«‹b64u:27›»@acme-media"),
    ("algolia_admin_key", "ALGOLIA_APP_ID=‹UP:10›\nALGOLIA_ADMIN_API_KEY=«‹hex:32›»"),
    ("launchdarkly_sdk_key", "LD_SDK_KEY=«sdk-‹uuid›»"),
    ("circleci_token", "CIRCLE_TOKEN=«CCIPAT_‹b62:22›_‹hex:40›» circleci context list github acme"),
    ("buildkite_token", "BUILDKITE_API_TOKEN=«bkua_‹hex:40›»"),
    ("jenkins_api_token", "curl -X POST -u admin:«11‹hex:32›» "
                          "\"https://jenkins.acme.dev/job/deploy/buildWithParameters?ENV=prod\""),
    ("sonarqube_token", "mvn sonar:sonar -Dsonar.host.url=https://sonar.acme.dev -Dsonar.token=«squ_‹hex:40›»"),
    ("snyk_token", "SNYK_TOKEN=«‹uuid›» snyk test --severity-threshold=high"),
    ("age_secret_key", "# created: 2025-02-11T10:04:22+01:00\n# public key: age1‹bech:58›\n"
                       "«AGE-SECRET-KEY-1‹BECH:58›»"),
    # --- private keys
    ("rsa_private_key", "-----BEGIN RSA PRIVATE KEY-----\n«‹pem:rsa›»\n-----END RSA PRIVATE KEY-----"),
    ("openssh_private_key", "$ cat ~/.ssh/id_ed25519\n-----BEGIN OPENSSH PRIVATE KEY-----\n«‹pem:openssh›»\n"
                            "-----END OPENSSH PRIVATE KEY-----"),
    ("ec_private_key", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: signer\nstringData:\n  signer.pem: |\n"
                       "    -----BEGIN EC PRIVATE KEY-----\n    «‹pem:ec:4›»\n    -----END EC PRIVATE KEY-----"),
    ("pkcs8_private_key", "ingress:\n  tls:\n    crt: |\n      -----BEGIN CERTIFICATE-----\n      ‹pem:cert:6›\n"
                          "      -----END CERTIFICATE-----\n    key: |\n      -----BEGIN PRIVATE KEY-----\n"
                          "      «‹pem:pkcs8:6›»\n      -----END PRIVATE KEY-----"),
    ("encrypted_private_key", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n«‹pem:enc›»\n"
                              "-----END ENCRYPTED PRIVATE KEY-----\npassphrase for the above: «‹pw›»"),
    ("pgp_private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n«‹pgp›»\n-----END PGP PRIVATE KEY BLOCK-----"),
    ("putty_private_key", "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nComment: deploy@bastion\n"
                          "Public-Lines: 2\n‹sshpub:ed25519:64›\nPrivate-Lines: 1\n«‹rb64:48›»\n"
                          "Private-MAC: ‹hex:64›"),
    ("jwk_private_key", "{\"kty\":\"EC\",\"crv\":\"P-256\",\"x\":\"‹rb64u:32›\",\"y\":\"‹rb64u:32›\","
                        "\"d\":\"«‹rb64u:32›»\",\"use\":\"sig\",\"kid\":\"‹hex:8›\"}"),
    ("private_key_escaped", "GITHUB_APP_ID=‹dig:6›\nGITHUB_APP_PRIVATE_KEY=\"-----BEGIN RSA PRIVATE KEY-----\\n"
                            "«‹pemesc:rsa›»\\n-----END RSA PRIVATE KEY-----\\n\""),
    ("private_key_base64", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: ingress-tls\ntype: kubernetes.io/tls\n"
                           "data:\n  tls.crt: ‹pemb64:cert›\n  tls.key: «‹pemb64:rsa›»"),
    ("kubeconfig_client_key", "users:\n- name: admin@prod\n  user:\n    client-certificate-data: ‹pemb64:cert›\n"
                              "    client-key-data: «‹pemb64:ec›»"),
    ("kubeconfig_token", "users:\n- name: ci-deployer\n  user:\n    token: «‹jwt:k8s›»"),
    ("wireguard_private_key", "[Interface]\nPrivateKey = «‹rb64:32›»\nAddress = 10.8.0.2/24\nDNS = 10.8.0.1\n\n"
                              "[Peer]\nPublicKey = ‹rb64:32›\nPresharedKey = «‹rb64:32›»\n"
                              "Endpoint = vpn.acme.dev:51820\nAllowedIPs = 0.0.0.0/0"),
    ("eth_private_key", "PRIVATE_KEY=0x«‹hex:64›»  # deployer wallet used by hardhat on sepolia"),
    ("bitcoin_wif", "bitcoin-cli importprivkey «‹wif›» \"cold-storage\" false"),
    ("solana_keypair", "cat ~/.config/solana/id.json\n[«‹intlist:64›»]"),
    ("seed_phrase", "wallet recovery phrase for the testnet faucet account: «‹words:12›»"),
    ("seed_phrase", "frase semilla de la billetera de pruebas (no la perdáis): «‹words:24›»"),
    ("seed_phrase", "MNEMONIC=\"«‹words:12›»\"\nRPC_URL=https://sepolia.infura.io/v3/‹hex:32›"),
    # --- tokens, sessions, auth headers
    ("jwt_bearer", "GET /api/v2/orders?limit=50 HTTP/1.1\nHost: api.acme.dev\nAuthorization: Bearer «‹jwt:hs›»\n"
                   "Accept: application/json"),
    ("jwt_bearer", "2025-03-14T09:12:44.120Z DEBUG http.client: sending headers {'Authorization': "
                   "'Bearer «‹jwt:rs›»', 'User-Agent': 'acme-sdk/2.3.1'}"),
    ("jwt_bearer", "localStorage.getItem('access_token') returned «‹jwt:hs›» and it expires after 15 min, "
                   "that's why the refresh loop fires"),
    ("session_cookie", "curl 'https://admin.acme.dev/api/users?page=2' -H 'cookie: sessionid=«‹low:32›»; "
                       "django_language=es'"),
    ("session_cookie", "Set-Cookie: connect.sid=«s%3A‹b64u:32›.‹b64u:43›»; Path=/; HttpOnly; Secure"),
    ("session_cookie", "Cookie: _acme_session=«‹b64:180›--‹b64:24›--‹b64:24›»"),
    ("session_cookie", "laravel_session=«eyJpdiI6‹b64:220›»"),
    ("session_cookie", "PHPSESSID=«‹low:26›» (copied from devtools to reproduce the cart bug)"),
    ("session_cookie", "copié la cookie de sesión del navegador para reproducir el bug: session=«‹b64u:120›»"),
    ("basic_auth_header", "GET /metrics HTTP/1.1\nHost: prometheus.acme.dev\nAuthorization: Basic «‹basic:admin›»"),
    ("basic_auth_header", "curl -u deploy:«‹pw›» https://nexus.acme.dev/service/rest/v1/repositories"),
    ("oauth_tokens", "{\"access_token\": \"«‹b64u:64›»\", \"token_type\": \"Bearer\", \"expires_in\": 3599, "
                     "\"refresh_token\": \"«‹b64u:64›»\", \"scope\": \"read write\"}"),
    ("api_key_in_query", "GET /data/2.5/forecast?lat=40.41&lon=-3.70&appid=«‹hex:32›» HTTP/1.1"),
    ("api_key_in_query", "the partner export works with https://api.partner-data.io/v2/export?format=csv"
                         "&api_key=«‹b62:32›»"),
    ("password_reset_link", "the reset link from the email: https://app.acme.dev/reset-password?"
                            "token=«‹b64u:43›»&email=marta%40acme.dev"),
    ("magic_link", "Login link (valid 10 min): https://app.acme.dev/auth/magic?code=«‹b64u:48›»"),
    ("gcs_signed_url", "https://storage.googleapis.com/acme-exports/dump.sql.gz?X-Goog-Algorithm=GOOG4-RSA-SHA256"
                       "&X-Goog-Credential=exporter%40acme-prod.iam.gserviceaccount.com%2F20250301%2Fauto"
                       "%2Fstorage%2Fgoog4_request&X-Goog-Date=20250301T120000Z&X-Goog-Expires=3600"
                       "&X-Goog-SignedHeaders=host&X-Goog-Signature=«‹hex:512›»"),
    # --- 2FA material
    ("totp_seed", "otpauth://totp/Acme:marta@acme.dev?secret=«‹b32:32›»&issuer=Acme&algorithm=SHA1"
                  "&digits=6&period=30"),
    ("totp_seed", "2FA setup key for the shared ops account: «‹b32g:8›»"),
    ("totp_seed", "la semilla TOTP de la cuenta root de AWS es «‹b32:32›», guárdala en el gestor"),
    ("recovery_codes", "GitHub recovery codes for acme-ops:\n«‹hex:5›-‹hex:5›»\n«‹hex:5›-‹hex:5›»\n"
                       "«‹hex:5›-‹hex:5›»\n«‹hex:5›-‹hex:5›»\n«‹hex:5›-‹hex:5›»\n«‹hex:5›-‹hex:5›»"),
    ("recovery_codes", "backup codes (Google account of the ops shared inbox):\n1. «‹dig:4› ‹dig:4›»\n"
                       "2. «‹dig:4› ‹dig:4›»\n3. «‹dig:4› ‹dig:4›»\n4. «‹dig:4› ‹dig:4›»"),
    ("recovery_codes", "Códigos de recuperación de la cuenta de Proton: «‹UP:4›-‹UP:4›», «‹UP:4›-‹UP:4›», "
                       "«‹UP:4›-‹UP:4›»"),
    # --- passwords in prose and chat
    ("password_prose_en", "note to self: the staging db password is «‹pw›» (user app_rw), rotate it after "
                          "the migration"),
    ("password_prose_en", "Fixed the flaky login test. The shared QA account is qa-bot@acme.dev / «‹pwh›»."),
    ("password_prose_en", "admin panel creds for the demo box -> user: admin  pass: «‹pwh›»"),
    ("password_prose_en", "[10:42] marta: can you try with «‹pw›»? that's the new root pw for the bastion"),
    ("password_prose_es", "la contraseña del router es «‹pwh›», el usuario es admin"),
    ("password_prose_es", "Te paso la clave del wifi de la oficina: «‹pwh›»"),
    ("password_prose_es", "Usuario: soporte\nContraseña: «‹pw›»\nCambiarla después del primer acceso."),
    ("password_prose_es", "la pass de la VPN quedó en «‹pw›», avisad si no os deja entrar"),
    ("password_prose_es", "[Slack] javi: la contraseña de sudo en el servidor de staging es «‹pw›»"),
    ("password_prose_es", "Config del router de la oficina: usuario 1234, contraseña de administración «‹pwh›»"),
    # --- passwords in app config, many formats
    ("password_env", "DB_HOST=db.internal\nDB_USER=orders\nDB_PASSWORD=«‹pw›»\nDB_NAME=orders"),
    ("password_yaml", "spring:\n  datasource:\n    url: jdbc:postgresql://db:5432/shop\n    username: shop\n"
                      "    password: «‹pw›»"),
    ("password_toml", "[database]\nhost = \"10.0.3.7\"\nuser = \"reporting\"\npassword = \"«‹pw›»\""),
    ("password_ini", "[client]\nuser=backup\npassword=«‹pw›»\nhost=mysql-primary"),
    ("password_properties", "spring.mail.host=smtp.acme.dev\nspring.mail.username=noreply@acme.dev\n"
                            "spring.mail.password=«‹pw›»"),
    ("password_php", "define('DB_NAME', 'wordpress');\ndefine('DB_USER', 'wp');\n"
                     "define('DB_PASSWORD', '«‹pw›»');"),
    ("password_js", "const redis = new Redis({ host: 'cache.internal', port: 6379, password: '«‹pw›»' });"),
    ("password_python", "conn = psycopg2.connect(host=\"db\", dbname=\"analytics\", user=\"etl\", "
                        "password=\"«‹pw›»\")"),
    ("password_java", "private static final String KEYSTORE_PASSWORD = \"«‹pw›»\";"),
    ("password_csharp", "var smtp = new SmtpClient(\"smtp.office365.com\", 587) {\n    Credentials = new "
                        "NetworkCredential(\"alerts@acme.dev\", \"«‹pw›»\"),\n    EnableSsl = true\n};"),
    ("password_go", "db, err := sql.Open(\"mysql\", \"app:«‹pwu›»@tcp(10.1.4.20:3306)/inventory?parseTime=true\")"),
    ("password_rust", "let pool = PgPool::connect(\"postgres://svc:«‹pwu›»@localhost:5432/ledger\").await?;"),
    ("password_compose", "services:\n  db:\n    image: mariadb:11\n    environment:\n"
                         "      MARIADB_ROOT_PASSWORD: «‹pw›»\n      MARIADB_DATABASE: shop"),
    ("password_dockerfile", "FROM python:3.12-slim\nENV DJANGO_SETTINGS_MODULE=shop.settings \\\n"
                            "    DATABASE_PASSWORD=«‹pw›»\nRUN pip install -r requirements.txt"),
    ("password_helm", "postgresql:\n  auth:\n    username: keycloak\n    password: «‹pw›»\n    database: keycloak"),
    ("password_terraform", "resource \"aws_db_instance\" \"main\" {\n  engine         = \"postgres\"\n"
                           "  instance_class = \"db.t4g.medium\"\n  username       = \"master\"\n"
                           "  password       = \"«‹pw›»\"\n}"),
    ("password_terraform", "# terraform.tfvars\ndb_password = \"«‹pw›»\"\nenvironment = \"staging\""),
    ("password_terraform_state", "\"attributes\": {\n  \"id\": \"acme-db\",\n  \"password\": \"«‹pw›»\",\n"
                                 "  \"username\": \"master\",\n  \"port\": 5432\n}"),
    ("password_ansible", "ansible_user: deploy\nansible_become_pass: «‹pw›»"),
    ("password_gitlab_ci", "test:\n  services:\n    - postgres:16\n  variables:\n    POSTGRES_DB: test\n"
                           "    POSTGRES_USER: runner\n    POSTGRES_PASSWORD: «‹pw›»"),
    ("password_circleci", "jobs:\n  deploy:\n    docker:\n      - image: acme/deployer:3\n        auth:\n"
                          "          username: acmebot\n          password: «‹pw›»"),
    ("password_github_actions", "      - name: Login to GHCR\n        run: echo \"«‹pw›»\" | docker login ghcr.io "
                                "-u acme-bot --password-stdin"),
    ("password_k8s_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db-credentials\ntype: Opaque\n"
                            "data:\n  username: ‹b64of:orders›\n  password: «‹b64pw›»"),
    ("password_k8s_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: smtp\nstringData:\n"
                            "  SMTP_USER: noreply@acme.dev\n  SMTP_PASSWORD: «‹pw›»"),
    ("password_helm_set", "helm upgrade --install grafana grafana/grafana -n monitoring --set adminPassword=«‹pw›»"),
    ("password_xml_connstr", "<connectionStrings>\n  <add name=\"Default\" connectionString=\"Server=sql01;"
                             "Database=Crm;User Id=crm_app;Password=«‹pw›»;\" providerName=\"System.Data.SqlClient\" />\n"
                             "</connectionStrings>"),
    # --- passwords on command lines and in history
    ("password_cli", "mysql -h 127.0.0.1 -u root -p'«‹pw›»' -e 'show databases;'"),
    ("password_cli", "sshpass -p '«‹pw›»' ssh pi@192.168.1.40"),
    ("password_cli", "PGPASSWORD='«‹pw›»' psql -h db.internal -U report -d warehouse -c '\\dt'"),
    ("password_cli", "docker run -d --name pg -e POSTGRES_PASSWORD=«‹pw›» -p 5432:5432 postgres:16"),
    ("password_cli", "htpasswd -b -c /etc/nginx/.htpasswd ops «‹pw›»"),
    ("password_cli", "net user svc_backup «‹pw›» /add"),
    ("password_cli", "echo '«‹pw›»' | sudo -S systemctl restart nginx"),
    ("password_cli", "openssl pkcs12 -export -in cert.pem -inkey key.pem -out bundle.p12 -passout pass:«‹pw›»"),
    ("password_cli", "keytool -genkeypair -alias release -keystore release.jks -storepass «‹pw›» "
                     "-keypass «‹pw›» -dname \"CN=Acme\""),
    ("password_cli", "  512  redis-cli -h cache.internal -a «‹pw›» --no-auth-warning info memory"),
    ("password_cli", "echo '«‹pw›»' > ~/.vault_pass.txt && ansible-playbook site.yml "
                     "--vault-password-file ~/.vault_pass.txt"),
    ("password_cli", "ldapsearch -x -H ldaps://ldap.acme.dev -D \"cn=svc-read,ou=services,dc=acme,dc=dev\" "
                     "-w '«‹pw›»' -b \"dc=acme,dc=dev\" \"(uid=mdiaz)\""),
    ("password_cli", "mount -t cifs //nas/backup /mnt/backup -o username=backup,password=«‹pwu›»"),
    # --- passwords in logs, traces and HTTP
    ("password_in_log", "2025-03-02 11:04:19,882 DEBUG [auth] login attempt user=marta password=«‹pw›» "
                        "ip=10.0.4.17"),
    ("password_in_traceback", "Traceback (most recent call last):\n  File \"/app/worker.py\", line 88, in connect\n"
                              "    client.login(\"ops@acme.dev\", \"«‹pw›»\")\n  File \"/usr/lib/python3.11/"
                              "smtplib.py\", line 750, in login\n    raise last_exception\n"
                              "smtplib.SMTPAuthenticationError: (535, b'5.7.8 Username and Password not accepted')"),
    ("password_in_http", "POST /api/login HTTP/1.1\nHost: staging.acme.dev\nContent-Type: application/json\n\n"
                         "{\"email\": \"qa@acme.dev\", \"password\": \"«‹pw›»\"}"),
    ("password_in_http", "POST /wp-login.php HTTP/1.1\nContent-Type: application/x-www-form-urlencoded\n\n"
                         "log=admin&pwd=«‹pwu›»&wp-submit=Log+In&testcookie=1"),
    ("wifi_psk", "network={\n    ssid=\"Acme-Office\"\n    psk=\"«‹pwh›»\"\n    key_mgmt=WPA-PSK\n}"),
    ("wifi_psk", "WIFI:T:WPA;S:Oficina-2G;P:«‹pwh›»;;"),
    ("gmail_app_password", "EMAIL_HOST=smtp.gmail.com\nEMAIL_HOST_USER=alerts.acme@gmail.com\n"
                           "EMAIL_HOST_PASSWORD=«‹alpha:4› ‹alpha:4› ‹alpha:4› ‹alpha:4›»"),
    # --- connection strings
    ("postgres_url", "DATABASE_URL=postgres://app_user:«‹pwu›»@db.acme.internal:5432/app?sslmode=require"),
    ("postgres_url", "SQLALCHEMY_DATABASE_URI = \"postgresql+asyncpg://analytics:«‹pwu›»@10.20.0.5/warehouse\""),
    ("mysql_url", "mysql://wp:«‹pwu›»@mysql.acme.dev:3306/wordpress"),
    ("mongodb_url", "MONGO_URI=mongodb+srv://atlas-admin:«‹pwu›»@cluster0.‹low:5›.mongodb.net/prod?"
                    "retryWrites=true&w=majority"),
    ("redis_url", "REDIS_URL=redis://default:«‹pwu›»@redis-‹dig:5›.c1.eu-west-1-2.ec2.cloud.redislabs.com:‹dig:5›"),
    ("redis_url", "cache:\n  url: rediss://:«‹pwu›»@cache.acme.dev:6380/0"),
    ("amqp_url", "CELERY_BROKER_URL=amqp://celery:«‹pwu›»@rabbitmq:5672/prod"),
    ("sqlserver_connstr", "\"ConnectionStrings\": {\n  \"Default\": \"Server=tcp:acme-sql.database.windows.net,1433;"
                          "Initial Catalog=billing;User ID=billing_app;Password=«‹pw›»;Encrypt=True;\"\n}"),
    ("odbc_connstr", "DRIVER={ODBC Driver 18 for SQL Server};SERVER=10.2.0.9;DATABASE=erp;UID=sa;PWD=«‹pw›»"),
    ("oracle_connstr", "sqlplus hr/«‹pwu›»@//oradb.acme.dev:1521/ORCLPDB1"),
    ("jdbc_url", "jdbc:mysql://db01:3306/orders?user=orders&password=«‹pwu›»&useSSL=true"),
    ("kafka_sasl", "bootstrap.servers=pkc-‹low:5›.eu-west-1.aws.confluent.cloud:9092\nsecurity.protocol=SASL_SSL\n"
                   "sasl.mechanism=PLAIN\nsasl.jaas.config=org.apache.kafka.common.security.plain."
                   "PlainLoginModule required username=\"‹UP:16›\" password=\"«‹b64:64›»\";"),
    ("elasticsearch_url", "ELASTICSEARCH_URL=https://elastic:«‹pwu›»@es.acme.dev:9200"),
    ("clickhouse_password", "clickhouse-client --host ch.acme.dev --secure --user default --password «‹pw›»"),
    ("nats_url", "NATS_URL=nats://ops:«‹pwu›»@nats.acme.dev:4222"),
    ("mqtt_url", "mqtt://sensor-gw:«‹pwu›»@broker.acme.dev:1883"),
    ("ftp_url", "lftp ftp://uploads:«‹pwu›»@ftp.partner-data.io"),
    ("neo4j_auth", "NEO4J_AUTH=neo4j/«‹pwu›»"),
    ("influxdb_token", "INFLUX_TOKEN=«‹rb64:64›»\ninflux query 'from(bucket:\"metrics\") |> range(start: -1h)'"),
    # --- app signing and encryption secrets
    ("django_secret_key", "SECRET_KEY = 'django-insecure-«‹dj:50›»'"),
    ("django_secret_key", "DJANGO_SECRET_KEY=«‹dj:50›»\nDJANGO_DEBUG=false"),
    ("rails_secret_key_base", "SECRET_KEY_BASE=«‹hex:128›»"),
    ("rails_master_key", "echo «‹hex:32›» > config/master.key"),
    ("laravel_app_key", "APP_NAME=Tienda\nAPP_ENV=production\nAPP_KEY=base64:«‹rb64:32›»\nAPP_DEBUG=false"),
    ("flask_secret_key", "app.config['SECRET_KEY'] = '«‹hex:48›»'"),
    ("nextauth_secret", "NEXTAUTH_URL=https://app.acme.dev\nNEXTAUTH_SECRET=«‹rb64:32›»"),
    ("jwt_signing_secret", "jwt:\n  secret: «‹b64u:64›»\n  expiration: 3600"),
    ("encryption_key", "ENCRYPTION_KEY=«‹hex:64›»  # AES-256, used for the PII columns"),
    ("symfony_app_secret", "###> symfony/framework-bundle ###\nAPP_ENV=prod\nAPP_SECRET=«‹hex:32›»\n"
                           "###< symfony/framework-bundle ###"),
    ("phoenix_secret_key_base", "config :acme, AcmeWeb.Endpoint,\n  secret_key_base: \"«‹rb64:48›»\""),
]

# ---------------------------------------------------------------------------- ordinary

# (kind, template): no marks. Each is rendered twice with independent draws.
ORDINARY: list[tuple[str, str]] = [
    # --- git
    ("git", "$ git log --oneline -5\n‹hex:7› (HEAD -> main, origin/main) fix: retry on 503 from payments\n"
            "‹hex:7› chore(deps): bump axios from 1.6.7 to 1.6.8\n‹hex:7› feat: add export endpoint\n"
            "‹hex:7› Merge pull request #‹int:100-999› from acme/fix-timeouts\n‹hex:7› docs: update README"),
    ("git", "commit ‹hex:40›\nAuthor: Marta Díaz <marta@acme.dev>\nDate:   Tue Mar 4 10:12:55 2025 +0100\n\n"
            "    Remove hardcoded password from settings; read it from the environment instead"),
    ("git", "Bisected the regression: first bad commit is ‹hex:40› (\"refactor token refresh\"). "
            "Last good was ‹hex:40›. Reverting in #‹int:100-999›."),
    ("git", "$ git rev-parse HEAD\n‹hex:40›"),
    ("git", "git cherry-pick ‹hex:12›..‹hex:12› && git push origin release/2.14"),
    ("git", "Successfully rebased and updated refs/heads/feature/oauth-login.\n[feature/oauth-login ‹hex:7›] "
            "fix: rotate the leaked Slack token (old one revoked, new one in Vault)"),
    ("git", "$ git submodule status\n ‹hex:40› vendor/libsodium (1.0.19)\n+‹hex:40› vendor/protobuf "
            "(v25.1-12-g‹hex:7›)"),
    ("git", "remote: Resolving deltas: 100% (412/412), done.\nTo github.com:acme/api.git\n"
            "   ‹hex:7›..‹hex:7›  main -> main"),
    ("git", "$ git reflog -3\n‹hex:7› HEAD@{0}: checkout: moving from main to fix/secret-scan\n"
            "‹hex:7› HEAD@{1}: commit: add pre-commit hook that blocks private keys\n"
            "‹hex:7› HEAD@{2}: pull: Fast-forward"),
    ("git", "$ git cat-file -p HEAD\ntree ‹hex:40›\nparent ‹hex:40›\nauthor Javi Ruiz <javi@acme.dev> ‹epoch› +0100\n"
            "committer GitHub <noreply@github.com> ‹epoch› +0100\n\nMerge branch 'main' into feat/search"),
    ("git", "$ git describe --tags\nv2.14.0-37-g‹hex:8›"),
    ("git", "gpg: Signature made Thu 06 Mar 2025 10:02:11 CET\ngpg:                using EDDSA key ‹HEX:40›\n"
            "gpg: Good signature from \"Marta Díaz <marta@acme.dev>\" [ultimate]"),
    ("git", "git diff --stat ‹hex:7› ‹hex:7›\n src/auth/token.ts | 14 +++++++-------\n 1 file changed, 7 insertions(+), "
            "7 deletions(-)"),
    # --- docker
    ("docker", "FROM node:20-alpine@sha256:‹hex:64› AS build\nWORKDIR /app\nCOPY package*.json ./\n"
               "RUN npm ci\nCOPY . .\nRUN npm run build"),
    ("docker", "REPOSITORY     TAG     IMAGE ID       CREATED        SIZE\nacme/api       1.8.2   ‹hex:12›   "
               "2 hours ago    187MB\nacme/worker    1.8.2   ‹hex:12›   2 hours ago    201MB\npostgres       16      "
               "‹hex:12›   3 weeks ago    432MB"),
    ("docker", "CONTAINER ID   IMAGE            COMMAND                  STATUS        PORTS                    NAMES\n"
               "‹hex:12›   redis:7-alpine   \"docker-entrypoint.s…\"   Up 3 hours    0.0.0.0:6379->6379/tcp   cache\n"
               "‹hex:12›   acme/api:dev     \"uvicorn app:app --…\"   Up 3 hours    0.0.0.0:8000->8000/tcp   api"),
    ("docker", "The push refers to repository [ghcr.io/acme/api]\n‹hex:12›: Pushed\n‹hex:12›: Layer already exists\n"
               "1.8.2: digest: sha256:‹hex:64› size: 2417"),
    ("docker", "‹hex:12›: Pull complete\n‹hex:12›: Pull complete\nDigest: sha256:‹hex:64›\n"
               "Status: Downloaded newer image for nginx:1.27"),
    ("docker", "services:\n  api:\n    image: ghcr.io/acme/api@sha256:‹hex:64›\n    env_file: .env\n"
               "    environment:\n      DATABASE_URL: ${DATABASE_URL}\n      REDIS_PASSWORD: ${REDIS_PASSWORD:?set it in .env}"),
    ("docker", "#12 exporting to image\n#12 exporting layers done\n#12 writing image sha256:‹hex:64› done\n"
               "#12 naming to docker.io/acme/api:dev done"),
    ("docker", "\"Id\": \"sha256:‹hex:64›\",\n\"RepoTags\": [\"acme/api:1.8.2\"],\n"
               "\"RepoDigests\": [\"acme/api@sha256:‹hex:64›\"],\n\"Created\": \"2025-03-10T08:14:22.5Z\""),
    ("docker", "# syntax=docker/dockerfile:1.7\nFROM node:20-slim\nRUN --mount=type=secret,id=npm_token,"
               "env=NPM_TOKEN npm ci\nCOPY . ."),
    ("docker", "Verification for ghcr.io/acme/api@sha256:‹hex:64› --\nThe following checks were performed on "
               "each of these signatures:\n  - The cosign claims were validated\n  - The signatures were verified "
               "against the specified public key"),
    ("docker", "ARG GIT_SHA\nLABEL org.opencontainers.image.revision=$GIT_SHA\nRUN useradd -u 10001 app\nUSER app"),
    ("docker", "services:\n  redis:\n    image: redis:7.2-alpine\n    command: [\"redis-server\", \"--appendonly\", "
               "\"yes\"]\n    healthcheck:\n      test: [\"CMD\", \"redis-cli\", \"ping\"]\n      interval: 10s"),
    ("docker", "secrets:\n  db_password:\n    file: ./secrets/db_password.txt\nservices:\n  db:\n    image: postgres:16\n"
               "    secrets: [db_password]\n    environment:\n      POSTGRES_PASSWORD_FILE: /run/secrets/db_password"),
    # --- lockfiles, checksums, integrity
    ("lockfile", "\"node_modules/lodash\": {\n  \"version\": \"4.17.21\",\n  \"resolved\": "
                 "\"https://registry.npmjs.org/lodash/-/lodash-4.17.21.tgz\",\n  \"integrity\": \"‹sri:512›\"\n}"),
    ("lockfile", "axios@^1.6.0:\n  version \"1.6.8\"\n  resolved \"https://registry.yarnpkg.com/axios/-/"
                 "axios-1.6.8.tgz#‹hex:40›\"\n  integrity ‹sri:512›"),
    ("lockfile", "\"zod@npm:^3.22.4\":\n  version: 3.22.4\n  resolution: \"zod@npm:3.22.4\"\n  checksum: ‹hex:128›\n"
                 "  languageName: node\n  linkType: hard"),
    ("lockfile", "  /esbuild@0.20.2:\n    resolution: {integrity: ‹sri:512›}\n    engines: {node: '>=12'}\n"
                 "    hasBin: true\n    requiresBuild: true"),
    ("lockfile", "[[package]]\nname = \"requests\"\nversion = \"2.31.0\"\noptional = false\npython-versions = \">=3.7\"\n"
                 "files = [\n    {file = \"requests-2.31.0-py3-none-any.whl\", hash = \"sha256:‹hex:64›\"},\n"
                 "    {file = \"requests-2.31.0.tar.gz\", hash = \"sha256:‹hex:64›\"},\n]"),
    ("lockfile", "[[package]]\nname = \"serde\"\nversion = \"1.0.197\"\nsource = \"registry+https://github.com/"
                 "rust-lang/crates.io-index\"\nchecksum = \"‹hex:64›\""),
    ("lockfile", "github.com/google/uuid v1.6.0 h1:‹rb64:32›\ngithub.com/google/uuid v1.6.0/go.mod h1:‹rb64:32›\n"
                 "golang.org/x/crypto v0.21.0 h1:‹rb64:32›"),
    ("lockfile", "cryptography==42.0.5 \\\n    --hash=sha256:‹hex:64› \\\n    --hash=sha256:‹hex:64›\n"
                 "cffi==1.16.0 \\\n    --hash=sha256:‹hex:64›"),
    ("lockfile", "\"django\": {\n    \"hashes\": [\n        \"sha256:‹hex:64›\",\n        \"sha256:‹hex:64›\"\n"
                 "    ],\n    \"index\": \"pypi\",\n    \"version\": \"==5.0.3\"\n}"),
    ("lockfile", "\"dist\": {\n    \"type\": \"zip\",\n    \"url\": \"https://api.github.com/repos/laravel/framework/"
                 "zipball/‹hex:40›\",\n    \"reference\": \"‹hex:40›\",\n    \"shasum\": \"\"\n}"),
    ("lockfile", "\"nixpkgs\": {\n  \"locked\": {\n    \"lastModified\": ‹epoch›,\n    \"narHash\": "
                 "\"sha256-‹rb64:32›\",\n    \"owner\": \"NixOS\",\n    \"repo\": \"nixpkgs\",\n"
                 "    \"rev\": \"‹hex:40›\",\n    \"type\": \"github\"\n  }\n}"),
    ("lockfile", "provider \"registry.terraform.io/hashicorp/aws\" {\n  version     = \"5.40.0\"\n"
                 "  constraints = \"~> 5.0\"\n  hashes = [\n    \"h1:‹rb64:32›\",\n    \"zh:‹hex:64›\",\n"
                 "    \"zh:‹hex:64›\",\n  ]\n}"),
    ("lockfile", "CHECKSUMS\n  rack (3.0.9.1) sha256=‹hex:64›\n  rails (7.1.3.2) sha256=‹hex:64›\n"
                 "  zeitwerk (2.6.13) sha256=‹hex:64›"),
    ("lockfile", "[[package]]\nname = \"httpx\"\nversion = \"0.27.0\"\nsource = { registry = \"https://pypi.org/simple\" }\n"
                 "sdist = { url = \"https://files.pythonhosted.org/packages/‹hex:2›/‹hex:2›/‹hex:60›/httpx-0.27.0.tar.gz\", "
                 "hash = \"sha256:‹hex:64›\", size = 126189 }"),
    ("lockfile", "<script src=\"https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.bundle.min.js\" "
                 "integrity=\"‹sri:384›\" crossorigin=\"anonymous\"></script>"),
    ("lockfile", "/nix/store/‹nix:32›-python3-3.11.8/bin/python3: No module named pip"),
    ("lockfile", "require (\n\tgolang.org/x/exp v0.0.0-‹dig:14›-‹hex:12›\n\tgithub.com/stretchr/testify v1.9.0\n)"),
    ("lockfile", "<component group=\"com.google.guava\" name=\"guava\" version=\"33.0.0-jre\">\n"
                 "   <artifact name=\"guava-33.0.0-jre.jar\">\n      <sha256 value=\"‹hex:64›\" "
                 "origin=\"Generated by Gradle\"/>\n   </artifact>\n</component>"),
    ("lockfile", "$ sha256sum terraform_1.7.5_linux_amd64.zip\n‹hex:64›  terraform_1.7.5_linux_amd64.zip"),
    ("lockfile", "md5sum of backup-2025-03-01.sql.gz is ‹hex:32›, matches the value in the manifest, "
                 "restore can go ahead"),
    ("lockfile", "bottle do\n  sha256 cellar: :any, arm64_sonoma: \"‹hex:64›\"\n"
                 "  sha256 cellar: :any, x86_64_linux: \"‹hex:64›\"\nend"),
    ("lockfile", "‹hex:64›  acmectl_2.3.1_darwin_arm64.tar.gz\n‹hex:64›  acmectl_2.3.1_linux_amd64.tar.gz\n"
                 "‹hex:64›  acmectl_2.3.1_windows_amd64.zip"),
    ("lockfile", "npm notice === Tarball Details ===\nnpm notice name:          @acme/ui\nnpm notice version:       3.2.0\n"
                 "npm notice shasum:        ‹hex:40›\nnpm notice integrity:     sha512-‹b64:13›[...]‹b64:10›=="),
    # --- ids, traces, request ids
    ("ids", "2025-03-11T14:02:51.337Z INFO  order.created order_id=‹uuid› customer_id=‹uuid› total=129.90 EUR"),
    ("ids", "job ‹ulid› finished in 3.2s (queue=emails, attempts=1)"),
    ("ids", "SELECT * FROM users WHERE id = '‹nanoid›';  -- the nanoid from the bug report"),
    ("ids", "traceparent: 00-‹hex:32›-‹hex:16›-01\ntracestate: dd=s:1;o:rum"),
    ("ids", "HTTP/2 502\ndate: Tue, 11 Mar 2025 09:14:07 GMT\ncontent-type: text/html\ncf-ray: ‹hex:16›-MAD\n"
            "x-request-id: ‹uuid›\nx-amz-cf-id: ‹b64u:54›=="),
    ("ids", "An error occurred (AccessDenied) when calling the GetObject operation: Access Denied "
            "(Service: Amazon S3; Status Code: 403; Request ID: ‹UP:16›; S3 Extended Request ID: ‹rb64:60›)"),
    ("ids", "Sentry event ‹hex:32› captured: TypeError: Cannot read properties of undefined (reading 'token')"),
    ("ids", "dd.trace_id=‹dig:19› dd.span_id=‹dig:19› level=error msg=\"upstream timeout\" service=checkout"),
    ("ids", "$ kubectl get pods -n shop\nNAME                       READY   STATUS    RESTARTS   AGE\n"
            "api-‹low:10›-‹low:5›     1/1     Running   0          3h\nworker-‹low:10›-‹low:5›  1/1     "
            "Running   2          3h"),
    ("ids", "-- Boot ‹hex:32› --\nMar 11 08:00:01 web-1 systemd[1]: Started nginx.service - A high performance web server."),
    ("ids", "db.orders.find({_id: ObjectId(\"‹hex:24›\")}).pretty()"),
    ("ids", "charge ch_‹b62:24› refunded; payment_intent pi_‹b62:24›, customer cus_‹b62:14›, invoice in_‹b62:24›"),
    ("ids", "the message with ts ‹epoch›.‹dig:6› in channel C‹UP:10› was posted by U‹UP:10›"),
    ("ids", "Failing run: https://github.com/acme/api/actions/runs/‹dig:10›/job/‹dig:11›"),
    ("ids", "Discord user id ‹dig:18› in guild ‹dig:19› keeps getting rate limited"),
    ("ids", "Twilio console: account AC‹hex:32›, message SM‹hex:32› status=delivered, price -0.0790 USD"),
    ("ids", "[http-nio-8080-exec-7] [cid=‹hex:16›] WARN  c.a.o.OrderService - retrying payment for order ‹uuid›"),
    ("ids", "<PropertyGroup>\n  <ProjectGuid>{‹UUID›}</ProjectGuid>\n  <UserSecretsId>‹uuid›</UserSecretsId>\n"
            "</PropertyGroup>"),
    ("ids", "Project(\"{‹UUID›}\") = \"Acme.Core\", \"src\\Acme.Core\\Acme.Core.csproj\", \"{‹UUID›}\"\nEndProject"),
    ("ids", "iOS build 2025.03.11.‹int:1-99›: bundle id com.acme.app, Team ID ‹UP:10›, provisioning profile ‹uuid›"),
    ("ids", "Task tasks.send_invoice[‹uuid›] succeeded in 0.41s: None"),
    ("ids", "START RequestId: ‹uuid› Version: $LATEST\nEND RequestId: ‹uuid›\nREPORT RequestId: ‹uuid› "
            "Duration: 182.33 ms Billed Duration: 183 ms Memory Size: 512 MB Max Memory Used: 141 MB"),
    ("ids", "Security ID: S-1-5-21-‹dig:10›-‹dig:10›-‹dig:10›-1104\nAccount Name: svc_backup\nLogon Type: 3"),
    ("ids", "Minidump ‹uuid›.dmp uploaded; module acme.dll pdb id ‹HEX:32›1"),
    ("ids", "ksuid for the import batch: ‹b62:27›, 1,240 rows, 3 rejected"),
    # --- URLs with ids in paths and queries
    ("url", "Specs are here: https://docs.google.com/document/d/‹b64u:44›/edit#heading=h.‹low:12›"),
    ("url", "the talk that explains it: https://www.youtube.com/watch?v=‹b64u:11›&t=1520s"),
    ("url", "https://www.figma.com/file/‹b62:22›/Checkout-redesign?node-id=‹int:1-999›-‹int:1-9999›"),
    ("url", "Postmortem draft: https://www.notion.so/acme/Incident-review-‹hex:32›"),
    ("url", "https://grafana.acme.dev/d/‹b62:9›/api-latency?orgId=1&from=now-6h&to=now&var-pod=api-‹low:10›-‹low:5›"),
    ("url", "https://eu-west-1.console.aws.amazon.com/cloudwatch/home?region=eu-west-1#logsV2:log-groups/"
            "log-group/$252Faws$252Flambda$252Fexport/log-events/2025$252F03$252F11$252F$255B$2524LATEST$255D‹hex:32›"),
    ("url", "GET /v1/events?limit=100&starting_after=evt_‹b62:24› HTTP/1.1"),
    ("url", "{\"data\": [], \"has_more\": true, \"next_cursor\": \"‹b64of:{\"id\":⟨int:1000-999999⟩,\"ts\":⟨epoch⟩}›\"}"),
    ("url", "https://acme-public-assets.s3.amazonaws.com/img/products/‹hex:32›.webp"),
    ("url", "<img src=\"https://www.gravatar.com/avatar/‹hex:32›?s=80&d=identicon\" alt=\"avatar\">"),
    ("url", "https://bit.ly/‹b62:7› -> the public status page"),
    ("url", "https://app.datadoghq.eu/apm/trace/‹dig:19›?spanID=‹dig:19›&env=prod"),
    ("url", "https://sentry.io/organizations/acme/issues/‹dig:10›/events/‹hex:32›/?project=‹dig:7›"),
    ("url", "https://gitlab.acme.dev/platform/api/-/merge_requests/‹int:100-999›/diffs?commit_id=‹hex:40›"),
    ("url", "https://auth.acme.dev/authorize?response_type=code&client_id=‹b62:32›&redirect_uri=https%3A%2F%2F"
            "app.acme.dev%2Fcallback&scope=openid%20profile&state=‹b64u:22›&code_challenge=‹b64u:43›"
            "&code_challenge_method=S256"),
    # --- cloud resource ids and ARNs
    ("cloud_ids", "Created instance i-0‹hex:16› in subnet-0‹hex:16› (vpc-0‹hex:16›), security group "
                  "sg-0‹hex:16›, AMI ami-0‹hex:16›"),
    ("cloud_ids", "arn:aws:iam::‹dig:12›:role/github-actions-deploy\narn:aws:kms:eu-west-1:‹dig:12›:key/‹uuid›\n"
                  "arn:aws:lambda:eu-west-1:‹dig:12›:function:export-orders:7"),
    ("cloud_ids", "\"secrets\": [{\"name\": \"DB_PASSWORD\", \"valueFrom\": \"arn:aws:secretsmanager:eu-west-1:"
                  "‹dig:12›:secret:prod/api/db-‹b62:6›\"}]"),
    ("cloud_ids", "$ aws sts get-caller-identity\n{\n    \"UserId\": \"AROA‹b32:17›:marta\",\n    \"Account\": "
                  "\"‹dig:12›\",\n    \"Arn\": \"arn:aws:sts::‹dig:12›:assumed-role/Admin/marta\"\n}"),
    ("cloud_ids", "/subscriptions/‹uuid›/resourceGroups/rg-shop-prod/providers/Microsoft.Web/sites/shop-api-prod"),
    ("cloud_ids", "{\"environmentName\": \"AzureCloud\", \"id\": \"‹uuid›\", \"isDefault\": true, \"tenantId\": "
                  "\"‹uuid›\", \"user\": {\"name\": \"marta@acme.dev\", \"type\": \"user\"}}"),
    ("cloud_ids", "gcloud projects describe acme-prod-‹dig:6›\nprojectNumber: '‹dig:12›'\nlifecycleState: ACTIVE\n"
                  "service account: deployer@acme-prod-‹dig:6›.iam.gserviceaccount.com"),
    ("cloud_ids", "aws cloudfront create-invalidation --distribution-id E‹UP:13› --paths '/*'"),
    ("cloud_ids", "aws route53 list-resource-record-sets --hosted-zone-id Z‹UP:19› --output table"),
    ("cloud_ids", "docker push ‹dig:12›.dkr.ecr.eu-west-1.amazonaws.com/acme/api:‹hex:7›"),
    ("cloud_ids", "  # aws_s3_bucket.logs will be updated in-place\n  ~ resource \"aws_s3_bucket\" \"logs\" {\n"
                  "        id     = \"acme-logs-‹hex:8›\"\n        arn    = \"arn:aws:s3:::acme-logs-‹hex:8›\"\n"
                  "      ~ tags   = {\n          + \"team\" = \"platform\"\n        }\n    }"),
    ("cloud_ids", "Outputs:\n\ndb_endpoint = \"acme-prod.‹low:12›.eu-west-1.rds.amazonaws.com:5432\"\n"
                  "db_password = <sensitive>\nvpc_id = \"vpc-0‹hex:16›\""),
    ("cloud_ids", "OIDC issuer: https://oidc.eks.eu-west-1.amazonaws.com/id/‹HEX:32›"),
    ("cloud_ids", "App registration 'shop-spa': Application (client) ID ‹uuid›, Directory (tenant) ID ‹uuid›. "
                  "No client secret: the SPA uses PKCE."),
    ("cloud_ids", "VITE_GOOGLE_CLIENT_ID=‹dig:12›-‹low:32›.apps.googleusercontent.com\nVITE_API_URL=https://api.acme.dev"),
    ("cloud_ids", "metadata:\n  annotations:\n    eks.amazonaws.com/role-arn: arn:aws:iam::‹dig:12›:role/api-irsa\n"
                  "  name: api\n  namespace: shop"),
    # --- public keys, certificates, fingerprints
    ("public_key", "# ~/.ssh/authorized_keys\nssh-ed25519 ‹sshpub:ed25519› marta@laptop\n"
                   "ssh-rsa ‹sshpub:rsa› deploy@ci"),
    ("public_key", "github.com ssh-ed25519 ‹sshpub:ed25519›\n|1|‹rb64:20›|‹rb64:20› ecdsa-sha2-nistp256 ‹sshpub:ecdsa›"),
    ("public_key", "Your public key has been saved in /home/marta/.ssh/id_ed25519.pub\nThe key fingerprint is:\n"
                   "SHA256:‹rb64n:32› marta@laptop"),
    ("public_key", "JWT_PUBLIC_KEY: |\n  -----BEGIN PUBLIC KEY-----\n  ‹pem:pub:2›\n  -----END PUBLIC KEY-----"),
    ("public_key", "ca.crt for the internal registry, paste it into /usr/local/share/ca-certificates/acme.crt:\n"
                   "-----BEGIN CERTIFICATE-----\n‹pem:cert›\n-----END CERTIFICATE-----"),
    ("public_key", "        Serial Number:\n            ‹hexcolon:16›\n        Signature Algorithm: sha256WithRSAEncryption\n"
                   "        Issuer: C=US, O=Let's Encrypt, CN=R3\n        Subject: CN=api.acme.dev\n"
                   "SHA256 Fingerprint=‹HEXcolon:32›"),
    ("public_key", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n‹pgp›\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("public_key", "pub   ed25519 2024-01-15 [SC]\n      ‹HEX:40›\nuid           [ultimate] Marta Díaz <marta@acme.dev>\n"
                   "sub   cv25519 2024-01-15 [E]"),
    ("public_key", "# .sops.yaml\ncreation_rules:\n  - path_regex: secrets/.*\\.yaml$\n"
                   "    age: age1‹bech:58›,age1‹bech:58›"),
    ("public_key", "{\"keys\":[{\"kty\":\"RSA\",\"use\":\"sig\",\"kid\":\"‹hex:16›\",\"alg\":\"RS256\","
                   "\"n\":\"‹rb64u:256›\",\"e\":\"AQAB\"}]}"),
    ("public_key", "untrusted comment: minisign public key ‹HEX:16›\nRW‹b64:54›"),
    ("public_key", "[Peer]\n# laptop-marta\nPublicKey = ‹rb64:32›\nAllowedIPs = 10.8.0.5/32"),
    ("public_key", "mirror of the docs as an onion service: http://‹b32l:56›.onion/"),
    ("public_key", "cosign.pub:\n-----BEGIN PUBLIC KEY-----\n‹pem:ecpub›\n-----END PUBLIC KEY-----"),
    ("public_key", "certificate pins for the mobile app: sha256/‹rb64:32› (leaf), sha256/‹rb64:32› (backup)"),
    ("public_key", "Successfully received certificate.\nCertificate is saved at: /etc/letsencrypt/live/acme.dev/fullchain.pem\n"
                   "Key is saved at:         /etc/letsencrypt/live/acme.dev/privkey.pem\n"
                   "This certificate expires on 2025-06-09."),
    ("public_key", "Name:         ci-deployer-token-‹low:5›\nType:  kubernetes.io/service-account-token\n\nData\n====\n"
                   "ca.crt:     1099 bytes\nnamespace:  7 bytes\ntoken:      953 bytes"),
    ("public_key", "The authenticity of host 'bastion.acme.dev (‹pubip›)' can't be established.\n"
                   "ED25519 key fingerprint is SHA256:‹rb64n:32›.\nAre you sure you want to continue connecting "
                   "(yes/no/[fingerprint])?"),
    ("public_key", "validatingWebhookConfiguration:\n  clientConfig:\n    service:\n      name: policy-webhook\n"
                   "    caBundle: ‹pemb64:cert›"),
    ("public_key", "deploy key added: ssh-ed25519 ‹sshpub:ed25519› (read-only, fingerprint SHA256:‹rb64n:32›)"),
    # --- DNS
    ("dns", "acme.dev.  300  IN  TXT  \"google-site-verification=‹b64u:43›\"\nacme.dev.  300  IN  TXT  "
            "\"v=spf1 include:_spf.google.com include:sendgrid.net ~all\"\n_dmarc.acme.dev. 300 IN TXT "
            "\"v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.dev\""),
    ("dns", "_‹hex:32›.api.acme.dev. CNAME _‹hex:32›.‹low:10›.acm-validations.aws."),
    ("dns", "_acme-challenge.acme.dev. 60 IN TXT \"‹b64u:43›\""),
    ("dns", ";; ANSWER SECTION:\napi.acme.dev.\t\t60\tIN\tA\t‹pubip›\n\n;; Query time: 23 msec\n"
            ";; SERVER: 1.1.1.1#53(1.1.1.1) (UDP)"),
    ("dns", "acme.dev. TXT \"MS=ms‹dig:8›\"\nacme.dev. TXT \"facebook-domain-verification=‹low:30›\"\n"
            "acme.dev. TXT \"atlassian-domain-verification=‹b64:64›\""),
    ("dns", "acme.dev. 3600 IN DS ‹int:1000-65000› 13 2 ‹HEX:64›"),
    ("dns", "bastion.acme.dev. IN SSHFP 4 2 ‹hex:64›"),
    ("dns", "google._domainkey.acme.dev. 3600 IN TXT \"v=DKIM1; k=rsa; p=‹pemline:pub›\""),
    # --- publishable keys the providers document as public
    ("publishable_key", "NEXT_PUBLIC_STRIPE_PUBLISHABLE_KEY=pk_live_‹b62:99›"),
    ("publishable_key", "const stripe = Stripe('pk_test_‹b62:99›');\nconst elements = stripe.elements();"),
    ("publishable_key", "mapboxgl.accessToken = 'pk.‹mapbox›';"),
    ("publishable_key", "Sentry.init({\n  dsn: \"https://‹hex:32›@o‹dig:6›.ingest.sentry.io/‹dig:7›\",\n"
                        "  tracesSampleRate: 0.2,\n});"),
    ("publishable_key", "NEXT_PUBLIC_SUPABASE_URL=https://‹low:20›.supabase.co\nNEXT_PUBLIC_SUPABASE_ANON_KEY=‹jwt:anon›"),
    ("publishable_key", "const client = algoliasearch('‹UP:10›', '‹hex:32›'); // search-only API key, safe in the browser"),
    ("publishable_key", "<div class=\"g-recaptcha\" data-sitekey=\"6L‹b64u:38›\"></div>"),
    ("publishable_key", "gtag('config', 'G-‹UP:10›');\n// container GTM-‹UP:7› loads the rest"),
    ("publishable_key", "posthog.init('phc_‹b62:43›', { api_host: 'https://eu.posthog.com' })"),
    ("publishable_key", "const ld = LDClient.initialize('‹hex:24›', context);  // client-side ID, not the SDK key"),
    ("publishable_key", "NEXT_PUBLIC_CLERK_PUBLISHABLE_KEY=pk_test_‹b64of:⟨alpha:6⟩-⟨alpha:5⟩-⟨int:10-99⟩.clerk.accounts.dev$›"),
    ("publishable_key", "OneSignal.init({ appId: \"‹uuid›\", allowLocalhostAsSecureOrigin: true });"),
    ("publishable_key", "spring:\n  security:\n    oauth2:\n      client:\n        registration:\n          github:\n"
                        "            client-id: Iv1.‹hex:16›\n            client-secret: ${GITHUB_CLIENT_SECRET}"),
    # --- blockchain
    ("blockchain", "Send the testnet ETH to 0x‹hex:40› (the faucet address), not to the contract."),
    ("blockchain", "tx hash 0x‹hex:64› confirmed in block ‹int:18000000-19999999›, gas used 21000"),
    ("blockchain", "Donations: bc1q‹bech:38›"),
    ("blockchain", "mint address ‹b58:44›, decimals 6, supply 1,000,000"),
    ("blockchain", "pinned the build to IPFS: ipfs://bafybei‹b32l:52› (old one was Qm‹b58:44›)"),
    ("blockchain", "Contract verified on Etherscan: 0x‹hex:40›, compiler v0.8.24+commit.‹hex:8›"),
    ("blockchain", "best block hash 0000000000000000000‹hex:45›, height ‹int:830000-890000›"),
    # --- base64 of public data
    ("base64_public", "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA‹b64:180›=\" alt=\"logo\">"),
    ("base64_public", "binaryData:\n  favicon.ico: AAABAAEAEBAAAAEAIABoBAAAFgAAACgAAAAQAAAAIAAAAAEAIAAAAAAAAAQ‹b64:200›"),
    ("base64_public", "redirect to /login?state=‹b64of:{\"returnTo\":\"/⟨pick:dashboard|settings/billing|orders⟩\",\"n\":\"⟨b62:8⟩\"}›"),
    ("base64_public", "@font-face{font-family:Inter;src:url(data:font/woff2;base64,d09GMgABAAAAA‹b64:300›) format('woff2')}"),
    ("base64_public", "$ echo -n \"$CI_COMMIT_BRANCH\" | base64\n‹b64of:⟨pick:main|release/2.14|fix/cache-key|feat/search⟩›"),
    ("base64_public", "Content-Type: text/plain; charset=UTF-8\nContent-Transfer-Encoding: base64\n\n"
                      "‹b64of:Hi team, the report for week ⟨int:1-52⟩ is attached. Numbers look good.›"),
    ("base64_public", "sample payload from the docs (gzip+base64 of the public demo dataset): H4sIAAAAAAAA/‹b64:120›"),
    ("base64_public", "kubectl get cm app-config -o jsonpath='{.binaryData.settings\\.json}'\n"
                      "‹b64of:{\"theme\":\"dark\",\"pageSize\":⟨int:10-100⟩,\"locale\":\"es-ES\"}›"),
    # --- minified code, source maps, hashed class names
    ("minified", "function(e,t,n){\"use strict\";var r=n(‹int:100-999›),o=n.n(r),a=n(‹int:100-999›);"
                 "t.a=function(e){return o()(e,{key:\"‹hex:8›\",prefix:\"css-‹low:6›\"})}}"),
    ("minified", ".css-‹low:7›{display:flex;align-items:center}.css-‹low:7›:hover{color:#‹hex:6›}"
                 ".sc-‹b62:6›{margin:0 auto}"),
    ("minified", "{\"version\":3,\"sources\":[\"../src/index.ts\"],\"names\":[\"e\",\"t\",\"n\"],"
                 "\"mappings\":\"‹vlq:60›\",\"file\":\"index.‹hex:8›.js\"}"),
    ("minified", "<div class=\"_root_‹b62:5›_1 _active_‹b62:5›_12\"><span class=\"_label_‹b62:5›_7\">Pay</span></div>"),
    ("minified", "__webpack_require__.u=e=>\"static/chunks/\"+e+\".\"+{179:\"‹hex:16›\",248:\"‹hex:16›\","
                 "521:\"‹hex:16›\"}[e]+\".js\""),
    ("minified", "!function(){var t=\"‹b62:12›\",e=document.createElement(\"script\");e.async=!0;"
                 "e.src=\"/js/app.\"+t+\".js\";document.head.appendChild(e)}();"),
    # --- build artefacts
    ("artefact", "vite v5.1.6 building for production...\ndist/index.html                 0.46 kB\n"
                 "dist/assets/index-‹b64u:8›.css   12.31 kB\ndist/assets/index-‹b64u:8›.js   187.02 kB │ gzip: 61.40 kB"),
    ("artefact", "$ cat .next/BUILD_ID\n‹b64u:21›"),
    ("artefact", "target/debug/deps/libserde-‹hex:16›.rlib\ntarget/debug/deps/acme_api-‹hex:16›"),
    ("artefact", "Created wheel for acme-core: filename=acme_core-0.9.1-py3-none-any.whl size=41233 "
                 "sha256=‹hex:64›\n  Stored in directory: /tmp/pip-ephem-wheel-cache-‹low:8›/wheels/‹hex:2›/‹hex:2›/‹hex:60›"),
    ("artefact", "$ go tool buildid ./bin/acmectl\n‹b64u:20›/‹b64u:20›/‹b64u:20›/‹b64u:20›"),
    ("artefact", "Cache restored from key: node-cache-Linux-x64-npm-‹hex:64›"),
    ("artefact", "remote cache hit for //services/api:image (action ‹hex:64›)"),
    ("artefact", "~/Library/Developer/Xcode/DerivedData/Acme-‹alpha:28›/Build/Products/Release-iphoneos/Acme.app"),
    ("artefact", "uploaded s3://acme-artifacts/api/‹hex:40›/api-linux-amd64.tar.gz (38.2 MiB)"),
    ("artefact", "Pushed: ghcr.io/acme/charts/api:1.8.2\nDigest: sha256:‹hex:64›"),
    ("artefact", "api:build: cache hit, replaying logs ‹hex:16›\nweb:build: cache miss, executing ‹hex:16›"),
    ("artefact", "app-release-‹hex:7›.apk (versionCode 3120, versionName 5.4.0) uploaded to the internal track"),
    # --- placeholders and references
    ("placeholder", "env:\n  NPM_TOKEN: ${{ secrets.NPM_TOKEN }}\n  AWS_ROLE_ARN: arn:aws:iam::‹dig:12›:role/gha-deploy\n"
                    "steps:\n  - uses: actions/checkout@‹hex:40› # v4.1.1"),
    ("placeholder", "deploy:\n  script:\n    - echo \"$CI_REGISTRY_PASSWORD\" | docker login -u \"$CI_REGISTRY_USER\" "
                    "--password-stdin $CI_REGISTRY\n    - helm upgrade api ./chart --set image.tag=$CI_COMMIT_SHORT_SHA"),
    ("placeholder", "version: 2.1\norbs:\n  aws-cli: circleci/aws-cli@4.1\njobs:\n  deploy:\n    docker:\n"
                    "      - image: cimg/base:2024.02\n    steps:\n      - run: ./deploy.sh --token \"$DEPLOY_TOKEN\"\n"
                    "workflows:\n  main:\n    jobs:\n      - deploy:\n          context: prod-secrets"),
    ("placeholder", "data:\n  password: {{ .Values.postgresql.auth.password | b64enc | quote }}\n"
                    "{{- if .Values.existingSecret }}\n  # using {{ .Values.existingSecret }}\n{{- end }}"),
    ("placeholder", "env:\n  - name: DB_PASSWORD\n    valueFrom:\n      secretKeyRef:\n        name: db-credentials\n"
                    "        key: password"),
    ("placeholder", "vault kv get -field=password secret/data/prod/postgres"),
    ("placeholder", "DATABASE_URL=op://Engineering/prod-db/connection-string\nSTRIPE_KEY=op://Engineering/stripe/secret-key"),
    ("placeholder", "# copy to .env and fill in\nDB_PASSWORD=changeme\nSTRIPE_SECRET_KEY=sk_live_your_key_here\n"
                    "OPENAI_API_KEY=<your-openai-key>\nJWT_SECRET="),
    ("placeholder", "stripe.error.AuthenticationError: Invalid API Key provided: sk_live_********************‹b62:4›"),
    ("placeholder", "Connecting to postgres://app:********@db.internal:5432/app ... connected in 41ms"),
    ("placeholder", "variable \"db_password\" {\n  type      = string\n  sensitive = true\n}\n\n"
                    "resource \"random_password\" \"db\" {\n  length  = 32\n  special = true\n}"),
    ("placeholder", "spring.datasource.password=${DB_PASSWORD}\nspring.datasource.username=${DB_USER:app}"),
    ("placeholder", "'mysql' => [\n    'username' => env('DB_USERNAME', 'forge'),\n    'password' => env('DB_PASSWORD', ''),\n],"),
    ("placeholder", "api_key = os.environ[\"OPENAI_API_KEY\"]  # never hardcode this"),
    ("placeholder", "token := os.Getenv(\"GITHUB_TOKEN\")\nif token == \"\" {\n\tlog.Fatal(\"GITHUB_TOKEN is not set\")\n}"),
    ("placeholder", "secret = Rails.application.credentials.dig(:aws, :secret_access_key)"),
    ("placeholder", "\"DbPassword\": \"@Microsoft.KeyVault(SecretUri=https://acme-kv.vault.azure.net/secrets/DbPassword/)\""),
    ("placeholder", "String apiKey = System.getenv(\"PAYMENTS_API_KEY\");"),
    ("placeholder", "let token = std::env::var(\"DISCORD_TOKEN\").expect(\"DISCORD_TOKEN must be set\");"),
    ("placeholder", "db:\n    password: ENC[AES256_GCM,data:‹rb64:18›,iv:‹rb64:32›,tag:‹rb64:16›,type:str]\nsops:\n"
                    "    age:\n        - recipient: age1‹bech:58›\n    lastmodified: \"2025-03-01T10:00:00Z\"\n"
                    "    mac: ENC[AES256_GCM,data:‹rb64:64›,iv:‹rb64:32›,tag:‹rb64:16›,type:str]"),
    ("placeholder", "$ANSIBLE_VAULT;1.1;AES256\n‹hex:80›\n‹hex:80›\n‹hex:80›\n‹hex:40›"),
    ("placeholder", "apiVersion: bitnami.com/v1alpha1\nkind: SealedSecret\nmetadata:\n  name: api-keys\nspec:\n"
                    "  encryptedData:\n    STRIPE_KEY: AgB‹rb64:380›"),
    ("placeholder", "kind: ExternalSecret\nspec:\n  secretStoreRef:\n    name: aws-sm\n  data:\n"
                    "    - secretKey: password\n      remoteRef:\n        key: prod/db\n        property: password"),
    ("placeholder", "db_password: \"{{ vault_db_password }}\"\nsmtp_password: \"{{ lookup('env', 'SMTP_PASSWORD') }}\""),
    ("placeholder", "curl -H \"Authorization: Bearer <your-token>\" https://api.acme.dev/v1/me"),
    ("placeholder", "export GITHUB_TOKEN=ghp_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx  # replace with your own"),
    ("placeholder", "aws ssm get-parameter --name /prod/api/db_password --with-decryption --query Parameter.Value "
                    "--output text"),
    ("placeholder", "gh secret set NPM_TOKEN --org acme --visibility private  (pasted the value at the prompt, "
                    "so it is not in the history)"),
    ("placeholder", "Copia `.env.example` a `.env` y rellena `DB_PASSWORD` con la contraseña que te dé el equipo "
                    "de plataforma."),
    ("placeholder", "withCredentials([usernamePassword(credentialsId: 'nexus-deploy', usernameVariable: 'NEXUS_USER', "
                    "passwordVariable: 'NEXUS_PASS')]) {\n  sh 'mvn deploy -s settings.xml'\n}"),
    ("placeholder", "variables:\n  - group: shop-prod-secrets\nsteps:\n  - task: AzureKeyVault@2\n    inputs:\n"
                    "      azureSubscription: 'shop-prod-sc'\n      KeyVaultName: 'acme-kv'\n"
                    "      SecretsFilter: 'DbPassword,StripeKey'"),
    ("placeholder", "Run ./deploy.sh\n  env:\n    DEPLOY_TOKEN: ***\n  Deploying ‹hex:7› to production..."),
    ("placeholder", "[Service]\nEnvironmentFile=/etc/acme/api.env\nExecStart=/usr/local/bin/acme-api --config "
                    "/etc/acme/api.yaml\nLoadCredential=db-password:/etc/credstore/db-password"),
    ("placeholder", "password: [REDACTED]\napi_key: [REDACTED]\n(values removed before pasting the config into the ticket)"),
    # --- code and prose about secrets, with no value
    ("about_secrets", "def verify_password(plain: str, hashed: str) -> bool:\n"
                      "    return bcrypt.checkpw(plain.encode(), hashed.encode())"),
    ("about_secrets", "PASSWORD_MIN_LENGTH = 12\nPASSWORD_REQUIRE_SYMBOL = True\nTOKEN_TTL_SECONDS = 900\n"
                      "API_KEY_HEADER = \"X-Api-Key\""),
    ("about_secrets", "FATAL:  password authentication failed for user \"app\"\nDETAIL:  Connection matched "
                      "pg_hba.conf line 99: \"host all all 0.0.0.0/0 scram-sha-256\""),
    ("about_secrets", "HTTP/1.1 401 Unauthorized\nWWW-Authenticate: Bearer error=\"invalid_token\", "
                      "error_description=\"The access token expired\"\nContent-Type: application/json\n\n"
                      "{\"message\": \"Bad credentials\", \"documentation_url\": \"https://docs.github.com/rest\"}"),
    ("about_secrets", "Root cause: the API token in CI had expired. Rotated it in the GitHub org secrets "
                      "(NPM_TOKEN) and re-ran the pipeline; nothing was committed."),
    ("about_secrets", "[[rules]]\nid = \"stripe-secret\"\nregex = '''sk_(live|test)_[0-9a-zA-Z]{24,99}'''\n"
                      "keywords = [\"sk_live\", \"sk_test\"]"),
    ("about_secrets", "GITHUB_PAT = re.compile(r\"ghp_[A-Za-z0-9]{36}\")\nAWS_KEY_ID = re.compile(r\"AKIA[0-9A-Z]{16}\")"),
    ("about_secrets", "class User < ApplicationRecord\n  has_secure_password\n  has_secure_token :api_token\nend"),
    ("about_secrets", "AUTH_PASSWORD_VALIDATORS = [\n    {'NAME': 'django.contrib.auth.password_validation."
                      "MinimumLengthValidator', 'OPTIONS': {'min_length': 12}},\n]"),
    ("about_secrets", "The password reset flow: POST /auth/forgot with the email, we send a one-time link that "
                      "expires in 30 minutes; the token is stored hashed (sha256) in password_resets."),
    ("about_secrets", "Please don't log the Authorization header here; mask it with `redact_headers()` first."),
    ("about_secrets", "Access tokens live 15 minutes, refresh tokens 30 days; refresh token rotation is on, so a "
                      "reused refresh token revokes the whole family."),
    ("about_secrets", "Host bastion\n  HostName ‹pubip›\n  User ec2-user\n  IdentityFile ~/.ssh/acme-bastion.pem\n"
                      "  IdentitiesOnly yes"),
    ("about_secrets", "botocore.exceptions.NoCredentialsError: Unable to locate credentials"),
    ("about_secrets", "Error: error configuring Terraform AWS Provider: no valid credential sources for Terraform "
                      "AWS Provider found."),
    ("about_secrets", "npm ERR! code E401\nnpm ERR! Unable to authenticate, your authentication token seems to be "
                      "invalid.\nnpm ERR! To correct this please try logging in again with:\nnpm ERR!     npm login"),
    ("about_secrets", "kind: Role\nrules:\n  - apiGroups: [\"\"]\n    resources: [\"secrets\"]\n    verbs: [\"get\", \"list\"]"),
    ("about_secrets", "@Bean\nPasswordEncoder passwordEncoder() {\n    return new BCryptPasswordEncoder(12);\n}"),
    ("about_secrets", "options.Password.RequiredLength = 12;\noptions.Lockout.MaxFailedAccessAttempts = 5;"),
    ("about_secrets", "- repo: https://github.com/gitleaks/gitleaks\n  rev: v8.18.2\n  hooks:\n    - id: gitleaks"),
    ("about_secrets", "org.springframework.security.authentication.BadCredentialsException: Bad credentials\n\tat "
                      "org.springframework.security.authentication.dao.DaoAuthenticationProvider."
                      "additionalAuthenticationChecks(DaoAuthenticationProvider.java:93)"),
    ("about_secrets", "const [token, setToken] = useState<string | null>(null);\nconst [password, setPassword] = useState('');"),
    ("about_secrets", "type Config struct {\n\tAPIKey     string `env:\"API_KEY,required\"`\n"
                      "\tDBPassword string `env:\"DB_PASSWORD,required\"`\n}"),
    ("about_secrets", "openssl rand -base64 32   # generate one, then paste it straight into the vault UI"),
    ("about_secrets", "TIL: `git log -p -S 'BEGIN RSA PRIVATE KEY'` finds the commit that introduced a key file; "
                      "we had none, the scanner alert was about a test that mentions the header."),
    ("about_secrets", "fix(auth): stop logging refresh tokens in debug mode\n\nThe token value was included in "
                      "the request dump. It is now replaced by its length."),
    ("about_secrets", "Stripe-Signature: t=‹epoch›,v1=‹hex:64›"),
    ("about_secrets", "X-GitHub-Event: push\nX-GitHub-Delivery: ‹uuid›\nX-Hub-Signature-256: sha256=‹hex:64›"),
    ("about_secrets", "La contraseña debe tener al menos 12 caracteres, una mayúscula y un símbolo."),
    ("about_secrets", "Para cambiar la contraseña hay que pulsar en 'Olvidé mi contraseña'; el enlace caduca a "
                      "los 30 minutos."),
    ("about_secrets", "Recordatorio: nunca pegues tokens en el canal; si se filtra uno, revócalo y avisa en #seguridad."),
    # --- "token" in its other senses
    ("nlp_token", "The prompt was 3,812 tokens and the completion 644; with max_tokens=1024 we are fine under the "
                  "8k context."),
    ("nlp_token", "tokenizer(\"Hola mundo\") -> input_ids=[101, ‹int:1000-30000›, ‹int:1000-30000›, 102], "
                  "attention_mask=[1, 1, 1, 1]"),
    ("nlp_token", "Lexer emitted Token(kind=IDENT, text='password', line=12) then Token(kind=EQ); the parser "
                  "expects a string literal next."),
    ("nlp_token", "BPE splits 'unbelievable' into 3 tokens: 'un', 'belie', 'vable'."),
    ("nlp_token", "usage: {prompt_tokens: ‹int:100-5000›, completion_tokens: ‹int:10-900›, total_tokens: ‹int:200-6000›}"),
    ("nlp_token", "Design tokens: --color-primary: #‹hex:6›; --space-4: 16px; they live in tokens.json"),
    ("nlp_token", "El modelo admite 128k tokens de contexto; cortamos los documentos en fragmentos de 512 tokens."),
    ("nlp_token", "The ERC-20 token contract emits Transfer events; we index them by block number."),
    ("nlp_token", "await db.SaveChangesAsync(cancellationToken);  // pass the CancellationToken everywhere"),
    # --- Spanish ordinary senses of clave / llave / contraseña
    ("spanish", "La clave del problema era el timeout de 30 s en el balanceador, no la base de datos."),
    ("spanish", "Añadí una clave primaria compuesta (tenant_id, id) y una clave foránea a pedidos."),
    ("spanish", "Palabras clave del artículo: caché, latencia, p99."),
    ("spanish", "Necesito la llave inglesa del 13 para el soporte del rack."),
    ("spanish", "Cerrad la llave de paso del agua antes de tocar el aire acondicionado del CPD."),
    ("spanish", "En un diccionario de Python cada clave es única: datos['clave'] devuelve su valor."),
    ("spanish", "Clave de sol y clave de fa: el plugin de partituras renderiza ambas."),
    ("spanish", "La llave del armario de red la tiene Javi; pedídsela antes de ir."),
    ("spanish", "Reunión clave el jueves con el cliente; llevad las métricas de latencia."),
    ("spanish", "ERROR: llave duplicada viola restricción de unicidad \"pedidos_pkey\"\n"
                "DETALLE: Ya existe la llave (id)=(‹int:1000-99999›)."),
    ("spanish", "El despliegue ‹hex:7› falló en el paso de migraciones; reintentado con éxito a las 11:40."),
    ("spanish", "[11:20] javi: ¿alguien sabe la clave del problema con el deploy?\n[11:22] marta: era la caché de "
                "Docker, el digest sha256:‹hex:64› no coincidía"),
    ("spanish", "Hay que rotar las credenciales cada 90 días; el procedimiento está en la wiki."),
    # --- versions
    ("version", "$ pip freeze\nboto3==1.34.58\nbotocore==1.34.58\ncryptography==42.0.5\nrequests==2.31.0"),
    ("version", "$ uname -a\nLinux web-1 6.5.0-1015-aws #15~22.04.1-Ubuntu SMP Tue Feb 13 21:39:31 UTC 2024 "
                "x86_64 GNU/Linux"),
    ("version", "node v20.11.1, npm 10.2.4, pnpm 8.15.4; upgraded typescript 5.3.3 -> 5.4.2"),
    ("version", "User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) "
                "Chrome/122.0.6261.112 Safari/537.36"),
    ("version", "$ java -version\nopenjdk version \"21.0.2\" 2024-01-16 LTS\nOpenJDK Runtime Environment "
                "Temurin-21.0.2+13 (build 21.0.2+13-LTS)"),
    ("version", "Client: Docker Engine - Community\n Version:    25.0.3\n API version: 1.44\n Git commit: ‹hex:7›"),
    ("version", "Terraform v1.7.5\non linux_amd64\n+ provider registry.terraform.io/hashicorp/aws v5.40.0"),
    ("version", "$ rustc -V\nrustc 1.76.0 (‹hex:9› 2024-02-04)"),
    ("version", "build(deps): bump jsonwebtoken from 9.0.0 to 9.0.2"),
    # --- commit messages and PR text
    ("commit_message", "chore: remove .env from the repo and add it to .gitignore (the values were rotated)"),
    ("commit_message", "feat(api): add /v1/api-keys endpoint to create and revoke keys; keys are shown once and "
                       "stored as sha256"),
    ("commit_message", "Revert \"add staging credentials\"\n\nThis reverts commit ‹hex:40›."),
    ("commit_message", "refactor(secrets): move SMTP password lookup to the settings module (closes #‹int:100-999›)"),
    # --- fixtures clearly labelled as such
    ("fixture", "# deterministic fixture for the snapshot test; random bytes, not a credential\n"
                "FIXTURE_BLOB_SHA256 = \"‹hex:64›\""),
    ("fixture", "uuid.UUID(int=random.Random(42).getrandbits(128)) -> ‹uuid›  # fixed seed for reproducible tests"),
    ("fixture", "tests/fixtures/README: sample_upload.bin is 4 KiB of os.urandom output; its sha1 is ‹hex:40›"),
    ("fixture", "Falsifying example: test_roundtrip(data=b'‹hexesc:12›')"),
    ("fixture", "factory produced User(email='lucia.romero‹int:1-999›@example.org', username='lromero‹int:1-999›')"),
    ("fixture", "fuzz: reproduced with cargo fuzz run parse_header fuzz/artifacts/parse_header/crash-‹hex:40›"),
    # --- logs and stack traces
    ("log", "Traceback (most recent call last):\n  File \"/srv/app/.venv/lib/python3.11/site-packages/httpx/"
            "_transports/default.py\", line 69, in map_httpcore_exceptions\n    yield\nhttpx.ConnectTimeout: "
            "timed out (client <httpx.Client object at 0x7f‹hex:10›>)"),
    ("log", "panic: runtime error: invalid memory address or nil pointer dereference\n[signal SIGSEGV: "
            "segmentation violation code=0x1 addr=0x18 pc=0x‹hex:6›]\n\ngoroutine 42 [running]:\n"
            "main.(*Server).handle(0xc000‹hex:6›, {0x‹hex:6›, 0xc000‹hex:6›})\n\t/app/server.go:118 +0x‹hex:2›"),
    ("log", "java.lang.IllegalStateException: Connection pool shut down\n\tat org.apache.http.util.Asserts.check"
            "(Asserts.java:34)\n\tat com.acme.orders.Client$$Lambda$‹int:100-999›/0x‹hex:16›.apply(Unknown Source)"),
    ("log", "Error: ENOENT: no such file or directory, open '/app/.next/cache/images/‹b64u:43›/"
            "‹int:60-600›.‹hex:40›.webp'"),
    ("log", "‹pubip› - - [11/Mar/2025:10:22:31 +0000] \"GET /api/v1/orders/‹uuid› HTTP/2.0\" 200 1432 \"-\" "
            "\"Mozilla/5.0\" rt=0.043 rid=‹hex:32›"),
    ("log", "Warning  BackOff  3m (x14 over 12m)  kubelet  Back-off restarting failed container api in pod "
            "api-‹low:10›-‹low:5›_shop(‹uuid›)"),
    ("log", "thread 'tokio-runtime-worker' panicked at src/db.rs:88:14:\ncalled `Result::unwrap()` on an `Err` "
            "value: PoolTimedOut\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace"),
    ("log", "fail: Microsoft.AspNetCore.Server.Kestrel[13]\n      Connection id \"0HN‹UP:10›\", Request id "
            "\"0HN‹UP:10›:00000002\": An unhandled exception was thrown by the application."),
    ("log", "Mar 11 10:01:12 bastion sshd[‹int:1000-99999›]: Accepted publickey for ec2-user from ‹pubip› port "
            "‹int:1024-65535› ssh2: ED25519 SHA256:‹rb64n:32›"),
    ("log", "2025-03-11 10:15:02.114 UTC [‹int:1000-99999›] LOG:  duration: 1532.442 ms  statement: SELECT * FROM "
            "sessions WHERE token_hash = $1"),
    ("log", "dockerd[‹int:100-9999›]: time=\"2025-03-11T10:01:02Z\" level=info msg=\"ignoring event\" "
            "container=‹hex:64› module=libcontainerd namespace=moby topic=/tasks/delete"),
    ("log", "[2025-03-11 10:05:00,123] INFO [Consumer clientId=orders-‹uuid›, groupId=orders] Resetting offset "
            "for partition orders-3 to position FetchPosition{offset=‹int:1000-9999999›}"),
    ("log", "E0311 10:12:44.120  1 reflector.go:147] failed to list *v1.Secret: secrets is forbidden: User "
            "\"system:serviceaccount:shop:api\" cannot list resource \"secrets\""),
    ("log", "WARN  [hikari] HikariPool-1 - Connection org.postgresql.jdbc.PgConnection@‹hex:8› marked as broken "
            "because of SQLSTATE(08006)"),
    # --- HTTP
    ("http", "HTTP/1.1 304 Not Modified\nETag: W/\"‹hex:32›\"\nCache-Control: max-age=0, must-revalidate"),
    ("http", "Content-Security-Policy: script-src 'self' 'nonce-‹rb64:16›' 'sha256-‹rb64:32›'; object-src 'none'"),
    ("http", "Cookie: _ga=GA1.1.‹dig:9›.‹epoch›; _ga_‹UP:10›=GS1.1.‹epoch›.4.1.‹epoch›.0.0.0; theme=dark; lang=es"),
    ("http", "{\"id\": \"evt_‹b62:24›\", \"object\": \"event\", \"type\": \"invoice.paid\", \"data\": {\"object\": "
             "{\"id\": \"in_‹b62:24›\", \"customer\": \"cus_‹b62:14›\"}}}"),
    ("http", "GET /static/app.js?v=‹hex:8› HTTP/1.1\nIf-None-Match: \"‹hex:40›\"\nAccept-Encoding: gzip, br"),
    ("http", "* Connected to api.acme.dev (‹pubip›) port 443\n* SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256\n"
             "*  subject: CN=api.acme.dev\n*  SSL certificate verify ok.\n> GET /healthz HTTP/2\n< HTTP/2 200\n"
             "< x-trace-id: ‹hex:32›"),
    ("http", "GET /ws HTTP/1.1\nUpgrade: websocket\nConnection: Upgrade\nSec-WebSocket-Key: ‹rb64:16›\n"
             "Sec-WebSocket-Version: 13"),
    ("http", "Link: <https://api.github.com/repositories/‹dig:9›/issues?page=2>; rel=\"next\", "
             "<https://api.github.com/repositories/‹dig:9›/issues?page=14>; rel=\"last\""),
    ("http", "{\"operationName\":\"Cart\",\"extensions\":{\"persistedQuery\":{\"version\":1,\"sha256Hash\":\"‹hex:64›\"}}}"),
    ("http", "WWW-Authenticate: Digest realm=\"acme\", qop=\"auth\", nonce=\"‹hex:32›\", opaque=\"‹hex:32›\""),
    ("http", "HTTP/1.1 429 Too Many Requests\nRetry-After: 30\nX-RateLimit-Limit: 5000\nX-RateLimit-Remaining: 0\n"
             "X-GitHub-Request-Id: ‹HEX:4›:‹HEX:5›:‹HEX:7›:‹HEX:7›:‹HEX:8›"),
    # --- chat messages pasted by the user
    ("chat", "[09:31] javi: build is red again, `npm ci` fails with E401 on the private registry\n"
             "[09:33] marta: the token in the org secrets expired yesterday, I just rotated it, re-run please"),
    ("chat", "[14:02] lucia: can someone check trace ‹hex:32› in Tempo? checkout latency spiked at 13:55"),
    ("chat", "hey, here's the failing job: https://gitlab.acme.dev/platform/api/-/jobs/‹dig:7›; look at line 212, "
             "the cache key is ‹hex:40›"),
    ("chat", "pasted from the ticket: customer ‹uuid› says the invoice in_‹b62:24› was charged twice"),
    ("chat", "can you review #‹int:100-999›? it only moves the keys to Vault, no values in the diff"),
    # --- CI/CD, Kubernetes, Helm, Terraform without secrets
    ("ci_cd", "permissions:\n  id-token: write\n  contents: read\nsteps:\n  - uses: aws-actions/configure-aws-"
              "credentials@‹hex:40›\n    with:\n      role-to-assume: arn:aws:iam::‹dig:12›:role/gha-oidc\n"
              "      aws-region: eu-west-1"),
    ("ci_cd", "cache:\n  key:\n    files:\n      - package-lock.json\n  paths:\n    - .npm/\nbuild:\n  script:\n"
              "    - npm ci --cache .npm\n    - echo \"built $CI_COMMIT_SHA\""),
    ("ci_cd", "- restore_cache:\n    keys:\n      - v1-deps-{{ checksum \"poetry.lock\" }}\n      - v1-deps-"),
    ("ci_cd", "podAnnotations:\n  checksum/config: ‹hex:64›\n  checksum/secret: ‹hex:64›"),
    ("ci_cd", "status:\n  sync:\n    revision: ‹hex:40›\n    status: Synced\n  health:\n    status: Healthy"),
    ("ci_cd", "status:\n  lastAppliedRevision: main@sha1:‹hex:40›\n  lastAttemptedRevision: main@sha1:‹hex:40›"),
    ("ci_cd", "steps:\n  - label: ':docker: build'\n    command: make image TAG=$BUILDKITE_COMMIT\n"
              "    agents:\n      queue: builders"),
    ("ci_cd", "images:\n  - name: acme/api\n    newTag: ‹hex:40›\n    digest: sha256:‹hex:64›"),
    ("ci_cd", "module \"vpc\" {\n  source = \"git::https://github.com/acme/terraform-modules.git//vpc?ref=‹hex:40›\"\n"
              "  cidr   = \"10.20.0.0/16\"\n}"),
    ("ci_cd", "image:\n  repository: ghcr.io/acme/worker\n  tag: \"1.8.2\"\n  pullPolicy: IfNotPresent\n"
              "imagePullSecrets:\n  - name: ghcr-pull\nexistingSecret: worker-env"),
    ("ci_cd", "metadata:\n  uid: ‹uuid›\n  resourceVersion: \"‹dig:8›\"\n  generation: 14\n  annotations:\n"
              "    deployment.kubernetes.io/revision: \"27\""),
    ("ci_cd", "resource \"aws_iam_access_key\" \"ci\" {\n  user    = aws_iam_user.ci.name\n  pgp_key = "
              "\"keybase:acme_ops\"\n}\n\noutput \"ci_secret\" {\n  value     = aws_iam_access_key.ci.encrypted_secret\n"
              "  sensitive = true\n}"),
    ("ci_cd", "jobs:\n  test:\n    runs-on: ubuntu-latest\n    strategy:\n      matrix:\n        python: ['3.10', "
              "'3.11', '3.12']\n    steps:\n      - uses: actions/setup-python@‹hex:40›\n        with:\n"
              "          python-version: ${{ matrix.python }}"),
    # --- app config without secrets
    ("config", "NODE_ENV=production\nPORT=8080\nLOG_LEVEL=info\nFEATURE_FLAGS=new-checkout,fast-search\n"
               "SESSION_TTL=3600\nS3_BUCKET=acme-uploads-‹hex:6›"),
    ("config", "server:\n  port: 8443\n  tls:\n    cert_file: /etc/tls/tls.crt\n    key_file: /etc/tls/tls.key\n"
               "cache:\n  ttl: 5m\n  max_entries: 10000"),
    ("config", "[tool.poetry]\nname = \"acme-core\"\nversion = \"0.9.1\"\n\n[tool.poetry.dependencies]\n"
               "python = \"^3.11\"\npydantic = \"^2.6\"\npyjwt = \"^2.8\""),
    ("config", "{\"compilerOptions\": {\"target\": \"ES2022\", \"module\": \"ESNext\", \"strict\": true, "
               "\"paths\": {\"@/*\": [\"./src/*\"]}}, \"include\": [\"src\"]}"),
    ("config", "[Session]\nsession.save_handler = redis\nsession.save_path = \"tcp://cache.internal:6379\"\n"
               "session.cookie_secure = On\nsession.gc_maxlifetime = 1440"),
    ("config", "<PackageReference Include=\"Microsoft.Identity.Web\" Version=\"2.17.1\" />\n"
               "<PackageReference Include=\"Azure.Security.KeyVault.Secrets\" Version=\"4.6.0\" />"),
    ("config", "server.port=8080\nmanagement.endpoints.web.exposure.include=health,info\n"
               "spring.jpa.hibernate.ddl-auto=validate\nspring.datasource.hikari.maximum-pool-size=20"),
    ("config", "ssl_certificate     /etc/letsencrypt/live/acme.dev/fullchain.pem;\nssl_certificate_key "
               "/etc/letsencrypt/live/acme.dev/privkey.pem;\nssl_session_tickets off;\nadd_header "
               "Strict-Transport-Security \"max-age=63072000\" always;"),
    ("config", "gem 'devise', '~> 4.9'\ngem 'jwt', '~> 2.8'\ngem 'bcrypt', '~> 3.1.7'"),
    ("config", "cfg := &tls.Config{MinVersion: tls.VersionTLS12, ServerName: \"api.acme.dev\"}"),
    ("config", "[dependencies]\ntokio = { version = \"1.36\", features = [\"full\"] }\njsonwebtoken = \"9\"\n"
               "argon2 = \"0.5\""),
    ("config", "\"AzureAd\": {\n  \"Instance\": \"https://login.microsoftonline.com/\",\n  \"TenantId\": \"‹uuid›\",\n"
               "  \"ClientId\": \"‹uuid›\",\n  \"CallbackPath\": \"/signin-oidc\"\n}"),
    ("config", "\"require\": {\n    \"php\": \"^8.2\",\n    \"laravel/framework\": \"^11.0\",\n"
               "    \"laravel/sanctum\": \"^4.0\"\n}"),
    ("config", "<appender name=\"FILE\" class=\"ch.qos.logback.core.rolling.RollingFileAppender\">\n"
               "  <file>/var/log/acme/api.log</file>\n  <encoder><pattern>%d %-5level [%X{traceId}] %logger - "
               "%msg%n</pattern></encoder>\n</appender>"),
    # --- misc that looks random
    ("misc", "Switch port 12: MAC ‹mac›, serial FOC‹UP:8›, firmware 17.9.4a"),
    ("misc", "palette: #‹hex:6›, #‹hex:6›, #‹hex:6› (from the brand guide)"),
    ("misc", "VIN of the test vehicle in the fleet demo: ‹UP:17›"),
    ("misc", "Benchmark run ‹hex:8›: p50 12.4 ms, p95 41.0 ms, p99 88.7 ms over 10k requests"),
    ("misc", "The lockfile changed because Renovate bumped 14 packages; integrity hashes differ, that's expected."),
]


# ------------------------------------------------------------------------------ filler

_HEX = "0123456789abcdef"
_B62 = string.ascii_letters + string.digits
_B64 = _B62 + "+/"
_B64U = _B62 + "-_"
_UPDIG = string.ascii_uppercase + string.digits
_LOWDIG = string.ascii_lowercase + string.digits
_B32 = string.ascii_uppercase + "234567"
_B32L = string.ascii_lowercase + "234567"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_NIX = "0123456789abcdfghijklmnpqrsvwxyz"
_CROCK = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_DJANGO = string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)"
_PW_SYMBOLS = "!#%*@^-_.+?"
_URL_PW_SYMBOLS = "-_.~"

_CHARSETS = {
    "hex": _HEX, "HEX": _HEX.upper(), "b62": _B62, "b64": _B64, "b64u": _B64U, "up": _UPDIG,
    "UP": string.ascii_uppercase, "low": _LOWDIG, "alpha": string.ascii_lowercase, "dig": string.digits,
    "b32": _B32, "b32l": _B32L, "b58": _B58, "bech": _BECH, "BECH": _BECH.upper(), "nix": _NIX,
    "crock": _CROCK, "dj": _DJANGO,
}

# The first BIP-39 words (public list), for seed phrases.
_SEED_WORDS = (
    "abandon ability able about above absent absorb abstract absurd abuse access accident account accuse "
    "achieve acid acoustic acquire across act action actor actress actual adapt add addict address adjust "
    "admit adult advance advice aerobic affair afford afraid again age agent agree ahead aim air airport "
    "aisle alarm album alcohol alert alien all alley allow almost alone alpha already also alter always "
    "amateur amazing among amount amused analyst anchor ancient anger angle angry animal ankle announce "
    "annual another answer antenna antique anxiety any apart apology appear apple approve april arch arctic "
    "area arena argue arm armed armor army around arrange arrest arrive arrow art artefact artist artwork "
    "ask aspect assault asset assist assume asthma athlete atom attack attend attitude attract auction "
    "audit august aunt author auto autumn average avocado avoid awake aware away awesome awful awkward axis "
    "baby bachelor bacon badge bag balance balcony ball bamboo banana banner bar barely bargain barrel base "
    "basic basket battle beach bean beauty because become beef before begin behave behind believe below "
    "belt bench benefit best betray better between beyond bicycle bid bike bind biology bird birth bitter "
    "black blade blame blanket blast bleak bless blind blood blossom blouse blue blur blush board boat body "
    "boil bomb bone bonus book boost border boring borrow boss bottom bounce box boy bracket brain brand "
    "brass brave bread breeze brick bridge brief bright bring brisk broccoli broken bronze broom brother "
    "brown brush bubble buddy budget buffalo build bulb bulk bullet bundle bunker burden burger burst bus "
    "business busy butter buyer buzz cabbage cabin cable cactus cage cake call calm camera camp can canal "
    "cancel candy cannon canoe canvas canyon capable capital captain car carbon card cargo carpet carry "
    "cart case cash casino castle casual cat catalog catch category cattle caught cause caution cave "
    "ceiling celery cement census century cereal certain chair chalk champion change chaos chapter charge"
).split()

# Words for human-made passwords (English and Spanish).
_PW_WORDS = (
    "tortuga girasol montana naranja relampago pinguino castillo marea lucero volcan cometa "
    "halcon pradera cobre brisa harbor lantern walnut falcon meadow glacier pepper saffron "
    "thunder compass cobalt sparrow quartz willow otter"
).split()

_USERS = ["admin", "deploy", "ci-bot", "jenkins", "svc_build", "marta", "registry"]

_SHAPE = re.compile(r"‹([A-Za-z0-9]+)(?::([^›]*))?›")
# Shapes inside another shape's argument (``‹b64of:{"id":⟨int⟩}›``) are filled first.
_INNER = re.compile(r"⟨([A-Za-z0-9]+)(?::([^⟩]*))?⟩")


def _chars(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _rbytes(rng: random.Random, n: int) -> bytes:
    return bytes(rng.randrange(256) for _ in range(n))


def _b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _password(rng: random.Random) -> str:
    """A strong random password: starts with a letter, holds a digit and a symbol."""
    n = rng.randint(14, 22)
    body = [rng.choice(string.ascii_letters)]
    body += [rng.choice(_B62 + _PW_SYMBOLS) for _ in range(n - 3)]
    body += [rng.choice(string.digits), rng.choice(_PW_SYMBOLS)]
    head, tail = body[0], body[1:]
    rng.shuffle(tail)
    return head + "".join(tail)


def _url_password(rng: random.Random) -> str:
    """A random password that needs no escaping inside a URL."""
    n = rng.randint(16, 28)
    body = [rng.choice(_B62 + _URL_PW_SYMBOLS) for _ in range(n - 1)] + [rng.choice(string.digits)]
    head, tail = rng.choice(string.ascii_letters), body
    rng.shuffle(tail)
    return head + "".join(tail)


def _human_password(rng: random.Random) -> str:
    """A password a person would pick: a word, digits, maybe a symbol (never a known default)."""
    word = rng.choice(_PW_WORDS).capitalize()
    sep = rng.choice(["", "-", ".", "_", "#"])
    return f"{word}{sep}{rng.randint(10, 9999)}{rng.choice(['!', '?', '*', '$', ''])}"


def _der_body(rng: random.Random, kind: str) -> bytes:
    """Bytes shaped like the DER (or OpenSSH) encoding of a key or certificate."""
    if kind == "rsa":
        return b"\x30\x82\x04\xa4\x02\x01\x00\x02\x82\x01\x01\x00" + _rbytes(rng, 1180)
    if kind == "pkcs8":
        return (b"\x30\x82\x04\xbe\x02\x01\x00\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00"
                b"\x04\x82\x04\xa8" + _rbytes(rng, 1192))
    if kind == "ec":
        return (b"\x30\x77\x02\x01\x01\x04\x20" + _rbytes(rng, 32)
                + b"\xa0\x0a\x06\x08\x2a\x86\x48\xce\x3d\x03\x01\x07\xa1\x44\x03\x42\x00\x04"
                + _rbytes(rng, 64))
    if kind == "enc":
        return b"\x30\x82\x05\x0e\x30\x40\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x05\x0d" + _rbytes(rng, 1290)
    if kind == "openssh":
        return (b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none\x00\x00\x00\x00\x00\x00\x00\x01"
                b"\x00\x00\x00\x33\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + _rbytes(rng, 310))
    if kind == "cert":
        return b"\x30\x82\x03\x5a\x30\x82\x02\x42\xa0\x03\x02\x01\x02\x02\x14" + _rbytes(rng, 840)
    if kind == "pub":
        return (b"\x30\x82\x01\x22\x30\x0d\x06\x09\x2a\x86\x48\x86\xf7\x0d\x01\x01\x01\x05\x00\x03\x82"
                b"\x01\x0f\x00" + _rbytes(rng, 270))
    if kind == "ecpub":
        return (b"\x30\x59\x30\x13\x06\x07\x2a\x86\x48\xce\x3d\x02\x01\x06\x08\x2a\x86\x48\xce\x3d\x03\x01"
                b"\x07\x03\x42\x00\x04" + _rbytes(rng, 64))
    raise ValueError(f"unknown key kind {kind!r}")


_PEM_LABELS = {
    "rsa": "RSA PRIVATE KEY", "pkcs8": "PRIVATE KEY", "ec": "EC PRIVATE KEY",
    "enc": "ENCRYPTED PRIVATE KEY", "openssh": "OPENSSH PRIVATE KEY", "cert": "CERTIFICATE",
    "pub": "PUBLIC KEY", "ecpub": "PUBLIC KEY",
}


def _wrap(text: str, width: int) -> list[str]:
    return [text[i:i + width] for i in range(0, len(text), width)]


def _pem_lines(rng: random.Random, kind: str) -> list[str]:
    body = base64.b64encode(_der_body(rng, kind)).decode()
    return _wrap(body, 70 if kind == "openssh" else 64)


def _jwt(rng: random.Random, variant: str) -> str:
    now = rng.randint(1_700_000_000, 1_760_000_000)
    if variant == "rs":
        header = {"alg": "RS256", "typ": "JWT", "kid": _chars(rng, _HEX, 16)}
        payload = {"iss": "https://auth.acme.dev/", "sub": "auth0|" + _chars(rng, _HEX, 24),
                   "aud": "https://api.acme.dev", "iat": now, "exp": now + 86400, "scope": "read:orders"}
        sig = 256
    elif variant == "k8s":
        header = {"alg": "RS256", "kid": _chars(rng, _B64U, 43)}
        payload = {"iss": "kubernetes/serviceaccount", "kubernetes.io/serviceaccount/namespace": "ci",
                   "kubernetes.io/serviceaccount/service-account.name": "deployer",
                   "sub": "system:serviceaccount:ci:deployer"}
        sig = 256
    elif variant in ("anon", "service_role"):
        header = {"alg": "HS256", "typ": "JWT"}
        payload = {"iss": "supabase", "ref": _chars(rng, string.ascii_lowercase, 20), "role": variant,
                   "iat": now, "exp": now + 315_360_000}
        sig = 32
    else:
        header = {"alg": "HS256", "typ": "JWT"}
        payload = {"sub": str(rng.randint(1000, 999_999)), "email": f"user{rng.randint(1, 999)}@acme.dev",
                   "iat": now, "exp": now + 900}
        sig = 32
    enc = [_b64url(json.dumps(part, separators=(",", ":")).encode()) for part in (header, payload)]
    return ".".join(enc + [_b64url(_rbytes(rng, sig))])


def _ssh_public(rng: random.Random, kind: str) -> str:
    if kind == "ed25519":
        blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + _rbytes(rng, 32)
    elif kind == "rsa":
        blob = b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x81\x00" + _rbytes(rng, 384)
    else:
        blob = (b"\x00\x00\x00\x13ecdsa-sha2-nistp256\x00\x00\x00\x08nistp256\x00\x00\x00\x41\x04"
                + _rbytes(rng, 64))
    return base64.b64encode(blob).decode()


def _fill(rng: random.Random, name: str, arg: str | None) -> str:
    """The text for one shape."""
    if name in _CHARSETS:
        return _chars(rng, _CHARSETS[name], int(arg or 16))
    if name == "rb64":
        return base64.b64encode(_rbytes(rng, int(arg or 32))).decode()
    if name == "rb64n":
        return base64.b64encode(_rbytes(rng, int(arg or 32))).decode().rstrip("=")
    if name == "rb64u":
        return _b64url(_rbytes(rng, int(arg or 32)))
    if name == "rb64pct":
        raw = base64.b64encode(_rbytes(rng, int(arg or 32))).decode()
        return raw.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")
    if name == "sri":
        bits = int(arg or 512)
        return f"sha{bits}-" + base64.b64encode(_rbytes(rng, bits // 8)).decode()
    if name == "pw":
        return _password(rng)
    if name == "pwu":
        return _url_password(rng)
    if name == "pwh":
        return _human_password(rng)
    if name == "b64pw":
        return base64.b64encode(_password(rng).encode()).decode()
    if name == "basic":
        return base64.b64encode(f"{arg or rng.choice(_USERS)}:{_password(rng)}".encode()).decode()
    if name == "b64of":
        return base64.b64encode((arg or "").encode()).decode()
    if name == "words":
        return " ".join(rng.choice(_SEED_WORDS) for _ in range(int(arg or 12)))
    if name in ("uuid", "UUID"):
        h = _chars(rng, _HEX, 32)
        h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
        u = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        return u.upper() if name == "UUID" else u
    if name == "ulid":
        return rng.choice("01") + _chars(rng, _CROCK, 25)
    if name == "nanoid":
        return _chars(rng, _B64U, 21)
    if name == "jwt":
        return _jwt(rng, arg or "hs")
    if name == "pem":
        kind, _, indent = (arg or "rsa").partition(":")
        return ("\n" + " " * int(indent or 0)).join(_pem_lines(rng, kind))
    if name == "pemesc":
        return "\\n".join(_pem_lines(rng, arg or "rsa"))
    if name == "pemline":
        return base64.b64encode(_der_body(rng, arg or "pub")).decode()
    if name == "pemb64":
        kind = arg or "rsa"
        label = _PEM_LABELS[kind]
        pem = "\n".join([f"-----BEGIN {label}-----", *_pem_lines(rng, kind), f"-----END {label}-----", ""])
        return base64.b64encode(pem.encode()).decode()
    if name == "pgp":
        body = base64.b64encode(_rbytes(rng, rng.randint(700, 1000))).decode()
        return "\n".join(_wrap(body, 64)) + "\n=" + _chars(rng, _B64, 4)
    if name == "sshpub":
        kind, _, width = (arg or "ed25519").partition(":")
        blob = _ssh_public(rng, kind)
        return "\n".join(_wrap(blob, int(width))) if width else blob
    if name == "mapbox":
        user = rng.choice(["acme-maps", "acme", "acmegeo"])
        payload = _b64url(json.dumps({"u": user, "a": _chars(rng, _LOWDIG, 25)}, separators=(",", ":")).encode())
        return f"{payload}.{_chars(rng, _B64U, 22)}"
    if name == "wif":
        return rng.choice("KL") + _chars(rng, _B58, 51)
    if name == "intlist":
        return ",".join(str(rng.randrange(256)) for _ in range(int(arg or 64)))
    if name == "b32g":
        return " ".join(_chars(rng, _B32L, 4) for _ in range(int(arg or 8)))
    if name == "hexcolon":
        return ":".join(_chars(rng, _HEX, 2) for _ in range(int(arg or 16)))
    if name == "HEXcolon":
        return ":".join(_chars(rng, _HEX.upper(), 2) for _ in range(int(arg or 32)))
    if name == "hexesc":
        return "".join("\\x" + _chars(rng, _HEX, 2) for _ in range(int(arg or 8)))
    if name == "mac":
        return ":".join(_chars(rng, _HEX, 2) for _ in range(6))
    if name == "pick":
        return rng.choice((arg or "").split("|"))
    if name == "int":
        lo, _, hi = (arg or "1-9999").partition("-")
        return str(rng.randint(int(lo), int(hi)))
    if name == "epoch":
        return str(rng.randint(1_700_000_000, 1_760_000_000))
    if name == "pubip":
        first = rng.choice([3, 18, 34, 52, 54, 81, 88, 95, 104, 141, 151, 185, 212])
        return f"{first}.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(1, 254)}"
    if name == "vlq":
        segs = []
        for _ in range(int(arg or 40)):
            segs.append(_chars(rng, _B64, rng.choice([4, 4, 4, 5, 6])))
            segs.append(";" if rng.random() < 0.15 else ",")
        return "".join(segs[:-1])
    raise ValueError(f"unknown shape {name!r}")


def render(rng: random.Random, kind: str, template: str) -> FreshCase:
    """One case: the template with every shape filled, then its «» marks turned into spans."""
    inner = _INNER.sub(lambda m: _fill(rng, m.group(1), m.group(2)), template)
    filled = _SHAPE.sub(lambda m: _fill(rng, m.group(1), m.group(2)), inner)
    return marked(kind, filled)


def sixth_cases(seed: int = 41) -> tuple[list[FreshCase], list[FreshCase]]:
    """The sixth split, drawn from ``seed``: (secrets, ordinary), each ordinary template twice."""
    rng = random.Random(f"sixth-{seed}")
    secrets = [render(rng, kind, template) for kind, template in SECRETS]
    ordinary = [render(rng, kind, template) for _ in range(2) for kind, template in ORDINARY]
    return secrets, ordinary
