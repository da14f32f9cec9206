"""Feedback: an append-only event log plus the current state derived from it."""
