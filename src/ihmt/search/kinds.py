"""What kind of thing a product is: "Sentry" is an error tracker, "Postmark" sends email,
"Buildkite" runs builds, "Backblaze" keeps backups, "Pepephone" is a phone line.

A question often names the kind of thing it asks for and the note names the thing: "where
do I look up the stack trace for that 500?" for "errors go to Sentry", "which provider's
logs should I check for password reset emails?" for "rotated the Postmark server token",
"¿de dónde saco la copia de ayer?" for "las copias van a Backblaze". Words alone never
meet there. A query word that names a kind below (one of its *kind words*) also looks for
the kind's *products*, at :data:`KIND_WEIGHT` of the query word's weight. A memory found
by a product ranks, but counts as matching that query word only loosely (as a related word
of :mod:`ihmt.search.related` does, for less, in the test for NOT FOUND): that a note
names an error tracker makes it a likely answer about errors, not a sure one. (Counted as
the word itself, it served old products with confidence: more confidently stale answers.)
The rule of changes reads them too (:func:`ihmt.search.change_links.swapped`).

Products of one kind are values that replace each other ("moved from Sentry to Rollbar"):
they are never one word to the rule of changes, unlike :mod:`ihmt.search.aliases`.

The lexicon was written from what developers and their tools are called, in English and
Spanish, kept apart from the benchmarks and walks that measure it. Kind words are the words
people ask with, specific enough to name the kind ("errors", "pipeline", "backups"; never
"use" or "run"). Products are single index words: a name that is also an ordinary word or
a first name ("Linear", "Render", "Fly", "Vault", "Zoom", "Notion" in Spanish) is left out,
as is a name of two words that neither says alone ("GitHub Actions").
"""

from __future__ import annotations

import functools

from ..text import tokenize

KIND_WEIGHT = 0.6  # share of a query word's weight a product of its kind gets

