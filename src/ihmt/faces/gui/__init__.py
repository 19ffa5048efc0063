"""``ihmt gui``: a local web application to set up, browse and inspect a memory.

The server listens on the loopback interface only, answers only requests addressed to
``127.0.0.1:<port>`` or ``localhost:<port>``, and every ``/api/*`` call must carry the random
token printed with the URL. The page is plain HTML, CSS and JavaScript modules shipped in
``static/``: no build step and nothing fetched from the network.
"""

from .app import build_app, serve

__all__ = ["build_app", "serve"]
