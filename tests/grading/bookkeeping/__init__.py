"""Tests of autograder/grading/bookkeeping/: SUBMITTED's layout, collect-zip, nbgrader's gradebook and preprocessors."""
