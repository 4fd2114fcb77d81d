"""Korean of autograder/checks/additive.py: AdditiveAttention's and AdditiveMultiHeadAttention's labels and feedback."""
TRANSLATIONS = {
    "With a dropout module in training mode, the weights you return no longer sum to 1 over the "
    "keys (one row sums to {total:.4g}).":
        "학습 모드의 드롭아웃 모듈을 주었더니 반환한 가중치의 키 방향 합이 1이 아닙니다(어떤 행은 합이 "
        "{total:.4g}).",
    "Your results are those of an attention that returns the dropped weights: the weights you return are the "
    "dropped ones. Return the weights before dropout; only the output is computed from the dropped ones.":
        "결과가 드롭아웃을 거친 가중치를 반환하는 어텐션의 결과와 같습니다. 반환한 가중치는 드롭아웃을 거친 "
        "것입니다. 가중치는 드롭아웃을 거치기 전의 것을 반환하세요. 드롭아웃을 거친 가중치는 출력을 계산할 때만 "
        "씁니다.",
    "4-D inputs (batch, head, position, feature) with a padding mask (B, 1, 1, L_k)":
        "패딩 마스크 (B, 1, 1, L_k)가 있는 4차원 입력 (배치, 헤드, 위치, 특성)",
    "4-D inputs with a mask of shape (B, 1, L_q, L_k)": "shape이 (B, 1, L_q, L_k)인 마스크가 있는 4차원 입력",
    "3-D inputs with an (L_q, L_k) mask shared by the batch": "배치 전체가 공유하는 (L_q, L_k) 마스크가 있는 3차원 입력",
    "3-D inputs (batch, position, feature)": "3차원 입력 (배치, 위치, 특성)",
    "4-D inputs (batch, head, position, feature)": "4차원 입력 (배치, 헤드, 위치, 특성)",
    "4-D inputs and a dropout module in training mode (the output must be the dropped "
    "weights times the values)":
        "4차원 입력과 학습 모드의 드롭아웃 모듈 (출력은 드롭아웃을 거친 가중치와 밸류의 곱이어야 함)",
    "3-D inputs with a single query (L_q = 1)": "쿼리가 하나뿐인 3차원 입력 (L_q = 1)",
    "4-D inputs in float64": "float64 4차원 입력",
    "cross-attention: query (B, L_q, d_model), key and value (B, L_k, d_model), three different tensors":
        "크로스 어텐션: query (B, L_q, d_model), key와 value (B, L_k, d_model), 서로 다른 세 텐서",
    "cross-attention with a padding mask (B, 1, 1, L_k)": "패딩 마스크 (B, 1, 1, L_k)가 있는 크로스 어텐션",
    "cross-attention with a mask of shape (B, 1, L_q, L_k)": "shape이 (B, 1, L_q, L_k)인 마스크가 있는 크로스 어텐션",
    "cross-attention with an (L_q, L_k) mask shared by the batch and the heads":
        "배치와 헤드 전체가 공유하는 (L_q, L_k) 마스크가 있는 크로스 어텐션",
    "self-attention: query, key and value are one tensor": "셀프 어텐션: query, key, value가 모두 같은 텐서",
    "cross-attention with L_q = L_k = 4": "L_q = L_k = 4인 크로스 어텐션",
    " A bias on v adds the same number to every score of a row, which the softmax cancels: a parameter that never "
    "learns (its gradient is always 0). The exercise builds v = nn.Linear(d_hidden, 1, bias=False).":
        " v의 편향은 한 행의 모든 점수에 같은 수를 더하고, 소프트맥스가 그것을 지워 버립니다. 결코 학습되지 않는 "
        "파라미터입니다(기울기가 늘 0입니다). 과제는 v = nn.Linear(d_hidden, 1, bias=False)로 만듭니다.",
    "Your results are those of an AdditiveMultiHeadAttention whose self.dropout never reaches the attention weights: "
    "give it to self.score, which applies it to the weights.":
        "결과가 self.dropout이 어텐션 가중치에 닿지 않는 AdditiveMultiHeadAttention의 결과와 같습니다. self.dropout을 self.score에 넘기세요. 그러면 "
        "self.score가 가중치에 드롭아웃을 적용합니다.",
    "Your results are those of an AdditiveMultiHeadAttention that keeps the dropped weights in self.attn: keep the "
    "weights from before dropout (self.score returns them).":
        "결과가 드롭아웃을 거친 가중치를 self.attn에 저장하는 AdditiveMultiHeadAttention의 결과와 같습니다. self.attn에는 드롭아웃을 거치기 전의 가중치, 곧 "
        "self.score가 반환하는 가중치를 저장하세요.",
    "Your results are those of an AdditiveMultiHeadAttention whose dropout acts on the heads' output, not on the "
    "attention weights. Give self.dropout to self.score, which applies it to the weights before they multiply the "
    "values.":
        "결과가 드롭아웃을 어텐션 가중치가 아니라 헤드들의 출력에 적용하는 AdditiveMultiHeadAttention의 결과와 같습니다. self.dropout을 self.score에 넘기세요. "
        "그러면 가중치가 밸류와 곱해지기 전에 가중치에 드롭아웃을 적용합니다.",
    "With dropout p = 0.5 in training mode, every number reaching w_o is either 0 or doubled.":
        "학습 모드에서 드롭아웃 p = 0.5일 때 w_o에 들어가는 수는 모두 0이거나 두 배입니다.",
}