# Each line: the kind words, then "|", then the products of that kind.
KINDS: tuple[str, ...] = (
    # building, shipping, running
    "ci cicd builds build pipeline pipelines compilacion compilación integracion "
    "| jenkins circleci buildkite travis teamcity appveyor codebuild bitrise codemagic "
    "gitlab-ci github-actions woodpecker",
    "deploy deploys deployment deployments despliegue despliegues desplegar gitops "
    "| argocd argo-cd fluxcd spinnaker",
    "hosting hosted served serve serving alojamiento alojado alojada hospedaje hospedado "
    "| heroku vercel netlify flyio fly.io digitalocean hetzner linode vultr ovh scaleway "
    "firebase amplify cloudflare pythonanywhere",
    "cloud nube | aws gcp azure hetzner digitalocean ovh linode scaleway",
    "orchestrator orchestration cluster clusters container containers orquestador "
    "contenedores | kubernetes k8s ecs fargate eks gke aks openshift k3s",
    "registry | ecr gcr ghcr dockerhub quay artifactory",
    "iac provisioning infrastructure-as-code | terraform opentofu pulumi "
    "cloudformation bicep crossplane ansible",
    "proxy reverse-proxy webserver ingress gateway | nginx traefik haproxy kong",
    "vpn tunnel | tailscale wireguard openvpn zerotier nordvpn mullvad protonvpn netbird "
    "headscale",
    "dns domain domains cname nameserver nameservers registrar dominio dominios "
    "| route53 cloudflare namecheap gandi porkbun godaddy dnsimple ionos dondominio",
    "cdn | cloudflare fastly cloudfront akamai bunnycdn keycdn jsdelivr",
    # watching what runs
    "error errors exception exceptions crash crashes stacktrace traceback tracebacks "
    "errores excepcion excepción excepciones | sentry rollbar bugsnag honeybadger raygun "
    "airbrake crashlytics glitchtip appsignal",
    "monitoring observability apm metrics tracing traces alerting dashboards "
    "monitorizacion monitorización metricas métricas | datadog newrelic new-relic grafana "
    "prometheus dynatrace honeycomb lightstep signoz appdynamics instana",
    "logs logging registros | papertrail loggly logtail betterstack datadog splunk "
    "kibana logstash graylog sumologic cloudwatch logdna mezmo",
    "uptime | pingdom uptimerobot betteruptime statuscake checkly",
    "status statuspage incident incidents outage outages incidencia incidencias caida caída "
    "| statuspage instatus cachet betteruptime",
    "pager paging on-call oncall guardia guardias | pagerduty opsgenie victorops rootly "
    "firehydrant squadcast",
    # data
    "database databases db bd | postgres postgresql mysql mariadb sqlite mongodb mongo "
    "dynamodb cockroachdb supabase planetscale aurora rds cassandra firestore couchdb "
    "mssql clickhouse",
    "cache caching caché | redis memcached elasticache valkey upstash keydb varnish",
    "queue queues broker pubsub cola colas | rabbitmq kafka sqs sns nats redpanda "
    "activemq celery sidekiq bullmq resque kinesis",
    "fulltext full-text buscador | elasticsearch opensearch algolia meilisearch typesense solr",
    "vector vectors embedding embeddings vectores | pgvector pinecone weaviate qdrant milvus "
    "chroma chromadb faiss lancedb",
    "warehouse dwh | snowflake bigquery redshift databricks clickhouse duckdb",
    "bi | metabase looker tableau superset redash powerbi",
    "etl dag dags workflow workflows scheduler cron | airflow dagster "
    "cronitor luigi",
    "backup backups restore snapshot snapshots copia copias respaldo respaldos restaurar "
    "| backblaze wasabi restic borgbackup duplicati rclone tarsnap timemachine arq",
    "bucket buckets storage almacenamiento | s3 gcs minio backblaze wasabi",
    "nas | synology truenas qnap unraid openmediavault",
    # product plumbing
    "email emails mail mails correo correos smtp | sendgrid postmark mailgun ses sparkpost "
    "mandrill mailjet brevo sendinblue mailersend",
    "newsletter newsletters campaign campaigns campaña campañas boletin boletín "
    "| mailchimp convertkit buttondown substack beehiiv klaviyo sendy mailerlite brevo",
    "payment payments checkout billing pagos pago cobros cobro subscription subscriptions "
    "suscripciones | stripe braintree adyen paypal paddle lemonsqueezy mollie chargebee "
    "recurly redsys",
    "auth login sso identity idp signin sign-in | auth0 okta cognito keycloak "
    "onelogin jumpcloud workos stytch",
    "flag flags feature-flag feature-flags toggle toggles rollout rollouts "
    "| launchdarkly flagsmith growthbook configcat statsig",
    "analytics pageviews visitors analitica analítica | mixpanel posthog matomo "
    "ga4 umami pendo hotjar fullstory",
    "translations translation i18n l10n localization traducciones | crowdin lokalise "
    "transifex weblate tolgee",
    "llm llms | openai anthropic ollama",
    # code
    "frontend front-end front spa | react vue svelte sveltekit nextjs next.js nuxt "
    "gatsby qwik htmx",
    "backend back-end framework | django fastapi rails nestjs laravel "
    "koa hapi sinatra",
    "orm | prisma typeorm sequelize sqlalchemy activerecord hibernate knex gorm",
    "css styling | tailwind tailwindcss sass scss bulma",
    "bundler bundle bundling empaquetador | webpack vite rollup esbuild turbopack "
    "rspack",
    "test tests testing runner pruebas e2e | vitest pytest "
    "selenium rspec phpunit junit",
    "lint linter linting linters formatter formatting formateador | eslint prettier biome "
    "ruff flake8 pylint isort rubocop stylelint tslint gofmt clippy rustfmt dprint "
    "oxlint",
    "package-manager paquetes deps | npm pnpm yarn pip pipenv uv conda "
    "maven gradle nuget",
    "repo repos forge | github gitlab bitbucket gitea codeberg sourcehut forgejo",
    "editor ide | vim neovim nvim emacs vscode sublime intellij pycharm webstorm goland zed "
    "helix",
    "terminal consola | iterm iterm2 alacritty wezterm ghostty konsole tilix",
    "shell alias aliases dotfiles | zsh bash nushell powershell pwsh oh-my-zsh ksh tcsh",
    # working together
    "issue issues ticket tickets tracker backlog | jira youtrack clubhouse asana trello "
    "redmine bugzilla clickup",
    "wiki docs documentation handbook runbook runbooks documentacion documentación "
    "| confluence gitbook docusaurus mkdocs readthedocs nuclino bookstack mediawiki",
    "chat channel channels comms messaging | slack discord mattermost rocketchat zulip",
    "videocall video-call videollamada videollamadas | zoom webex jitsi whereby "
    "gotomeeting hangouts",
    "password passwords secret secrets credentials creds contraseña contraseñas secretos "
    "| 1password lastpass bitwarden keepass keepassxc dashlane doppler infisical sops",
    "design designs mockup mockups wireframe wireframes prototype diseño diseños "
    "| figma penpot framer invision zeplin balsamiq",
    "invoice invoices invoicing factura facturas facturacion facturación accounting "
    "contabilidad bookkeeping | quickbooks xero freshbooks quipu contasimple anfix",
    "crm | salesforce hubspot pipedrive",
    "support helpdesk help-desk soporte | zendesk freshdesk helpscout gorgias",
    "timesheet timesheets time-tracking | toggl clockify",
    # the user's own tools
    "browser browsers navegador | chrome chromium firefox safari brave vivaldi librewolf",
    "distro os operating-system | ubuntu debian fedora nixos macos manjaro popos archlinux "
    "opensuse centos",
    "language languages lenguaje lenguajes | python golang typescript javascript kotlin java "
    "scala haskell php csharp rust",
    "notes note-taking notas | obsidian evernote logseq joplin onenote notion",
    "drive cloud-storage | dropbox gdrive onedrive icloud nextcloud",
    "messenger | whatsapp telegram",
    # personal
    "carrier operador operadora linea línea sim tarifa | vodafone movistar pepephone digi "
    "yoigo simyo lowi o2 tmobile t-mobile verizon",
    "music música musica playlist playlists | spotify deezer",
)


