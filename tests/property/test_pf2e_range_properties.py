"""Hypothesis properties of ``service.rules.pf2e_variant.range_increments`` (PV-RNG-1..2).

The penalty grows with distance, is invariant under scaling distance and increment together
(integers, so exact), and is possible exactly up to six increments; bands grow with distance.
"""

from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from service.rules.pf2e_variant import range_increments as rng


@given(st.integers(0, 2000), st.integers(0, 2000), st.integers(1, 200))
@example(30, 31, 30)
@example(180, 181, 30)
def test_range_penalty_monotonic(d1, d2, inc):
    lo, hi = sorted((d1, d2))
    (la, pa), (lb, pb) = (rng.range_increment_penalty(d, inc) for d in (lo, hi))
    assert pa >= pb
    if pb:
        assert 0 <= la <= lb <= 5


@given(st.integers(0, 2000), st.integers(1, 200), st.integers(1, 20))
@example(45, 30, 2)
def test_range_penalty_scale_invariant_and_six_increments(d, inc, k):
    levels, possible = rng.range_increment_penalty(d, inc)
    assert rng.range_increment_penalty(d * k, inc * k) == (levels, possible)
    assert possible == (d <= 6 * inc)
    if possible:
        # One level per increment started beyond the first.
        assert levels == max(0, -(-d // inc) - 1)
    else:
        assert levels is None


BAND_ORDER = ("close", "near", "far", "distant")


@given(
    st.floats(min_value=0, max_value=1e4, allow_nan=False),
    st.floats(min_value=0, max_value=1e4, allow_nan=False),
)
@example(30.0, 30.5)
@example(120.0, 120.5)
def test_range_band_monotonic(d1, d2):
    lo, hi = sorted((d1, d2))
    assert BAND_ORDER.index(rng.range_band(lo)) <= BAND_ORDER.index(rng.range_band(hi))
    assert rng.range_band(lo, engaged=True) == "engaged"
