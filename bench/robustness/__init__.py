"""Study: robustness (see README.md)."""
