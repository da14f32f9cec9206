"""A project as the UI manages it: made from a model (its version 1), listed with its counts, renamed,
its base model recorded, deleted with its stored versions; and ``xmd serve --demo``'s project."""
