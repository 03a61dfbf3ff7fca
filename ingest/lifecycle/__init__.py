"""The memory lifecycle: consolidation jobs, their scheduler, and feedback."""
