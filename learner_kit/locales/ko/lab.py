"""Korean of the Validate button's report (lab-config/nbgrader_config.py)."""
TRANSLATIONS = {
    "The test cell of {unit} (below its answer cell) stops with:": "{unit}의 테스트 셀(정답 셀 바로 아래)이 다음 메시지로 멈췄습니다:",
    "The graded cell {grade_id} stops with:": "채점 셀 {grade_id}이(가) 다음 메시지로 멈췄습니다:",
}
