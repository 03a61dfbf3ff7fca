"""The application facade, GraphQL schema, ASGI app and the `brain` command line."""
