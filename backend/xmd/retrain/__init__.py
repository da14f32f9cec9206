"""A retrain: its route, request, start, estimate, plan, ETA prior, calibration, job body and controls."""
