"""Korean of autograder/checks/attention.py: scaled_dot_product_attention's case labels and feedback."""
TRANSLATIONS = {
    "4-D inputs with a padding mask (B, 1, 1, L_k)": "패딩 마스크 (B, 1, 1, L_k)가 있는 4차원 입력",
    "4-D inputs with a mask of shape (B, 1, L_q, L_k)": "shape이 (B, 1, L_q, L_k)인 마스크가 있는 4차원 입력",
    "4-D inputs and a dropout module in training mode": "4차원 입력과 학습 모드의 드롭아웃 모듈",
    "With a dropout module in training mode, the weights you return have rows summing to "
    "{total:.4g}, not 1.":
        "학습 모드의 드롭아웃 모듈을 주었더니 반환한 가중치의 행 합이 1이 아니라 {total:.4g}입니다.",
    "Your results are those of an attention that returns the dropped weights: the weights you return are the "
    "dropped ones. Return the weights from before dropout; only the output uses the dropped ones.":
        "결과가 드롭아웃을 거친 가중치를 반환하는 어텐션의 결과와 같습니다. 반환한 가중치는 드롭아웃을 거친 "
        "것입니다. 가중치는 드롭아웃을 거치기 전의 것을 반환하세요. 드롭아웃을 거친 가중치는 출력을 계산할 때만 "
        "씁니다.",
    "3-D inputs (batch, position, feature)": "3차원 입력 (배치, 위치, 특성)",
    "4-D inputs (batch, head, position, feature)": "4차원 입력 (배치, 헤드, 위치, 특성)",
    "3-D inputs whose scores reach the hundreds (e^score overflows float32 above 88)":
        "점수가 수백에 이르는 3차원 입력 (score가 88을 넘으면 e^score가 float32에서 넘칩니다)",
    "4-D inputs and a dropout module in training mode (the output must be the dropped weights "
    "times the values)":
        "4차원 입력과 학습 모드의 드롭아웃 모듈 (출력은 드롭아웃을 거친 가중치와 밸류의 곱이어야 함)",
    "3-D inputs with a (L_q, L_k) mask shared by the batch": "배치 전체가 공유하는 (L_q, L_k) 마스크가 있는 3차원 입력",
    "4-D inputs where L_k = d_k = n_head = 4, with a padding mask": "L_k = d_k = n_head = 4이고 패딩 마스크가 있는 4차원 입력",
    "4-D inputs where batch = n_head = L_k = d_k = 3": "batch = n_head = L_k = d_k = 3인 4차원 입력",
    "4-D inputs in float64": "float64 4차원 입력",
}
