"""Helpers that the course notebooks import: visible checks and plots. Holds no solution."""
