"""Model versions: the user's base model and every debugged model retrained from it."""
