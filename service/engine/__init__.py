"""The built scene: wall index, token spaces, regions and lights, below every geometry user.

Imports the model, numpy and shapely only; no ruleset, no geometry algorithm.
"""
