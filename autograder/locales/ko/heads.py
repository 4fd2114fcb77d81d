"""Korean of autograder/checks/heads.py: split_heads', merge_heads' and MultiHeadAttention's labels and feedback."""
TRANSLATIONS = {
    "x of shape ({batch}, {length}, {d_model}) split into {n_head} heads":
        "{n_head}개 헤드로 나눌, shape이 ({batch}, {length}, {d_model})인 x",
    "x of shape ({batch}, {n_head}, {length}, {d_k})": "shape이 ({batch}, {n_head}, {length}, {d_k})인 x",
    "self-attention: query, key and value are one tensor": "셀프 어텐션: query, key, value가 모두 같은 텐서",
    "cross-attention with a padding mask (B, 1, 1, L_k)": "패딩 마스크 (B, 1, 1, L_k)가 있는 크로스 어텐션",
    "cross-attention with a mask of shape (B, 1, L_q, L_k)": "shape이 (B, 1, L_q, L_k)인 마스크가 있는 크로스 어텐션",
    "cross-attention with an (L_q, L_k) mask shared by the batch and the heads":
        "배치와 헤드 전체가 공유하는 (L_q, L_k) 마스크가 있는 크로스 어텐션",
    "Run with its dropout dropping everything (p=1, training mode), your code raised {error}":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with its dropout dropping everything (p=1, training mode), your module did not return "
    "(B, L_q, d_model).":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 모듈이 (B, L_q, d_model)을 반환하지 "
        "않았습니다.",
    "cross-attention: query (B, L_q, d_model), key and value (B, L_k, d_model), three different tensors":
        "크로스 어텐션: query (B, L_q, d_model), key와 value (B, L_k, d_model), 서로 다른 세 텐서",
    "cross-attention with L_q = L_k = 4 and three different tensors":
        "L_q = L_k = 4이고 서로 다른 세 텐서를 쓰는 크로스 어텐션",
    "Your results are those of a MultiHeadAttention that never applies self.dropout: hand it to the attention "
    "function, which applies it to the weights.":
        "결과가 self.dropout을 한 번도 적용하지 않는 MultiHeadAttention의 결과와 같습니다. self.dropout을 어텐션 함수에 넘기세요. 그러면 어텐션 함수가 가중치에 "
        "드롭아웃을 적용합니다.",
    "Your results are those of a MultiHeadAttention that keeps the dropped weights in self.attn: keep the weights "
    "from before dropout (the attention function returns them).":
        "결과가 드롭아웃을 거친 가중치를 self.attn에 저장하는 MultiHeadAttention의 결과와 같습니다. self.attn에는 드롭아웃을 거치기 전의 가중치, 곧 어텐션 함수가 "
        "반환하는 가중치를 저장하세요.",
    "With its dropout dropping every weight (p = 1, training mode) your module's output should be w_o's bias at "
    "every position; it differs from it by up to {gap:.3g}.":
        "드롭아웃이 모든 가중치를 버리도록 설정하면(p = 1, 학습 모드) 모듈의 출력은 모든 위치에서 w_o의 bias여야 합니다. 그런데 최대 {gap:.3g}만큼 차이가 납니다.",
    "In training mode (its dropout dropping every weight, p = 1), the weights kept in self.attn no longer sum to 1 "
    "over the keys (one row sums to {total:.4g}).":
        "학습 모드에서 드롭아웃이 모든 가중치를 버리도록 설정하면(p = 1) self.attn에 저장한 가중치의 키 방향 합이 1이 아닙니다(어떤 행은 합이 {total:.4g}입니다).",
}
