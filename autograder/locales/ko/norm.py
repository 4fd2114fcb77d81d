"""Korean of autograder/checks/norm.py: LayerNorm's and AddNorm's case labels and feedback."""
TRANSLATIONS = {
    "x (2, 3, 8) whose every position has a variance below eps": "모든 위치의 분산이 eps보다 작은 x (2, 3, 8)",
    "x (2, 3, 8) whose position 1 has a variance below eps": "위치 1의 분산이 eps보다 작은 x (2, 3, 8)",
    "x and sublayer_out, two different (2, 3, 8) tensors": "서로 다른 두 (2, 3, 8) 텐서 x와 sublayer_out",
    "LayerNorm should keep its parameters as self.gamma and self.beta.":
        "LayerNorm은 파라미터를 self.gamma와 self.beta로 가지고 있어야 합니다.",
    "Undoing gamma and beta, the features at {where} should have mean {target:g}; "
    "they have {value:.4g}.":
        "gamma와 beta를 되돌리면 {where}의 특성들은 평균이 {target:g}이어야 하는데, {value:.4g}입니다.",
    "Undoing gamma and beta, the features at {where} should have variance {target:g}; "
    "they have {value:.4g}.":
        "gamma와 beta를 되돌리면 {where}의 특성들은 분산이 {target:g}이어야 하는데, {value:.4g}입니다.",
    "Building a new LayerNorm({d_model}) raised {error}":
        "새 LayerNorm({d_model})을 만드는 중에 예외가 발생했습니다: {error}",
    "A new LayerNorm({d_model}) should start with `gamma` all ones, so that a fresh layer only "
    "normalises; yours starts with gamma[0] = {first:.4g}.":
        "새로 만든 LayerNorm({d_model})은 `gamma`가 모두 1인 상태로 시작해야 합니다. 그래야 갓 만든 레이어는 "
        "정규화만 합니다. 지금은 gamma[0] = {first:.4g}에서 시작합니다.",
    "A new LayerNorm({d_model}) should start with `beta` all zeros, so that a fresh layer only "
    "normalises; yours starts with beta[0] = {first:.4g}.":
        "새로 만든 LayerNorm({d_model})은 `beta`가 모두 0인 상태로 시작해야 합니다. 그래야 갓 만든 레이어는 "
        "정규화만 합니다. 지금은 beta[0] = {first:.4g}에서 시작합니다.",
    "Run with its dropout dropping everything (p=1, training mode), your code raised {error}":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with its dropout dropping everything (p=1, training mode), AddNorm did not return a tensor of "
    "the input's shape.":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 AddNorm이 입력과 같은 shape의 텐서를 "
        "반환하지 않았습니다.",
    "With its dropout set to drop everything (p=1, training mode), AddNorm gives what it gives "
    "without dropout.":
        "드롭아웃이 모든 값을 버리도록 설정해도(p=1, 학습 모드) AddNorm의 결과가 드롭아웃이 없을 때와 같습니다.",
    "With its dropout set to drop everything (p=1, training mode), AddNorm(x, sublayer_out) "
    "should equal AddNorm(x, 0), since only the sublayer's output goes through dropout; it "
    "differs by up to {gap:.3g}.":
        "드롭아웃이 모든 값을 버리도록 설정하면(p=1, 학습 모드) 드롭아웃을 거치는 것은 서브레이어의 출력뿐이므로 "
        "AddNorm(x, sublayer_out)은 AddNorm(x, 0)과 같아야 합니다. 그런데 최대 {gap:.3g}만큼 차이가 납니다.",
    "The `dropout` submodule is never applied. It belongs on sublayer_out, before the add.":
        "`dropout` 하위 모듈이 한 번도 적용되지 않습니다. 드롭아웃은 더하기 전에 sublayer_out에 적용해야 합니다.",
    "Your results are those of an AddNorm whose dropout is applied to another term than sublayer_out (x, the "
    "sum, or the norm's output): it belongs on sublayer_out alone, before the add.":
        "결과가 드롭아웃을 sublayer_out이 아닌 다른 항(x, 합, 또는 정규화의 출력)에 적용하는 AddNorm의 결과와 "
        "같습니다. 드롭아웃은 더하기 전에 sublayer_out에만 적용해야 합니다.",
    "Building LayerNorm({d_model}, eps={eps}) and calling it raised {error}":
        "LayerNorm({d_model}, eps={eps})를 만들어 호출하자 오류가 났습니다: {error}",
    "A new LayerNorm({d_model}, eps={eps}) gives the same results as LayerNorm({d_model}) (eps=1e-5): "
    "the `eps` argument has no effect. Keep it in __init__ (self.eps = eps) and use self.eps in forward.":
        "새로 만든 LayerNorm({d_model}, eps={eps})의 결과가 LayerNorm({d_model})(eps=1e-5)의 결과와 같습니다. "
        "`eps` 인자가 아무 효과도 없습니다. __init__에서 저장하고(self.eps = eps) forward에서 self.eps를 쓰세요.",
    "A new LayerNorm({d_model}, eps={eps}) gives other results than the exercise's: {difference}":
        "새로 만든 LayerNorm({d_model}, eps={eps})의 결과가 과제의 결과와 다릅니다: {difference}",
}
