"""Korean of autograder/checks/core.py: the pass line, and the dropout, device and gradient feedback."""
TRANSLATIONS = {
    "✓ {unit}: {aspect} passed": "✓ {unit}: {aspect} 통과",
    "With every input on the '{device}' device: {error}": "모든 입력을 '{device}' 장치에 두었을 때: {error}",
    "With every input on the '{device}' device, `{name}` comes back on another device.":
        "모든 입력을 '{device}' 장치에 두었는데, 반환된 `{name}`의 장치가 다릅니다.",
    "Backpropagating through your code failed: {failure}": "작성한 코드를 거쳐 역전파하지 못했습니다: {failure}",
    "No gradient reaches the parameter `{name}`.": "파라미터 `{name}`까지 기울기가 전달되지 않습니다.",
    "No gradient reaches the input `{name}`.": "입력 `{name}`까지 기울기가 전달되지 않습니다.",
    "The gradient of the parameter {difference}": "파라미터의 기울기가 다릅니다. {difference}",
    "The gradient of the input {difference}": "입력의 기울기가 다릅니다. {difference}",
    "On new inputs of the same shapes (the grader's own, not the notebook's): {message}":
        "같은 shape의 새 입력(노트북의 입력이 아니라 채점기의 입력)에서: {message}",
    "With a dropout module, the output must be the weights, each dropped (0) or scaled by 1/(1 - p), times the "
    "values; at {where} it is neither.":
        "드롭아웃 모듈이 있으면 출력은 '각각 버려지거나(0) 1/(1 - p)배로 커진 가중치'와 밸류의 곱이어야 합니다. 그런데 {where}에서는 둘 다 아닙니다.",
    "With a dropout module in training mode, no weight was dropped.":
        "학습 모드의 드롭아웃 모듈을 주었는데 버려진 가중치가 하나도 없습니다.",
    "Your results are those of an attention that applies the dropout module to the weights twice: apply it once, to "
    "the weights, before they multiply the values.":
        "결과가 드롭아웃 모듈을 가중치에 두 번 적용하는 어텐션의 결과와 같습니다. 드롭아웃은 가중치가 밸류와 곱해지기 전에 가중치에 한 번만 적용하세요.",
    "Your results are those of an attention whose dropout acts on another tensor than the weights (the values, or "
    "the output): apply it to the weights, before they multiply the values.":
        "결과가 드롭아웃을 가중치가 아닌 다른 텐서(밸류나 출력)에 적용하는 어텐션의 결과와 같습니다. 드롭아웃은 가중치가 밸류와 곱해지기 전에 가중치에 적용하세요.",
    "Your results are those of an attention that never applies the dropout module it is given: apply it to the "
    "weights, before they multiply the values.":
        "결과가 받은 드롭아웃 모듈을 한 번도 적용하지 않는 어텐션의 결과와 같습니다. 드롭아웃은 가중치가 밸류와 곱해지기 전에 가중치에 적용하세요.",
}
