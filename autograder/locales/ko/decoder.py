"""Korean of autograder/checks/decoder.py: DecoderLayer's and Decoder's labels and feedback."""
TRANSLATIONS = {
    "{shapes}, a source padding mask (B, 1, 1, L_src) with {src_first} and {src_second} real "
    "tokens, a causal target mask (B, 1, L_tgt, L_tgt) with {tgt_first} and {tgt_second}":
        "{shapes}, 실제 토큰이 {src_first}개와 {src_second}개인 소스 패딩 마스크 (B, 1, 1, L_src), 실제 토큰이 "
        "{tgt_first}개와 {tgt_second}개인 룩어헤드 타깃 마스크 (B, 1, L_tgt, L_tgt)",
    "{shapes}, masks of shape (B, 1, L_tgt, L_src) and (B, 1, L_tgt, L_tgt) blocking scattered keys":
        "{shapes}, 여기저기 흩어진 키를 가리는 마스크 (B, 1, L_tgt, L_src)와 (B, 1, L_tgt, L_tgt)",
    "{shapes}, no masks": "{shapes}, 마스크 없음",
    "Run again after {change}, your code raised {error}": "{change} 다시 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run again after {change}, your code returned something of another shape.":
        "{change} 다시 실행하자 코드가 shape이 다른 결과를 반환했습니다.",
    "changing target positions {start} and later of x": "x의 타깃 위치 {start}부터 끝까지 바꾸고",
    "changing only the padded source positions of memory (src_mask False)":
        "memory에서 패딩된 소스 위치(src_mask False)만 바꾸고",
    "Built as DecoderLayer{init} and run in training mode, your code raised {error}":
        "DecoderLayer{init} 레이어를 만들어 학습 모드로 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with only dropout{number} dropping everything (p=1, training mode), your code raised {error}":
        "dropout{number}만 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with every dropout dropping everything (p=1, training mode), your code raised {error}":
        "모든 드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with every dropout dropping everything (p=1, training mode), your code did not return a tensor "
    "of the input's shape.":
        "모든 드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드가 입력과 같은 shape의 텐서를 "
        "반환하지 않았습니다.",
    "Built as DecoderLayer{init}, your layer gives other outputs in training mode than in evaluation mode (by up to "
    "{gap:.3g}): something random acts in it although it was built with dropout=0.0.":
        "DecoderLayer{init}(으)로 만든 레이어가 학습 모드와 평가 모드에서 다른 출력을 냅니다(최대 {gap:.3g}만큼). dropout=0.0으로 만들었는데도 레이어 안에서 무언가 "
        "무작위로 작용합니다.",
    "Run with only dropout{number} dropping everything (p=1, training mode), the output is the same as without "
    "dropout.":
        "dropout{number}만 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행해도 출력이 드롭아웃이 없을 때와 같습니다.",
    "Run with every dropout dropping everything (p=1, training mode), each sublayer's output is dropped before its "
    "residual add, so the layer should return norm3(norm2(norm1(x))); yours differs (at {where}, by {gap:.3g}).":
        "모든 드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하면 각 서브레이어의 출력이 잔차 연결로 더해지기 전에 모두 버려지므로, 레이어는 norm3(norm2(norm1(x)))를 "
        "반환해야 합니다. 그런데 결과가 다릅니다({where}에서 {gap:.3g}만큼).",
    "Your results are those of a DecoderLayer in which a sublayer (self_attn, cross_attn or ffn) does not get the "
    "layer's `dropout` and drops with a rate of its own (0.1, the default): pass `dropout` on to every sublayer you "
    "build.":
        "결과가 서브레이어(self_attn, cross_attn, ffn) 중 하나가 레이어의 `dropout`을 받지 못하고 자기 비율(기본값 0.1)로 드롭아웃하는 DecoderLayer의 결과와 "
        "같습니다. 직접 만드는 모든 서브레이어에 `dropout`을 넘겨 주세요.",
    "Your results are those of a DecoderLayer in which dropout{number} is never applied. Each sublayer's output goes "
    "through its own dropout (dropout1, dropout2, dropout3).":
        "결과가 dropout{number}을(를) 한 번도 적용하지 않는 DecoderLayer의 결과와 같습니다. 각 서브레이어의 출력은 자기 드롭아웃(dropout1, dropout2, "
        "dropout3)을 거쳐야 합니다.",
    "Your results are those of a DecoderLayer in which a dropout acts on another term than its sublayer's output (x, "
    "the sum, or the norm's output): each sublayer's output goes through its own dropout, before the add and not "
    "after the norm.":
        "결과가 드롭아웃 하나를 서브레이어의 출력이 아닌 다른 항(x, 합, 또는 정규화의 출력)에 적용하는 DecoderLayer의 결과와 같습니다. 각 서브레이어의 출력은 정규화 뒤가 아니라 더하기 "
        "전에 자기 드롭아웃을 거쳐야 합니다.",
    "With a causal tgt_mask, {change} changed the output at an earlier position ({where}, by {gap:.3g}). Position i "
    "may depend on target positions 0 … i only.":
        "tgt_mask가 룩어헤드 마스크인데, {change} 실행하자 그보다 앞 위치의 출력이 바뀌었습니다({where}에서 {gap:.3g}만큼). 위치 i는 타깃 위치 0 … i에만 의존해야 "
        "합니다.",
    "Your results are those of a decoder whose masked self-attention does not get the target mask: tgt_mask must "
    "reach the masked self-attention.":
        "결과가 마스크드 셀프 어텐션에 타깃 마스크를 넘기지 않는 디코더의 결과와 같습니다. tgt_mask가 마스크드 셀프 어텐션까지 전달되어야 합니다.",
    "Changing only the padded source positions of memory (src_mask False) changed the output ({where}, by "
    "{gap:.3g}). No target position may read the source's padding.":
        "memory에서 패딩된 소스 위치(src_mask False)만 바꿨는데 출력이 바뀌었습니다({where}에서 {gap:.3g}만큼). 어떤 타깃 위치도 소스의 패딩을 읽으면 안 됩니다.",
    "Your results are those of a decoder whose cross-attention does not get the source mask: src_mask must reach the "
    "cross-attention.":
        "결과가 크로스 어텐션에 소스 마스크를 넘기지 않는 디코더의 결과와 같습니다. src_mask가 크로스 어텐션까지 전달되어야 합니다.",
}
