"""Ladder ratings: batch Plackett–Luce (exact tie likelihood) on an Elo scale, plus live pairwise Elo.

Why Plackett–Luce fitted in batch (measured in the team's ratings note): it uses the whole finishing order
of a four-player match, it does not depend on the order in which matches were played, it recovers
the true strength order better than sequential Elo/OpenSkill/TrueSkill, and its Hessian gives
calibrated intervals.

Model. Bot i has strength θ_i. An untied finishing order is a sequence of choices of the best
remaining player (Plackett–Luce): P = Π_k e^{θ_(k)} / Σ_{m≥k} e^{θ_(m)}. A tie in Hearts means two
scores coincided: it hides which of the tied players would have finished ahead, it does not say
they are equally strong. So the likelihood of a tied result is the probability that the tied
players occupy their places in some order, i.e. the sum of the PL probabilities of every full
ordering consistent with the weak order (at most 2, 6, 4 or 24 orderings for four players). When
ties come from coinciding scores, independently of who is stronger, this is the exact likelihood.

Orderings inside the bottom group sum to probability 1, so the bottom group contributes nothing,
exactly as the last term of an untied ranking is log 1 = 0: an all-tie match carries no
information, and several forfeits tied at the bottom do not pull each other together. A weak
Gaussian prior −½λΣθ² keeps every rating finite (a bot with a perfect record has no finite MLE).

Why not Breslow's approximation (a group D tied for the best remaining place adds
Σ_{d∈D} θ_d − |D| · log Σ_{remaining} e^θ, used before): measured on 100 bots × 100k four-player
matches with ~11% of matches tied by merging neighbours of a PL-drawn order, it shrank the Elo
scale by ≈3% and its 95% intervals covered only 0.80 of the true strengths (0.76 at 500 bots ×
1e6 matches); the exact likelihood gives slope 1.000 and coverage 0.95 in both settings.

Computation. Matches whose only tie (if any) is at the bottom use the plain vectorised PL path.
The others are grouped by table size and tie pattern; each pattern's consistent orderings are
enumerated once (tied seats permuted within their non-bottom group), the log-likelihood is a
log-sum-exp over them, the gradient the posterior-weighted average of the per-ordering gradients,
and the exact Hessian Σ_p w_p (H_p + g_p g_pᵀ) − g gᵀ per match. A non-bottom tie group of size g
costs g! orderings, which is nothing at card tables (≤ 6 seats).

Scale. R = 1500 + (400 / ln 10)·θ with θ centred to sum zero, so P(i ahead of j) =
1 / (1 + 10^(−(R_i − R_j)/400)) as in Elo. Or anchored: a named bot is exactly 1500. Intervals
come from the exact Hessian (pinv in the sum-zero gauge).

Only numpy and scipy are used (scipy by the fits alone); nothing else from the project is imported.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

# scipy is imported by the functions that fit (0.3 s of imports): a worker process saving live Elo
# and every command that does not rate start without it.

__all__ = [
    "ELO_SCALE",
    "ELO_BASE",
    "DEFAULT_PRIOR",
    "DEFAULT_PROVISIONAL_GAMES",
    "MatchResult",
    "BotRating",
    "Ratings",
    "places_from_scores",
    "fit",
    "fit_arrays",
    "live_elo_update",
]

ELO_SCALE: float = 400.0 / math.log(10.0)  # ≈ 173.72 Elo per unit of θ
ELO_BASE: float = 1500.0
# Precision λ of the N(0, 1/λ) prior on θ: SD 10 in θ ≈ 1737 Elo, negligible next to the data of
# any bot with a few games, but enough to keep perfect or all-last records finite.
DEFAULT_PRIOR: float = 0.01
DEFAULT_PROVISIONAL_GAMES: int = 20
_Z95: float = 1.959963984540054
_CHUNK_ROWS: int = 200_000  # bounds the memory of the Hessian assembly (rows × N² doubles)


# --------------------------------------------------------------------------------------------
# Inputs
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class MatchResult:
    """One finished match: each player's place, 1 best, ties sharing a place (competition ranking,
    1, 2, 2, 4). The referee records places (a forfeiter last, a shot that wins the match first), so
    the ladder rates by them; ``from_scores`` ranks Hearts totals (lower is better) for other callers."""

    players: tuple[str, ...]
    places: tuple[int, ...]

    def __post_init__(self) -> None:
        # Validate once here so the fitting code can trust its input.
        if len(self.players) != len(self.places):
            raise ValueError("players and places must have the same length")
        if len(set(self.players)) != len(self.players):
            raise ValueError(f"duplicate player in match: {self.players}")
        for p in self.places:
            if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
                raise ValueError(f"a place is a whole number from 1: {p!r}")

    @classmethod
    def from_scores(cls, players: Sequence[str], scores: Sequence[float], forfeited: Sequence[str] = ()) -> MatchResult:
        """The result of totals (lower is better); forfeited players tie for last."""
        players = tuple(players)
        if len(players) != len(scores):
            raise ValueError("players and scores must have the same length")
        unknown = set(forfeited) - set(players)
        if unknown:
            raise ValueError(f"forfeited players not in the match: {sorted(unknown)}")
        if any(isinstance(s, float) and math.isnan(s) for s in scores):
            raise ValueError("score is NaN")
        forf = np.array([p in forfeited for p in players], dtype=bool)[None, :]
        places = places_from_scores(np.asarray(scores, dtype=float)[None, :], forf)[0]
        return cls(players, tuple(int(x) for x in places))


def places_from_scores(scores: np.ndarray, forfeited: np.ndarray | None = None) -> np.ndarray:
    """Places for an (M, N) array of scores (lower better), competition ranking, forfeits last.

    A non-forfeited player's place is 1 + the number of non-forfeited players with a strictly lower
    score; every forfeited player gets 1 + the number of non-forfeited players, so several forfeits
    tie at the bottom. Vectorised over matches so large logs can be converted without Python loops.
    """
    s = np.asarray(scores, dtype=float)
    if s.ndim != 2:
        raise ValueError("scores must have shape (M, N)")
    f = np.zeros(s.shape, dtype=bool) if forfeited is None else np.asarray(forfeited, dtype=bool)
    if f.shape != s.shape:
        raise ValueError("forfeited must have the same shape as scores")
    ok = ~f
    # better[m, i, j]: j is non-forfeited and scored strictly less than i.
    better = (s[:, None, :] < s[:, :, None]) & ok[:, None, :]
    places = 1 + better.sum(axis=2)
    places = np.where(f, 1 + ok.sum(axis=1, keepdims=True), places)
    return places.astype(np.int64)


# --------------------------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BotRating:
    """One row of the ladder."""

    name: str
    elo: float
    ci95: float  # half-width of the 95% interval in Elo (inf: no information, nan: not computed)
    games: int  # matches played, including uninformative ones (all-tie, forfeits)
    provisional: bool
    los_next: float | None  # P(this bot is stronger than the next-ranked bot); None if undefined


@dataclass(frozen=True)
class Ratings:
    """Fitted ladder, best first."""

    bots: tuple[BotRating, ...]
    warnings: list[str] = field(default_factory=list)
    components: list[list[str]] = field(default_factory=list)  # groups that met, largest first
    anchor: str | None = None
    prior: float = DEFAULT_PRIOR
    matches: int = 0  # matches given
    informative_matches: int = 0  # matches that carry information (not all-tie)
    timings: dict[str, float] = field(default_factory=dict, repr=False)
    # Covariance of θ (names order = `names`) in the gauge used for ci95; None if not computed.
    names: tuple[str, ...] = field(default=(), repr=False)
    theta: np.ndarray | None = field(default=None, repr=False, compare=False)
    covariance: np.ndarray | None = field(default=None, repr=False, compare=False)

    def __iter__(self) -> Iterator[BotRating]:
        return iter(self.bots)

    def __len__(self) -> int:
        return len(self.bots)

    def __getitem__(self, name: str) -> BotRating:
        for b in self.bots:
            if b.name == name:
                return b
        raise KeyError(name)

    @property
    def elo(self) -> dict[str, float]:
        """Name → Elo, convenient for comparisons."""
        return {b.name: b.elo for b in self.bots}

    def rank(self, name: str) -> int:
        """1-based position of `name` on the ladder."""
        for i, b in enumerate(self.bots):
            if b.name == name:
                return i + 1
        raise KeyError(name)


# --------------------------------------------------------------------------------------------
# Vectorised Plackett–Luce with exact tie likelihood
# --------------------------------------------------------------------------------------------


@dataclass
class _Block:
    """Matches of one table size with no tie above the bottom group: plain (truncated) PL.

    Seats are sorted best place first. `coef[j]` is 1 for a seat above the bottom group and 0 for
    the bottom group, so the log-likelihood of all rows is Σ active·θ − Σ_j coef_j · S_j with
    S_j = log Σ_{m≥j} e^θm (the suffix log-sum-exp). A tie at the bottom is exact here: the PL
    probabilities of the orders inside the bottom group sum to 1.
    """

    players: np.ndarray  # (M, N) int, sorted by place
    coef: np.ndarray  # (M, N) float


@dataclass
class _TieBlock:
    """Matches of one table size and one tie pattern with a tie above the bottom group.

    `groups` are the tie-group sizes best first, e.g. (1, 2, 1) for places 1, 2, 2, 4. `perms`
    (K, N) lists every seat order consistent with the pattern: seats permuted inside each
    non-bottom group, the bottom group left as is (its internal orders sum to probability 1).
    `pos` is the inverse: pos[k, s] = position of seat s in order k.
    """

    players: np.ndarray  # (M, N) int, sorted by place
    groups: tuple[int, ...]
    perms: np.ndarray  # (K, N)
    pos: np.ndarray  # (K, N)

    @property
    def n_active(self) -> int:
        return int(sum(self.groups[:-1]))


def _pattern_perms(groups: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Seat orders consistent with a tie pattern (bottom group fixed), and their inverses."""
    spans, start = [], 0
    for size in groups:
        spans.append(list(range(start, start + size)))
        start += size
    choices = [list(itertools.permutations(s)) for s in spans[:-1]] + [[tuple(spans[-1])]]
    perms = np.array([sum(parts, ()) for parts in itertools.product(*choices)], dtype=np.int64)
    pos = np.argsort(perms, axis=1)
    return perms, pos


