"""Korean: the sentences of learner_kit/slips.py."""

TRANSLATIONS = {
    "`.{attribute}` is asked of a method, not of a tensor: somewhere before this line a method is "
    "named without being called (no parentheses after it), so the variable holds the method "
    "itself, not its result. Look at the lines that made this variable.":
        "`.{attribute}`를 텐서가 아니라 메서드에서 찾고 있습니다. 이 줄 앞 어딘가에서 메서드 이름만 쓰고 "
        "호출하지 않아서(뒤에 괄호가 없음), 변수에 그 결과가 아니라 메서드 자체가 들어 있습니다. 이 변수를 "
        "만든 줄들을 살펴보세요.",
    "A {kind} is called here like a module: it only holds modules (or parameters) and has no "
    "forward of its own, so calling it raises. Only what it holds can be called.":
        "여기서 {kind}를 모듈처럼 호출하고 있습니다. {kind}는 모듈(또는 파라미터)을 담아 두기만 할 뿐 자기 "
        "forward가 없어서, 호출하면 오류가 납니다. 호출할 수 있는 것은 그 안에 담긴 것들입니다.",
    "On this line a PyTorch {module} is called with {given} arguments, and it takes {taken}: an "
    "argument the module does not take. A module's settings (a rate, a size) are given when it is "
    "built, in __init__; a call passes only what it computes on.":
        "이 줄에서 PyTorch {module} 모듈을 인자 {given}개로 호출하는데, 이 모듈이 받는 인자는 {taken}개입니다. "
        "모듈이 받지 않는 인자를 넘긴 것입니다. 모듈의 설정값(비율, 크기)은 __init__에서 만들 때 주고, 호출할 "
        "때는 계산할 대상만 넘깁니다.",
    "On this line a PyTorch {module} is called with `{name}=`, an argument the module does not take. "
    "A module's settings are given when it is built, in __init__; a call passes only what it "
    "computes on.":
        "이 줄에서 PyTorch {module} 모듈을 `{name}=` 인자와 함께 호출하는데, 이 모듈은 그 인자를 받지 않습니다. "
        "모듈의 설정값은 __init__에서 만들 때 주고, 호출할 때는 계산할 대상만 넘깁니다.",
}
