"""The arena: participants submit bots that are validated and ranked continuously; see docs/arena.md."""
