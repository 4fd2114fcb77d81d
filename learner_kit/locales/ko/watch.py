"""Korean: the sentences of learner_kit/watch.py (a PyTorch built-in that does the exercise's work)."""

TRANSLATIONS = {
    "Your code calls {name}.": "코드가 {name} 함수를 호출합니다.",
    "Your code runs {op}, a PyTorch built-in that does this exercise's work, as {name} does.":
        "코드가 {op} 연산을 실행합니다. {name} 함수처럼, 이 과제에서 직접 작성해야 할 계산을 대신하는 PyTorch 내장 "
        "연산입니다.",
    "Its submodule `{name}` is a {klass}.": "하위 모듈 `{name}`에 {klass} 모듈을 썼습니다.",
    "It is a {klass}.": "이 모듈 자체가 {klass} 모듈입니다.",
}
