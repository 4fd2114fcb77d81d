"""Korean: the sentences of learner_kit/static_hints.py (what a linter sees in a learner's answer cell)."""

TRANSLATIONS = {
    "Also, a static look at your code:": "덧붙여, 코드를 실행하지 않고 읽어 보면 다음이 눈에 띕니다:",
    "Line {row}: `{text}` compares two values and throws the result away, so nothing is stored; "
    "to assign, use a single `=`.":
        "{row}번째 줄: `{text}`에서는 두 값을 비교만 하고 그 결과를 버리므로, 아무것도 저장되지 않습니다. "
        "대입하려면 `=`를 하나만 쓰세요.",
    "Line {row}: `{text}` computes a value and throws it away: the line has no effect.":
        "{row}번째 줄: `{text}`에서는 값을 계산한 뒤 그냥 버립니다. 이 줄은 아무 효과가 없습니다.",
    "Line {row}: `{name}` is defined nowhere, neither in this cell nor earlier in the notebook: "
    "check its spelling, or where it should come from (another method's variables are not "
    "visible here).":
        "{row}번째 줄: `{name}`의 정의가 이 셀에도, 노트북의 앞부분에도 없습니다. 철자를 확인하거나, "
        "그 이름이 어디에서 와야 하는지 살펴보세요(다른 메서드의 변수는 여기서 보이지 않습니다).",
    "Line {row}: `{name}` is used before this function gives it a value (it is assigned further "
    "down, which makes it a local variable everywhere in the function).":
        "{row}번째 줄: 이 함수가 `{name}`에 값을 넣기 전에 그 값을 읽습니다(더 아래에서 대입하기 때문에, "
        "이 이름은 함수 안 어디에서나 지역 변수가 됩니다).",
    "Line {row}: `{name}` gets a value that is never used afterwards; was it meant to be used below?":
        "{row}번째 줄: `{name}`에 넣은 값이 그 뒤로 한 번도 쓰이지 않습니다. 아래에서 쓰려던 것은 아닌가요?",
    "Line {row}: `{name}` is defined a second time, and the first definition is never used: "
    "only the last one counts.":
        "{row}번째 줄: `{name}`의 정의가 두 번째로 나와서, 첫 번째 정의는 한 번도 쓰이지 않습니다. 마지막 정의만 유효합니다.",
    "Line {row}: `{name}` is defined a second time, and the first definition (line {first}) is never "
    "used: only the last one counts.":
        "{row}번째 줄: `{name}`의 정의가 두 번째로 나와서, 첫 번째 정의({first}번째 줄)는 한 번도 쓰이지 않습니다. "
        "마지막 정의만 유효합니다.",
    "Line {row}: `__init__` returns a value here; `__init__` sets up the object and must return None.":
        "{row}번째 줄: 여기서 `__init__`이 값을 반환합니다. `__init__`은 객체를 준비하는 메서드이므로 "
        "None을 반환해야 합니다.",
    "Line {row}: `{text}` looks `{attr}` up on the built-in `super` itself, not on the parent "
    "class: `super` is a function, to be called first.":
        "{row}번째 줄: `{text}`에서는 부모 클래스가 아니라 내장 `super` 자체에서 `{attr}`에 접근합니다. "
        "`super`는 함수이므로 먼저 호출해야 합니다.",
    "Line {row}: `{text}` reverses every axis of the tensor, which for a batch of matrices "
    "(3 or 4 axes) moves the batch axes too: swap only the two axes you mean.":
        "{row}번째 줄: `{text}`에서는 텐서의 모든 축이 뒤집힙니다. 행렬을 배치로 묶은 텐서(축 3개나 4개)라면 "
        "배치 축까지 옮겨집니다. 바꾸려는 두 축만 서로 바꾸세요.",
    "Line {row}: `{text}` drops the axis it reduces; keepdim=True keeps it (with size 1), so that "
    "the result still lines up with the tensor it came from, if that is what you need.":
        "{row}번째 줄: `{text}`에서는 줄이는 축이 사라집니다. 결과가 원래 텐서와 축이 맞아야 한다면, "
        "keepdim=True로 그 축을 (크기 1로) 남길 수 있습니다.",
    "Line {row}: `{text}` computes a new value and throws it away: `{method}` leaves its "
    "input unchanged.":
        "{row}번째 줄: `{text}`에서는 새 값을 계산한 뒤 그냥 버립니다. `{method}` 호출은 입력을 바꾸지 않습니다.",
    "Line {row}: `{text}` computes a new value and throws it away: `{method}` leaves "
    "`{subject}` unchanged.":
        "{row}번째 줄: `{text}`에서는 새 값을 계산한 뒤 그냥 버립니다. `{method}` 호출로는 `{subject}`의 값이 "
        "바뀌지 않습니다.",
}
