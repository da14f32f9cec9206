"""xmd: explanation-based debugging of NLP classifiers with people in the loop."""

__version__ = "0.1.0"
