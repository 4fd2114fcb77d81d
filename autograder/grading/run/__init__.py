"""One grading run: the runner, its Dask workers, the judge and its sandbox, the verification of a notebook,
the combined records and the state a resumed run reads (README.md of autograder/grading)."""
