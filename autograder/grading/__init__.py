"""The instructor's grading pipeline behind ``autograder grade`` (see README.md here)."""
