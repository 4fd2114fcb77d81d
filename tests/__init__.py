"""The course's tests, a folder per package they test (learner_kit/, sandbox_servers/, autograder/'s checks/ and
grading/, hub/) and notebooks/ for the course's content; here, the tests of the repository's own files
(.importlinter, the Makefile, the requirements), of the test tools (quick.py, perturbed.py) and the shared helpers."""
