"""Tests of autograder/grading/outputs/: the class report, the feedback pages, the LMS exports."""
