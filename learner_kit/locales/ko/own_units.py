"""Korean: the lines learner_kit/own_units.py prints while it assembles the capstone's model from your units.

The two row templates keep their columns: "제공  " and "내 것 " take six columns each.
"""

TRANSLATIONS = {
    "  provided {unit:<30} stands in: {problem}": "  제공  {unit:<30} 이유: {problem}",
    "  yours    {unit:<30} from {assignment}": "  내 것 {unit:<30} {assignment}에서 가져왔습니다",
    "{count} of {total} units are yours.": "단위 {total}개 중 {count}개가 여러분이 만든 것입니다.",
    "{notebook} has no answer cell for it.": "{notebook}에 이 단위의 정답 셀이 없습니다.",
    "{notebook} was not found.": "{notebook} 파일을 찾지 못했습니다.",
    "its cell raised {error_type}: {error}": "셀에서 {error_type} 오류가 났습니다: {error}",
}
