"""Benchmarks: each script prints figures and writes JSON (see docs/BENCHMARKS.md)."""
