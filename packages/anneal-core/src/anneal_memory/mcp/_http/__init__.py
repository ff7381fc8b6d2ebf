"""MCP over Streamable HTTP (``anneal-memory serve --http``), apart from the stdio server.

``_app``: the ASGI application; ``_tokens``: the bearer token file; ``_scopes``: one store
per scope and one server per token; ``_serve``: uvicorn (the ``[http]`` extra). The stdio
server never imports this package.
"""
