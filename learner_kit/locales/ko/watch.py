"""Korean: the sentences of learner_kit/watch.py (a PyTorch built-in that does the exercise's work)."""

TRANSLATIONS = {
    "Your code calls {name}.": "코드가 {name} 함수를 호출합니다.",
    "Its submodule `{name}` is a {klass}.": "하위 모듈 `{name}`에 {klass} 모듈을 썼습니다.",
    "It is a {klass}.": "이 모듈 자체가 {klass} 모듈입니다.",
}
