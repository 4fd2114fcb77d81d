"""Tests of autograder/'s own modules: the options, the environment variables, the reference, the student pack."""
