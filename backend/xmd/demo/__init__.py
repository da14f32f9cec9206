"""``xmd serve --demo``'s project: made by a job before the server listens, completed if half-made."""
