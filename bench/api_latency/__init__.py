"""Study: api_latency (see README.md)."""
