"""Study: first_start (see README.md)."""
