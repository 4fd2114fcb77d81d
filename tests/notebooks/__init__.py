"""Tests of the course's content: the notebooks, their prose and levels, the editions and the release."""
