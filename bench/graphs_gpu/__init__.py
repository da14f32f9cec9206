"""Study: graphs_gpu (see README.md)."""
