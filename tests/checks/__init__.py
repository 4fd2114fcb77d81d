"""Tests of autograder/checks/: the hidden checks, their messages, causes and mutants."""
