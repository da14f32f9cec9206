"""Study: er_speed (see README.md)."""
