"""Study: demo (see README.md)."""
