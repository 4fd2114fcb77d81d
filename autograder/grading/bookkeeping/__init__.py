"""nbgrader's bookkeeping: its configuration, preprocessors, scratch course and gradebook, the source
notebooks, the folders of submissions (SUBMITTED) and an LMS's download."""
