"""What a run writes for people: feedback pages, the class report, the terminal's report and results.json,
the LMS's gradebook, and formgrader's extension."""
