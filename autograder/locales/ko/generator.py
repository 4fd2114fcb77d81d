"""Korean of autograder/checks/generator.py: Generator's and Transformer's labels and feedback."""
TRANSLATIONS = {
    "x {shape}, entries of size about {scale:g} (confident logits)":
        "x {shape}, 값의 크기가 약 {scale:g} (확신도가 높은 로짓)",
    "src ({batch}, {l_src}) and tgt ({batch}, {l_tgt}) ids": "src ({batch}, {l_src}), tgt ({batch}, {l_tgt}) 토큰 id",
    ", row 1 of each padded": ", 둘 다 행 1에 패딩 있음",
    ", target ids up to {top}": ", 타깃 id는 {top}까지",
    ", tgt_mask the causal mask (1, L_tgt, L_tgt) alone": ", tgt_mask는 룩어헤드 마스크 (1, L_tgt, L_tgt)뿐",
    ", src_mask (B, 1, 1, L_src) and tgt_mask (B, 1, L_tgt, L_tgt)":
        ", src_mask (B, 1, 1, L_src), tgt_mask (B, 1, L_tgt, L_tgt)",
    "exp of your output should sum to 1 over the vocabulary (the last axis) at every position; at {where} "
    "it sums to {total:.4g}.":
        "출력에 exp를 취하면 모든 위치에서 어휘 축(마지막 축)을 따라 합이 1이어야 하는데, {where}에서는 합이 "
        "{total:.4g}입니다.",
    "With confident logits (scores hundreds apart, as a trained model gives) your output holds "
    "{value} at {where}.":
        "확신도가 높은 로짓(학습된 모델이 내놓듯 점수 차이가 수백)을 넣자 {where}의 출력이 {value}입니다.",
    "Your results are those of a generator that forms the probabilities first and then takes their log: a "
    "probability below ~1e-45 is 0 in float32, and log 0 = -inf. Compute the log-probabilities in one stable "
    "step.":
        "결과가 확률을 먼저 만든 뒤 그 로그를 취하는 생성기의 결과와 같습니다. float32에서 약 1e-45보다 작은 "
        "확률은 0이 되고, log 0 = -inf입니다. 로그 확률을 안정적인 한 단계로 계산하세요.",
    "With the encoder's memory fixed, changing the weights of src_embed changed what decode returns, and "
    "so did changing tgt_embed's: decode must read the target through tgt_embed alone.":
        "인코더의 memory를 고정한 채 src_embed의 가중치를 바꿔도, tgt_embed의 가중치를 바꿔도 decode의 결과가 "
        "바뀌었습니다. decode는 타깃을 tgt_embed로만 읽어야 합니다.",
    "Calling encode and decode on their own raised {error}":
        "encode와 decode를 따로 호출하자 예외가 발생했습니다: {error}",
    "With the encoder's memory fixed, changing the weights of src_embed changed what decode returns: decode "
    "must read the target through tgt_embed.":
        "인코더의 memory를 고정한 채 src_embed의 가중치를 바꿨더니 decode의 결과가 바뀌었습니다. decode는 "
        "타깃을 tgt_embed로 읽어야 합니다.",
    "Changing the weights of tgt_embed does not change what decode returns: decode must read the target "
    "through tgt_embed.":
        "tgt_embed의 가중치를 바꿔도 decode의 결과가 바뀌지 않습니다. decode는 타깃을 tgt_embed로 읽어야 합니다.",
    "Calling encode, decode and generator on their own raised {error}":
        "encode, decode, generator를 따로 호출하자 예외가 발생했습니다: {error}",
    "{call} returns {shape}; it should return {expected}: (B, length, d_model).":
        "{call}의 반환값이 {shape}입니다. {expected}, 즉 (B, length, d_model)이어야 합니다.",
    "{call} differs from the exercise's: {difference}": "{call}의 결과가 과제의 것과 다릅니다. {difference}",
    "forward(src, tgt, src_mask, tgt_mask) should equal generator(decode(encode(src, src_mask), ...)), "
    "and it does not.":
        "forward(src, tgt, src_mask, tgt_mask)는 generator(decode(encode(src, src_mask), ...))와 같아야 하는데, "
        "그렇지 않습니다.",
    "Building a Transformer{init} and calling it raised {error}":
        "Transformer{init} 모델을 만들어 호출하자 예외가 발생했습니다: {error}",
    "Built with dropout=0.0, your model gives other results in training mode than in evaluation mode (by up to "
    "{gap:.3g}): something random acts in it although it was built with dropout=0.0.":
        "dropout=0.0으로 만든 모델이 학습 모드와 평가 모드에서 다른 결과를 냅니다(최대 {gap:.3g}만큼). "
        "dropout=0.0인데도 모델 안에서 무언가 무작위로 작용합니다.",
    "Built with dropout=0.5, your model gives the same results in training mode as in evaluation "
    "mode: nothing in it dropped.":
        "dropout=0.5로 만들었는데 모델이 학습 모드와 평가 모드에서 같은 결과를 냅니다. 모델 안에서 아무것도 "
        "버려지지 않았습니다.",
    "Your results are those of a Transformer in which dropout acts at a rate of its own, 0.1 (the default), "
    "not at the model's `dropout`, where src_embed's or tgt_embed's positional encoding, the encoder or the "
    "decoder drops: every dropout takes the `dropout` argument.":
        "결과가 src_embed나 tgt_embed의 위치 인코딩, 인코더, 디코더가 드롭아웃하는 자리에서 모델의 `dropout`이 "
        "아닌 자기 비율(기본값 0.1)로 드롭아웃하는 Transformer의 결과와 같습니다. 모든 드롭아웃은 `dropout` 인자를 "
        "받아야 합니다.",
    "Building a Transformer{init} raised {error}": "Transformer{init} 모델을 만드는 중에 예외가 발생했습니다: {error}",
    " That standard deviation is also what PyTorch's default start gives this layer ({default:.3g}).":
        " 이 표준편차는 PyTorch의 기본 초기화가 이 레이어에 주는 값({default:.3g})과도 같습니다.",
    "`{name}` starts with values up to {largest:.3g} (standard deviation {spread:.3g}), beyond the "
    "Xavier-uniform bound √(6 / (fan_in + fan_out)) = {bound:.3g}: every weight matrix (2 or more "
    "dimensions) should start Xavier-uniform (nn.init.xavier_uniform_, once all submodules exist).":
        "`{name}`의 초깃값에 Xavier-uniform 경계 √(6 / (fan_in + fan_out)) = {bound:.3g}보다 큰 값(최대 "
        "{largest:.3g}, 표준편차 {spread:.3g})이 있습니다. 모든 가중치 행렬(2차원 이상)은 Xavier-uniform으로 "
        "시작해야 합니다(모든 하위 모듈을 만든 뒤 nn.init.xavier_uniform_).",
    "`{name}` starts with standard deviation {spread:.3g}; Xavier-uniform gives {xavier:.3g}. "
    "Initialise every weight matrix with nn.init.xavier_uniform_, last in __init__, once every "
    "submodule exists.":
        "`{name}`의 초기 표준편차가 {spread:.3g}입니다. Xavier-uniform이라면 {xavier:.3g}입니다. 모든 가중치 "
        "행렬은 __init__의 맨 끝, 모든 하위 모듈을 만든 뒤에 nn.init.xavier_uniform_으로 초기화하세요.",
}
