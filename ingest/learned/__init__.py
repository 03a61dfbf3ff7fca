"""Core memory learned from conversation (docs/CORE.md): what a user states about the
business, themselves, active projects and how they want things done becomes a pinned memory.

``recognise`` reads a turn's parse and statements (no I/O); ``planning`` decides what the
turn pins, supersedes and leaves alone against the tenant's learned core items.
"""
