"""Resolve step: reference parsing, entity resolution and disambiguation, profiles, tracking."""
