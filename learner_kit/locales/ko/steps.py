"""Korean: the names of the reference's steps (learner_kit/steps.py), in the Korean notebooks' and GLOSSARY.md's words.

Each ends in a Korean noun (or a parenthesis after one), so that the particle a sentence puts after it is chosen
for that noun (learner_kit/particles.py).
"""

TRANSLATIONS = {
    # 01-attention, 02-multi-head, 09-additive-attention
    "the keys' transpose Kᵀ": "전치한 키(Kᵀ)",
    "the unscaled scores Q·Kᵀ": "스케일링하기 전의 점수(Q·Kᵀ)",
    "the scores divided by √d_k": "√d_k로 나눈 점수",
    "the blocked pairs `~mask`": "가려진 쌍(`~mask`)",
    "the masked scores": "마스크를 적용한 점수",
    "the attention weights (the softmax over the keys)": "어텐션 가중치(키 축에 대한 소프트맥스)",
    "the weights after dropout": "드롭아웃을 거친 가중치",
    "the output (the weights times the values)": "출력(가중치 곱하기 밸류)",
    "the queries split into heads": "헤드로 나눈 쿼리",
    "the keys split into heads": "헤드로 나눈 키",
    "the values split into heads": "헤드로 나눈 밸류",
    "the heads merged back": "다시 합친 헤드",
    "the sums W_q q + W_k k over every query and key pair": "모든 (쿼리, 키) 쌍의 은닉 벡터(W_q q + W_k k)",
    "the hidden vectors tanh(W_q q + W_k k)": "tanh를 거친 은닉 벡터(tanh(W_q q + W_k k))",
    "the scores v·tanh(W_q q + W_k k)": "점수(v·tanh(W_q q + W_k k))",
    # 03-add-norm
    "the mean μ over the last axis": "마지막 축에 대한 평균(μ)",
    "the variance σ² over the last axis": "마지막 축에 대한 분산(σ²)",
    "the centred input x − μ": "평균을 뺀 입력(x − μ)",
    "the centred input times γ": "평균을 뺀 입력에 γ를 곱한 값(γ·(x − μ))",
    "the variance plus ε": "분산에 ε을 더한 값(σ² + ε)",
    "the standard deviation √(σ² + ε)": "표준편차(√(σ² + ε))",
    "the normalised input times γ": "정규화한 입력에 γ를 곱한 값(γ·x̂)",
    "the output γ·x̂ + β": "출력(γ·x̂ + β)",
    "the residual sum x + dropout(sublayer_out)": "잔차 덧셈의 결과(x + dropout(sublayer_out))",
    # 04-feed-forward, 05-encoder, 07-decoder
    "the hidden activations ReLU(w_1(x))": "은닉 활성값(ReLU(w_1(x)))",
    "the embeddings times √d_model": "√d_model을 곱한 임베딩",
    "the positions 0, 1, …": "위치(0, 1, …)",
    "the even feature indices 2i": "짝수 특성 번호(2i)",
    "the exponents of the frequencies ω_i": "주파수(ω_i)의 지수",
    "the positional-encoding table `pe`": "위치 인코딩 표(`pe`)",
    "the frequencies ω_i": "주파수(ω_i)",
    "the angles pos · ω_i": "각도(pos · ω_i)",
    "the sines (the even columns of `pe`)": "사인(`pe`의 짝수 열)",
    "the cosines (the odd columns of `pe`)": "코사인(`pe`의 홀수 열)",
    "`x` plus the first L rows of `pe`": "`x`에 `pe`의 앞쪽 L개 행을 더한 값",
    "the self-attention sublayer's residual sum": "셀프 어텐션 서브레이어의 잔차 덧셈 결과",
    "the masked self-attention sublayer's residual sum": "마스크드 셀프 어텐션 서브레이어의 잔차 덧셈 결과",
    "the cross-attention sublayer's residual sum": "크로스 어텐션 서브레이어의 잔차 덧셈 결과",
    "the feed-forward sublayer's residual sum": "FFN 서브레이어의 잔차 덧셈 결과",
    # 06-masks, 08-generator, 10-train
    "the padding mask (True where a token is not padding)": "패딩 마스크(패딩이 아닌 토큰에서 True)",
    "a square of True values": "모두 True인 정사각 텐서",
    "the look-ahead mask (True on and below the diagonal)": "룩어헤드 마스크(대각선과 그 아래에서 True)",
    "the target mask (the padding mask AND the look-ahead mask)": "타깃 마스크(패딩 마스크 AND 룩어헤드 마스크)",
    "the log-probabilities (the log-softmax over the vocabulary)": "로그 확률(어휘에 대한 로그 소프트맥스)",
    "the padding mask of `src`": "`src`의 패딩 마스크",
    "the smoothed target distribution with its padding not yet zeroed": "패딩을 아직 0으로 만들지 않은 스무딩된 타깃 분포",
    "the smoothed target distribution": "스무딩된 타깃 분포(q)",
    "the terms of the KL divergence": "KL 발산의 항",
    "the rows whose target is padding": "타깃이 패딩인 행",
    "the loss (the summed KL divergence)": "손실(합한 KL 발산)",
}
