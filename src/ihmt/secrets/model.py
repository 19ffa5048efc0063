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
