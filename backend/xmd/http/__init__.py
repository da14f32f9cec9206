"""The HTTP kit shared by the domains' views (limits; the rest moves here with the backend redesign)."""
