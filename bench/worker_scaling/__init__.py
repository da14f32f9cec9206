"""Study: worker_scaling (see README.md)."""
