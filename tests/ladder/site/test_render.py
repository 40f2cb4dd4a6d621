"""The site's drawing without a browser: the replay's steps against a match record, the templates'
escaping, the plots."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from ladder.site.render import card, env, points_svg, rating_svg, replay_steps

XSS = "<img src=x onerror=alert(1)>"


def _match() -> dict[str, Any]:
    """A small match: two tricks of four cards, one seat substituted, one fault."""
    deal = [["2C", "AH"], ["3C", "KH"], ["4C", "QS"], ["5C", "10H"]]
    plays = [
        {"hand": 0, "trick": 0, "seat": 0, "card": "2C"},
        {"hand": 0, "trick": 0, "seat": 1, "card": "3C"},
        {"hand": 0, "trick": 0, "seat": 2, "card": "4C", "substituted": True},
        {"hand": 0, "trick": 0, "seat": 3, "card": "5C"},
        {"hand": 0, "trick": 1, "seat": 3, "card": "10H"},
        {"hand": 0, "trick": 1, "seat": 0, "card": "AH"},
        {"hand": 0, "trick": 1, "seat": 1, "card": "KH"},
        {"hand": 0, "trick": 1, "seat": 2, "card": "QS"},
    ]
    return {
        "seats": [
            {"seat": i, "bot": n, "final_score": 0, "place": 1} for i, n in enumerate([XSS, "b.v1", "c.v1", "d.v1"])
        ],
        "hands": [
            {
                "hand": 0,
                "pass_direction": "hold",
                "deal": deal,
                "passes": [],
                "score": [2, 0, 13, 0],
                "totals": [2, 0, 13, 0],
                "points_taken": [2, 0, 13, 0],
                "moon": None,
            }
        ],  # fmt: skip
        "plays": plays,
        "faults": [
            {"hand": 0, "trick": 0, "seat": 2, "kind": "timeout", "detail": XSS, "received": XSS, "action": "lowest"}
        ],
    }


def test_the_steps_play_every_card_once_and_mark_what_happened() -> None:
    steps = replay_steps(_match())
    assert [s["kind"] for s in steps] == ["deal"] + ["play"] * 8 + ["score"]
    assert steps[0]["hands"][1] == ["3C", "KH"]
    assert steps[3]["table"] == ["2C", "3C", "4C", None] and "substituted" in steps[3]["mark"]
    assert "timeout" in steps[3]["mark"]
    assert steps[5]["table"] == [None, None, None, "10H"]  # a new trick clears the table
    assert steps[4]["tricks"] == [0, 0, 0, 0] and steps[5]["tricks"] == [0, 0, 0, 1]  # 5C took the first
    played = Counter(s["card"] for s in steps if s["kind"] == "play")
    assert all(n == 1 for n in played.values()) and len(played) == 8
    assert steps[-1]["hands"] == [[], [], [], []] and steps[-1]["totals"] == [2, 0, 13, 0]


def _render(m: dict[str, Any], step: int, rules: str = "standard", arena_name: str = "a") -> str:
    """The match page of ``m`` at ``step`` of its replay."""
    steps = replay_steps(m)
    return (
        env()
        .get_template("match.html")
        .render(
            m={**m, "match_id": "x", "rules": rules, "seed": 1, "status": "finished", "finished_at": ""},
            names=[s["bot"] for s in m["seats"]],
            steps=steps,
            step=step,
            s=steps[step],
            seat_view=None,
            hands=m["hands"],
            title="t",
            me=type("V", (), {"id": 0, "organiser": False, "name": ""})(),
            csrf="",
            arena_name=arena_name,
            u=lambda p: "/" + p,
            static=lambda p: "/static/" + p,
            static_site=False,
            path="/",
        )
    )


def test_templates_escape_bot_text_in_text_attributes_and_json() -> None:
    html = _render(_match(), 3, arena_name=XSS)
    assert XSS not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "\\u003cimg src=x onerror=alert(1)\\u003e" in html  # the replay's JSON
    assert 'href="/bots/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E"' in html


def test_cards_read_in_text_and_plots_hold_numbers_only() -> None:
    c = card("QS")
    assert (c.rank, c.symbol, c.colour, c.label) == ("Q", "♠", "black", "queen of spades")
    assert card("10H").colour == "red" and card("TD").rank == "10"
    svg = rating_svg([(1, 1500.0), (2, 1520.0), (3, 1490.0)])
    assert svg.startswith("<svg") and "<path" in svg
    assert "<rect" in points_svg([0, 0, 1, 13, 26])
    assert rating_svg([(1, 1500.0)]) == ""


def test_tables_of_three_and_five_are_drawn() -> None:
    for n, where in [(3, "East"), (5, "Northeast")]:
        suits = "CDSH"
        deal = [[f"{r}{suits[s % 4]}" for r in ("2", "3")] for s in range(n)]
        m = {
            "seats": [{"seat": i, "bot": f"b{i}.v1", "final_score": 0, "place": 1} for i in range(n)],
            "hands": [
                {
                    "hand": 0,
                    "pass_direction": "hold",
                    "deal": deal,
                    "passes": [],
                    "score": [0] * n,
                    "totals": [0] * n,
                    "points_taken": [0] * n,
                    "moon": None,
                }
            ],  # fmt: skip
            "plays": [{"hand": 0, "trick": t, "seat": s, "card": deal[s][t]} for t in range(2) for s in range(n)],
            "faults": [],
        }
        html = _render(m, 1)
        assert f"table-grid n{n}" in html and where in html
        assert html.count('class="seat-area') == n


def test_turbo_charged_cards_lie_face_up_until_played() -> None:
    """002 Turbo Hearts: 'They do this by placing the card face up in front of them.' A charge step shows
    each seat's charged cards; each stays shown until its charger plays it; a substituted charge is marked."""
    m = _match()
    m["hands"][0]["charges"] = [
        {"hand": 0, "seat": 0, "cards": ["AH"], "substituted": False},
        {"hand": 0, "seat": 1, "cards": [], "substituted": True},
        {"hand": 0, "seat": 2, "cards": ["QS"], "substituted": False},
        {"hand": 0, "seat": 3, "cards": [], "substituted": False},
    ]
    steps = replay_steps(m)
    assert [s["kind"] for s in steps] == ["deal", "charge"] + ["play"] * 8 + ["score"]
    assert steps[1]["charged"] == [["AH"], [], ["QS"], []] and "b.v1's charge was substituted" in steps[1]["mark"]
    assert steps[7]["charged"] == [[], [], ["QS"], []]  # seat 0 has played its A♥
    assert steps[9]["charged"] is None  # nothing charged is left in front of anyone
    html = _render(m, 1, rules="turbo", arena_name=XSS)
    assert html.count('<div class="charged">') == 2 and XSS not in html


