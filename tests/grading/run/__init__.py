"""Tests of autograder/grading/run/: the judge, the sandbox, the workers, Dask and Slurm."""
