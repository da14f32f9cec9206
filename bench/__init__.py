"""The benchmarks: one folder per study (runners, results, README), run as ``python -m bench.<study>.<runner>``."""