def _build_blocks(places: np.ndarray, players: np.ndarray) -> tuple[list[_Block | _TieBlock], np.ndarray]:
    """Group rows by table size (and tie pattern), sort seats by place, drop uninformative rows.

    Rows whose only tie (if any) is the bottom group go to one fast `_Block` per table size; rows
    with a tie above the bottom go to one `_TieBlock` per (table size, tie pattern). Returns the
    blocks and a boolean mask over the input rows saying which were informative.
    """
    m_rows = places.shape[0]
    informative = np.zeros(m_rows, dtype=bool)
    blocks: list[_Block | _TieBlock] = []
    valid = players >= 0
    seats = valid.sum(axis=1)
    for n in np.unique(seats):
        n = int(n)
        rows = np.flatnonzero(seats == n)
        if n < 2:
            continue
        pl = places[rows]
        pp = players[rows]
        if n != players.shape[1]:
            # Move the real seats to the front (stable), then cut the padding off.
            order = np.argsort(~valid[rows], axis=1, kind="stable")[:, :n]
            pl = np.take_along_axis(pl, order, axis=1)
            pp = np.take_along_axis(pp, order, axis=1)
        order = np.argsort(pl, axis=1, kind="stable")
        sp = np.take_along_axis(pl, order, axis=1)
        spp = np.take_along_axis(pp, order, axis=1)
        # A row is informative iff it has at least two distinct places.
        info = sp[:, 0] != sp[:, -1]
        informative[rows[info]] = True
        sp, spp = sp[info], spp[info]
        if sp.shape[0] == 0:
            continue
        active = sp < sp[:, -1:]
        same_next = np.zeros_like(active)
        same_next[:, :-1] = sp[:, 1:] == sp[:, :-1]
        tied_above = (same_next & active).any(axis=1)  # a tie inside a non-bottom group
        fast = ~tied_above
        if fast.any():
            blocks.append(_Block(players=np.ascontiguousarray(spp[fast]), coef=active[fast].astype(float)))
        if tied_above.any():
            tp, tpp = sp[tied_above], spp[tied_above]
            # Pattern code: bit j set when seat j+1 starts a new group (n ≤ 63 seats).
            new_group = (tp[:, 1:] != tp[:, :-1]).astype(np.int64)
            code = new_group @ (np.int64(1) << np.arange(n - 1, dtype=np.int64))
            for c in np.unique(code):
                sel = code == c
                bounds = [0] + [j + 1 for j in range(n - 1) if (int(c) >> j) & 1] + [n]
                groups = tuple(b - a for a, b in itertools.pairwise(bounds))
                perms, pos = _pattern_perms(groups)
                blocks.append(_TieBlock(players=np.ascontiguousarray(tpp[sel]), groups=groups, perms=perms, pos=pos))
    return blocks, informative


