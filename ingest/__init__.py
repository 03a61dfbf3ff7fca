"""Write side. At the top, the entry points: turns, documents, tasks, sessions and the service
that holds them; ``extract/`` the pure text rules and parsers; ``write/`` the one write path
(graph first, then ``IndexSync`` makes the vector index agree) and reconciliation; ``jobs/``
the durable queue and the background jobs; ``lifecycle/`` consolidation and its scheduler."""
