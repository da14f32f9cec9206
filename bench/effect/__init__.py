"""Study: effect (see README.md)."""
