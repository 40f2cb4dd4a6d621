"""The arena (issue #14): participants submit bots that are validated and ranked continuously; see docs/arena.md."""
