"""A finding and the names of the kinds of secret, as messages show them."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Finding:
    """One value that looks secret: ``text[start:end]`` is the value itself.

    ``preview`` shows enough to recognise it (a known prefix, a few characters) and never
    the whole value; ``line`` is 1-based.
    """

    kind: str
    start: int
    end: int
    preview: str
    line: int = 1


# Human names of the kinds, used in messages (and the list of kinds this package knows).
KINDS: dict[str, str] = {
    "private_key": "private key block",
    "aws_access_key": "AWS access key id",
    "aws_secret_key": "AWS secret access key",
    "github_token": "GitHub token",
    "gitlab_token": "GitLab token",
    "slack_token": "Slack token",
    "slack_webhook": "Slack webhook URL",
    "stripe_key": "Stripe secret key",
    "anthropic_key": "Anthropic API key",
    "openai_key": "OpenAI API key",
    "google_api_key": "Google API key",
    "pypi_token": "PyPI token",
    "npm_token": "npm token",
    "huggingface_token": "Hugging Face token",
    "digitalocean_token": "DigitalOcean token",
    "shopify_token": "Shopify token",
    "mailgun_key": "Mailgun API key",
    "sendgrid_key": "SendGrid API key",
    "twilio_key": "Twilio API key",
    "square_token": "Square token",
    "vault_token": "HashiCorp Vault token",
    "age_key": "age secret key",
    "atlassian_token": "Atlassian API token",
    "postman_key": "Postman API key",
    "doppler_token": "Doppler token",
    "linear_key": "Linear API key",
    "notion_token": "Notion token",
    "sentry_token": "Sentry auth token",
    "newrelic_key": "New Relic key",
    "terraform_token": "Terraform Cloud token",
    "grafana_token": "Grafana token",
    "databricks_token": "Databricks token",
    "planetscale_token": "PlanetScale token",
    "pulumi_token": "Pulumi token",
    "discord_token": "Discord bot token",
    "discord_webhook": "Discord webhook URL",
    "telegram_token": "Telegram bot token",
    "azure_client_secret": "Azure client secret",
    "aws_session_token": "AWS session token",
    "google_oauth": "Google OAuth token or client secret",
    "gcp_hmac_key": "Google Cloud HMAC key",
    "alibaba_key": "Alibaba Cloud access key",
    "tencent_key": "Tencent Cloud secret id",
    "cloudflare_key": "Cloudflare Origin CA key",
    "heroku_token": "Heroku token",
    "supabase_token": "Supabase key",
    "netlify_token": "Netlify token",
    "render_token": "Render API key",
    "fly_token": "Fly.io token",
    "docker_token": "Docker Hub token",
    "jfrog_token": "JFrog token",
    "buildkite_token": "Buildkite token",
    "bitbucket_token": "Bitbucket app password",
    "rubygems_token": "RubyGems API key",
    "nuget_key": "NuGet API key",
    "tailscale_key": "Tailscale key",
    "onepassword_token": "1Password service account token",
    "dynatrace_token": "Dynatrace token",
    "contentful_token": "Contentful token",
    "prefect_token": "Prefect API key",
    "posthog_key": "PostHog personal API key",
    "readme_key": "ReadMe API key",
    "mailchimp_key": "Mailchimp API key",
    "brevo_key": "Brevo API key",
    "firebase_key": "Firebase Cloud Messaging server key",
    "twitter_token": "X (Twitter) bearer token",
    "facebook_token": "Facebook access token",
    "intercom_token": "Intercom token",
    "mapbox_token": "Mapbox secret token",
    "airtable_token": "Airtable token",
    "figma_token": "Figma token",
    "dropbox_token": "Dropbox token",
    "groq_key": "Groq API key",
    "xai_key": "xAI API key",
    "perplexity_key": "Perplexity API key",
    "replicate_token": "Replicate token",
    "elevenlabs_key": "ElevenLabs API key",
    "pinecone_key": "Pinecone API key",
    "langsmith_key": "LangSmith API key",
    "resend_key": "Resend API key",
    "adafruit_key": "Adafruit IO key",
    "easypost_key": "EasyPost API key",
    "braintree_token": "Braintree access token",
    "plaid_token": "Plaid access token",
    "flutterwave_key": "Flutterwave secret key",
    "shippo_token": "Shippo token",
    "django_secret": "Django secret key",
    "crypto_private_key": "cryptocurrency private key",
    "teams_webhook": "Microsoft Teams webhook URL",
    "webhook": "incoming webhook URL",
    "launchdarkly_key": "LaunchDarkly SDK key",
    "mercadopago_token": "Mercado Pago access token",
    "seed_phrase": "wallet recovery (seed) phrase",
    "session_cookie": "session cookie",
    "jwt": "JSON Web Token",
    "connection_string": "password in a connection string",
    "signed_url": "URL signature or key",
    "basic_auth": "HTTP Basic credentials",
    "bearer_token": "bearer token",
    "docker_auth": "Docker registry credentials",
    "password": "password",
    "credential": "secret value",
    "high_entropy": "random-looking token",
}
