"""Korean of autograder/checks/train.py: the labels and feedback of LabelSmoothingLoss, make_batch, noam_rate and
greedy_decode."""
TRANSLATIONS = {
    "log_probs ({rows}, vocab {vocab}), targets with padding in rows {first} and {second}":
        "log_probs ({rows}, vocab {vocab}), 행 {first}, {second}의 타깃이 패딩",
    "log_probs ({rows}, vocab {vocab}), no padding": "log_probs ({rows}, vocab {vocab}), 패딩 없음",
    ", in float64": ", float64",
    "✓ {unit}: {aspect} passed": "✓ {unit}: {aspect} 통과",
    "src (2, 4) and tgt (2, 6), padded with 0": "src (2, 4), tgt (2, 6), 0으로 패딩",
    "src (3, 5) and tgt (3, 5) padded with pad_idx=3 (0 is an ordinary token there)":
        "src (3, 5), tgt (3, 5), pad_idx=3으로 패딩 (여기서는 0이 일반 토큰)",
    "src (1, 5) and tgt (1, 8), padded with 0": "src (1, 5), tgt (1, 8), 0으로 패딩",
    "src (2, 3) and tgt (2, 5) padded with pad_idx=2": "src (2, 3), tgt (2, 5), pad_idx=2로 패딩",
    "{case}: make_batch returned a {kind}, not a dict.": "{case}: make_batch의 반환값이 dict가 아니라 {kind}입니다.",
    "{case}: the dict has no key {keys}.": "{case}: dict에 다음 키가 없습니다: {keys}.",
    "{case}: `{key}` is a {kind}, not a tensor.": "{case}: `{key}`의 타입이 텐서가 아니라 {kind}입니다.",
    "{case}: `{key}` has shape {shape} and dtype {dtype}, expected {expected_shape} and "
    "{expected_dtype}.":
        "{case}: `{key}`의 shape은 {shape}, dtype은 {dtype}입니다. 올바른 shape은 {expected_shape}, "
        "dtype은 {expected_dtype}입니다.",
    "{case}: `n_tokens` is a {kind}; the exercise asks for a Python int "
    "(int(...) of a 0-dim tensor gives one).":
        "{case}: `n_tokens`의 타입이 {kind}입니다. 과제에서는 Python int여야 합니다(0차원 텐서에 int(...)를 "
        "쓰면 됩니다).",
    "{case}: `n_tokens` is {n_tokens}, expected {expected}: count the tokens the loss "
    "is computed on (tgt_out), leaving out padding.":
        "{case}: `n_tokens`의 값이 {n_tokens}인데, 올바른 값은 {expected}입니다. 손실을 계산하는 토큰(tgt_out)을 "
        "세되, 패딩은 빼야 합니다.",
    "{case} returned a {kind}, not a number.": "{case}의 반환값이 숫자가 아니라 {kind}입니다.",
    "{case} is {value:.6g}, expected {expected:.6g}.": "{case}의 값이 {value:.6g}인데, 올바른 값은 {expected:.6g}입니다.",
    "Your rates are the larger of the two terms at every step: the schedule takes the smaller one, so "
    "that it rises during the warm-up and decays after it.":
        "작성한 코드의 학습률은 매 스텝에서 두 항 중 큰 쪽입니다. 스케줄은 작은 쪽을 택해야 워밍업 동안 올라가고 "
        "그 뒤로 줄어듭니다.",
    "Your rates are d_model times too large: the scale is d_model ** -0.5 (larger models get smaller "
    "rates).":
        "작성한 코드의 학습률이 d_model배만큼 큽니다. 배율은 d_model ** -0.5입니다(모델이 클수록 학습률이 "
        "작아집니다).",
    "{case} raised {error}\nStep 0 must be treated as step 1.":
        "{case}에서 예외가 발생했습니다: {error}\n스텝 0은 스텝 1로 취급해야 합니다.",
    "With d_model={d_model} and warmup={warmup}, noam_rate(0, ...) and "
    "noam_rate(1, ...) should both be the rate of step 1, {first:.6g} "
    "(step 0 is treated as step 1); yours are {at_0:.6g} and {at_1:.6g}.":
        "d_model={d_model}, warmup={warmup}일 때 noam_rate(0, ...)과 noam_rate(1, ...)은 둘 다 스텝 1의 학습률 "
        "{first:.6g}이어야 합니다(스텝 0은 스텝 1로 취급합니다). 여러분의 값은 각각 {at_0:.6g}, {at_1:.6g}입니다.",
    "{case} returned a tensor of shape {shape}, not a Python number: noam_rate returns a Python float. "
    "Compute it with Python numbers (step, d_model, warmup and factor are all Python numbers), not "
    "tensors.":
        "{case}의 반환값이 파이썬 숫자가 아니라 shape {shape}인 텐서입니다. noam_rate는 파이썬 float를 반환합니다. "
        "텐서가 아니라 파이썬 숫자로 계산하세요(step, d_model, warmup, factor는 모두 파이썬 숫자입니다).",
    "With d_model={d_model} and warmup={warmup} the largest rate should be at step {warmup} "
    "(the end of the warm-up); yours peaks at step {peak}.":
        "d_model={d_model}, warmup={warmup}일 때 학습률은 스텝 {warmup}(워밍업이 끝나는 지점)에서 가장 커야 하는데, "
        "작성한 코드는 스텝 {peak}에서 가장 큽니다.",
    "{case} is {value:.6g}; it should be 3 times the rate with factor=1.0, {expected:.6g}: factor multiplies "
    "the whole schedule.":
        "{case}의 값이 {value:.6g}입니다. factor=1.0일 때의 3배인 {expected:.6g}이어야 합니다. factor는 스케줄 "
        "전체에 곱해집니다.",
    "a stand-in model, src ({batch}, {src_len}) with padding, max_len={max_len}, bos_idx={bos}":
        "테스트용 대역 모델, 패딩이 있는 src ({batch}, {src_len}), max_len={max_len}, bos_idx={bos}",
    "a stand-in model, max_len=1: only the start token": "테스트용 대역 모델, max_len=1: 시작 토큰만",
    "{case}: greedy_decode returned a {kind}, not a tensor.":
        "{case}: greedy_decode의 반환값이 텐서가 아니라 {kind}입니다.",
    "{case}: the result has shape {shape} and dtype {dtype}, expected a LongTensor ({rows}, "
    "<= {max_len}).":
        "{case}: 결과의 shape은 {shape}, dtype은 {dtype}입니다. 결과는 shape이 ({rows}, <= {max_len})인 LongTensor여야 합니다.",
    "{case}: the result has {count} tokens per row, more than max_len={max_len}.":
        "{case}: 결과의 행마다 토큰이 {count}개로, max_len={max_len}보다 많습니다.",
    "{case}: row {row} stops after {count} tokens, before producing eos_idx (expected "
    "at position {position}).":
        "{case}: 행 {row}의 생성이 토큰 {count}개에서 멈췄습니다. eos_idx(위치 {position}에 나와야 함)가 나오기 "
        "전입니다.",
    "{case}: row {row} stops after {count} tokens, before producing max_len={max_len} "
    "tokens.":
        "{case}: 행 {row}의 생성이 토큰 {count}개에서 멈췄습니다. 토큰을 max_len={max_len}개까지 만들어야 합니다.",
    "{case}: row {row} differs from position {position} on: got {got}, expected "
    "{expected}.":
        "{case}: 행 {row}의 토큰이 위치 {position}부터 다릅니다. 나온 토큰 {got}, 올바른 토큰 {expected}.",
    "{case}: the source was encoded {count} times; encode it once, "
    "before the loop: the memory does not change while decoding.":
        "{case}: 소스를 {count}번 인코딩했습니다. memory는 디코딩하는 동안 변하지 않으므로, 루프 전에 한 번만 "
        "인코딩하세요.",
    ", on the meta device": ", meta 장치에서",
    "With the model and every input on the 'meta' device: {error}":
        "모델과 모든 입력을 'meta' 장치에 두었을 때: {error}",
    "With the model and every input on the 'meta' device, the result comes back "
    "on another device.":
        "모델과 모든 입력을 'meta' 장치에 두었는데, 결과가 다른 장치에 있습니다.",
    "Each step decodes only the newest token: the decoder must read everything produced so far, the "
    "start token included.":
        "각 스텝에서 가장 최근 토큰만 디코딩하고 있습니다. 디코더는 시작 토큰을 포함해 지금까지 만든 토큰 전부를 "
        "읽어야 합니다.",
    "The tokens are what the decoder predicts at its first position: the next token comes from the "
    "last position, the one that read the newest token.":
        "토큰을 디코더의 첫 위치 예측에서 가져오고 있습니다. 다음 토큰은 가장 최근 토큰을 읽은 마지막 위치에서 "
        "나와야 합니다.",
    "The tokens are the argmax of the decoder's output itself: that output is a vector of d_model "
    "features; the generator turns it into log-probabilities over the vocabulary.":
        "토큰을 디코더 출력 자체의 argmax로 고르고 있습니다. 그 출력은 특성 d_model개짜리 벡터일 뿐이고, "
        "어휘 전체에 대한 로그 확률로 바꾸는 것은 제너레이터입니다.",
}
