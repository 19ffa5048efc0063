"""Splitters. Each returns :class:`ihmt.model.Chunk` objects whose texts, joined in order,
give back the input byte for byte, and none of which cuts a logical block in two."""
