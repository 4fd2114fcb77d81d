"""Tests of autograder/grading/: `autograder grade` as a whole, and its subpackages in the folders beside."""
