"""A hand's tricks in the store: where each trick of its plays begins, as the engine played them.

``hand_plays`` keeps a hand's plays in play order. Where every trick of the hand is one card from every
seat, a play's trick and position follow from its place in that order (play ``i``: trick ``i // players``,
position ``i % players``) and ``hand_plays.tricks`` is NULL: every hand of every ruleset, but a hand with
a boosted trick. Under 002 Booster Nines a boosted trick is two rounds ('one more round is played in the
same suit — i.e. a further card from each player, in rotation'), ``2 × players`` cards, and its hand
keeps ``tricks``: the play-order index of each trick's first card (JSON, ``[0, 4, 12, 16, ...]``).

Nothing here decides where a trick ends: the save takes it from the record's trick numbers, which the
referee took from the engine (the number of tricks the engine had completed when the card was asked
for), and migration 21 from the engine's replay of a stored record (``referee.report.replay_hands``).

Why the other rulesets need nothing: with two packs (002 Cancellation Hearts) a trick without a winner
stays on the table, but it is still one card from every seat, and the engine counts it as a trick; a
kitty's cards go to a trick's winner without being played; removed cards and 3, 5 or 6 to 10 seats deal
every seat as many cards; ``packs=2`` refuses ``booster_nines``. ``may_differ`` says which rules to replay.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING

from referee.rules import Rules

if TYPE_CHECKING:  # the store imports no rich at its import: the replay is imported where it is used
    from referee.report import ReplayedHand


def may_differ(rules: Rules) -> bool:
    """Whether a hand of these rules may have a trick that is not one card from every seat (booster_nines)."""
    return rules.booster_nines


@functools.lru_cache(maxsize=64)
def _regular(plays: int, players: int) -> list[int]:
    """The trick number of each of ``plays`` plays when every trick is one card from every seat."""
    return [i // players for i in range(plays)]


def trick_starts(tricks: Sequence[int], players: int) -> list[int] | None:
    """The play-order index of each trick's first card, from each play's trick number (in play order);
    None where every trick is one card from every seat (play ``i`` in trick ``i // players``).

    The numbers run as the engine counts tricks: from 0, each play in the trick of the one before or
    the next; ``ValueError`` for any other (no record the referee makes has one)."""
    tricks = list(tricks)
    if tricks == _regular(len(tricks), players):
        return None
    starts: list[int] = []
    for i, t in enumerate(tricks):
        if t == len(starts):
            starts.append(i)
        elif t != len(starts) - 1:
            raise ValueError(f"play {i} of a hand is in trick {t} after trick {len(starts) - 1}: tricks go one by one")
    return starts


def tricks_and_positions(plays: int, players: int, starts: Sequence[int] | None) -> list[tuple[int, int]]:
    """Each of a hand's ``plays`` plays' (trick, position in the trick: 0 for the leader's card), from
    ``trick_starts``' answer (None: every trick is one card from every seat)."""
    if starts is None:
        return [(i // players, i % players) for i in range(plays)]
    bounds = [*starts, plays]
    return [(t, i - a) for t, (a, b) in enumerate(zip(bounds, bounds[1:])) for i in range(a, b)]


def replayed_tricks(hand: ReplayedHand) -> list[int]:
    """Each play's trick number as the engine replayed the hand: how many tricks it had completed before
    the card (a trick without a winner, two packs, counts: the engine keeps it among the hand's tricks)."""
    out: list[int] = []
    done = 0
    for p in hand.plays:
        out.append(done)
        if p.trick is not None:
            done += 1
    return out
