"""``python -m ihmt.faces.mcp``: what agents are configured to launch."""

from .server import main

if __name__ == "__main__":
    main()
