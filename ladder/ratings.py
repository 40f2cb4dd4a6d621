"""Ladder ratings: batch Plackett–Luce (with ties) on an Elo scale, plus live pairwise Elo.

Why Plackett–Luce fitted in batch (measured in the team's ratings note): it uses the whole finishing order
of a four-player match, it does not depend on the order in which matches were played, it recovers
the true strength order better than sequential Elo/OpenSkill/TrueSkill, and its Hessian gives
calibrated intervals.

Model. Bot i has strength θ_i. A match is read as a sequence of choices of the best remaining
player; a group D tied for the best remaining place contributes (Breslow)

    Σ_{d∈D} θ_d − |D| · log Σ_{r∈remaining} e^{θ_r}.

The last group (whoever is left at the bottom) contributes nothing, exactly as the last term of an
untied Plackett–Luce ranking is log 1 = 0; hence an all-tie match carries no information and several
forfeits tied at the bottom do not pull each other together. A weak Gaussian prior −½λΣθ² keeps
every rating finite (a bot with a perfect record has no finite MLE).

Scale. R = 1500 + (400 / ln 10)·θ with θ centred to sum zero, so P(i ahead of j) =
1 / (1 + 10^(−(R_i − R_j)/400)) as in Elo. Or anchored: a named bot is exactly 1500.

Caveat (measured): Breslow's tie term slightly shrinks the scale when ties are frequent (≈3% with
~11% of matches tied by merging neighbours in the finishing order); with very many matches the
intervals get narrow enough that this bias makes them under-cover. With light ties, or up to a few
tens of thousands of matches, 95% intervals cover 0.93–0.96.

Only numpy and scipy are used; nothing else from the project is imported.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np
from scipy import optimize, sparse
from scipy.sparse import csgraph
from scipy.special import ndtr

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
    """One finished match. Lower score is better (Hearts); forfeited players place last."""

    players: tuple[str, ...]
    scores: tuple[float, ...]
    forfeited: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # Validate once here so the fitting code can trust its input.
        if len(self.players) != len(self.scores):
            raise ValueError("players and scores must have the same length")
        if len(set(self.players)) != len(self.players):
            raise ValueError(f"duplicate player in match: {self.players}")
        unknown = set(self.forfeited) - set(self.players)
        if unknown:
            raise ValueError(f"forfeited players not in the match: {sorted(unknown)}")
        for s in self.scores:
            if isinstance(s, float) and math.isnan(s):
                raise ValueError("score is NaN")

    def places(self) -> tuple[int, ...]:
        """Competition ranking (1, 2, 2, 4) by score, lower first; forfeits tie for last."""
        scores = np.asarray(self.scores, dtype=float)[None, :]
        forf = np.array([p in self.forfeited for p in self.players], dtype=bool)[None, :]
        return tuple(int(x) for x in places_from_scores(scores, forf)[0])


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
# Vectorised Plackett–Luce with Breslow ties
# --------------------------------------------------------------------------------------------


@dataclass
class _Block:
    """All informative matches of one table size, seats sorted best place first.

    For sorted seat k, `start[k]` is the first seat of its tie group and `active[k]` says whether
    that group is not the bottom one. `coef[j]` is the size of the (non-bottom) group starting at
    seat j, i.e. how many times log Σ_{m≥j} e^θm is subtracted. With these, the log-likelihood of
    all rows is Σ active·θ − Σ_j coef_j · S_j where S_j is the suffix log-sum-exp.
    """

    players: np.ndarray  # (M, N) int, sorted by place
    coef: np.ndarray  # (M, N) float


def _build_blocks(places: np.ndarray, players: np.ndarray) -> tuple[list[_Block], np.ndarray]:
    """Group rows by table size, sort seats by place, drop rows with no information.

    Returns the blocks and a boolean mask over the input rows saying which were informative.
    """
    m_rows = places.shape[0]
    informative = np.zeros(m_rows, dtype=bool)
    blocks: list[_Block] = []
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
        m = sp.shape[0]
        idx = np.arange(n)
        new_group = np.ones_like(sp, dtype=bool)
        new_group[:, 1:] = sp[:, 1:] != sp[:, :-1]
        start = np.maximum.accumulate(np.where(new_group, idx, 0), axis=1)
        active = sp < sp[:, -1:]
        flat = (np.arange(m)[:, None] * n + start)[active]
        coef = np.bincount(flat, minlength=m * n).astype(float).reshape(m, n)
        blocks.append(_Block(players=np.ascontiguousarray(spp), coef=coef))
    return blocks, informative


def _block_terms(theta: np.ndarray, b: _Block) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Shared pieces for one block: Σ coef·S, e = exp(θ − rowmax), suffix sums T, A = cumsum(coef/T)."""
    th = theta[b.players]
    mx = th.max(axis=1, keepdims=True)  # per-row shift: log-sum-exp without overflow
    e = np.exp(th - mx)
    t = np.cumsum(e[:, ::-1], axis=1)[:, ::-1]  # T_j = Σ_{m≥j} e_m
    s = np.log(t) + mx  # S_j = log Σ_{m≥j} e^θm
    neg = float(np.sum(b.coef * s))
    return neg, e, t, b.coef / t


