"""Study: attribution (see README.md)."""
