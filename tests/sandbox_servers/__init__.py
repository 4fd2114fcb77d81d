"""Tests of sandbox_servers/: what runs beside the learner's code in the grading sandbox."""
