"""Instance explanations and the per-word task aggregates built from them."""
