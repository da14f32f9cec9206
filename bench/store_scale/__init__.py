"""Study: store_scale (see README.md)."""
