"""Test-only oracles: the numpy and GEOS reference of the compiled geometry."""
