"""Korean: the sentences of the modules split from learner_kit/harness.py: calls, weights, verdicts, naming, learner_errors, wording."""

TRANSLATIONS = {
    # where in a tensor: " at batch 0, head 1, query 2, key 3"
    " at {position}": " ({position})",
    " at index ({index})": " (인덱스 {index})",
    "axis {number}": "축 {number}",
    "batch": "배치",
    "head": "헤드",
    "query": "쿼리",
    "key": "키",
    "position": "위치",
    "feature": "특성",
    "word": "단어",
    "{first} and {second}": "{first}, {second}",
    # the unit is not the kind of object the exercise asks for
    "`{name}` is not defined: did its cell run to the end?":
        "`{name}`: 정의되어 있지 않습니다. 이 이름을 정의하는 셀이 끝까지 실행되었나요?",
    "`{name}` is None.": "`{name}`의 값이 None입니다.",
    "`{name}` should be a class derived from nn.Module (the class itself, not an instance); got a class.":
        "`{name}`: nn.Module을 상속한 클래스(인스턴스가 아닌 클래스 자체)여야 하는데, nn.Module을 상속하지 않은 "
        "클래스입니다.",
    "`{name}` should be a class derived from nn.Module (the class itself, not an instance); got a {kind}.":
        "`{name}`: nn.Module을 상속한 클래스(인스턴스가 아닌 클래스 자체)여야 하는데, {kind} 타입의 값입니다.",
    "`{name}` should be a function; got a class.": "`{name}`: 함수여야 하는데 클래스입니다.",
    "`{name}` should be a function; got a {kind}.": "`{name}`: 함수여야 하는데 {kind} 타입의 값입니다.",
    # parameters that do not fit the exercise's
    "Parameter names differ from the exercise's.": "파라미터 이름이 과제와 다릅니다.",
    "Missing: {names}.": "여러분의 모듈에 없는 것: {names}.",
    "Not in the exercise: {names}.": "과제에는 없는 것: {names}.",
    "`{key}` has shape {shape}, expected {expected}.":
        "`{key}`의 shape이 {shape}입니다. 올바른 shape은 {expected}입니다.",
    "{names} is a plain tensor, so PyTorch does not count it as a parameter (never trained or saved): "
    "wrap it in nn.Parameter.":
        "{names}: 평범한 텐서여서 PyTorch가 파라미터로 치지 않습니다(학습되지도, 저장되지도 않습니다). "
        "nn.Parameter로 감싸세요.",
    "{names} are plain tensors, so PyTorch does not count them as parameters (never trained or saved): "
    "wrap each in nn.Parameter.":
        "{names}: 평범한 텐서여서 PyTorch가 파라미터로 치지 않습니다(학습되지도, 저장되지도 않습니다). "
        "각각 nn.Parameter로 감싸세요.",
    "`{name}` is a Python {kind}: PyTorch does not see the modules inside a plain {kind} (their parameters "
    "are never trained, moved or saved): hold them in an {container}.":
        "`{name}`: 파이썬 {kind}입니다. PyTorch는 평범한 {kind} 안에 든 모듈을 보지 못합니다(그 파라미터는 "
        "학습되지도, 옮겨지지도, 저장되지도 않습니다). 모듈들을 {container}에 담으세요.",
    "`{owner}` is your own `{klass}` class (parameters {mine}); the exercise builds `{owner}` from PyTorch's "
    "`nn.{klass}` (parameters {theirs}): use `nn.{klass}` here, as the exercise says.":
        "`{owner}`: 직접 만든 `{klass}` 클래스입니다(파라미터 {mine}). 과제에서는 이 자리에 PyTorch의 "
        "`nn.{klass}` 클래스(파라미터 {theirs})를 씁니다. 과제에 적힌 대로 여기서는 `nn.{klass}` 클래스를 쓰세요.",
    # results missing or of the wrong kind
    "It returned None: is a `return` missing?": "None을 반환했습니다. `return`이 빠지지 않았나요?",
    "It returned {count} values; the exercise asks for {wanted}: ({names}).":
        "값 {count}개를 반환했습니다. 과제에서 반환할 값은 {wanted}개({names})입니다.",
    "It returned a {kind}; the exercise asks for {wanted}: ({names}).":
        "{kind} 타입의 값 하나를 반환했습니다. 과제에서 반환할 값은 {wanted}개({names})입니다.",
    "After forward, self.{attribute} is not set: the exercise asks you to keep it there.":
        "forward를 실행한 뒤에도 self.{attribute} 속성이 설정되어 있지 않습니다. 과제에서는 이 값을 그 속성에 "
        "보관해야 합니다.",
    "`{name}` is a {kind}, not a tensor.": "`{name}`의 타입이 텐서가 아니라 {kind}입니다.",
    # what differs
    "`{name}` was changed by the call.": "`{name}`의 값이 호출하는 동안 바뀌었습니다.",
    "`{name}` has shape {shape}, expected {expected}.":
        "`{name}`의 shape이 {shape}입니다. 올바른 shape은 {expected}입니다.",
    "`{name}` has dtype {dtype}, expected {expected}.":
        "`{name}`의 dtype이 {dtype}입니다. 올바른 dtype은 {expected}입니다.",
    "`{name}` holds NaN{where}.": "`{name}`에 NaN이 있습니다{where}.",
    " The case has a mask: look at what your code does with blocked positions.":
        " 이 입력에는 마스크가 있습니다. 가려진 위치를 코드가 어떻게 처리하는지 살펴보세요.",
    " It comes with the mistake named above: fix that first.":
        " 위에서 짚은 실수 때문에 생긴 것이니, 그 실수부터 고치세요.",
    "`{name}`: {count} of {total} entries differ, the first{where}.":
        "`{name}`: 원소 {total}개 중 {count}개가 다릅니다. 첫 번째로 다른 곳{where}.",
    "`{name}` is {value:.5g}, expected {expected:.5g} (a difference of {gap:.3g}).":
        "`{name}`의 값이 {value:.5g}입니다. 올바른 값은 {expected:.5g}입니다(차이 {gap:.3g}).",
    "`{name}`: max abs difference {gap:.3g}{where}.": "`{name}`: 최대 절대 차이 {gap:.3g}{where}.",
    " A gap this small is the size of float32 precision: if a constant or tensor inside your code is made in "
    "float32, make it in the inputs' dtype or use a Python number.":
        " 이 정도로 작은 차이는 float32 정밀도의 크기입니다. 코드 안의 상수나 텐서를 float32로 만들었다면, 입력과 "
        "같은 dtype으로 만들거나 파이썬 숫자를 쓰세요.",
    "the results do not depend on the inputs through autograd: no gradient flows back from them":
        "결과가 autograd를 통해 입력과 이어져 있지 않습니다. 결과에서 거꾸로 흐르는 기울기가 없습니다.",
    # properties every right answer has
    "Each row of `{name}` should sum to 1 over the keys; the row{where} sums to {total:.4g}.":
        "`{name}`의 각 행은 키 방향으로 합이 1이어야 하는데, 합이 {total:.4g}인 행이 있습니다{where}.",
    "A blocked key (mask False) gets weight {weight:.3g}{where}, not exactly 0: after the softmax, blocked "
    "keys must have no weight at all.":
        "가려진 키(mask가 False인 키)의 가중치가 정확히 0이 아니라 {weight:.3g}입니다{where}. 소프트맥스를 거친 "
        "뒤에는 가려진 키의 가중치가 완전히 0이어야 합니다.",
    # an error the learner's code raised
    "{error_type} (with no message)": "{error_type} (메시지 없음)",
    "line {number} of your cell, `{code}`": "셀의 {number}번째 줄, `{code}`",
    "line {number} of your cell": "셀의 {number}번째 줄",
    "Your own code raised it, at {line}: was that input really wrong?":
        "여러분의 코드가 직접 일으킨 오류입니다({line}). 그 입력이 정말 잘못된 입력이었나요?",
    "Raised at {line}.": "발생 위치: {line}.",
    "Hint: {hint}": "힌트: {hint}",
    "`{owner}` is a tensor parameter of your module; in the exercise `{owner}` is a submodule with the parameters "
    "{theirs}: build it as the module the exercise names, and call it.":
        "`{owner}`가 모듈의 텐서 파라미터입니다. 과제에서 `{owner}`는 파라미터 {theirs}를 가진 하위 모듈입니다. "
        "과제가 말하는 모듈로 만들고, 그 모듈을 호출하세요.",
}
