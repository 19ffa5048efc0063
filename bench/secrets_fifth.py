"""A fifth held-out secrets set, split ``"fifth"``: written before reading the detector's
rules or any earlier corpus, and measured once with the detector as it stood (issue 23,
item 6). Its blind figure is in RELIABILITY.md ("A fifth held-out set").

Every secret is FAKE. A template names shapes (``‹hex:32›``, ``‹pw›``, ``‹jwt›`` ...) that
this file's own seeded generator fills at run time, so the file holds no key-like literal,
only public format prefixes. The span a detector must mask is marked ``«...»``; the marks
are removed from the text it is handed.

What counts as a secret (decided before measuring): any value that would grant access if
it were real (passwords, API keys and tokens of any environment, private keys, session
cookies and tokens, webhook URLs whose path is the credential, seed phrases, TOTP seeds,
recovery codes, signing secrets), whatever comment sits beside it.

What is ordinary (must not yield any finding): public material (public keys, certificates,
DNS records, publishable keys, blockchain addresses), digests and ids (commit SHAs, UUIDs,
lockfile hashes, image digests, trace ids, cloud resource ids, payment object ids, ids in
URLs), base64 of public data, colours and minified code, placeholders and references
(``${VAR}``, vault paths, ``<your-token>``, ``xxxx``, documentation's EXAMPLE keys, masked
values), and prose or code about secrets that holds no value.

Secrets are rendered once; each ordinary template is rendered twice with independent draws
(its random parts differ), so the ordinary count is twice the number of templates.

``fifth_cases(seed)`` returns ``(secrets, ordinary)``: lists of :class:`FreshCase`.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string

from bench.secrets_fresh import FreshCase, marked

SPLIT = "fifth"

# --------------------------------------------------------------------------- secrets

SECRETS: list[tuple[str, str]] = [
    # --- cloud
    ("aws_secret_key", "[default]\naws_access_key_id = AKIA‹U:16›\n"
     "aws_secret_access_key = «‹b64s:40›»\nregion = eu-west-1"),
    ("aws_secret_key", "export AWS_ACCESS_KEY_ID=AKIA‹U:16›\n"
     "export AWS_SECRET_ACCESS_KEY=«‹b64s:40›»"),
    ("aws_secret_key", "Debugged the upload with the ci-uploader user's keys: id AKIA‹U:16›, "
     "secret «‹b64s:40›» (rotate them afterwards)."),
    ("aws_secret_key", 'session = boto3.Session(\n    aws_access_key_id="AKIA‹U:16›",\n'
     '    aws_secret_access_key="«‹b64s:40›»",\n)'),
    ("aws_session_token", "AWS_SESSION_TOKEN=«IQoJb3JpZ2luX2Vj‹b64s:280›»"),
    ("gcp_service_account", '{"type": "service_account", "project_id": "acme-prod-4411",\n'
     ' "private_key_id": "‹hex:40›",\n "private_key": "-----BEGIN PRIVATE KEY-----\\n'
     '«‹pemjson:12›»\\n-----END PRIVATE KEY-----\\n",\n'
     ' "client_email": "deployer@acme-prod-4411.iam.gserviceaccount.com"}'),
    ("google_api_key", "GOOGLE_MAPS_API_KEY=«AIza‹b64u:35›»"),
    ("google_api_key", 'const geocoder = new Client({ key: "«AIza‹b64u:35›»" });'),
    ("google_api_key", "the translate key for the staging project is «AIza‹b64u:35›»"),
    ("google_oauth_secret", '{"web": {"client_id": "‹digits:12›-‹lower:32›.apps.googleusercontent'
     '.com", "client_secret": "«GOCSPX-‹b64u:28›»", "redirect_uris": ["http://localhost"]}}'),
    ("google_refresh_token", "gcloud left this in ~/.config: refresh_token: «1//0‹b64u:100›»"),
    ("google_access_token", "curl -H 'Authorization: Bearer «ya29.‹b64u:160›»' "
     "https://www.googleapis.com/drive/v3/files"),
    ("azure_storage_key", "DefaultEndpointsProtocol=https;AccountName=acmelogs;"
     "AccountKey=«‹b64s:86›==»;EndpointSuffix=core.windows.net"),
    ("azure_sas", "https://acmebackups.blob.core.windows.net/db/nightly.bak?sv=2022-11-02&ss=b"
     "&srt=o&sp=r&se=2026-03-01T00:00:00Z&spr=https&sig=«‹b64s:43›%3D»"),
    ("azure_client_secret", "AZURE_TENANT_ID=‹uuid›\nAZURE_CLIENT_ID=‹uuid›\n"
     "AZURE_CLIENT_SECRET=«‹alnum:3›8Q~‹azs:34›»"),
    ("digitalocean_token", "doctl auth init -t «dop_v1_‹hex:64›»"),
    ("digitalocean_token", "DIGITALOCEAN_ACCESS_TOKEN=«dop_v1_‹hex:64›»"),
    ("alibaba_secret", "ALIBABA_CLOUD_ACCESS_KEY_ID=LTAI‹alnum:20›\n"
     "ALIBABA_CLOUD_ACCESS_KEY_SECRET=«‹alnum:30›»"),
    ("ibm_api_key", 'ibmcloud login --apikey «‹b64u:44›» -r us-south'),
    ("heroku_api_key", "HEROKU_API_KEY=«‹uuid›»"),
    ("cloudflare_token", "CLOUDFLARE_API_TOKEN=«‹b64u:40›»"),
    ("cloudflare_token", "-H \"X-Auth-Email: ops@acme.dev\" -H \"X-Auth-Key: «‹hex:37›»\""),
    # --- code hosts, registries, CI
    ("github_token", "GITHUB_TOKEN=«ghp_‹alnum:36›»"),
    ("github_token", "git remote set-url origin https://«ghp_‹alnum:36›»@github.com/acme/api.git"),
    ("github_token", "el token de GitHub para el bot de releases es «ghp_‹alnum:36›», caduca en marzo"),
    ("github_token", "gh auth login --with-token <<< «github_pat_‹alnum:22›_‹alnum:59›»"),
    ("github_token", "oauth token from the device flow: «gho_‹alnum:36›»"),
    ("github_token", "installation token (1h): «ghs_‹alnum:36›»"),
    ("gitlab_token", "curl --header \"PRIVATE-TOKEN: «glpat-‹b64u:20›»\" "
     "https://gitlab.com/api/v4/projects"),
    ("gitlab_token", "gitlab-runner register --token «glrt-‹b64u:20›» --url https://gitlab.com"),
    ("gitlab_token", "deploy token for the helm chart pull: user gitlab+deploy-token-12, "
     "password «gldt-‹b64u:20›»"),
    ("bitbucket_app_password", "BITBUCKET_APP_PASSWORD=«ATBB‹alnum:28›‹HEX:8›»"),
    ("npm_token", "//registry.npmjs.org/:_authToken=«npm_‹alnum:36›»"),
    ("npm_token", "NPM_TOKEN: «npm_‹alnum:36›»"),
    ("pypi_token", "[pypi]\nusername = __token__\npassword = «pypi-AgEIcHlwaS5vcmc‹b64u:150›»"),
    ("docker_pat", "echo «dckr_pat_‹b64u:27›» | docker login -u acmebot --password-stdin"),
    ("rubygems_key", "---\n:rubygems_api_key: «rubygems_‹hex:48›»"),
    ("cargo_token", "[registry]\ntoken = \"«cio‹alnum:32›»\""),
    ("nuget_key", "dotnet nuget push pkg.nupkg --api-key «oy2‹lower:43›» "
     "--source https://api.nuget.org/v3/index.json"),
    ("circleci_token", "CIRCLE_TOKEN=«‹hex:40›»"),
    ("buildkite_token", "BUILDKITE_API_TOKEN=«bkua_‹hex:40›»"),
    ("sonar_token", "mvn sonar:sonar -Dsonar.token=«squ_‹hex:40›»"),
    ("snyk_token", "SNYK_TOKEN=«‹uuid›»"),
    ("jfrog_key", "artifactory api key: «AKCp‹alnum:69›»"),
    ("terraform_cloud", "credentials \"app.terraform.io\" {\n  token = "
     "\"«‹alnum:14›.atlasv1.‹alnum:67›»\"\n}"),
    ("vault_token", "export VAULT_TOKEN=«hvs.‹b64u:90›»"),
    ("vault_token", "root token after unseal: «hvs.‹alnum:24›»"),
    ("doppler_token", "DOPPLER_TOKEN=«dp.st.prd.‹alnum:40›»"),
    ("pulumi_token", "PULUMI_ACCESS_TOKEN=«pul-‹hex:40›»"),
    ("tailscale_key", "tailscale up --authkey=«tskey-auth-k‹alnum:10›CNTRL-‹alnum:33›»"),
    ("ngrok_token", "ngrok config add-authtoken «2‹alnum:26›_‹alnum:21›»"),
    ("jenkins_token", "curl -u admin:«11‹hex:32›» https://ci.acme.dev/job/build/build"),
    # --- SaaS
    ("atlassian_token", "JIRA_API_TOKEN=«ATATT3xFfGF0‹b64u:180›=‹HEX:8›»"),
    ("linear_key", "LINEAR_API_KEY=«lin_api_‹alnum:40›»"),
    ("notion_token", "NOTION_TOKEN=«secret_‹alnum:43›»"),
    ("notion_token", "integration token: «ntn_‹digits:11›‹alnum:35›»"),
    ("figma_token", "X-Figma-Token: «figd_‹b64u:40›»"),
    ("airtable_pat", "AIRTABLE_API_KEY=«pat‹alnum:14›.‹hex:64›»"),
    ("postman_key", "postman api key «PMAK-‹hex:24›-‹hex:34›»"),
    ("sentry_token", "SENTRY_AUTH_TOKEN=«sntryu_‹hex:64›»"),
    ("datadog_key", "DD_API_KEY=«‹hex:32›»\nDD_APP_KEY=«‹hex:40›»"),
    ("newrelic_key", "NEW_RELIC_LICENSE_KEY=«‹hex:36›NRAL»"),
    ("newrelic_key", "newrelic user key «NRAK-‹U:27›»"),
    ("grafana_token", "GRAFANA_SA_TOKEN=«glsa_‹alnum:32›_‹hex:8›»"),
    ("okta_token", "Authorization: SSWS «00‹b64u:40›»"),
    ("mapbox_secret", "MAPBOX_DOWNLOADS_TOKEN=«sk.eyJ1‹b64u:60›.‹b64u:22›»"),
    ("facebook_token", "page access token: «EAA‹alnum:180›»"),
    # --- messaging, mail
    ("slack_token", "SLACK_BOT_TOKEN=«xoxb-‹digits:12›-‹digits:13›-‹alnum:24›»"),
    ("slack_token", "user token for the export script: «xoxp-‹digits:12›-‹digits:12›-"
     "‹digits:13›-‹hex:32›»"),
    ("slack_token", "SLACK_APP_TOKEN=«xapp-1-A‹U:10›-‹digits:13›-‹hex:64›»"),
    ("slack_webhook", "alerts go to «https://hooks.slack.com/services/T‹U:10›/B‹U:10›/"
     "‹alnum:24›»"),
    ("discord_token", "DISCORD_TOKEN=«‹discordid›.‹b64u:6›.‹b64u:38›»"),
    ("discord_webhook", "webhook_url: «https://discord.com/api/webhooks/‹digits:19›/"
     "‹b64u:68›»"),
    ("telegram_token", "bot = telebot.TeleBot(\"«‹digits:10›:AA‹b64u:33›»\")"),
    ("teams_webhook", "https://acme.webhook.office.com/webhookb2/‹uuid›@‹uuid›/IncomingWebhook/"
     "«‹hex:32›»/‹uuid›"),
    ("twilio_token", "TWILIO_ACCOUNT_SID=AC‹hex:32›\nTWILIO_AUTH_TOKEN=«‹hex:32›»"),
    ("twilio_token", "client = Client(\"SK‹hex:32›\", \"«‹alnum:32›»\", account_sid)"),
    ("sendgrid_key", "SENDGRID_API_KEY=«SG.‹b64u:22›.‹b64u:43›»"),
    ("sendgrid_key", "sendgrid: «SG.‹b64u:22›.‹b64u:43›»"),
    ("mailgun_key", "MAILGUN_API_KEY=«key-‹hex:32›»"),
    ("mailchimp_key", "mailchimp api key «‹hex:32›-us14»"),
    ("postmark_token", "X-Postmark-Server-Token: «‹uuid›»"),
    ("resend_key", "RESEND_API_KEY=«re_‹alnum:8›_‹b64u:24›»"),
    # --- payments
    ("stripe_secret", "STRIPE_SECRET_KEY=«sk_live_‹alnum:99›»"),
    ("stripe_secret", "stripe.api_key = \"«sk_test_‹alnum:24›»\""),
    ("stripe_secret", "restricted key for the reporting job «rk_live_‹alnum:24›»"),
    ("stripe_secret", "STRIPE_WEBHOOK_SECRET=«whsec_‹alnum:32›»"),
    ("square_token", "SQUARE_ACCESS_TOKEN=«EAAA‹b64u:60›»"),
    ("square_token", "square oauth secret: «sq0csp-‹b64u:43›»"),
    ("braintree_token", "BRAINTREE_ACCESS_TOKEN=«access_token$production$‹lower:16›$‹hex:32›»"),
    ("paypal_secret", "PAYPAL_CLIENT_ID=A‹b64u:79›\nPAYPAL_CLIENT_SECRET=«E‹b64u:79›»"),
    ("shopify_token", "SHOPIFY_ADMIN_TOKEN=«shpat_‹hex:32›»"),
    ("shopify_token", "shared secret of the app: «shpss_‹hex:32›»"),
    # --- AI providers
    ("openai_key", "OPENAI_API_KEY=«sk-proj-‹b64u:156›»"),
    ("openai_key", "openai.api_key = \"«sk-‹alnum:20›T3BlbkFJ‹alnum:20›»\""),
    ("openai_key", "usa esta clave de OpenAI para las pruebas: «sk-proj-‹b64u:74›»"),
    ("anthropic_key", "ANTHROPIC_API_KEY=«sk-ant-api03-‹b64u:93›AA»"),
    ("anthropic_key", "client = anthropic.Anthropic(api_key=\"«sk-ant-api03-‹b64u:93›AA»\")"),
    ("huggingface_token", "huggingface-cli login --token «hf_‹alpha:34›»"),
    ("huggingface_token", "HF_TOKEN=«hf_‹alpha:34›»"),
    ("groq_key", "GROQ_API_KEY=«gsk_‹alnum:52›»"),
    ("replicate_token", "REPLICATE_API_TOKEN=«r8_‹alnum:37›»"),
    ("perplexity_key", "PPLX_API_KEY=«pplx-‹alnum:48›»"),
    ("xai_key", "XAI_API_KEY=«xai-‹alnum:80›»"),
    ("langsmith_key", "LANGCHAIN_API_KEY=«lsv2_pt_‹hex:32›_‹hex:10›»"),
    ("pinecone_key", "PINECONE_API_KEY=«pcsk_‹alnum:5›_‹alnum:60›»"),
    ("cohere_key", "COHERE_API_KEY=«‹alnum:40›»"),
    ("mistral_key", "mistral_api_key: «‹alnum:32›»"),
    # --- private keys and crypto
    ("private_key_pem", "-----BEGIN RSA PRIVATE KEY-----\n«‹pem:12›»\n-----END RSA PRIVATE KEY-----"),
    ("private_key_pem", "server.key:\n-----BEGIN PRIVATE KEY-----\n«‹pem:8›»\n"
     "-----END PRIVATE KEY-----"),
    ("private_key_pem", "-----BEGIN EC PRIVATE KEY-----\n«‹pem:3›»\n-----END EC PRIVATE KEY-----"),
    ("private_key_pem", "-----BEGIN ENCRYPTED PRIVATE KEY-----\n«‹pem:10›»\n"
     "-----END ENCRYPTED PRIVATE KEY-----"),
    ("ssh_private_key", "~/.ssh/id_ed25519 on the bastion:\n-----BEGIN OPENSSH PRIVATE KEY-----\n"
     "«‹opensshpriv›»\n-----END OPENSSH PRIVATE KEY-----"),
    ("pgp_private_key", "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\n«‹pem:14›»\n"
     "-----END PGP PRIVATE KEY BLOCK-----"),
    ("age_secret_key", "# created: 2025-11-02T10:11:12Z\n# public key: age1‹bech:58›\n"
     "«AGE-SECRET-KEY-1‹BECH:58›»"),
    ("wireguard_private", "[Interface]\nAddress = 10.8.0.2/24\nPrivateKey = «‹b64s:43›=»\n"
     "[Peer]\nPublicKey = ‹b64s:43›=\nEndpoint = vpn.acme.dev:51820"),
    ("eth_private_key", "DEPLOYER_PRIVATE_KEY=«0x‹hex:64›»"),
    ("eth_private_key", "la clave privada de la wallet de pruebas es «‹hex:64›»"),
    ("bitcoin_wif", "wallet import format key: «5‹b58:50›»"),
    ("seed_phrase", "recovery phrase for the hardware wallet: «‹seed:12›»"),
    ("seed_phrase", "mnemonic = \"«‹seed:24›»\""),
    ("totp_seed", "otpauth://totp/Acme:ops@acme.dev?secret=«‹B32:32›»&issuer=Acme"),
    ("totp_seed", "2FA setup key for the shared admin account: «‹b32spaced›»"),
    ("recovery_codes", "GitHub recovery codes for the org owner:\n«‹hexl:5›-‹hexl:5›»\n"
     "«‹hexl:5›-‹hexl:5›»\n«‹hexl:5›-‹hexl:5›»"),
    # --- tokens in transit
    ("jwt", "Authorization: Bearer «‹jwt›»"),
    ("jwt", "SUPABASE_SERVICE_ROLE_KEY=«‹jwt›»"),
    ("jwt", "copied the access token from localStorage to reproduce: «‹jwt›»"),
    ("session_cookie", "Cookie: sessionid=«‹lower:32›»; csrftoken=‹alnum:32›"),
    ("session_cookie", "Set-Cookie: connect.sid=«s%3A‹b64u:32›.‹b64u:43›»; Path=/; HttpOnly"),
    ("basic_auth_header", "Authorization: Basic «‹basic›»"),
    ("api_key_header", "curl -H \"X-API-Key: «‹alnum:40›»\" https://api.acme.dev/v2/reports"),
    ("api_key_header", "x-api-key: «‹b64u:32›»"),
    # --- app frameworks
    ("framework_secret", "SECRET_KEY = '«django-insecure-‹djs:50›»'"),
    ("framework_secret", "secret_key_base: «‹hex:128›»"),
    ("framework_secret", "APP_KEY=«base64:‹b64s:43›=»"),
    ("framework_secret", "NEXTAUTH_SECRET=«‹b64s:43›=»"),
    ("framework_secret", "app.config['SECRET_KEY'] = '«‹hex:48›»'"),
    ("framework_secret", "APP_SECRET=«‹hex:32›»"),
    # --- connection strings
    ("connection_string", "DATABASE_URL=postgres://app:«‹pw›»@db.internal:5432/orders"),
    ("connection_string", "the read replica: postgresql://report_ro:«‹pw›»@10.0.3.14/analytics"),
    ("connection_string", "MONGO_URI=mongodb+srv://svc:«‹pwu›»@cluster0.ab12c.mongodb.net/prod"
     "?retryWrites=true"),
    ("connection_string", "REDIS_URL=redis://default:«‹pwu›»@redis-14321.c1.eu-west-1.cloud.redislabs.com:14321"),
    ("connection_string", "amqp://rabbit:«‹pwu›»@mq.internal:5672/%2F"),
    ("connection_string", "spring.datasource.url=jdbc:mysql://db:3306/shop?user=shop&"
     "password=«‹pwu›»"),
    ("connection_string", "Server=tcp:acme.database.windows.net,1433;Database=crm;User ID=crmadmin;"
     "Password=«‹pwu›»;Encrypt=True;"),
    ("connection_string", "mysql://root:«‹pwu›»@127.0.0.1:3306/wordpress"),
    ("connection_string", "ldaps://cn=admin,dc=acme,dc=dev:«‹pwu›»@ldap.acme.dev"),
    ("connection_string", "conexión de la base: postgres://marta:«‹pwes›»@pg.local/ventas"),
    # --- CLI flags
    ("cli_password", "mysql -u root -p'«‹pw›»' -h 127.0.0.1 shop"),
    ("cli_password", "PGPASSWORD='«‹pw›»' psql -h db.internal -U app orders"),
    ("cli_password", "curl -u deploy:«‹pwu›» https://nexus.acme.dev/repository/raw/"),
    ("cli_password", "docker login registry.acme.dev -u ci -p «‹pwu›»"),
    ("cli_password", "sshpass -p '«‹pw›»' ssh pi@192.168.1.40"),
    ("cli_password", "mysqldump --user=backup --password=«‹pwu›» --all-databases > all.sql"),
    ("cli_password", "ldapsearch -x -D cn=admin,dc=acme -w «‹pwu›» -b dc=acme"),
    ("cli_password", "openssl pkcs12 -export -in cert.pem -inkey key.pem -passout pass:«‹pwu›» "
     "-out bundle.p12"),
    ("cli_password", "htpasswd -b -c .htpasswd admin «‹pwu›»"),
    ("cli_password", "redis-cli -a «‹pwu›» -h cache.internal"),
    # --- config files
    ("env_password", "DB_HOST=db\nDB_USER=app\nDB_PASSWORD=«‹pwu›»\nDB_NAME=orders"),
    ("env_password", "SMTP_USER=noreply@acme.dev\nSMTP_PASS=«‹pwu›»"),
    ("env_password", "ADMIN_PASSWORD=\"«‹pw›»\""),
    ("yaml_password", "database:\n  host: db.internal\n  username: app\n  password: «‹pwu›»"),
    ("yaml_password", "services:\n  db:\n    image: postgres:16\n    environment:\n"
     "      POSTGRES_PASSWORD: «‹pwu›»"),
    ("yaml_password", "smtp:\n  server: smtp.gmail.com\n  user: alerts@acme.dev\n"
     "  app_password: \"«‹lowera:4› ‹lowera:4› ‹lowera:4› ‹lowera:4›»\""),
    ("yaml_password", "ansible_become_password: «‹pwu›»"),
    ("json_password", '{"host": "mail.acme.dev", "port": 587, "user": "bot", "password": "«‹pw›»"}'),
    ("json_password", '{\n  "ConnectionStrings": {\n    "Default": "Host=db;Username=web;'
     'Password=«‹pwu›»;Database=web"\n  }\n}'),
    ("json_secret", '{"client_id": "‹alnum:20›", "client_secret": "«‹b64u:40›»"}'),
    ("toml_password", "[database]\nhost = \"db\"\nuser = \"svc\"\npassword = \"«‹pw›»\""),
    ("toml_password", "[tool.poetry.http-basic.private]\nusername = \"ci\"\npassword = \"«‹pwu›»\""),
    ("ini_password", "[client]\nuser=backup\npassword=«‹pwu›»\nhost=localhost"),
    ("ini_password", "[security]\nadmin_user = admin\nadmin_password = «‹pwu›»"),
    ("properties_password", "spring.datasource.username=shop\nspring.datasource.password=«‹pwu›»"),
    ("properties_password", "storePassword=«‹pwu›»\nkeyPassword=«‹pwu›»\nkeyAlias=upload"),
    ("xml_password", "<server>\n  <id>internal-releases</id>\n  <username>deployer</username>\n"
     "  <password>«‹pwu›»</password>\n</server>"),
    ("xml_password", "<add key=\"ClearTextPassword\" value=\"«‹pwu›»\" />"),
    ("php_password", "define( 'DB_PASSWORD', '«‹pw›»' );"),
    ("python_password", "DATABASES = {'default': {'ENGINE': 'django.db.backends.postgresql', "
     "'USER': 'web', 'PASSWORD': '«‹pw›»', 'HOST': 'db'}}"),
    ("tfvars_password", "db_password = \"«‹pw›»\"\ndb_instance_class = \"db.t3.micro\""),
    ("netrc", "machine api.heroku.com\n  login ops@acme.dev\n  password «‹uuid›»"),
    ("netrc", "machine github.com login acme-bot password «ghp_‹alnum:36›»"),
    ("pgpass", "db.internal:5432:orders:app:«‹pwu›»"),
    ("git_credentials", "https://jdoe:«‹pwu›»@git.acme.dev"),
    ("docker_config", '{\n  "auths": {\n    "registry.acme.dev": {\n      "auth": "«‹basic›»"\n'
     '    }\n  }\n}'),
    ("npmrc_auth", "registry=https://npm.acme.dev/\n_auth=«‹basic›»\nalways-auth=true"),
    ("pip_conf", "[global]\nindex-url = https://ci:«‹pwu›»@pypi.acme.dev/simple/"),
    ("kube_config", "users:\n- name: ci\n  user:\n    token: «‹jwt›»"),
    ("kube_config", "users:\n- name: admin\n  user:\n    client-certificate-data: ‹certb64›\n"
     "    client-key-data: «‹keyb64›»"),
    ("kube_secret", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ntype: Opaque\ndata:\n"
     "  password: «‹b64pw›»"),
    ("kube_secret", "kind: Secret\nstringData:\n  API_TOKEN: «‹alnum:40›»"),
    ("wifi_psk", "network={\n  ssid=\"acme-office\"\n  psk=\"«‹pw›»\"\n}"),
    # --- passwords in prose
    ("prose_password", "The wifi password in the meeting room is «‹pw›»."),
    ("prose_password", "new root pw for the NAS: «‹pw›»"),
    ("prose_password", "Login for the staging admin: admin / «‹pw›»"),
    ("prose_password", "I reset Grafana's admin password to «‹pw›» until SSO is back."),
    ("prose_password", "Remember: the VPN passphrase is «‹words:4›»"),
    ("prose_password", "creds for the demo tenant -> demo@acme.dev : «‹pw›»"),
    ("prose_password_es", "La contraseña del router es «‹pwes›»."),
    ("prose_password_es", "mi clave del banco de pruebas: «‹pwes›»"),
    ("prose_password_es", "Usuario: soporte, contraseña: «‹pwes›»"),
    ("prose_password_es", "cambié la contraseña de la base de datos a «‹pw›» (avisar a Luis)"),
    ("prose_password_es", "la clave del wifi de la oficina es «‹pwes›»"),
    ("prose_password_es", "contraseña de aplicación de Gmail: «‹lowera:4› ‹lowera:4› ‹lowera:4› "
     "‹lowera:4›»"),
]

# --------------------------------------------------------------------------- ordinary

ORDINARY: list[tuple[str, str]] = [
    # --- git
    ("git", "commit ‹hex:40›\nAuthor: Ana Ruiz <ana@acme.dev>\nDate:   Tue Mar 4 10:22:01 2025\n\n"
     "    fix: retry the upload on 503"),
    ("git", "Reverted ‹hex:7› because it broke the nightly build; see ‹hex:12› for the real fix."),
    ("git", "git rebase --onto ‹hex:40› ‹hex:40›"),
    ("git", "‹hex:7› (HEAD -> main, origin/main) chore: bump ruff\n‹hex:7› feat: add export"),
    ("git", "bisect says the first bad commit is ‹hex:40›"),
    ("git", "Merge pull request #4412 from acme/fix-retry ‹hex:40›"),
    ("git", "pinned the action to a SHA: uses: actions/checkout@‹hex:40› # v4.2.2"),
    ("git", "index ‹hex:7›..‹hex:7› 100644\n--- a/src/app.py\n+++ b/src/app.py"),
    ("git", "tree ‹hex:40›\nparent ‹hex:40›\nauthor bot <bot@acme.dev> 1735689600 +0000"),
    ("git", "el commit ‹hex:10› introdujo la regresión del login"),
    # --- uuids and ids
    ("uuid", "request ‹uuid› failed with 502 after 30s"),
    ("uuid", "INSERT INTO orders (id, customer_id) VALUES ('‹uuid›', '‹uuid›');"),
    ("uuid", "The tenant id for the staging directory is ‹uuid›."),
    ("uuid", "subscription: ‹uuid›\nresource group: rg-web-prod"),
    ("uuid", "{\"event_id\": \"‹uuid›\", \"type\": \"user.created\", \"version\": 3}"),
    ("uuid", "Guid(\"{‹UUID›}\") is the COM class id we register"),
    ("uuid", "ProductCode = \"{‹UUID›}\" in the WiX installer"),
    ("uuid", "the job ‹uuid› is stuck in PENDING"),
    ("uuid", "sentry event ‹hex:32› grouped under issue ACME-API-3FK"),
    ("uuid", "ULID ‹ulid› sorts after the previous batch"),
    # --- lock files and checksums
    ("lockfile", "\"node_modules/react\": {\n  \"version\": \"18.3.1\",\n  \"resolved\": "
     "\"https://registry.npmjs.org/react/-/react-18.3.1.tgz\",\n  \"integrity\": \"sha512-‹b64s:86›==\""
     "\n}"),
    ("lockfile", "lodash@^4.17.21:\n  version \"4.17.21\"\n  resolved \"https://registry.yarnpkg.com"
     "/lodash/-/lodash-4.17.21.tgz#‹hex:40›\"\n  integrity sha512-‹b64s:86›=="),
    ("lockfile", "[[package]]\nname = \"requests\"\nversion = \"2.32.3\"\nfiles = [\n"
     "    {file = \"requests-2.32.3-py3-none-any.whl\", hash = \"sha256:‹hex:64›\"},\n]"),
    ("lockfile", "[[package]]\nname = \"serde\"\nversion = \"1.0.210\"\nsource = "
     "\"registry+https://github.com/rust-lang/crates.io-index\"\nchecksum = \"‹hex:64›\""),
    ("lockfile", "golang.org/x/net v0.30.0 h1:‹b64s:43›=\ngolang.org/x/net v0.30.0/go.mod h1:‹b64s:43›="),
    ("lockfile", "requests==2.32.3 \\\n    --hash=sha256:‹hex:64› \\\n    --hash=sha256:‹hex:64›"),
    ("lockfile", "\"default\": {\"flask\": {\"hashes\": [\"sha256:‹hex:64›\"], \"version\": \"==3.0.3\"}}"),
    ("lockfile", "  /@babel/core@7.25.2:\n    resolution: {integrity: sha512-‹b64s:86›==}"),
    ("lockfile", "\"flake-utils\": {\"locked\": {\"narHash\": \"sha256-‹b64s:43›=\", \"rev\": \"‹hex:40›\"}}"),
    ("lockfile", "PODS:\n  - Alamofire (5.9.1)\nSPEC CHECKSUMS:\n  Alamofire: ‹hex:40›"),
    # --- digests
    ("digest", "image: ghcr.io/acme/api@sha256:‹hex:64›"),
    ("digest", "‹hex:64›  ihmt-0.4.0-py3-none-any.whl"),
    ("digest", "md5sum dump.sql -> ‹hex:32›"),
    ("digest", "version https://git-lfs.github.com/spec/v1\noid sha256:‹hex:64›\nsize 1048576"),
    ("digest", "SHA1 of the installer: ‹HEX:40›"),
    ("digest", "the ETag was \"‹hex:32›\" so the cache hit"),
    ("digest", "Digest: sha256:‹hex:64›\nStatus: Downloaded newer image for postgres:16"),
    ("digest", "blake3 ‹hex:64› data/model.onnx"),
    ("digest", "el hash del fichero descargado (sha256) es ‹hex:64›, coincide con la web"),
    ("digest", "sha256 = \"‹hex:64›\" in the Homebrew formula"),
    # --- base64 of public data
    ("base64_public", "<img src=\"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAf‹b64s:40›\">"),
    ("base64_public", "echo ‹b64of:{\"name\":\"ihmt\",\"version\":\"0.4.0\"}› | base64 -d"),
    ("base64_public", "The fixture's body is base64: ‹b64of:The quick brown fox jumps over the lazy dog.›"),
    ("base64_public", "src: url(data:font/woff2;base64,d09GMgABAAAAA‹b64s:120›) format('woff2');"),
    ("base64_public", "GitHub's API returned content: ‹b64of:# IHMT\nLocal long-term memory for agents.\n›"),
    ("base64_public", "node id MDQ6VXNlcj‹digits:7› is the user in GraphQL"),
    ("base64_public", "kubectl get cm app -o yaml shows binaryData: logo.svg: ‹b64of:<svg xmlns='http://www.w3.org/2000/svg'/>›"),
    ("base64_public", "the cursor for the next page is ‹b64of:{\"offset\": 200, \"sort\": \"created\"}›"),
    # --- public keys and certificates
    ("public_key", "ssh-ed25519 ‹sshpub› ana@laptop"),
    ("public_key", "authorized_keys:\nssh-rsa ‹rsapub› deploy@ci"),
    ("public_key", "-----BEGIN PUBLIC KEY-----\n‹pem:6›\n-----END PUBLIC KEY-----"),
    ("public_key", "recipient: age1‹bech:58›"),
    ("public_key", "[Peer]\nPublicKey = ‹b64s:43›=\nAllowedIPs = 10.8.0.0/24\nEndpoint = vpn.acme.dev:51820"),
    ("public_key", "-----BEGIN PGP PUBLIC KEY BLOCK-----\n\n‹pem:8›\n-----END PGP PUBLIC KEY BLOCK-----"),
    ("public_key", "github.com ssh-ed25519 ‹sshpub›"),
    ("public_key", "Key fingerprint: SHA256:‹b64s:43› (ED25519)"),
    ("public_key", "gpg: key ‹HEX:16›: public key \"Ana Ruiz <ana@acme.dev>\" imported"),
    ("public_key", "-----BEGIN SSH2 PUBLIC KEY-----\nComment: \"ana@laptop\"\n‹pem:4›\n-----END SSH2 PUBLIC KEY-----"),
    ("certificate", "-----BEGIN CERTIFICATE-----\nMII‹pem:14›\n-----END CERTIFICATE-----"),
    ("certificate", "clusters:\n- cluster:\n    certificate-authority-data: ‹certb64›\n"
     "    server: https://10.0.0.1:6443\n  name: prod"),
    ("certificate", "SHA256 Fingerprint=‹colonhex:32›"),
    ("certificate", "serial=‹HEX:32›\nnotAfter=Jun  1 12:00:00 2026 GMT"),
    ("certificate", "ca.crt: |\n  -----BEGIN CERTIFICATE-----\n  MII‹pem:3›\n  -----END CERTIFICATE-----"),
    # --- urls with ids
    ("url_id", "Design doc: https://docs.google.com/document/d/‹b64u:44›/edit"),
    ("url_id", "recording at https://www.youtube.com/watch?v=‹b64u:11›"),
    ("url_id", "https://www.figma.com/file/‹alnum:22›/Checkout-flow?node-id=12-345"),
    ("url_id", "notes in https://www.notion.so/acme/Release-plan-‹hex:32›"),
    ("url_id", "https://acme.slack.com/archives/C0‹U:9›/p17‹digits:14›"),
    ("url_id", "s3://acme-artifacts/builds/‹hex:40›/app.tar.gz"),
    ("url_id", "https://d‹lower:13›.cloudfront.net/static/‹hex:20›.css"),
    ("url_id", "shared drive folder https://drive.google.com/drive/folders/1‹b64u:32›"),
    ("url_id", "https://www.loom.com/share/‹hex:32›"),
    ("url_id", "https://github.com/acme/api/pull/4412/commits/‹hex:40›"),
    ("url_id", "https://console.aws.amazon.com/cloudwatch/home#logsV2:log-groups/log-group/"
     "$252Faws$252Flambda$252Fingest/log-events/2025$252F03$252F04$252F$255B$2524LATEST$255D‹hex:32›"),
    ("url_id", "https://pastebin.com/‹alnum:8› has the stack trace (nothing sensitive)"),
    ("url_id", "https://arxiv.org/abs/2401.18059 (RAPTOR) and https://doi.org/10.48550/arXiv.2401.18059"),
    ("url_id", "https://app.datadoghq.eu/dashboard/‹lower:3›-‹lower:3›-‹lower:3›/api-latency"),
    # --- DNS
    ("dns", "acme.dev. 300 IN TXT \"v=spf1 include:_spf.google.com include:sendgrid.net ~all\""),
    ("dns", "google._domainkey.acme.dev TXT \"v=DKIM1; k=rsa; p=MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEA‹b64s:300›IDAQAB\""),
    ("dns", "_dmarc.acme.dev TXT \"v=DMARC1; p=quarantine; rua=mailto:dmarc@acme.dev\""),
    ("dns", "acme.dev TXT \"google-site-verification=‹b64u:43›\""),
    ("dns", "_acme-challenge.acme.dev. 60 IN TXT \"‹b64u:43›\""),
    ("dns", "acme.dev TXT \"MS=ms‹digits:8›\"\nacme.dev TXT \"atlassian-domain-verification=‹b64s:64›\""),
    ("dns", "acme.dev. CAA 0 issue \"letsencrypt.org\""),
    ("dns", ";; ANSWER SECTION:\napi.acme.dev. 60 IN CNAME d‹lower:13›.cloudfront.net."),
    ("dns", "_github-challenge-acme-org.acme.dev TXT \"‹hex:10›\""),
    ("dns", "selector1._domainkey CNAME selector1-acme-dev._domainkey.acmecorp.onmicrosoft.com"),
    # --- policy prose
    ("policy_prose", "Passwords must be at least 12 characters and may not reuse the last 5."),
    ("policy_prose", "We rotate the database password every 90 days; the rotation job posts to #ops."),
    ("policy_prose", "Never paste tokens into tickets; use the vault link instead."),
    ("policy_prose", "La contraseña debe tener al menos 12 caracteres, una mayúscula y un número."),
    ("policy_prose", "Tokens expire after 1 hour; the refresh token lasts 30 days."),
    ("policy_prose", "If you forget your password, use 'Reset password' on the login page."),
    ("policy_prose", "Las claves de API se renuevan cada trimestre y se guardan en el gestor de secretos."),
    ("policy_prose", "The API key goes in the X-API-Key header; keys are scoped per project."),
    ("policy_prose", "password reset emails were delayed by 20 minutes yesterday"),
    ("policy_prose", "We store only the bcrypt hash of each password, cost factor 12."),
    ("policy_prose", "No guardes la contraseña en el repositorio: usa variables de entorno."),
    ("policy_prose", "The secret rotation runbook lives in docs/runbooks/rotate-secrets.md."),
    # --- references, not values
    ("env_reference", "DATABASE_URL=postgres://app:${DB_PASSWORD}@db:5432/orders"),
    ("env_reference", "password: ${{ secrets.DB_PASSWORD }}\ntoken: ${{ secrets.GITHUB_TOKEN }}"),
    ("env_reference", "api_key = os.environ[\"OPENAI_API_KEY\"]"),
    ("env_reference", "const token = process.env.SLACK_BOT_TOKEN;"),
    ("env_reference", "env:\n- name: DB_PASSWORD\n  valueFrom:\n    secretKeyRef:\n      name: db\n      key: password"),
    ("env_reference", "vault kv get -field=password secret/data/prod/postgres"),
    ("env_reference", "arn:aws:secretsmanager:eu-west-1:‹digits:12›:secret:prod/db-AbCdEf"),
    ("env_reference", "password = op://Engineering/Postgres prod/password"),
    ("env_reference", "aws ssm get-parameter --name /prod/api/stripe_key --with-decryption"),
    ("env_reference", "SECRET_KEY = env(\"DJANGO_SECRET_KEY\")"),
    ("env_reference", "password: {{ vault_db_password }}"),
    ("env_reference", "export GITHUB_TOKEN=$(gh auth token)"),
    ("env_reference", "[database]\npassword = \"${POSTGRES_PASSWORD}\""),
    ("env_reference", "\"password\": \"%(DB_PASS)s\""),
    ("env_reference", "spring.datasource.password=${SPRING_DATASOURCE_PASSWORD}"),
    ("env_reference", "token: !vault |\n  $ANSIBLE_VAULT;1.1;AES256"),
    ("env_reference", "la contraseña está en 1Password, en la bóveda 'Infra'"),
    ("env_reference", "AWS_SECRET_ACCESS_KEY is read from the instance profile, not from .env"),
    # --- placeholders and masked values
    ("placeholder", "OPENAI_API_KEY=<your-api-key>"),
    ("placeholder", "STRIPE_SECRET_KEY=sk_test_xxxxxxxxxxxxxxxxxxxxxxxx"),
    ("placeholder", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"),
    ("placeholder", "DB_PASSWORD=changeme"),
    ("placeholder", "password: \"********\""),
    ("placeholder", "token: ghp_****************************a1B2"),
    ("placeholder", "Your key: sk-...‹alnum:4› (shown once; we only keep the last 4)"),
    ("placeholder", "def test_login(client):\n    r = client.post('/login', json={'user': 'alice', 'password': 'password'})"),
    ("placeholder", "GITHUB_TOKEN=REPLACE_ME"),
    ("placeholder", "api_key: \"YOUR_API_KEY_HERE\""),
    ("placeholder", "password = (sensitive value)"),
    ("placeholder", "  + master_password = (sensitive value)\n  + username        = \"admin\""),
    ("placeholder", "SLACK_WEBHOOK_URL=https://hooks.slack.com/services/TXXXXXXXX/BXXXXXXXX/XXXXXXXXXXXXXXXXXXXXXXXX"),
    ("placeholder", "postgres://user:password@localhost:5432/mydb"),
    ("placeholder", "curl -H \"Authorization: Bearer $TOKEN\" https://api.acme.dev/me"),
    ("placeholder", "\"password\": \"<redacted>\""),
    ("placeholder", "JWT_SECRET=dummy-secret-for-tests"),
    ("placeholder", "ANTHROPIC_API_KEY=sk-ant-..."),
    ("placeholder", "la contraseña por defecto es 'admin' y hay que cambiarla al entrar"),
    ("placeholder", "mysql -u root -p   # prompts for the password"),
    # --- css and colours
    ("css", ".btn-primary { background: #‹hex:6›; border-color: #‹hex:6›; color: #fff; }"),
    ("css", ":root {\n  --accent: #‹hex:6›;\n  --muted: #‹hex:6›‹hex:2›;\n  --bg: rgb(12 14 18);\n}"),
    ("css", "background-image: linear-gradient(135deg, #‹hex:6› 0%, #‹hex:6› 100%);"),
    ("css", ".a{color:#‹hex:3›}.b{color:#‹hex:6›;margin:0 auto}.c{fill:#‹hex:6›}"),
    ("css", "theme = {\"primary\": \"#‹HEX:6›\", \"secondary\": \"#‹HEX:6›\"}"),
    ("css", "<path d=\"M12 2L2 7l10 5 10-5-10-5z\" fill=\"#‹hex:6›\"/>"),
    ("css", ".css-‹lower:6›{display:flex}.css-‹lower:6›{gap:8px}"),
    ("css", "@tailwind base; .bg-[#‹hex:6›] { }"),
    # --- minified code and bundles
    ("minified", "!function(e,t){\"object\"==typeof exports?module.exports=t():e.x=t()}(this,function(){return function(n){var r={};function o(e){if(r[e])return r[e].exports}}});"),
    ("minified", "var a=\"‹alnum:12›\",b=function(c){return c.split(\"\").reverse().join(\"\")};"),
    ("minified", "main.‹hex:8›.js  142 kB\nvendor.‹hex:8›.js  512 kB\nruntime.‹hex:20›.js 2 kB"),
    ("minified", "webpackChunkapp.push([[‹digits:3›],{‹digits:5›:(e,t,n)=>{\"use strict\";n.d(t,{A:()=>r})}}]);"),
    ("minified", "//# sourceMappingURL=app.‹hex:8›.js.map"),
    ("minified", "<script src=\"/_next/static/chunks/pages/_app-‹hex:16›.js\" defer></script>"),
    ("minified", "<script src=\"https://cdn.jsdelivr.net/npm/bootstrap@5.3.3/dist/js/bootstrap.min.js\" integrity=\"sha384-‹b64s:64›\" crossorigin=\"anonymous\"></script>"),
    ("minified", "const t=e=>e.replace(/[A-Z]/g,n=>\"-\"+n.toLowerCase()),o={k:\"‹b64u:16›\"};"),
    # --- build artifacts and paths
    ("build_path", "/nix/store/‹nix:32›-python3-3.12.5/bin/python3"),
    ("build_path", "~/.cache/bazel/_bazel_ana/‹hex:32›/execroot/__main__"),
    ("build_path", "node_modules/.vite/deps/chunk-‹U:8›.js?v=‹hex:8›"),
    ("build_path", "~/.cache/huggingface/hub/models--sentence-transformers--all-MiniLM-L6-v2/snapshots/‹hex:40›/"),
    ("build_path", "target/debug/deps/ihmt-‹hex:16›.d"),
    ("build_path", "__pycache__/memory.cpython-312.pyc and .mypy_cache/3.12/‹hex:16›.json"),
    ("build_path", "~/Library/Developer/Xcode/DerivedData/Acme-‹lower:28›/Build"),
    ("build_path", "C:\\Users\\ana\\AppData\\Local\\Temp\\pip-build-‹lower:8›\\numpy"),
    # --- cloud ids
    ("cloud_id", "arn:aws:iam::‹digits:12›:role/github-actions-deploy"),
    ("cloud_id", "instance i-0‹hex:16› in subnet-0‹hex:16› (vpc-0‹hex:16›)"),
    ("cloud_id", "x-amz-request-id: ‹U:16›\nx-amz-id-2: ‹b64s:76›="),
    ("cloud_id", "AMI ami-0‹hex:16› is the golden image for eu-west-1"),
    ("cloud_id", "projects/acme-prod-4411/locations/europe-west1/services/api/revisions/api-00042-‹lower:3›"),
    ("cloud_id", "/subscriptions/‹uuid›/resourceGroups/rg-web/providers/Microsoft.Web/sites/acme-web"),
    ("cloud_id", "sg-0‹hex:16› allows 443 from 0.0.0.0/0"),
    ("cloud_id", "CloudFront distribution E‹U:13› invalidation I‹U:13› completed"),
    ("cloud_id", "kms key alias/prod-db -> key id ‹uuid›"),
    ("cloud_id", "RequestId: ‹uuid› Duration: 812.33 ms Billed Duration: 813 ms"),
    # --- tracing
    ("tracing", "traceparent: 00-‹hex:32›-‹hex:16›-01"),
    ("tracing", "trace_id=‹hex:32› span_id=‹hex:16› msg=\"db timeout\""),
    ("tracing", "X-Request-Id: ‹hex:32›"),
    ("tracing", "Honeycomb trace https://ui.honeycomb.io/acme/environments/prod/trace?trace_id=‹hex:32›"),
    ("tracing", "cf-ray: ‹hex:16›-MAD"),
    ("tracing", "x-datadog-trace-id: ‹digits:19›"),
    # --- payment and SaaS object ids (not credentials)
    ("object_id", "refund for ch_3‹alnum:23› on customer cus_‹alnum:14›"),
    ("object_id", "PaymentIntent pi_3‹alnum:23› succeeded; invoice in_1‹alnum:23›"),
    ("object_id", "price_1‹alnum:23› is the yearly plan"),
    ("object_id", "Stripe publishable key pk_live_‹alnum:99› goes in the frontend bundle"),
    ("object_id", "evt_1‹alnum:23› arrived twice; the handler is idempotent"),
    ("object_id", "Slack user U0‹U:9› in channel C0‹U:9›"),
    ("object_id", "Twilio message SM‹hex:32› was delivered"),
    ("object_id", "Shopify order gid://shopify/Order/‹digits:13›"),
    ("object_id", "the Discord channel id is ‹digits:19›"),
    ("object_id", "Intercom conversation ‹digits:12› reports the sync bug"),
    # --- blockchain public values
    ("crypto_public", "send the test ETH to 0x‹hex:40›"),
    ("crypto_public", "tx 0x‹hex:64› confirmed in block 19,234,112"),
    ("crypto_public", "donations: bc1q‹bech:38›"),
    ("crypto_public", "pinned on IPFS as bafybei‹b32l:52›"),
    ("crypto_public", "contract deployed at 0x‹hex:40› (verified on Etherscan)"),
    # --- code about secrets without values
    ("code_secretish", "def hash_password(password: str) -> str:\n    return bcrypt.hashpw(password.encode(), bcrypt.gensalt()).decode()"),
    ("code_secretish", "if not api_key:\n    raise ConfigError(\"set OPENAI_API_KEY or pass api_key=\")"),
    ("code_secretish", "CREATE TABLE users (id uuid primary key, email text, password_hash varchar(60) not null);"),
    ("code_secretish", "token = tokenizer.encode(text)[:max_tokens]"),
    ("code_secretish", "class TokenBucket:\n    def __init__(self, rate: float, capacity: int) -> None:"),
    ("code_secretish", "secret = secrets.token_urlsafe(32)  # generated per install, never logged"),
    ("code_secretish", "<input type=\"password\" name=\"password\" autocomplete=\"current-password\">"),
    ("code_secretish", "GITHUB_TOKEN_RE = re.compile(r\"gh[pousr]_[A-Za-z0-9]{36}\")"),
    ("code_secretish", "password = getpass.getpass(\"Password: \")"),
    ("code_secretish", "headers = {\"Authorization\": f\"Bearer {self._token}\"}"),
    ("code_secretish", "const [password, setPassword] = useState(\"\");"),
    ("code_secretish", "kubectl create secret generic db --from-literal=password=\"$DB_PASSWORD\""),
    ("code_secretish", "assert verify_password(stored_hash, candidate) is True"),
    ("code_secretish", "session_key = f\"session:{user_id}:{device_id}\""),
    ("code_secretish", "api_key_header = APIKeyHeader(name=\"X-API-Key\", auto_error=False)"),
    ("code_secretish", "self.client_secret = client_secret or settings.CLIENT_SECRET"),
    # --- NLP and "token" as a unit
    ("nlp_tokens", "max_tokens: 4096\ntemperature: 0.2"),
    ("nlp_tokens", "input_ids: [101, 7592, 2088, 999, 102]"),
    ("nlp_tokens", "The prompt used 1,842 tokens; the answer 311."),
    ("nlp_tokens", "BPE merges: ('Ġt', 'he'), ('Ġa', 'nd'), ('i', 'ng')"),
    ("nlp_tokens", "token budget de 900 tokens por consulta"),
    # --- Spanish 'clave' and 'secreto' in other senses
    ("spanish_other", "La clave primaria de la tabla pedidos es (cliente_id, fecha)."),
    ("spanish_other", "Añade una clave foránea de lineas.pedido_id a pedidos.id"),
    ("spanish_other", "La clave del éxito fue cachear las ramas."),
    ("spanish_other", "palabra clave: memoria a largo plazo"),
    ("spanish_other", "el secreto está en ordenar por fecha antes de agrupar"),
    ("spanish_other", "Las claves del diccionario son los ids de las hojas."),
    # --- kubernetes and process names
    ("k8s_names", "pod/api-‹lower:10›-‹lower:5› CrashLoopBackOff"),
    ("k8s_names", "replicaset.apps/web-‹lower:9› scaled to 3"),
    ("k8s_names", "container id containerd://‹hex:64›"),
    ("k8s_names", "job.batch/backup-‹digits:8› completed in 4m"),
    ("k8s_names", "docker ps: ‹hex:12›   postgres:16   \"docker-entrypoint.s…\"   Up 3 hours"),
    # --- notes that mix ids with secret words
    ("secretish_note", "rotated the Stripe key; the new one is in Vault under secret/prod/stripe"),
    ("secretish_note", "the token expired at 14:02, so the job failed with 401"),
    ("secretish_note", "Revoked ghp token for the old bot (created 2023-04-01)."),
    ("secretish_note", "password field is now masked in the logs since ‹hex:7›"),
    ("secretish_note", "API key id ‹uuid› was disabled by the audit; secret already deleted"),
    ("secretish_note", "he olvidado la contraseña del portátil, pedir reset a IT"),
    ("secretish_note", "The passphrase prompt appears twice when the agent is not running."),
    ("secretish_note", "secret scanning flagged commit ‹hex:40›; it was a test fixture"),
    ("secretish_note", "password: see the team vault (entry 'staging db')"),
    ("secretish_note", "token=‹hex:8› is the cache-busting query param, not an auth token"),
    # --- miscellaneous random-looking ordinary data
    ("misc_random", "random.seed(‹digits:10›)  # reproducible split"),
    ("misc_random", "build ‹digits:7› on runner ‹lower:8›-‹digits:4›"),
    ("misc_random", "the shortlink is https://acme.link/‹alnum:7›"),
    ("misc_random", "ISBN 978-0-13-468599-1; DOI 10.1145/‹digits:7›.‹digits:7›"),
    ("misc_random", "IBAN for the test bank in the docs: GB82 WEST 1234 5698 7654 32"),
    ("misc_random", "MAC 3c:22:fb:‹colonhex:3›, IPv6 2001:db8::‹hex:4›:‹hex:4›"),
    ("misc_random", "Alembic revision ‹hex:12› (down_revision ‹hex:12›)"),
    ("misc_random", "migration 20250304‹digits:6›_add_index_to_orders.rb"),
    ("misc_random", "seed phrase support: we never ask for your 12 words"),
    ("misc_random", "The benchmark ran with PYTHONHASHSEED=0 and seed ‹digits:4›."),
    ("misc_random", "color palette: ‹hex:6›, ‹hex:6›, ‹hex:6›"),
    ("misc_random", "hex dump: 0000: ‹hexsp:16›"),
    ("misc_random", "license: MIT; SPDX-License-Identifier: Apache-2.0"),
    ("misc_random", "matrix room !‹alpha:18›:matrix.org"),
    ("misc_random", "the captcha site key (public) is 6L‹b64u:38›"),
]

# --------------------------------------------------------------------------- generator

_HEX = "0123456789abcdef"
_ALNUM = string.ascii_letters + string.digits
_B64S = string.ascii_letters + string.digits + "+/"
_B64U = string.ascii_letters + string.digits + "-_"
_B58 = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"
_BECH = "qpzry9x8gf2tvdw0s3jn54khce6mua7l"
_NIX = "0123456789abcdfghijklmnpqrsvwxyz"
_ALPHABETS = {
    "hex": _HEX, "HEX": _HEX.upper(), "alnum": _ALNUM, "alpha": string.ascii_letters,
    "lower": string.ascii_lowercase + string.digits, "lowera": string.ascii_lowercase,
    "U": string.ascii_uppercase + string.digits, "digits": string.digits,
    "b64s": _B64S, "b64u": _B64U, "b58": _B58, "bech": _BECH, "BECH": _BECH.upper(),
    "B32": string.ascii_uppercase + "234567", "b32l": string.ascii_lowercase + "234567",
    "nix": _NIX, "azs": _ALNUM + "_.~-", "djs": string.ascii_lowercase + string.digits + "!@#%^&*(-_=+)",
    "hexl": _HEX,
}
# Words for made-up passwords and seed phrases (not the BIP-39 list, only its shape).
_WORDS = ("orbit canyon velvet harvest pilot lantern meadow copper glacier saddle thunder "
          "mosaic pepper walnut ember fossil juniper quiver ripple summit tundra banner "
          "cobalt drift ferry gravel hollow island jacket kettle ladder marble noble").split()
_WORDS_ES = "caballo naranja tormenta ventana girasol montaña relámpago camino estrella".split()
_SYMBOLS = "!#$%&*@^-_.+?=~"
_URL_SAFE = "-_.~"
_SLOT = re.compile(r"‹([a-zA-Z0-9]+)(?::([^›]*))?›")


def _draw(rng: random.Random, alphabet: str, n: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _password(rng: random.Random, symbols: str, spanish: bool = False) -> str:
    """A made-up password of one of several everyday shapes."""
    words = _WORDS_ES if spanish else _WORDS
    shape = rng.randrange(6)
    if shape == 0:
        return (rng.choice(words).capitalize() + rng.choice(words) + str(rng.randrange(10, 9999))
                + rng.choice(symbols))
    if shape == 1:
        return _draw(rng, _ALNUM + symbols, rng.randrange(12, 24))
    if shape == 2:
        return rng.choice(symbols).join(rng.choice(words) for _ in range(3)) + str(rng.randrange(100))
    if shape == 3:
        return (rng.choice(words) + str(rng.randrange(1, 99)) + rng.choice(symbols)
                + rng.choice(words).upper())
    if shape == 4:
        return _draw(rng, _ALNUM, rng.randrange(10, 18))
    return rng.choice(words).capitalize() + str(rng.randrange(1990, 2026)) + rng.choice(symbols)


def _b64(raw: bytes, url: bool = False) -> str:
    enc = base64.urlsafe_b64encode(raw) if url else base64.b64encode(raw)
    return enc.decode()


def _jwt(rng: random.Random) -> str:
    head = {"alg": rng.choice(["HS256", "RS256"]), "typ": "JWT"}
    body = {"sub": str(rng.randrange(10**6)), "role": rng.choice(["service_role", "user"]),
            "iat": 1_730_000_000 + rng.randrange(10**7), "iss": "acme"}
    parts = [_b64(json.dumps(x, separators=(",", ":")).encode(), url=True).rstrip("=")
             for x in (head, body)]
    return ".".join(parts + [_draw(rng, _B64U, 43)])


def _pem_lines(rng: random.Random, n: int) -> list[str]:
    raw = rng.randbytes(48 * n - rng.randrange(1, 20))
    body = _b64(raw)
    return [body[i:i + 64] for i in range(0, len(body), 64)]


def _uuid(rng: random.Random) -> str:
    h = _draw(rng, _HEX, 32)
    h = h[:12] + "4" + h[13:16] + rng.choice("89ab") + h[17:]
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def _ssh_ed25519(rng: random.Random) -> str:
    blob = b"\x00\x00\x00\x0bssh-ed25519\x00\x00\x00\x20" + rng.randbytes(32)
    return _b64(blob)


def _ssh_rsa(rng: random.Random) -> str:
    blob = (b"\x00\x00\x00\x07ssh-rsa\x00\x00\x00\x03\x01\x00\x01\x00\x00\x01\x01\x00"
            + rng.randbytes(256))
    return _b64(blob)


def _fill(rng: random.Random, name: str, arg: str | None) -> str:  # noqa: PLR0911, PLR0912
    if name in _ALPHABETS:
        return _draw(rng, _ALPHABETS[name], int(arg or 16))
    if name == "pw":
        return _password(rng, _SYMBOLS)
    if name == "pwu":
        return _password(rng, _URL_SAFE)
    if name == "pwes":
        return _password(rng, _SYMBOLS, spanish=True)
    if name == "words":
        return "-".join(rng.choice(_WORDS) for _ in range(int(arg or 4)))
    if name == "seed":
        return " ".join(rng.choice(_WORDS) for _ in range(int(arg or 12)))
    if name == "uuid":
        return _uuid(rng)
    if name == "UUID":
        return _uuid(rng).upper()
    if name == "ulid":
        return _draw(rng, "0123456789ABCDEFGHJKMNPQRSTVWXYZ", 26)
    if name == "jwt":
        return _jwt(rng)
    if name == "pem":
        return "\n".join(_pem_lines(rng, int(arg or 8)))
    if name == "pemjson":
        return "\\n".join(_pem_lines(rng, int(arg or 8)))
    if name == "opensshpriv":
        body = _b64(b"openssh-key-v1\x00\x00\x00\x00\x04none\x00\x00\x00\x04none"
                    + rng.randbytes(340))
        return "\n".join(body[i:i + 70] for i in range(0, len(body), 70))
    if name == "basic":
        return _b64(f"{rng.choice(['ci', 'deploy', 'ana', 'robot$build'])}:{_password(rng, _URL_SAFE)}".encode())
    if name == "b64pw":
        return _b64(_password(rng, _SYMBOLS).encode())
    if name == "keyb64":
        pem = "-----BEGIN RSA PRIVATE KEY-----\n" + "\n".join(_pem_lines(rng, 6)) + \
            "\n-----END RSA PRIVATE KEY-----\n"
        return _b64(pem.encode())
    if name == "certb64":
        pem = "-----BEGIN CERTIFICATE-----\nMII" + "\n".join(_pem_lines(rng, 6)) + \
            "\n-----END CERTIFICATE-----\n"
        return _b64(pem.encode())
    if name == "b64of":
        return _b64((arg or "").encode())
    if name == "sshpub":
        return _ssh_ed25519(rng)
    if name == "rsapub":
        return _ssh_rsa(rng)
    if name == "discordid":
        return _b64(str(rng.randrange(10**17, 10**18)).encode()).rstrip("=")
    if name == "b32spaced":
        return " ".join(_draw(rng, "abcdefghijklmnopqrstuvwxyz234567", 4) for _ in range(8))
    if name == "colonhex":
        return ":".join(_draw(rng, _HEX.upper(), 2) for _ in range(int(arg or 16)))
    if name == "hexsp":
        return " ".join(_draw(rng, _HEX, 2) for _ in range(int(arg or 16)))
    raise ValueError(f"unknown slot {name!r}")


def _render(rng: random.Random, kind: str, template: str) -> FreshCase:
    """Fill a template's slots and turn its «» marks into spans of the final text."""
    return marked(kind, _SLOT.sub(lambda m: _fill(rng, m.group(1), m.group(2)), template))


def fifth_cases(seed: int = 37) -> tuple[list[FreshCase], list[FreshCase]]:
    """The fifth split, drawn from ``seed``: (secrets, ordinary); each ordinary template
    is drawn twice."""
    rng = random.Random(f"fifth-{seed}")
    secrets = [_render(rng, kind, template) for kind, template in SECRETS]
    ordinary = [_render(rng, kind, template) for _ in range(2) for kind, template in ORDINARY]
    return secrets, ordinary