def _nll_grad(theta: np.ndarray, blocks: list[_Block], act_count: np.ndarray, prior: float
              ) -> tuple[float, np.ndarray]:
    """Negative log-posterior and its gradient, all matches at once.

    ∂/∂θ_m of −coef_j·S_j is −coef_j·e_m/T_j for m ≥ j, so the per-seat gradient is
    active_m − e_m·cumsum_j(coef_j/T_j); the active part is a constant count per bot.
    """
    n_bots = theta.shape[0]
    f = -float(act_count @ theta) + 0.5 * prior * float(theta @ theta)
    g = -act_count + prior * theta
    for b in blocks:
        neg, e, _t, ct = _block_terms(theta, b)
        f += neg
        w = e * np.cumsum(ct, axis=1)
        g += np.bincount(b.players.ravel(), weights=w.ravel(), minlength=n_bots)
    return f, g


def _hessian(theta: np.ndarray, blocks: list[_Block], prior: float) -> np.ndarray:
    """Exact Hessian of the negative log-posterior (dense, n_bots²).

    Each stage j adds coef_j·(diag(p) − ppᵀ) over the remaining seats, p = e/T_j. Summed over
    stages, seat pair (m, k) with m ≤ k gets δ_mk·e_m·A_m − e_m·e_k·B_m, with A = cumsum(coef/T)
    and B = cumsum(coef/T²); B at the smaller seat because both seats must still be remaining.
    """
    n_bots = theta.shape[0]
    h = np.zeros(n_bots * n_bots)
    diag = np.full(n_bots, prior, dtype=float)
    for b in blocks:
        n = b.players.shape[1]
        iu, ju = np.triu_indices(n, k=1)
        for lo in range(0, b.players.shape[0], _CHUNK_ROWS):
            sub = _Block(b.players[lo:lo + _CHUNK_ROWS], b.coef[lo:lo + _CHUNK_ROWS])
            _neg, e, t, ct = _block_terms(theta, sub)
            a = np.cumsum(ct, axis=1)
            bb = np.cumsum(ct / t, axis=1)
            d = e * a - e * e * bb
            diag += np.bincount(sub.players.ravel(), weights=d.ravel(), minlength=n_bots)
            off = -(e[:, iu] * e[:, ju] * bb[:, iu])
            pi, pj = sub.players[:, iu], sub.players[:, ju]
            h += np.bincount((pi * n_bots + pj).ravel(), weights=off.ravel(),
                             minlength=n_bots * n_bots)
    hm = h.reshape(n_bots, n_bots)
    hm = hm + hm.T  # only one triangle was accumulated (pairs stored in either orientation)
    hm[np.diag_indices(n_bots)] += diag
    return hm


