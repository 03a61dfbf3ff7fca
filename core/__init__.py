"""Settings, domain types, errors and small utilities. Imports nothing internal."""
