"""Korean: the sentences of learner_kit/locate.py (where a learner's computation parts from the reference's)."""

TRANSLATIONS = {
    "Where it parts from the reference:": "기준 구현과 갈라지는 곳:",
    "Your own {step} gets the same input but is called with the arguments {args}; the reference's with {wanted}.":
        "여러분의 {step}은(는) 같은 입력을 받지만 인자가 {args}입니다. 기준 구현의 인자는 {wanted}입니다.",
    "Your own {step} gets, as its input number {number}, {relation}.":
        "여러분의 {step}이(가) {number}번째 입력으로 받는 값은 {relation}입니다.",
    "`{name}` and `{other}` are one and the same module in your code; the reference has two separate ones.":
        "여러분의 코드에서 `{name}`과(와) `{other}`는 같은 모듈 하나입니다. 기준 구현에서는 서로 다른 두 모듈입니다.",
    "`{name}` gets the same arguments as in the reference but returns other values: look at how it is built, "
    "or what it is.":
        "`{name}`은(는) 기준 구현과 같은 인자를 받지만 다른 값을 돌려줍니다. 이 모듈을 어떻게 만들었는지, "
        "무엇인지 살펴보세요.",
    "`{name}` is called with {what} as `{parameter}`; {should}":
        "`{name}`의 `{parameter}` 인자로 {what}이(가) 들어갑니다. {should}",
    "`{name}`": "`{name}`",
    "a tensor of shape {shape} (the reference's has shape {wanted})":
        "shape이 {shape}인 텐서(기준 구현에서는 {wanted})",
    "addition": "덧셈",
    "comparison": "비교",
    "cosine": "코사인",
    "division": "나눗셈",
    "embedding lookup": "임베딩 조회",
    "exponential": "지수 함수",
    "its {step}": "기준 구현의 {step}",
    "log-softmax": "로그 소프트맥스",
    "logarithm": "로그",
    "logical AND": "논리곱(AND)",
    "logical NOT": "논리 부정(NOT)",
    "masked_fill": "masked_fill",
    "matrix product": "행렬 곱",
    "maximum": "최댓값",
    "mean": "평균",
    "multiplication": "곱셈",
    "negation": "부호 반전",
    "nothing (None)": "아무것도 아닌 값(None)",
    "other values than the reference's": "기준 구현과 다른 값",
    "power": "거듭제곱",
    "reciprocal": "역수",
    "indexing": "인덱싱",
    "concatenation": "이어 붙이기(cat)",
    "stack": "쌓기(stack)",
    "the error is raised before your code computes anything.":
        "오류는 여러분의 코드가 아무것도 계산하기 전에 일어납니다.",
    "the error is raised after {count} steps of your code (operators or submodule calls) that each give values the reference's computation also has.":
        "오류는 여러분의 코드가 {count}개 단계(연산 또는 하위 모듈 호출)를 거친 뒤에 일어나며, 그 단계들은 모두 기준 구현의 계산에도 있는 값을 냅니다.",
    "your `{name}` holds the values of an earlier {step} of the reference's, not its final `{name}`.":
        "여러분의 `{name}`에는 최종 `{name}`이 아니라 기준 구현의 더 이른 {step} 값이 들어 있습니다.",
    "reciprocal square root": "제곱근의 역수",
    "relu": "relu",
    "sine": "사인",
    "softmax": "소프트맥스",
    "square root": "제곱근",
    "standard deviation": "표준편차",
    "subtraction": "뺄셈",
    "sum": "합",
    "tanh": "tanh",
    "the opposite of what the reference passes (every True is False)":
        "기준 구현이 넘기는 값의 반대(True와 False가 모두 뒤바뀜)",
    "the output of `{name}`": "`{name}`의 출력",
    "the reciprocal of the reference's": "기준 구현 값의 역수",
    "the reference passes another tensor there.": "기준 구현은 그 자리에 다른 텐서를 넘깁니다.",
    "the reference passes nothing (None) there.": "기준 구현은 그 자리에 아무것도 넘기지 않습니다(None).",
    "the reference passes that plus {words}.": "기준 구현은 그 값에 {words}을(를) 더해서 넘깁니다.",
    "the reference passes {words}.": "기준 구현은 {words}을(를) 넘깁니다.",
    "the reference's times {scale:.4g}": "기준 구현 값의 {scale:.4g}배",
    "the reference's {step} of {values} (shape {shape}) gives values that appear nowhere in your computation.":
        "기준 구현이 {values}에 적용하는 {step}(shape {shape})의 값이 여러분의 계산 어디에도 나타나지 않습니다.",
    "the reference's {step} of {values} gives a number that appears nowhere in your computation.":
        "기준 구현이 {values}에 적용하는 {step}의 값(수 하나)이 여러분의 계산 어디에도 나타나지 않습니다.",
    "the square of the reference's": "기준 구현 값의 제곱",
    "the square root of the reference's": "기준 구현 값의 제곱근",
    "torch.where": "torch.where",
    "tril": "tril",
    "triu": "triu",
    "variance": "분산",
    "what the reference passes less {words} (that term is missing)":
        "기준 구현이 넘기는 값에서 {words}을(를) 뺀 값(그 항이 빠졌습니다)",
    "what the reference passes plus {words} (a term too many)":
        "기준 구현이 넘기는 값에 {words}을(를) 더한 값(항이 하나 더 있습니다)",
    "your `{name}` holds the values of the reference's {step}, not its final `{name}`.":
        "여러분의 `{name}`에는 최종 `{name}`이 아니라 기준 구현의 {step} 결과가 들어 있습니다.",
    "your `{name}` holds the values the reference returns as `{other}`.":
        "여러분의 `{name}`에는 기준 구현이 `{other}`(으)로 돌려주는 값이 들어 있습니다.",
    "your code calls `{name}` more times ({made}) than the reference ({wanted}).":
        "여러분의 코드는 `{name}`을(를) 기준 구현({wanted}번)보다 많이({made}번) 부릅니다.",
    "your code calls `{name}` fewer times ({made}) than the reference ({wanted}).":
        "여러분의 코드는 `{name}`을(를) 기준 구현({wanted}번)보다 적게({made}번) 부릅니다.",
    "your code never calls `{name}`; the reference calls it.":
        "여러분의 코드는 `{name}`을(를) 한 번도 부르지 않습니다. 기준 구현은 부릅니다.",
    "{kind} over axis {axis}": "축 {axis}에 대한 {kind}",
}
TRANSLATIONS.update({
    "the reference's numbers in another arrangement (shape {shape})":
        "기준 구현과 같은 수들을 다른 순서로 늘어놓은 값(shape {shape})",
    "your `{name}` holds the reference's numbers, but in another arrangement: look at the order of the axes "
    "(a transpose, a view, a reshape).":
        "여러분의 `{name}`에는 기준 구현과 같은 수들이 들어 있지만 놓인 순서가 다릅니다. 축의 순서를 살펴보세요"
        "(transpose, view, reshape).",
})
TRANSLATIONS.update({
    "the error comes from your {step}, given {values}.": "오류는 여러분의 {step}에서 납니다. 받은 값: {values}.",
    "The reference's {step} at that point gets tensors of shapes {shapes}.":
        "기준 구현의 같은 자리의 {step}은(는) shape이 {shapes}인 텐서를 받습니다.",
    "{words} (shape {shape})": "{words}(shape {shape})",
    "the same {step} as the reference's (shape {shape})": "기준 구현과 같은 {step} 결과(shape {shape})",
    "{words} rearranged (shape {shape})": "순서를 바꿔 늘어놓은 {words}(shape {shape})",
    "a tensor of shape {shape}": "shape이 {shape}인 텐서",
})
TRANSLATIONS.update({
    "the error comes from your call of `{name}`, given {values}.":
        "오류는 여러분의 `{name}` 호출에서 납니다. 받은 값: {values}.",
    "The reference calls it there with tensors of shapes {shapes}.":
        "기준 구현은 그 자리에서 shape이 {shapes}인 텐서로 부릅니다.",
})
TRANSLATIONS.update({
    "a tensor it makes with `{name}`": "`{name}`(으)로 새로 만든 텐서",
})
TRANSLATIONS.update({"a number": "수 하나"})
TRANSLATIONS.update({
    "what the reference passes, with {other} where it adds {words}":
        "기준 구현이 넘기는 값에서 {words} 대신 {other}을(를) 더한 값",
})
TRANSLATIONS.update({
    "`{name}` gets, as `{parameter}`, {what}.": "`{name}`의 `{parameter}` 인자로 들어가는 값은 {what}입니다.",
})
TRANSLATIONS.update({
    "your `{name}` holds the reference's numbers in the reference's order, but in shape {shape}: look at the sizes "
    "your view or reshape is given.":
        "여러분의 `{name}`에는 기준 구현과 같은 수들이 같은 순서로 들어 있지만 shape이 {shape}입니다. view나 reshape에 "
        "주는 크기를 살펴보세요.",
    "the reference's numbers in the reference's order, in shape {shape}":
        "기준 구현과 같은 수들을 같은 순서로 담은 shape {shape}의 값",
})
TRANSLATIONS.update({"a part or view of {words}": "{words}의 일부나 뷰(view)"})
TRANSLATIONS.update({"your `{name}` is {words}, unchanged.": "여러분의 `{name}`은(는) {words} 그대로입니다."})
TRANSLATIONS.update({
    "the error is raised after {count} steps of your code that only rearrange or view the values it was given, "
    "before it computes any new value.":
        "오류는 여러분의 코드가 받은 값을 재배열하거나 뷰(view)로 보기만 하는 단계 {count}개를 거친 뒤, 새 값을 "
        "하나도 계산하기 전에 일어납니다.",
    "the error comes from your call of `{name}`.": "오류는 여러분의 `{name}` 호출에서 납니다.",
    "the error is raised after one step of your code that only rearranges or views the values it was given, "
    "before it computes any new value.":
        "오류는 여러분의 코드가 받은 값을 재배열하거나 뷰(view)로 보기만 하는 단계 하나를 거친 뒤, 새 값을 "
        "하나도 계산하기 전에 일어납니다.",
})
TRANSLATIONS.update({  # issue 48: the reference's steps named as the exercise names them (learner_kit/steps.py)
    "the error comes from your {step}, which was given no tensor.":
        "오류는 여러분의 {step}에서 납니다. 이 연산은 텐서를 하나도 받지 않았습니다.",
    "In the exercise, that step gets tensors of shapes {shapes} and gives {label}.":
        "과제에서는 그 자리에서 shape이 {shapes}인 텐서로 {label}을(를) 계산합니다.",
    "values of shape {shape} equal to {label}": "{label}과(와) 같은 값(shape {shape})",
    "no number in your computation equals {label}; the exercise computes that step from {values}.":
        "여러분의 계산 어디에도 {label}과(와) 같은 수가 없습니다. 과제에서는 이 단계를 {values}에서 계산합니다.",
    "no number in your computation equals {label}.": "여러분의 계산 어디에도 {label}과(와) 같은 수가 없습니다.",
    "no value of shape {shape} in your computation equals {label}; the exercise computes that step from {values}.":
        "여러분의 계산 어디에도 {label}과(와) 같은 값(shape {shape})이 없습니다. 과제에서는 이 단계를 {values}에서 "
        "계산합니다.",
    "no value of shape {shape} in your computation equals {label}.":
        "여러분의 계산 어디에도 {label}과(와) 같은 값(shape {shape})이 없습니다.",
    "Your own {step} gets the same input but is called with the arguments {args}; the reference's with its tensors "
    "only.":
        "여러분의 {step}은(는) 같은 입력을 받지만 인자 {args}도 함께 받습니다. 기준 구현은 텐서만 넘깁니다.",
    "Your own {step} gets the same input, with its tensors only; the reference's is also called with the arguments "
    "{wanted}.":
        "여러분의 {step}은(는) 같은 입력을 텐서만으로 받습니다. 기준 구현은 인자 {wanted}도 함께 넘깁니다.",
    "your `{name}` holds the values of {label}, not the final `{name}`.":
        "여러분의 `{name}`에는 최종 `{name}`이(가) 아니라 {label}의 값이 들어 있습니다.",
    "the exercise passes {label} there, which is that plus {words}.":
        "과제에서는 그 자리에 {label}, 곧 여러분이 넘긴 값에 {words}을(를) 더한 값을 넘깁니다.",
    "the exercise passes {label} there.": "과제에서는 그 자리에 {label}을(를) 넘깁니다.",
})
