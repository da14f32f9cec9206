"""Datasets and their examples."""