def _components(players: np.ndarray, informative: np.ndarray, n_bots: int) -> np.ndarray:
    """Component label per bot: bots linked by an informative match share a scale.

    This is union-find over matches, done with scipy's connected_components so 1e6 matches stay
    vectorised: each informative match links its first seat to every other seat.
    """
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
    """pinv(Hessian) projected to a sum-zero gauge within each component.

    The likelihood cannot see a common shift of a component, so only differences inside a
    component are identified. With U the orthonormal component indicators and P = I − UUᵀ,
    pinv(PHP) = inv(PHP + UUᵀ) − UUᵀ exactly (UUᵀ fills the null space with eigenvalue 1), which is
    faster and more stable than an SVD-based pinv.
    """
    n = hess.shape[0]
    u = np.zeros((n, labels.max() + 1))
    u[np.arange(n), labels] = 1.0
    u /= np.sqrt(u.sum(axis=0, keepdims=True))
    uu = u @ u.T
    p = np.eye(n) - uu
    php = p @ hess @ p
    php = 0.5 * (php + php.T)
    inv = np.linalg.inv(php + uu)
    cov = inv - uu
    return 0.5 * (cov + cov.T)


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
) -> Ratings:
    """Batch Plackett–Luce ratings (Breslow ties) of all bots in `results`.

    Bots are indexed by sorted name so the fit does not depend on the order of the results.
    """
    res = list(results)
    names = sorted({p for r in res for p in r.players})
    index = {name: i for i, name in enumerate(names)}
    width = max((len(r.players) for r in res), default=2)
    m = len(res)
    players = np.full((m, width), -1, dtype=np.int64)
    places = np.zeros((m, width), dtype=np.int64)
    # Places are computed per table size in one vectorised call (a Python call per match is slow).
    by_size: dict[int, list[int]] = {}
    for row, r in enumerate(res):
        by_size.setdefault(len(r.players), []).append(row)
    for k, rows in by_size.items():
        if k == 0:
            continue
        idx = np.asarray(rows)
        sub = [res[i] for i in rows]
        players[idx, :k] = np.array([[index[p] for p in r.players] for r in sub], dtype=np.int64)
        scores = np.array([r.scores for r in sub], dtype=float)
        forf = np.array([[p in r.forfeited for p in r.players] if r.forfeited else [False] * k
                         for r in sub], dtype=bool)
        places[idx, :k] = places_from_scores(scores, forf)
    return fit_arrays(places, players, len(names), names=names, prior=prior, anchor=anchor,
                      intervals=intervals, provisional_games=provisional_games)


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
) -> Ratings:
    """Array form of `fit` for big inputs.

    places:  (M, N) ints, 1 = best, ties share a place; forfeits already placed last
             (see `places_from_scores`).
    players: (M, N) bot indices in [0, n_bots); −1 pads an empty seat (mixed table sizes).
    names:   bot names (default "0", "1", ...); `anchor` is a name or an index.
    """
    t0 = time.perf_counter()
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

    games = np.bincount(players[valid], minlength=n_bots).astype(np.int64)
    blocks, informative = _build_blocks(places, players)
    act_count = np.zeros(n_bots)
    for b in blocks:
        # Σ active·θ is linear: precompute how often each bot sits in a non-bottom group.
        act_count += np.bincount(b.players.ravel(), weights=_active_mask(b).ravel().astype(float),
                                 minlength=n_bots)

    # Records with no finite MLE: never placed above anyone, or never placed below anyone.
    beat_someone = np.zeros(n_bots, dtype=bool)
    beaten = np.zeros(n_bots, dtype=bool)
    for b in blocks:
        act = _active_mask(b)
        # Seats in the top tie group (coef[:, 0] is its size; it is never the bottom group here).
        first_group = np.arange(b.coef.shape[1])[None, :] < b.coef[:, :1]
        beat_someone[b.players[act]] = True
        beaten[b.players[~first_group]] = True
    t_prep = time.perf_counter()

    # L-BFGS on the negative log-posterior, scaled per match so tolerances mean the same at any size.
    scale = 1.0 / max(1, int(informative.sum()))

    def fun(th: np.ndarray) -> tuple[float, np.ndarray]:
        f, g = _nll_grad(th, blocks, act_count, prior)
        return f * scale, g * scale

    theta = np.zeros(n_bots)
    if n_bots and blocks:
        opt = optimize.minimize(fun, theta, jac=True, method="L-BFGS-B",
                                options={"maxiter": 5000, "maxcor": 20, "gtol": 1e-10,
                                         "ftol": 1e-15})
        theta = np.asarray(opt.x, dtype=float)
    t_fit = time.perf_counter()

    labels = _components(players, informative, n_bots) if n_bots else np.zeros(0, dtype=np.int64)
    cov: np.ndarray | None = None
    if intervals and n_bots:
        hess = _hessian(theta, blocks, prior)
        # One Newton step with the exact Hessian polishes L-BFGS to machine precision, so the
        # result is the same (to ~1e-9 Elo) whatever order the matches came in.
        _f, g = _nll_grad(theta, blocks, act_count, prior)
        try:
            theta = theta - np.linalg.solve(hess, g)
        except np.linalg.LinAlgError:
            pass
        cov = _gauge_covariance(hess, labels)
    t_int = time.perf_counter()

    # Centre each component to sum zero (the prior already does, up to rounding): the gauge.
    for c in np.unique(labels):
        members = labels == c
        theta[members] -= theta[members].mean()

    if anchor_idx is not None:
        shift = theta[anchor_idx]
        if cov is not None:
            # Intervals relative to the anchor inside its component: Var(θi − θa).
            members = labels == labels[anchor_idx]
            ca = cov[:, anchor_idx]
            adj = cov - ca[:, None] - ca[None, :] + cov[anchor_idx, anchor_idx]
            mask = np.outer(members, members)
            cov = np.where(mask, adj, cov)
    else:
        shift = 0.0
    elo = ELO_BASE + ELO_SCALE * (theta - shift)

    # Per-bot interval half-width; no informative game means the scale says nothing about the bot.
    sizes = np.bincount(labels, minlength=labels.max() + 1 if n_bots else 0)
    alone = sizes[labels] < 2 if n_bots else np.zeros(0, dtype=bool)
    if cov is not None:
        ci = _Z95 * ELO_SCALE * np.sqrt(np.clip(np.diag(cov), 0.0, None))
        ci = np.where(alone, math.inf, ci)
    else:
        ci = np.full(n_bots, math.nan)
    provisional = (games < provisional_games) | ~beat_someone | ~beaten | alone

    order = sorted(range(n_bots), key=lambda i: (-elo[i], name_list[i]))
    rows: list[BotRating] = []
    for pos, i in enumerate(order):
        los: float | None = None
        if pos + 1 < len(order) and cov is not None:
            j = order[pos + 1]
            if labels[i] == labels[j] and not alone[i]:
                var = cov[i, i] + cov[j, j] - 2.0 * cov[i, j]
                if var > 0:
                    los = float(ndtr((theta[i] - theta[j]) / math.sqrt(var)))
        rows.append(BotRating(name=name_list[i], elo=float(elo[i]), ci95=float(ci[i]),
                              games=int(games[i]), provisional=bool(provisional[i]), los_next=los))

    comps = _component_lists(labels, name_list, games)
    warnings: list[str] = []
    if len(comps) > 1:
        shown = "; ".join(", ".join(c[:5]) + (", ..." if len(c) > 5 else "") for c in comps[:5])
        warnings.append(
            f"pool split into {len(comps)} groups that never met (no common scale; compare Elo only "
            f"within a group): {shown}" + (" ..." if len(comps) > 5 else ""))
    if anchor_idx is not None and len(comps) > 1:
        warnings.append(f"anchor {name_list[anchor_idx]!r} fixes the scale of its own group only")
    no_games = [name_list[i] for i in range(n_bots) if games[i] == 0]
    if no_games:
        warnings.append(f"{len(no_games)} bot(s) with no games, rated from the prior only")

    return Ratings(
        bots=tuple(rows),
        warnings=warnings,
        components=comps,
        anchor=None if anchor_idx is None else name_list[anchor_idx],
        prior=prior,
        matches=int(places.shape[0]),
        informative_matches=int(informative.sum()),
        timings={"prepare": t_prep - t0, "fit": t_fit - t_prep, "intervals": t_int - t_fit,
                 "total": time.perf_counter() - t0},
        names=tuple(name_list),
        theta=theta,
        covariance=cov,
    )


