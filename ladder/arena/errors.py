"""The arena's refusals, by what is wrong: what a viewer may not see, what a participant may not
submit, what cannot happen now. The message says why and what to do; the API answers each with its
HTTP status (``ladder.arena.app.http_status``) and the site with its error page."""

from __future__ import annotations

__all__ = ["BadRequest", "Forbidden", "NotFound", "NotNow", "Refused", "TooLarge", "TooMany"]


class Refused(Exception):
    """The arena's no: the message says what is wrong and what to do."""


class NotFound(Refused):
    """Nothing by that name or number that this viewer may see."""


class Forbidden(Refused):
    """There, and not this viewer's to read or change (or not any more: the deadline has passed)."""


class NotNow(Refused):
    """Not in the arena's present state: a match whose deal other seatings still play, a final that cannot start."""


class BadRequest(Refused):
    """What was sent is not what the arena takes: a bad name, a bad archive, a bad address, a bad query."""


class TooMany(Refused):
    """Too many at once: as many versions waiting for the pipeline as one may, or a bot already being asked again."""


class TooLarge(Refused):
    """An archive past the arena's limit, or past what the participant may keep stored."""
