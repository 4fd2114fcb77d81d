"""Korean of the feedback page's own sentences (autograder/grading/preprocessors.py)."""
TRANSLATIONS = {
    "See above, at {aspect}: the same mistake.": "위의 {aspect} 항목을 보세요. 같은 실수입니다.",
}
