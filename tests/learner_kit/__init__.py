"""Tests of learner_kit/: what learners receive (the visible checks' messages, locations, progress, the lab)."""