def _active_mask(b: _Block) -> np.ndarray:
    """Seats not in the bottom tie group. Seats are sorted by place, so these come first, and
    their number is Σ coef (the sizes of all non-bottom groups)."""
    n = b.coef.shape[1]
    total_active = b.coef.sum(axis=1, keepdims=True)  # number of active seats (they come first)
    return np.arange(n)[None, :] < total_active


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
    scores: Sequence[float],
    k: float = 32.0,
) -> dict[str, float]:
    """Live pairwise Elo after one match — a quick in-play indicator, NOT the ladder's rating.

    Every pair (i, j) is an Elo game: S_ij = 1, ½, 0 as i's final score is lower, equal, higher
    (lower wins in Hearts), E_ij = 1 / (1 + 10^((R_j − R_i)/400)), ΔR_i = K/(N−1)·Σ_j (S_ij − E_ij).
    K is divided by N−1 so a match moves a rating as much as one two-player game would; all changes
    use the pre-match ratings and are left unrounded, so they sum to zero. Unknown players start
    at 1500. Returns a new dict (input untouched) with every input rating plus the match players.
    """
    if len(players) != len(scores):
        raise ValueError("players and scores must have the same length")
    if len(set(players)) != len(players):
        raise ValueError("duplicate player in match")
    out = dict(ratings)
    n = len(players)
    if n < 2:
        for p in players:
            out.setdefault(p, ELO_BASE)
        return out
    r = np.array([float(ratings.get(p, ELO_BASE)) for p in players])
    s = np.asarray(scores, dtype=float)
    actual = np.where(s[:, None] < s[None, :], 1.0, np.where(s[:, None] == s[None, :], 0.5, 0.0))
    expected = 1.0 / (1.0 + 10.0 ** ((r[None, :] - r[:, None]) / 400.0))
    np.fill_diagonal(actual, 0.0)
    np.fill_diagonal(expected, 0.0)
    delta = k / (n - 1) * (actual - expected).sum(axis=1)
    for p, ri, d in zip(players, r, delta):
        out[p] = float(ri + d)
    return out
