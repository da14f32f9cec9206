"""Study: real_data (see README.md)."""
