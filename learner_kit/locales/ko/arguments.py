"""Korean: the sentences of learner_kit/arguments.py."""

TRANSLATIONS = {
    "Built as {call}, with dropout={rate}, your {unit}'s only part that drops gets another rate: {parts}. "
    "The `dropout` argument does not reach it, so the module would train with a rate it was not given. "
    "Pass `dropout` on to the part that takes it.":
        "{call}, 곧 dropout={rate} 값으로 만들었는데, 작성한 {unit}에서 드롭아웃을 하는 유일한 부분의 비율이 "
        "다릅니다: {parts}. `dropout` 인자가 그 부분까지 전달되지 않아, 모듈이 받지 않은 비율로 학습하게 됩니다. "
        "`dropout`을 받는 부분에 그 값을 넘겨 주세요.",
    "Built as {call}, with dropout={rate}, every part of your {unit} that drops gets another rate: {parts}. "
    "The `dropout` argument does not reach them, so the module would train with a rate it was not given. "
    "Pass `dropout` on to each part that takes it.":
        "{call}, 곧 dropout={rate} 값으로 만들었는데, 작성한 {unit}에서 드롭아웃을 하는 모든 부분의 비율이 "
        "다릅니다: {parts}. `dropout` 인자가 그 부분들까지 전달되지 않아, 모듈이 받지 않은 비율로 학습하게 됩니다. "
        "`dropout`을 받는 각 부분에 그 값을 넘겨 주세요.",
    "Built as {call}, with dropout={rate}, some parts of your {unit} get another rate: {parts}. The `dropout` "
    "argument does not reach them, so they would train with a rate the module was not given. Pass `dropout` "
    "on to each part that takes it.":
        "{call}, 곧 dropout={rate} 값으로 만들었는데, 작성한 {unit}의 일부 부분은 비율이 다릅니다: {parts}. "
        "`dropout` 인자가 그 부분들까지 전달되지 않아, 모듈이 받지 않은 비율로 학습하게 됩니다. `dropout`을 받는 "
        "각 부분에 그 값을 넘겨 주세요.",
    "built with dropout={given}": "dropout={given} 값으로 만들어짐",
}
