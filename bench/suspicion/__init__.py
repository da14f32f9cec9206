"""Study: suspicion (see README.md)."""
