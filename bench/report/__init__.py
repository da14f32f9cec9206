"""The benchmark report: study READMEs and BENCHMARKS.md rendered from the results by Jinja2 templates."""
