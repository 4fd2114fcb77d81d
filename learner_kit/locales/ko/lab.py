"""Korean of the learner's lab: the Validate button's report (lab-config/nbgrader_config.py) and its dialog's
fixed sentences (learner_kit/lab_style.py)."""
TRANSLATIONS = {
    "The test cell of {unit} (below its answer cell) stops with:": "{unit}의 테스트 셀(정답 셀 바로 아래)이 다음 메시지로 멈췄습니다:",
    "The graded cell {grade_id} stops with:": "채점 셀 {grade_id}이(가) 다음 메시지로 멈췄습니다:",
    "Success! Your notebook passes all the tests.": "성공! 노트북이 모든 테스트를 통과합니다.",
    "The following cell failed:": "다음 셀이 실패했습니다:",
    "Validation Results": "검증 결과",
    "The source of the following cell has changed, but it should not have!": "다음 셀의 코드가 바뀌었습니다. 바뀌면 안 되는 셀입니다:",
    "The type of the following cell has changed, but it should not have!": "다음 셀의 종류가 바뀌었습니다. 바뀌면 안 되는 셀입니다:",
}
