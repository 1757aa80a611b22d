"""Test-only reference versions of product algorithms (oracles the properties compare with)."""
