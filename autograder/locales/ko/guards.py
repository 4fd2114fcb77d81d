"""Korean of autograder/checks/guards.py: what a tampering check found."""
TRANSLATIONS = {
    "Your code runs the grader's reference implementation.": "작성한 코드가 채점기의 참조 구현을 실행합니다.",
    "builtins.AssertionError was replaced.": "다음 항목이 바꿔치기되었습니다: builtins.AssertionError.",
    "torch.{name} was replaced.": "다음 항목이 바꿔치기되었습니다: torch.{name}.",
    "{owner}.{name} was replaced.": "다음 항목이 바꿔치기되었습니다: {owner}.{name}.",
    "torch.Tensor.{name} was replaced.": "다음 항목이 바꿔치기되었습니다: torch.Tensor.{name}.",
    "The module {module} was replaced.": "다음 모듈이 바꿔치기되었습니다: {module}.",
    "The checks of {unit} were replaced.": "{unit}의 검사 코드가 바꿔치기되었습니다.",
    "The test cases of {unit} were replaced.": "{unit}의 테스트 케이스가 바꿔치기되었습니다.",
    "autograder.reference.{unit} was replaced.": "다음 항목이 바꿔치기되었습니다: autograder.reference.{unit}.",
    "Your code is the grader's reference implementation.": "작성한 코드가 채점기의 참조 구현 그 자체입니다.",
    "Your code uses the grader's reference implementation.": "작성한 코드가 채점기의 참조 구현을 사용합니다.",
}