def _active_mask(b: _Block | _TieBlock) -> np.ndarray:
    """(M, N) seats not in the bottom tie group (they come first: seats are sorted by place)."""
    m, n = b.players.shape
    if isinstance(b, _TieBlock):
        return np.broadcast_to(np.arange(n) < b.n_active, (m, n))
    return b.coef > 0


def _first_group_mask(b: _Block | _TieBlock) -> np.ndarray:
    """(M, N) seats in the top tie group (never the bottom group: rows are informative)."""
    m, n = b.players.shape
    first = b.groups[0] if isinstance(b, _TieBlock) else 1
    return np.broadcast_to(np.arange(n) < first, (m, n))


def _active_counts(blocks: list[_Block | _TieBlock], n_bots: int) -> np.ndarray:
    """How often each bot sits above the bottom group: the coefficient of the linear term Σ θ."""
    act = np.zeros(n_bots)
    for b in blocks:
        act += np.bincount(b.players.ravel(), weights=_active_mask(b).ravel().astype(float), minlength=n_bots)
    return act


def _block_terms(theta: np.ndarray, b: _Block) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Shared pieces for one block: Σ coef·S, e = exp(θ − rowmax), suffix sums T, coef/T."""
    th = theta[b.players]
    mx = th.max(axis=1, keepdims=True)  # per-row shift: log-sum-exp without overflow
    e = np.exp(th - mx)
    t = np.cumsum(e[:, ::-1], axis=1)[:, ::-1]  # T_j = Σ_{m≥j} e_m
    s = np.log(t) + mx  # S_j = log Σ_{m≥j} e^θm
    neg = float(np.sum(b.coef * s))
    return neg, e, t, b.coef / t


def _tie_terms(
    theta: np.ndarray, players: np.ndarray, b: _TieBlock, hessian: bool
) -> tuple[float, np.ndarray, np.ndarray | None]:
    """Exact tie likelihood for rows `players` of one tie pattern.

    For each consistent order k, −q_k = Σ_{j<a} S_j^k is the order's nonlinear part of the PL
    negative log-likelihood (a = active seats; the linear part Σ_active θ is the same for every
    order and lives in `act_count`). The row's NLL part is −logsumexp_k q_k. With posterior
    weights w = softmax(q) and u_k = −∇q_k (seat s: e_s·A_k[pos_k(s)], A = cumsum over stages of
    1/T), the gradient is ū = Σ w_k u_k and the Hessian is Σ w_k K_k − (Σ w_k u_k u_kᵀ − ū ūᵀ),
    where K_k = ∇²(−q_k) is the PL stage Hessian: δ_st e_s A_s − e_s e_t B_{min(pos s, pos t)},
    B = cumsum 1/T². Returns (Σ rows NLL part, ū (M, N), Hessian (M, N, N) or None).
    """
    m, n = players.shape
    na = b.n_active
    k = b.perms.shape[0]
    th = theta[players]
    mx = th.max(axis=1)
    e = np.exp(th - mx[:, None])  # (m, n) seat coordinates
    ep = e[:, b.perms]  # (m, K, n) in each order's positions
    t = np.cumsum(ep[:, :, ::-1], axis=2)[:, :, ::-1]
    stage = np.arange(n) < na
    inv = np.where(stage, 1.0 / t, 0.0)
    q = -np.log(t[:, :, :na]).sum(axis=2)  # (m, K); true −Σ S = q − a·mx, same shift for all k
    qmax = q.max(axis=1, keepdims=True)
    w = np.exp(q - qmax)
    tot = w.sum(axis=1, keepdims=True)
    w /= tot
    lse = (np.log(tot) + qmax)[:, 0]
    f = float(np.sum(na * mx - lse))
    a_pos = np.cumsum(inv, axis=2)  # (m, K, n) by position
    a_seat = np.take_along_axis(a_pos, np.broadcast_to(b.pos, (m, k, n)), axis=2)
    u = e[:, None, :] * a_seat  # (m, K, n) by seat
    ubar = np.einsum("mk,mks->ms", w, u)
    if not hessian:
        return f, ubar, None
    b_pos = np.cumsum(inv * inv, axis=2)
    minpos = np.minimum(b.pos[:, :, None], b.pos[:, None, :])  # (K, n, n)
    flat = (np.arange(k)[:, None, None] * n + minpos).reshape(-1)
    b_pair = b_pos.reshape(m, k * n)[:, flat].reshape(m, k, n, n)
    wb = np.einsum("mk,mkst->mst", w, b_pair)
    h = -(e[:, :, None] * e[:, None, :]) * wb
    diag = e * np.einsum("mk,mks->ms", w, a_seat)
    h[:, np.arange(n), np.arange(n)] += diag
    h -= np.einsum("mk,mks,mkt->mst", w, u, u)
    h += ubar[:, :, None] * ubar[:, None, :]
    return f, ubar, h


def _nll_grad(
    theta: np.ndarray, blocks: list[_Block | _TieBlock], act_count: np.ndarray, prior: float
) -> tuple[float, np.ndarray]:
    """Negative log-posterior and its gradient, all matches at once.

    Fast blocks: ∂/∂θ_m of −coef_j·S_j is −coef_j·e_m/T_j for m ≥ j, so the per-seat gradient is
    active_m − e_m·cumsum_j(coef_j/T_j); the active part is a constant count per bot. Tie blocks:
    the posterior-weighted average over consistent orders (see `_tie_terms`).
    """
    n_bots = theta.shape[0]
    f = -float(act_count @ theta) + 0.5 * prior * float(theta @ theta)
    g = -act_count + prior * theta
    for b in blocks:
        if isinstance(b, _TieBlock):
            neg, w, _h = _tie_terms(theta, b.players, b, hessian=False)
        else:
            neg, e, _t, ct = _block_terms(theta, b)
            w = e * np.cumsum(ct, axis=1)
        f += neg
        g += np.bincount(b.players.ravel(), weights=w.ravel(), minlength=n_bots)
    return f, g


def _hessian(theta: np.ndarray, blocks: list[_Block | _TieBlock], prior: float) -> np.ndarray:
    """Exact Hessian of the negative log-posterior (dense, n_bots²).

    Fast blocks: each stage j adds coef_j·(diag(p) − ppᵀ) over the remaining seats, p = e/T_j.
    Summed over stages, seat pair (m, k) with m ≤ k gets δ_mk·e_m·A_m − e_m·e_k·B_m, with
    A = cumsum(coef/T) and B = cumsum(coef/T²); B at the smaller seat because both seats must still
    be remaining. Tie blocks: the per-row N×N matrices of `_tie_terms`. Every term's cell and weight
    are gathered first and summed into the matrix by one bincount: one pass over n_bots² cells, not
    one per chunk of rows (which, at thousands of bots, cost more than the terms themselves).
    """
    n_bots = theta.shape[0]
    cells: list[np.ndarray] = []  # flat indices into the n_bots² matrix (off-diagonal pairs once, mirrored)
    weights: list[np.ndarray] = []
    tie_cells: list[np.ndarray] = []  # the tie blocks' full per-row matrices
    tie_weights: list[np.ndarray] = []
    diag = np.full(n_bots, prior, dtype=float)
    for b in blocks:
        n = b.players.shape[1]
        if isinstance(b, _TieBlock):
            chunk = max(1, _CHUNK_ROWS // (b.perms.shape[0] * n))
            for lo in range(0, b.players.shape[0], chunk):
                pp = b.players[lo : lo + chunk]
                _f, _u, hr = _tie_terms(theta, pp, b, hessian=True)
                assert hr is not None
                tie_cells.append((pp[:, :, None] * n_bots + pp[:, None, :]).ravel())
                tie_weights.append((0.5 * (hr + hr.transpose(0, 2, 1))).ravel())
            continue
        iu, ju = np.triu_indices(n, k=1)
        for lo in range(0, b.players.shape[0], _CHUNK_ROWS):
            sub = _Block(b.players[lo : lo + _CHUNK_ROWS], b.coef[lo : lo + _CHUNK_ROWS])
            _neg, e, t, ct = _block_terms(theta, sub)
            a = np.cumsum(ct, axis=1)
            bb = np.cumsum(ct / t, axis=1)
            d = e * a - e * e * bb
            diag += np.bincount(sub.players.ravel(), weights=d.ravel(), minlength=n_bots)
            cells.append((sub.players[:, iu] * n_bots + sub.players[:, ju]).ravel())
            weights.append((-(e[:, iu] * e[:, ju] * bb[:, iu])).ravel())
    # The fast blocks' pairs both ways and the tie blocks' cells, summed by one bincount into one
    # matrix: at thousands of bots each n_bots² array made costs as much as the terms (fresh pages).
    fast = np.concatenate(cells) if cells else np.zeros(0, dtype=np.int64)
    w = np.concatenate(weights) if weights else np.zeros(0)
    mirrored = (fast % n_bots) * n_bots + fast // n_bots
    hm = np.bincount(
        np.concatenate([fast, mirrored, *tie_cells]),
        weights=np.concatenate([w, w, *tie_weights]),
        minlength=n_bots * n_bots,
    )
    hm = hm.astype(float, copy=False).reshape(n_bots, n_bots)  # no terms at all: bincount counts ints
    hm[np.diag_indices(n_bots)] += diag
    _symmetrize(hm)  # each pair's two sums were added in different orders
    return hm


def _symmetrize(m: np.ndarray) -> None:
    """``m`` made exactly symmetric, in place: each pair of cells set to their mean (row by row: no
    second n² array)."""
    for i in range(m.shape[0] - 1):
        mean = 0.5 * (m[i, i + 1 :] + m[i + 1 :, i])
        m[i, i + 1 :] = mean
        m[i + 1 :, i] = mean


def _components(players: np.ndarray, informative: np.ndarray, n_bots: int) -> np.ndarray:
    """Component label per bot: bots linked by an informative match share a scale.

    This is union-find over matches, done with scipy's connected_components so 1e6 matches stay
    vectorised: each informative match links its first seat to every other seat.
    """
    from scipy import sparse
    from scipy.sparse import csgraph

    p = players[informative]
    if p.shape[0] == 0:
        return np.arange(n_bots)
    first = p[:, :1]
    src = np.broadcast_to(first, p.shape).ravel()
    dst = p.ravel()
    keep = dst >= 0
    src, dst = src[keep], dst[keep]
    g = sparse.coo_matrix((np.ones(src.shape[0]), (src, dst)), shape=(n_bots, n_bots))
    _n, labels = csgraph.connected_components(g, directed=False)
    return labels


def _gauge_covariance(hess: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """pinv(Hessian) projected to a sum-zero gauge within each component; ``hess`` is used up (the
    result is made in its memory: at thousands of bots a fresh n² array costs seconds).

    The likelihood cannot see a common shift of a component, so only differences inside a
    component are identified. With U the orthonormal component indicators and P = I − UUᵀ,
    pinv(PHP) = inv(PHP + UUᵀ) − UUᵀ exactly (UUᵀ fills the null space with eigenvalue 1), which is
    faster and more stable than an SVD-based pinv. PHP is H less U's low-rank corrections (products
    with U, not of n×n matrices), and PHP + UUᵀ, symmetric positive definite, is inverted through
    its Cholesky factor.
    """
    n = hess.shape[0]
    c = int(labels.max()) + 1
    u = np.zeros((n, c))
    u[np.arange(n), labels] = 1.0
    u /= np.sqrt(u.sum(axis=0, keepdims=True))
    php = hess
    if c == 1:  # one component, the usual case: UUᵀ is 1/n everywhere
        col = u[:, 0]
        row = col @ php
        php -= col[:, None] * row[None, :]
        php -= row[:, None] * col[None, :]
        php += float(row @ col) / n + 1.0 / n  # UUᵀHUUᵀ, then UUᵀ itself
        uu: np.ndarray | float = 1.0 / n
    else:
        uh = u.T @ php  # c × n
        php -= u @ uh
        php -= uh.T @ u.T
        php += u @ (uh @ u) @ u.T
        uu = u @ u.T
        php += uu
    inv = _spd_inverse(php)
    inv -= uu
    return inv


def _spd_inverse(a: np.ndarray) -> np.ndarray:
    """The inverse of a symmetric positive definite matrix ``a`` (used up: the inverse is made in its
    memory), by its Cholesky factor (LAPACK potrf and potri: half the work of a general inverse);
    a general inverse where the factor fails."""
    from scipy.linalg import lapack

    n = a.shape[0]
    saved = a.copy() if n <= 1024 else None  # kept for the fallback where a copy is cheap
    # a.T is a Fortran-ordered view of the same (symmetric) matrix: LAPACK works on it in place.
    factor, info = lapack.dpotrf(a.T, lower=True, overwrite_a=True, clean=False)
    if info == 0:
        inv, info = lapack.dpotri(factor, lower=True, overwrite_c=True)
        if info == 0:
            for i in range(n - 1):  # potri fills the lower triangle: mirror it (columns are contiguous)
                inv[i, i + 1 :] = inv[i + 1 :, i]
            return np.ascontiguousarray(inv.T) if not inv.flags.c_contiguous else inv
    if saved is None:
        raise np.linalg.LinAlgError("the Hessian is not positive definite")
    return np.asarray(np.linalg.inv(saved))


# --------------------------------------------------------------------------------------------
# Public fitting API
# --------------------------------------------------------------------------------------------


def fit(
    results: Iterable[MatchResult],
    *,
    prior: float = DEFAULT_PRIOR,
    anchor: str | None = None,
    intervals: bool = True,
    provisional_games: int = DEFAULT_PROVISIONAL_GAMES,
    start: Mapping[str, float] | None = None,
) -> Ratings:
    """Batch Plackett–Luce ratings (exact tie likelihood) of all bots in `results`.

    Bots are indexed by sorted name so the fit does not depend on the order of the results.
    ``start``: Elo ratings to search from (an earlier fit's); a bot it lacks starts at the base.
    """
    res = list(results)
    names = sorted({p for r in res for p in r.players})
    index = {name: i for i, name in enumerate(names)}
    width = max((len(r.players) for r in res), default=2)
    m = len(res)
    players = np.full((m, width), -1, dtype=np.int64)
    places = np.zeros((m, width), dtype=np.int64)
    # Filled per table size, one array assignment each (a Python call per match is slow).
    by_size: dict[int, list[int]] = {}
    for row, r in enumerate(res):
        by_size.setdefault(len(r.players), []).append(row)
    for k, rows in by_size.items():
        if k == 0:
            continue
        idx = np.asarray(rows)
        sub = [res[i] for i in rows]
        players[idx, :k] = np.array([[index[p] for p in r.players] for r in sub], dtype=np.int64)
        places[idx, :k] = np.array([r.places for r in sub], dtype=np.int64)
    return fit_arrays(
        places,
        players,
        len(names),
        names=names,
        prior=prior,
        anchor=anchor,
        intervals=intervals,
        provisional_games=provisional_games,
        start=None if start is None else np.array([start.get(n, ELO_BASE) for n in names], dtype=float),
    )


def fit_arrays(
    places: np.ndarray,
    players: np.ndarray,
    n_bots: int,
    *,
    names: Sequence[str] | None = None,
    prior: float = DEFAULT_PRIOR,
    anchor: str | int | None = None,
    intervals: bool = True,
    provisional_games: int = DEFAULT_PROVISIONAL_GAMES,
    start: np.ndarray | None = None,
) -> Ratings:
    """Array form of `fit` for big inputs.

    places:  (M, N) ints, 1 = best, ties share a place; forfeits already placed last
             (see `places_from_scores`).
    players: (M, N) bot indices in [0, n_bots); −1 pads an empty seat (mixed table sizes).
    names:   bot names (default "0", "1", ...); `anchor` is a name or an index.
    start:   (n_bots,) Elo ratings to search from, an earlier fit's (warm start: the same maximum,
             fewer steps to it after a few more matches); by default every bot at the base.
    """
    t0 = time.perf_counter()
    places, players, name_list, anchor_idx = _checked(places, players, n_bots, names, prior, anchor)
    valid = players >= 0
    games = np.bincount(players[valid], minlength=n_bots).astype(np.int64)
    blocks, informative = _build_blocks(places, players)
    t_prep = time.perf_counter()
    theta0 = None
    if start is not None:
        theta0 = (np.asarray(start, dtype=float) - ELO_BASE) / ELO_SCALE
        if theta0.shape != (n_bots,) or not np.all(np.isfinite(theta0)):
            raise ValueError("start must hold one finite Elo rating per bot")
    theta = _maximise(blocks, n_bots, prior, informative, theta0)
    t_fit = time.perf_counter()
    labels = _components(players, informative, n_bots) if n_bots else np.zeros(0, dtype=np.int64)
    cov: np.ndarray | None = None
    if intervals and n_bots:
        theta, cov = _polish_and_covariance(theta, blocks, prior, labels)
    t_int = time.perf_counter()
    elo, cov = _on_the_elo_scale(theta, cov, labels, anchor_idx)
    rows = _rows(theta, elo, cov, labels, games, name_list, _unbounded_records(blocks, n_bots), provisional_games)
    comps = _component_lists(labels, name_list, games)
    return Ratings(
        bots=tuple(rows),
        warnings=_warnings(comps, anchor_idx, name_list, games),
        components=comps,
        anchor=None if anchor_idx is None else name_list[anchor_idx],
        prior=prior,
        matches=int(places.shape[0]),
        informative_matches=int(informative.sum()),
        timings={
            "prepare": t_prep - t0,
            "fit": t_fit - t_prep,
            "intervals": t_int - t_fit,
            "total": time.perf_counter() - t0,
        },
        names=tuple(name_list),
        theta=theta,
        covariance=cov,
    )


def _checked(
    places: np.ndarray,
    players: np.ndarray,
    n_bots: int,
    names: Sequence[str] | None,
    prior: float,
    anchor: str | int | None,
) -> tuple[np.ndarray, np.ndarray, list[str], int | None]:
    """The inputs as int arrays, the bots' names, and the anchor's index; ``ValueError`` naming what is wrong."""
    places = np.asarray(places, dtype=np.int64)
    players = np.asarray(players, dtype=np.int64)
    if places.ndim != 2 or places.shape != players.shape:
        raise ValueError("places and players must be (M, N) arrays of the same shape")
    if prior <= 0:
        raise ValueError("prior must be positive (it keeps perfect records finite)")
    if n_bots < 0 or (players.size and (players.min() < -1 or players.max() >= n_bots)):
        raise ValueError("player index out of range")
    name_list = [str(i) for i in range(n_bots)] if names is None else [str(x) for x in names]
    if len(name_list) != n_bots or len(set(name_list)) != n_bots:
        raise ValueError("names must be n_bots distinct strings")
    valid = players >= 0
    if players.size:
        srt = np.sort(np.where(valid, players, -1 - np.arange(players.shape[1])), axis=1)
        if np.any(srt[:, 1:] == srt[:, :-1]):
            raise ValueError("a bot appears twice in one match")
        if np.any(valid & (places < 1)):
            raise ValueError("places must be >= 1")
    anchor_idx: int | None = None
    if anchor is not None:
        if isinstance(anchor, (int, np.integer)) and not isinstance(anchor, bool):
            anchor_idx = int(anchor)
            if not 0 <= anchor_idx < n_bots:
                raise ValueError(f"anchor index out of range: {anchor}")
        else:
            if anchor not in name_list:
                raise ValueError(f"anchor {anchor!r} is not a rated bot")
            anchor_idx = name_list.index(str(anchor))
    return places, players, name_list, anchor_idx


def _maximise(
    blocks: list[_Block | _TieBlock],
    n_bots: int,
    prior: float,
    informative: np.ndarray,
    theta0: np.ndarray | None = None,
) -> np.ndarray:
    """θ at the posterior's maximum: L-BFGS on the negative log-posterior from ``theta0`` (zero by
    default), scaled per match so the tolerances mean the same at any size."""
    from scipy import optimize

    act_count = _active_counts(blocks, n_bots)  # Σ active·θ is linear: how often each bot is not at the bottom
    scale = 1.0 / max(1, int(informative.sum()))

    def fun(th: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = _nll_grad(th, blocks, act_count, prior)
        return f * scale, g * scale

    theta = np.zeros(n_bots) if theta0 is None else theta0 - theta0.mean()  # the gauge: only differences count
    if n_bots and blocks:
        opt = optimize.minimize(
            fun,
            theta,
            jac=True,
            method="L-BFGS-B",
            options={"maxiter": 5000, "maxcor": 20, "gtol": 1e-10, "ftol": 1e-15},
        )
        theta = np.asarray(opt.x, dtype=float)
    return theta


def _polish_and_covariance(
    theta: np.ndarray, blocks: list[_Block | _TieBlock], prior: float, labels: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """θ after one Newton step with the exact Hessian (which polishes L-BFGS to machine precision, so
    the result is the same, to ~1e-9 Elo, whatever order the matches came in), and its covariance."""
    hess = _hessian(theta, blocks, prior)
    _f, g = _nll_grad(theta, blocks, _active_counts(blocks, len(theta)), prior)
    try:
        theta = theta - np.linalg.solve(hess, g)
    except np.linalg.LinAlgError:
        pass
    try:
        return theta, _gauge_covariance(hess, labels)
    except np.linalg.LinAlgError:  # not positive definite at thousands of bots: the general inverse
        hess = _hessian(theta, blocks, prior)
        n = hess.shape[0]
        u = np.zeros((n, int(labels.max()) + 1))
        u[np.arange(n), labels] = 1.0
        u /= np.sqrt(u.sum(axis=0, keepdims=True))
        uu = u @ u.T
        p = np.eye(n) - uu
        return theta, np.linalg.inv(p @ hess @ p + uu) - uu


def _on_the_elo_scale(
    theta: np.ndarray, cov: np.ndarray | None, labels: np.ndarray, anchor_idx: int | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """Elo ratings (θ centred per component, the gauge; or shifted so the anchor is ELO_BASE) and the
    covariance they are read with (relative to the anchor inside its component)."""
    for c in np.unique(labels):  # the prior already centres them, up to rounding
        members = labels == c
        theta[members] -= theta[members].mean()
    shift = 0.0
    if anchor_idx is not None:
        shift = theta[anchor_idx]
        if cov is not None:
            # Var(θi − θa) inside the anchor's component.
            members = labels == labels[anchor_idx]
            ca = cov[:, anchor_idx]
            adj = cov - ca[:, None] - ca[None, :] + cov[anchor_idx, anchor_idx]
            cov = np.where(np.outer(members, members), adj, cov)
    return ELO_BASE + ELO_SCALE * (theta - shift), cov


def _unbounded_records(blocks: list[_Block | _TieBlock], n_bots: int) -> np.ndarray:
    """Bots whose record has no finite maximum: never placed above anyone, or never below anyone."""
    beat_someone = np.zeros(n_bots, dtype=bool)
    beaten = np.zeros(n_bots, dtype=bool)
    for b in blocks:
        beat_someone[b.players[_active_mask(b)]] = True
        beaten[b.players[~_first_group_mask(b)]] = True
    return ~beat_someone | ~beaten


def _rows(
    theta: np.ndarray,
    elo: np.ndarray,
    cov: np.ndarray | None,
    labels: np.ndarray,
    games: np.ndarray,
    names: list[str],
    unbounded: np.ndarray,
    provisional_games: int,
) -> list[BotRating]:
    """One row per bot, best first: Elo, its 95% half-width, games, provisional, and the likelihood
    of superiority over the next bot."""
    from scipy.special import ndtr

    n_bots = len(names)
    # No informative game means the scale says nothing about the bot.
    sizes = np.bincount(labels, minlength=labels.max() + 1 if n_bots else 0)
    alone = sizes[labels] < 2 if n_bots else np.zeros(0, dtype=bool)
    if cov is not None:
        ci = _Z95 * ELO_SCALE * np.sqrt(np.clip(np.diag(cov), 0.0, None))
        ci = np.where(alone, math.inf, ci)
    else:
        ci = np.full(n_bots, math.nan)
    provisional = (games < provisional_games) | unbounded | alone
    order = sorted(range(n_bots), key=lambda i: (-elo[i], names[i]))
    rows: list[BotRating] = []
    for pos, i in enumerate(order):
        los: float | None = None
        if pos + 1 < len(order) and cov is not None:
            j = order[pos + 1]
            if labels[i] == labels[j] and not alone[i]:
                var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
                if var > 0:
                    los = float(ndtr((theta[i] - theta[j]) / math.sqrt(var)))
        rows.append(
            BotRating(
                name=names[i],
                elo=float(elo[i]),
                ci95=float(ci[i]),
                games=int(games[i]),
                provisional=bool(provisional[i]),
                los_next=los,
            )
        )
    return rows


def _warnings(comps: list[list[str]], anchor_idx: int | None, names: list[str], games: np.ndarray) -> list[str]:
    warnings: list[str] = []
    if len(comps) > 1:
        shown = "; ".join(", ".join(c[:5]) + (", ..." if len(c) > 5 else "") for c in comps[:5])
        warnings.append(
            f"pool split into {len(comps)} groups that never met (no common scale; compare Elo only "
            f"within a group): {shown}" + (" ..." if len(comps) > 5 else "")
        )
    if anchor_idx is not None and len(comps) > 1:
        warnings.append(f"anchor {names[anchor_idx]!r} fixes the scale of its own group only")
    no_games = [names[i] for i in range(len(names)) if games[i] == 0]
    if no_games:
        warnings.append(f"{len(no_games)} bot(s) with no games, rated from the prior only")
    return warnings


def _component_lists(labels: np.ndarray, names: list[str], games: np.ndarray) -> list[list[str]]:
    """Components as sorted name lists, largest first; bots with no games are left out."""
    groups: dict[int, list[str]] = {}
    for i, lab in enumerate(labels):
        if games[i] > 0:
            groups.setdefault(int(lab), []).append(names[i])
    return sorted((sorted(g) for g in groups.values()), key=lambda g: (-len(g), g[0]))


# --------------------------------------------------------------------------------------------
# Live pairwise Elo
# --------------------------------------------------------------------------------------------


def live_elo_update(
    ratings: Mapping[str, float],
    players: Sequence[str],
    places: Sequence[float],
    k: float = 32.0,
) -> dict[str, float]:
    """Live pairwise Elo after one match — a quick in-play indicator, NOT the ladder's rating.

    Every pair (i, j) is an Elo game: S_ij = 1, ½, 0 as i's place is better, equal, worse
    (a Hearts total works the same: lower is better), E_ij = 1 / (1 + 10^((R_j − R_i)/400)),
    ΔR_i = K/(N−1)·Σ_j (S_ij − E_ij).
    K is divided by N−1 so a match moves a rating as much as one two-player game would; all changes
    use the pre-match ratings and are left unrounded, so they sum to zero. Unknown players start
    at 1500. Returns a new dict (input untouched) with every input rating plus the match players.
    """
    if len(players) != len(places):
        raise ValueError("players and places must have the same length")
    if len(set(players)) != len(players):
        raise ValueError("duplicate player in match")
    out = dict(ratings)
    n = len(players)
    if n < 2:
        for p in players:
            out.setdefault(p, ELO_BASE)
        return out
    r = np.array([float(ratings.get(p, ELO_BASE)) for p in players])
    s = np.asarray(places, dtype=float)
    actual = np.where(s[:, None] < s[None, :], 1.0, np.where(s[:, None] == s[None, :], 0.5, 0.0))
    expected = 1.0 / (1.0 + 10.0 ** ((r[None, :] - r[:, None]) / 400.0))
    np.fill_diagonal(actual, 0.0)
    np.fill_diagonal(expected, 0.0)
    delta = k / (n - 1) * (actual - expected).sum(axis=1)
    for p, ri, d in zip(players, r, delta):
        out[p] = float(ri + d)
    return out
