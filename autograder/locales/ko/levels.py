"""Korean of the sentences about the two levels (autograder/levels.py) in the grader's outputs
(autograder/grading/outputs/class_report.py's levels table)."""
TRANSLATIONS = {
    "none": "없음",
    "Every submission was at the guided level.": "모든 제출물이 안내 단계였습니다.",
    "Submissions at the challenge level ({count}; every other submission was at the guided level; "
    "both levels are graded by the same tests)":
        "도전 단계 제출물 ({count}개. 나머지 제출물은 모두 안내 단계이며, 두 단계는 같은 테스트로 채점합니다)",
    "student": "학생",
    "challenge level": "도전 단계",
    "guided level": "안내 단계",
}
