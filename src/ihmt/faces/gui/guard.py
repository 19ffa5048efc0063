"""The checks every request passes before it reaches a route.

Why each one exists:

* **Host header.** A web page on another site can make the browser resolve its own domain
  to 127.0.0.1 (DNS rebinding) and then talk to us as "same origin". Such requests still
  carry the attacker's domain in ``Host``, so anything but ``127.0.0.1:<port>`` or
  ``localhost:<port>`` is refused before routing, static files included.
* **Origin.** A request carrying an ``Origin`` other than our own address (a page of
  another site, even one that learnt the token) is refused, so the one write to the
  memory itself, Forget, cannot be triggered from elsewhere.
* **Token.** Other local users and other local pages can reach a loopback port; only the
  person who started ``ihmt gui`` has the random token printed with the URL. Every
  ``/api/*`` call must send it (``X-IHMT-Token`` header, or ``token`` in the query).
* **JSON bodies only.** A cross-site form cannot send ``application/json`` without a
  CORS preflight, which we never answer, so a write can only come from our own page.
* **Headers.** No CORS headers ever; a strict Content-Security-Policy (all assets are
  ours), no referrer (the page URL holds the token), no framing, no caching of API data.
"""

from __future__ import annotations

import json
import secrets
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Message, Receive, Scope, Send

TOKEN_HEADER = "x-ihmt-token"

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
       "form-action 'none'; frame-ancestors 'none'")

_COMMON_HEADERS = [
    (b"content-security-policy", CSP.encode()),
    (b"referrer-policy", b"no-referrer"),
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"cross-origin-resource-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


def allowed_hosts(port: int) -> set[str]:
    """The Host values our own page sends; a bare name only for the default port."""
    hosts = {f"127.0.0.1:{port}", f"localhost:{port}"}
    if port == 80:
        hosts |= {"127.0.0.1", "localhost"}
    return hosts


def allowed_origins(port: int) -> set[str]:
    """The Origin values our own page sends (scheme and host of :func:`allowed_hosts`)."""
    return {f"http://{h}" for h in allowed_hosts(port)}


class Guard:
    """ASGI middleware applying the Host, token and content-type checks, and the headers."""

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1")
                   for k, v in scope.get("headers", [])}
        server = scope.get("server")
        port = int(server[1]) if server and server[1] is not None else -1
        if headers.get("host", "").strip().lower() not in allowed_hosts(port):
            await _refuse(send, 403, "forbidden_host",
                          "this server only answers requests addressed to "
                          "127.0.0.1 or localhost")
            return
        path: str = scope.get("path", "")
        origin = headers.get("origin")
        if origin is not None and origin.strip().lower() not in allowed_origins(port):
            # A page of another site (even one holding a stolen token) never gets an answer;
            # our own page sends its own origin, or none on a same-origin GET.
            await _refuse(send, 403, "forbidden_origin",
                          "requests from another site are refused")
            return
        if path.startswith("/api/"):
            given = headers.get(TOKEN_HEADER) or _query_token(scope)
            if not given:
                await _refuse(send, 401, "token_missing",
                              "the access token is missing: open the address printed by "
                              "'ihmt gui'")
                return
            if not secrets.compare_digest(given.encode(), self.token.encode()):
                await _refuse(send, 403, "token_invalid",
                              "the access token is wrong: open the address printed by "
                              "'ihmt gui'")
                return
            if scope.get("method") not in ("GET", "HEAD", "POST"):
                await _refuse(send, 405, "method", "only GET and POST are used here")
                return
            ctype = headers.get("content-type", "").split(";")[0].strip().lower()
            if scope.get("method") == "POST" and ctype != "application/json":
                await _refuse(send, 415, "content_type", "send the body as application/json")
                return

        is_api = path.startswith("/api/")

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra = list(_COMMON_HEADERS)
                if is_api:
                    extra.append((b"cache-control", b"no-store"))
                message["headers"] = [
                    (k, v) for k, v in message.get("headers", [])
                    if not k.lower().startswith(b"access-control-")
                ] + extra
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _query_token(scope: Scope) -> str | None:
    raw = scope.get("query_string", b"").decode("latin-1")
    values = parse_qs(raw).get("token")
    return values[0] if values else None


async def _refuse(send: Send, status: int, code: str, message: str) -> None:
    body = json.dumps({"error": code, "message": message}).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                            *_COMMON_HEADERS, (b"cache-control", b"no-store")]})
    await send({"type": "http.response.body", "body": body})
