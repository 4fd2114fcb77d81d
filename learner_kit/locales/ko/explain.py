"""Korean of learner_kit/explain.py: an answer cell that Python could not read."""
TRANSLATIONS = {
    "line {number} of that cell, `{line}`": "그 셀의 {number}번째 줄 `{line}`",
    "line {number} of that cell": "그 셀의 {number}번째 줄",
    "The answer cell that defines {name} did not run: Python cannot read it ({kind} at {where}: {why}). "
    "Until it runs, this test judges {what}. Fix that line, run the answer cell, then this test again.":
        "{name}을(를) 정의하는 정답 셀이 실행되지 않았습니다: 파이썬이 그 셀을 읽을 수 없습니다({where}의 "
        "{kind}: {why}). 그 셀이 실행될 때까지 이 테스트는 {what}을(를) 검사합니다. 그 줄을 고치고 정답 셀을 "
        "실행한 다음 이 테스트를 다시 실행하세요.",
    "the {name} of an earlier run": "이전에 실행된 {name}",
    "nothing: {name} is not defined": "아무것도 없는 상태({name}이(가) 정의되지 않음)",
}
