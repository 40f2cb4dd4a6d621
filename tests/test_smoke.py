from referee.rules import Match, Phase, Rules


def test_a_seeded_match_starts_in_the_pass_phase() -> None:
    assert Match(Rules(), seed=1).phase is Phase.PASS