def test_a_partnership_match_shows_the_teams_and_their_totals() -> None:
    """002 Partnership Hearts: the match page names the partners (each seat's recorded team), each hand's
    team totals and the team's share of the place; a match without teams shows none, and a bot's name
    in the teams line is escaped like everywhere else."""
    from ladder.site.render import team_totals, teams

    m = _match()
    for s in m["seats"]:
        s["team"] = s["seat"] % 2
        s["place"] = 1 if s["seat"] % 2 == 0 else 3
    m = {**m, "match_id": "x", "rules": "partnership-individual", "seed": 1, "status": "finished", "finished_at": ""}
    assert teams(m) == [[0, 2], [1, 3]] and team_totals(m, [2, 0, 13, 0]) == [15, 0]

    def page(match: dict[str, Any]) -> str:
        return _render(match, 0, rules=match["rules"])

    html = page(m)
    assert "Partners: &lt;img src=x onerror=alert(1)&gt; &amp; c.v1 (team 0) against b.v1 &amp; d.v1 (team 1)" in html
    assert "15 : 0" in html and "place 3 · team 1" in html and XSS not in html
    plain = {**m, "rules": "standard", "seats": [{k: v for k, v in s.items() if k != "team"} for s in m["seats"]]}
    assert teams(plain) == [] and "Partners:" not in page(plain) and "Teams" not in page(plain)


def test_the_match_page_shows_each_seats_isolation_as_data() -> None:
    """What guarded each seat's bot, in words, as its text and with what each feature in force
    guarantees; unknown for a seat recorded without it; a text this version cannot read is shown
    as it is, escaped."""
    from referee.isolation import FEATURE_DOCS

    m = _match()
    isolations = ["sandbox:net-ns,pid-ns", None, XSS, "in-process"]
    for s, iso in zip(m["seats"], isolations):
        if iso is not None:
            s["isolation"] = iso
    html = _render(m, 0)
    rows = dict(re.findall(r'<tr data-seat="(\d)">(.*?)</tr>', html, re.S))
    assert "sandboxed (net-ns, pid-ns)" in rows["0"] and "<code>sandbox:net-ns,pid-ns</code>" in rows["0"]
    assert f"<code>pid-ns</code>: {FEATURE_DOCS['pid-ns']}" in rows["0"]
    assert "unknown (not recorded)" in rows["1"] and "<code>" not in rows["1"]
    assert XSS not in html and "&lt;img src=x onerror=alert(1)&gt;" in rows["2"]
    assert "in the referee&#39;s process (trusted code)" in rows["3"]
