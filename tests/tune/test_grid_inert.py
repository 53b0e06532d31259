"""Grids do not multiply rows by axes that have no effect (halfLifeDays with decay off)."""

from memlab.config import load_config
from memlab.tune.sweep import expand_grid


def test_half_life_is_expanded_only_where_decay_is_on():
    overrides, configs = expand_grid({
        "query.hybrid.temporalDecay.enabled": [False, True],
        "query.hybrid.temporalDecay.halfLifeDays": [7, 30, 90],
        "query.hybrid.vectorWeight": [0.3, 0.7]})
    assert len(overrides) == 2 * (1 + 3)
    off = [o for o in overrides if not o["query.hybrid.temporalDecay.enabled"]]
    assert {o["query.hybrid.temporalDecay.halfLifeDays"] for o in off} == {7}
    assert len({repr(c.memory_search.model_dump()) for c in configs}) == len(configs)


def test_mmr_lambda_with_mmr_off_in_the_base_gives_one_row():
    base = load_config({"memorySearch": {"provider": "local"}})
    overrides, _ = expand_grid({"query.hybrid.mmr.lambda": [0.2, 0.5, 0.8]}, base)
    assert len(overrides) == 1
    on = base.with_overrides({"query.hybrid.mmr.enabled": True})
    assert len(expand_grid({"query.hybrid.mmr.lambda": [0.2, 0.5, 0.8]}, on)[0]) == 3
