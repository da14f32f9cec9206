"""Users and API tokens."""
