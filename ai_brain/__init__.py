"""AI Brain's client side: ``ai_brain.client`` (the Python client) and ``ai_brain.mcp_server``
(``brain mcp``). Nothing here imports the service's packages or its heavy dependencies."""
