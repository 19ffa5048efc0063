"""Turning documents into leaves: detect type and domain, split, date and tag the pieces."""