@functools.lru_cache(maxsize=8)
def _kinds_of(stemmer: str) -> dict[str, tuple[int, ...]]:
    """Per kind word (as the index holds it): the lines of :data:`KINDS` it names. (Only the
    kind words are stemmed here: a hook's process builds this once per search.)"""
    out: dict[str, list[int]] = {}
    for i, line in enumerate(KINDS):
        for w in line.partition("|")[0].split():
            for t in tokenize(w, stemmer)[:1]:
                out.setdefault(t, []).append(i)
    return {t: tuple(dict.fromkeys(ix)) for t, ix in out.items()}


@functools.lru_cache(maxsize=512)
def _products_of(line: int, stemmer: str) -> frozenset[str]:
    """The products of one line of :data:`KINDS`, as the index holds them."""
    return frozenset(t for w in KINDS[line].partition("|")[2].split()
                     for t in tokenize(w, stemmer)[:1])


def _named(term: str, stemmer: str) -> frozenset[str]:
    """The products of every kind ``term`` names."""
    return frozenset(p for i in _kinds_of(stemmer).get(term, ()) for p in _products_of(i, stemmer))


def products(terms: list[str], stemmer: str) -> dict[str, str]:
    """The products of the kinds ``terms`` name, each mapped to the query term that named
    its kind (a term the query holds itself is never another's)."""
    have = set(terms)
    out: dict[str, str] = {}
    for t in terms:
        for p in sorted(_named(t, stemmer)):
            if p not in have and p not in out:
                out[p] = t
    return out


def of_kind(words: set[str] | frozenset[str], terms: set[str],
            stemmer: str) -> list[frozenset[str]]:
    """Per kind that one of the query ``terms`` names: the products of it that ``words``
    (a memory's index terms) hold."""
    kinds = _kinds_of(stemmer)
    return [frozenset(words & _named(t, stemmer)) for t in sorted(terms) if t in kinds]


def kind_words(stemmer: str) -> frozenset[str]:
    """Every kind word, as the index holds it ("build" of "builds", "pipeline", "error")."""
    return frozenset(_kinds_of(stemmer))


# Every product of the lexicon as written (lower case): a name whatever its case ("drop
# prettier, use biome"), for :func:`ihmt.search.change_notes.read_note`.
PRODUCT_WORDS = frozenset(w for line in KINDS for w in line.partition("|")[2].split())
