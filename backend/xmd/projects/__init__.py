"""Projects: one model being debugged, its label space and settings."""
