"""What runs inside the grading sandbox beside the learner's code: the unit and kernel servers, their wire
to the grader, what they do to the processes around them, and the probes they run (README.md)."""
