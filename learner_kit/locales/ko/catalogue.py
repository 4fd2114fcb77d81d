"""Korean: the mistakes' texts (learner_kit/messages.py CATALOGUE, by the same ids) and the sentences of messages.py."""

CATALOGUE = {
    # ------------------------------------------------ scaled_dot_product_attention
    "sdpa-no-scale": (
        "점수가 1/√d_k를 곱하지 않은 Q·Kᵀ 그대로입니다.",
        "스케일링을 하지 않으면 내적 값이 d_k에 따라 커져서 소프트맥스가 원-핫(one-hot)에 가까운 영역으로 "
        "밀려나고, 그곳에서는 기울기가 사라집니다. 논문에서 1/√d_k가 어디에 들어가는지 다시 살펴보세요.",
    ),
    "sdpa-scale-dk": (
        "점수를 √d_k가 아니라 d_k로 나누었습니다.",
        "분산이 1인 항 d_k개로 이루어진 내적의 분산은 d_k입니다. 스케일링은 그 표준편차를 다시 1 정도로 되돌려야 합니다. "
        "d_k로 나누면 어텐션이 지나치게 평평해집니다.",
    ),
    "sdpa-softmax-dim": (
        "소프트맥스가 키 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
        "쿼리마다 키들에 대한 분포가 필요하므로, 가중치의 각 행(쿼리 하나, 축 -2)은 축 -1을 따라 합이 1이어야 합니다. "
        "소프트맥스를 어느 축에 적용했는지 확인하세요.",
    ),
    "sdpa-mask-inverted": (
        "마스크를 거꾸로 적용했습니다. True로 표시된 위치가 가려집니다.",
        "이 과정에서 True는 '어텐션할 수 있음', False는 '가려짐'을 뜻합니다. 코드가 어느 위치의 값을 바꾸는지 확인하세요.",
    ),
    "sdpa-mask-ignored": (
        "마스크가 결과에 아무 영향을 주지 않습니다.",
        "가려진 키(마스크가 False인 키)의 가중치는 정확히 0이어야 합니다. 마스킹한 점수가 실제로 남아서 다음 단계에 쓰이는지 확인하세요. "
        "masked_fill은 새 텐서를 반환할 뿐, 입력은 그대로 둡니다.",
    ),
    "sdpa-mask-after-softmax": (
        "마스크를 소프트맥스 다음에 적용했습니다.",
        "정규화한 뒤에 가중치를 바꾸면 행의 합이 더 이상 1이 되지 않습니다(또는 아주 큰 음수 가중치가 남습니다). "
        "아직 점수일 때 위치를 가려서, 소프트맥스가 스스로 그 위치에 가중치 0을 주게 하세요.",
    ),
    "sdpa-mask-fill-zero": (
        "가려진 위치의 점수를 아주 큰 음수가 아니라 0으로 채웠습니다.",
        "점수 0도 소프트맥스를 거치면 양의 가중치가 되므로(e⁰ = 1), 가려진 키가 여전히 어텐션을 받습니다. "
        "exp를 거친 뒤 가중치가 정확히 0이 되는 점수는 무엇일까요?",
    ),
    "sdpa-key-transpose": (
        "키를 엉뚱한 축으로 전치했습니다(또는 전치하지 않았습니다).",
        "Q·Kᵀ는 모든 쿼리를 모든 키와 짝짓습니다. 그러니 앞에 배치 축이나 헤드 축이 몇 개 있든 키의 마지막 두 축만 "
        "서로 바뀌어야 합니다. 축을 끝에서부터 세면 같은 코드가 3차원 입력과 4차원 입력 모두에서 동작합니다.",
    ),
    "sdpa-returns-scores": (
        "반환한 가중치가 소프트맥스를 거치기 전의 점수입니다.",
        "두 번째 반환값은 어텐션 가중치 그 자체입니다. 음수가 없고, 각 행을 허용된 키들에 걸쳐 더하면 1입니다. "
        "밸류에 곱하는 바로 그 텐서를 반환하세요.",
    ),
    # ------------------------------------------------ split/merge heads, MultiHeadAttention
    "heads-split-no-transpose": (
        "헤드를 나눌 때 곧바로 (B, n_head, L, d_k)로 reshape했습니다.",
        "메모리에는 값이 (B, L, d_model) 순서로 놓여 있어서, 곧바로 reshape하면 위치의 경계를 가로질러 잘리고 "
        "한 헤드 안에 여러 위치가 섞입니다. 특성 축을 제자리에서 헤드별로 자른 다음, 헤드 축을 옮기세요.",
    ),
    "heads-merge-no-transpose": (
        "헤드를 합칠 때 곧바로 (B, L, d_model)로 reshape했습니다.",
        "(B, n_head, L, d_k)에서는 한 위치의 특성들이 여러 헤드에 흩어져 있어서, 그대로 펼치면 위치들이 섞입니다. "
        "펼치기 전에 축을 위치 축이 앞에 오는 순서로 되돌리세요.",
    ),
    "mha-kv-use-wq": (
        "키나 밸류를 w_q로 투영했습니다.",
        "쿼리, 키, 밸류에는 저마다 투영(w_q, w_k, w_v)이 따로 있습니다. w_q를 함께 쓰면 헤드가 엉뚱한 특성을 비교하고 "
        "섞게 됩니다. 각 입력에 어떤 레이어를 적용했는지 확인하세요.",
    ),
    "mha-no-output-proj": (
        "출력 투영 w_o를 적용하지 않았습니다.",
        "헤드를 합친 뒤에는 w_o가 각 헤드가 찾아낸 내용을 다시 d_model개의 특성으로 섞어 줍니다. "
        "forward의 마지막 단계를 확인하세요.",
    ),
    "mha-scale-dmodel": (
        "점수를 √d_k가 아니라 √d_model로 스케일링했습니다.",
        "각 헤드는 d_k차원 벡터끼리 내적하므로, 스케일링에는 헤드 하나의 크기인 d_k = d_model // n_head를 씁니다.",
    ),
    "mha-qkv-swapped": (
        "query, key, value 인자를 서로 엉뚱한 역할로 썼습니다.",
        "크로스 어텐션에서는 query, key, value가 서로 다른 텐서이고, key가 query보다 길 수도 있습니다. "
        "어느 인자가 어느 투영을 거치는지, 그리고 forward의 매개변수 순서를 확인하세요.",
    ),
    # ------------------------------------------------ LayerNorm, AddNorm
    "layernorm-eps-outside-sqrt": (
        "eps를 제곱근 바깥에서 더했습니다.",
        "nn.LayerNorm은 √(var + eps)로 나눕니다. eps를 바깥으로 빼면 분산이 작을 때 결과가 달라집니다. "
        "eps가 들어갈 자리를 확인하세요.",
    ),
    "layernorm-unbiased-var": (
        "분산을 불편 분산(n − 1로 나눈 값)으로 구했습니다.",
        "레이어 정규화는 nn.LayerNorm처럼 편향 분산(n으로 나눈 값)을 씁니다. torch.var는 기본값이 불편 분산이니 "
        "`correction` 인자를 살펴보세요.",
    ),
    "layernorm-wrong-dim": (
        "평균과 분산을 엉뚱한 축에서 구했습니다.",
        "각 위치는 자기 d_model개 특성에 대해 정규화됩니다. 통계량은 마지막 축을 따라 구하되, "
        "다시 브로드캐스팅될 수 있도록 그 축을 남겨 두어야 합니다.",
    ),
    "layernorm-no-affine": (
        "gamma와 beta를 적용하지 않았습니다.",
        "LayerNorm은 정규화한 다음, 특성마다 학습되는 gamma를 곱하고 beta를 더합니다. 이 둘이 없으면 정규화를 되돌리는 "
        "편이 나은 곳에서도 레이어가 그렇게 하지 못합니다.",
    ),
    "addnorm-no-residual": (
        "잔차 연결이 빠져서, 서브레이어의 출력만 정규화합니다.",
        "Add & Norm은 정규화하기 전에 서브레이어의 출력을 그 입력 x에 더합니다. 이 잔차 경로 덕분에 층을 깊이 쌓아도 "
        "신호와 기울기가 끝까지 전달됩니다.",
    ),
    "addnorm-norm-before-add": (
        "결과가 norm(x + sublayer_out)이 아니라 x + norm(sublayer_out)입니다.",
        "논문의 post-norm 구조에서 정규화되는 것은 입력과 (드롭아웃을 거친) 서브레이어 출력의 합입니다.",
    ),
    # ------------------------------------------------ PositionwiseFeedForward
    "ffn-no-activation": (
        "두 선형 레이어 사이에 ReLU가 없습니다.",
        "선형 레이어 두 개를 연달아 쓰면 결국 선형 변환 하나일 뿐입니다. 그 사이에 비선형성이 있어야 "
        "네트워크가 그보다 많은 것을 계산할 수 있습니다.",
    ),
    "ffn-activation-after-output": (
        "ReLU를 두 번째 선형 레이어 뒤에 적용했습니다.",
        "활성화 함수는 w_1과 w_2 사이에 들어갑니다. w_2 뒤에 두면 음수 출력이 모두 0으로 잘리는데, "
        "잔차 스트림에는 그 음수 값도 필요합니다.",
    ),
    # ------------------------------------------------ Embeddings, PositionalEncoding, Encoder
    "embed-no-scale": (
        "임베딩의 배율이 √d_model이 아닙니다. 다른 수가 곱해졌거나 아무것도 곱해지지 않았습니다.",
        "논문은 임베딩에 √d_model을 곱해서, 값이 [−1, 1] 범위에 있는 위치 인코딩에 임베딩이 묻히지 않게 합니다.",
    ),
    "pe-sin-cos-swapped": (
        "sin과 cos이 뒤바뀌었습니다.",
        "짝수 번째 특성(0, 2, 4, …)에는 사인을, 홀수 번째 특성에는 같은 각도의 코사인을 씁니다.",
    ),
    "pe-wrong-frequency": (
        "위치 인코딩의 주파수가 틀렸습니다.",
        "특성 쌍 i(특성 2i와 2i+1)는 주파수 1 / 10000^(2i/d_model) 하나를 함께 씁니다. 지수를 확인하고, "
        "한 쌍의 두 특성이 모두 그 주파수를 쓰는지도 확인하세요.",
    ),
    "encoder-prenorm": (
        "레이어가 잔차 덧셈 뒤가 아니라 각 서브레이어 앞에서 정규화합니다(pre-norm).",
        "이 과정은 논문의 post-norm 구조를 따릅니다. 각 서브레이어의 출력을 그 입력에 더한 다음, 그 합을 정규화합니다.",
    ),
    "encoder-no-residual": (
        "인코더 레이어에 잔차 연결이 하나 빠졌습니다.",
        "각 서브레이어의 출력은 정규화 전에 그 입력에 더해집니다. 이것이 없으면 레이어가 입력을 잊어버리고, "
        "층을 깊이 쌓았을 때 학습이 잘 되지 않습니다.",
    ),
    "encoder-mask-ignored": (
        "마스크가 셀프 어텐션까지 전달되지 않습니다.",
        "패딩은 어느 레이어에서도 보이지 않아야 합니다. 마스크를 각 레이어와 그 안의 셀프 어텐션에 넘겨 주세요.",
    ),
    "encoder-shared-layers": (
        "서로 독립인 레이어 n_layers개가 아니라 레이어 객체 하나를 반복해서 쌓았습니다.",
        "같은 객체를 반복하면(예를 들어 리스트에 n을 곱해서) 가중치가 공유되어 모든 레이어가 똑같아집니다. "
        "레이어마다 자기 파라미터가 따로 있어야 합니다.",
    ),
    # ------------------------------------------------ masks
    "mask-causal-diagonal-blocked": (
        "룩어헤드 마스크가 대각선까지 가려서, 각 위치가 자기 자신을 볼 수 없습니다.",
        "위치 i는 자기 자신을 포함해 위치 0 … i에 어텐션할 수 있습니다. 가려지는 것은 그 뒤의 위치들뿐입니다.",
    ),
    "mask-causal-transposed": (
        "룩어헤드 마스크가 미래를 보여 주고 과거를 가립니다.",
        "행은 쿼리, 열은 키입니다. 행 i는 열 0 … i를 볼 수 있습니다. 마스크가 어느 쪽 삼각형을 남기는지 확인하세요.",
    ),
    "mask-pad-wrong-axis": (
        "패딩 마스크에 새로 추가한 축의 위치가 틀렸습니다.",
        "패딩 마스크가 가리는 것은 키, 곧 점수 (B, n_head, L_q, L_k)의 마지막 축입니다. 마스크는 헤드 축과 쿼리 축을 "
        "따라 브로드캐스팅되고, 키 축과는 나란히 맞아야 합니다.",
    ),
    "mask-pad-inverted": (
        "패딩 마스크가 패딩 위치에서 True입니다.",
        "True는 '어텐션할 수 있음'을 뜻합니다. 실제 토큰은 True, 패딩은 False입니다.",
    ),
    "mask-tgt-missing-pad": (
        "타깃 마스크가 미래는 가리지만 패딩은 가리지 않습니다.",
        "타깃 마스크는 두 규칙을 합친 것입니다. 키는 패딩도 아니고 미래도 아닐 때만 보입니다.",
    ),
    "mask-tgt-missing-causal": (
        "타깃 마스크로는 위치들이 미래를 볼 수 있습니다.",
        "학습할 때 디코더는 타깃 전체를 한 번에 봅니다. 마스크가 패딩을 어떻게 가리든, 위치 i가 자기가 예측해야 할 "
        "토큰을 읽지 못하게 막는 것은 마스크의 룩어헤드 부분입니다.",
    ),
    "mask-fixed-device": (
        "마스크를 입력의 장치가 아니라 고정된 장치에 만들었습니다.",
        "GPU에서는 마스크가 점수와 같은 장치에 있어야 합니다. 마스크를 입력의 장치(또는 `device` 인자)에 "
        "만드세요.",
    ),
    # ------------------------------------------------ DecoderLayer, Decoder
    "decoder-cross-qkv-swapped": (
        "크로스 어텐션이 쿼리를 memory에서 가져오거나, 키와 밸류를 x에서 가져옵니다.",
        "크로스 어텐션에서 질문을 던지는 쪽은 디코더입니다. 쿼리는 x에서, 키와 밸류는 인코더의 출력(memory)에서 옵니다.",
    ),
    "decoder-masks-swapped": (
        "src_mask와 tgt_mask를 서로 바꿔 썼습니다.",
        "타깃에 대한 셀프 어텐션에는 tgt_mask를, 소스에 대한 크로스 어텐션에는 src_mask를 씁니다.",
    ),
    "decoder-self-attn-unmasked": (
        "디코더의 셀프 어텐션이 타깃 마스크를 무시해서, 각 위치가 미래를 봅니다.",
        "룩어헤드 마스크가 없으면 학습 중에 각 위치가 자기가 예측해야 할 토큰을 읽을 수 있습니다.",
    ),
    "decoder-sublayer-order": (
        "디코더의 서브레이어들이 잘못된 순서로 실행됩니다.",
        "디코더 레이어는 마스크드 셀프 어텐션, 크로스 어텐션, 피드포워드 네트워크 순서로 실행되며, "
        "각각 자기 잔차 덧셈과 정규화를 거칩니다.",
    ),
    # ------------------------------------------------ Generator, Transformer
    "generator-softmax": (
        "제너레이터가 로그 확률이 아니라 확률을 반환합니다.",
        "손실과 그리디 디코딩은 어휘 전체에 대한 로그 확률을 받는다고 가정합니다.",
    ),
    "generator-logits": (
        "제너레이터가 로그 확률이 아니라 정규화되지 않은 로짓을 그대로 반환합니다.",
        "투영을 거친 점수는 아직 정규화되지 않았습니다. 어휘 축을 따라, 로그 공간에서 정규화해야 합니다.",
    ),
    "generator-wrong-dim": (
        "로그 소프트맥스가 어휘 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
        "각 위치에는 어휘에 대한 분포가 필요합니다. 어휘는 마지막 축입니다.",
    ),
    "transformer-tgt-uses-src-embed": (
        "타깃 토큰을 src_embed로 임베딩했습니다.",
        "소스와 타깃은 어휘도 임베딩도 저마다 따로 있습니다. 디코더의 입력은 tgt_embed를 거쳐야 합니다.",
    ),
    # ------------------------------------------------ additive attention
    "additive-no-tanh": (
        "가산 어텐션의 점수에서 투영과 v 사이에 tanh가 없습니다.",
        "점수는 vᵀ tanh(W_q q + W_k k)입니다. 그 자리에 비선형성이 없으면 vᵀ(W_q q + W_k k)가 쿼리 부분과 키 부분의 "
        "합으로 갈라지고, v 뒤의 비선형성으로는 모든 쿼리가 여전히 같은 순서로 키의 순위를 매깁니다. tanh 자리에 "
        "relu를 쓰면 논문과 다른 점수를 계산합니다.",
    ),
    "additive-softmax-dim": (
        "소프트맥스가 키 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
        "쿼리마다 키들에 대한 분포가 필요합니다. 가중치의 각 행은 합이 1이어야 합니다.",
    ),
    "additive-mask-ignored": (
        "마스크가 가산 어텐션에 아무 영향을 주지 않습니다.",
        "스케일드 닷-프로덕트 어텐션에서와 마찬가지로, 가려진 키(마스크가 False인 키)의 가중치는 정확히 0이어야 합니다.",
    ),
    # ------------------------------------------------ capstone units
    "batch-no-shift": (
        "디코더 입력과 타깃이 서로 한 칸 어긋나 있지 않습니다.",
        "티처 포싱(teacher forcing)에서 디코더는 토큰 0 … n−1을 읽고 토큰 1 … n을 예측해야 합니다.",
    ),
    "loss-counts-padding": (
        "손실에 타깃이 패딩인 위치까지 포함됩니다.",
        "패딩은 시퀀스의 일부가 아닙니다. 타깃이 패드 토큰인 행은 손실에 아무것도 보태지 않아야 합니다.",
    ),
    "noam-no-warmup": (
        "학습률 스케줄에 워밍업이 없습니다.",
        "Noam 학습률은 `warmup` 스텝 동안 선형으로 커진 다음, 1/√step에 비례해 줄어듭니다.",
    ),
    "greedy-no-feedback": (
        "그리디 디코딩이 자기 예측을 다시 입력으로 넣지 않습니다.",
        "디코더는 매 스텝마다 지금까지 만든 토큰을, 가장 최근 토큰까지 포함해 모두 읽습니다.",
    ),
    # ------------------------------------------------ any unit
    "not-implemented": (
        "이 단위는 아직 구현되지 않아서, 여전히 NotImplementedError가 발생합니다.",
        "`raise NotImplementedError()` 줄을 여러분의 코드로 바꾸고 그 셀을 실행한 다음, 이 테스트를 다시 실행하세요.",
    ),
    "runtime-error": (
        "올바른 입력을 넣었는데 코드에서 오류가 났습니다.",
        "아래에 오류 내용과, 이런 오류가 흔히 생기는 원인을 짚는 힌트가 이어집니다.",
    ),
    "shape": (
        "결과의 shape이나 dtype이 틀렸습니다.",
        "작은 입력으로 단계마다 shape을 출력해 보고, 과제에 나온 shape과 비교하세요.",
    ),
    "nan": (
        "결과에 NaN(not a number)이 들어 있습니다.",
        "NaN은 보통 −inf가 −inf나 0과 만날 때(−inf · 0, −inf − (−inf), 모든 값이 −inf인 행의 소프트맥스), "
        "또는 0/0이나 음수의 제곱근에서 생깁니다.",
    ),
    "device": (
        "코드가 고정된 장치에 텐서를 만들어서, 입력이 다른 장치에 있으면 실패합니다.",
        "GPU에서는 한 연산에 쓰이는 텐서가 모두 같은 장치에 있어야 합니다. 새 텐서는 입력의 장치에 만들거나"
        "(…_like 함수, device=x.device) 평범한 파이썬 숫자를 쓰세요.",
    ),
    "inplace-input": (
        "코드가 입력 중 하나를 제자리(in-place)에서 바꿉니다.",
        "호출한 쪽은 자기 텐서가 그대로 필요합니다(autograd도 그럴 수 있습니다). _로 끝나는 연산이나 x /= … 같은 "
        "복합 대입은 텐서를 직접 바꾸니, 대신 새 텐서로 계산하세요.",
    ),
    "forbidden-builtin": (
        "과제에서 직접 작성해야 할 계산을 PyTorch 내장 기능이 대신하고 있습니다.",
        "이 과제의 목적은 그 계산을 직접 작성해 보는 것입니다. 내장 기능은 다 만든 뒤에 결과를 비교해 볼 때 "
        "얼마든지 쓰세요.",
    ),
    "tampering": (
        "검사 코드나 검사 코드가 의존하는 무언가가 바뀌었거나 우회되었습니다.",
        "테스트는 실제 PyTorch와 NumPy 함수, 그리고 여러분이 작성한 코드만으로 실행됩니다. 그것들을 바꿔치기하거나 "
        "채점기의 구현을 호출하는 코드를 지우세요.",
    ),
    # ------------------------------------------------ generic, not tied to one mistake
    "wrong-values": (
        "결과의 shape은 맞지만 값이 틀렸습니다.",
        "손으로 확인할 수 있는 아주 작은 입력으로, 각 단계를 과제의 식과 비교해 보세요.",
    ),
    "wrong-gradients": (
        "코드를 거쳐 역전파되는 기울기가 틀렸습니다.",
        "순전파 값은 맞으니, 무언가가 기울기를 끊거나 바꾸고 있습니다. 흔한 원인은 .detach(), .data, .item(), "
        "NumPy, torch.no_grad(), 그리고 autograd가 필요로 하는 텐서를 제자리에서 바꾸는 코드입니다.",
    ),
    "wrong-interface": (
        "코드의 이름, 인자, 반환값이 과제에서 요구하는 것과 다릅니다.",
        "채점기는 과제의 시그니처대로 코드를 호출하고, 하위 모듈 이름으로 가중치를 복사하며, 과제에서 정한 곳에서 "
        "결과를 읽습니다. 이름과 인자, 반환값은 주어진 그대로 두세요.",
    ),
    "property-violated": (
        "올바른 답이라면 반드시 지키는 성질 하나가 깨졌습니다.",
        "어떤 성질인지는 아래에 나옵니다. 그 설명이 잘못된 단계를 곧바로 가리키는 경우가 많습니다.",
    ),
}

# The sentences of learner_kit/messages.py (a hint about an error's usual cause, the fallback text).
TRANSLATIONS = {
    "Something is wrong.": "무언가 잘못되었습니다.",
    "A size reached PyTorch as a float: a number such as the dropout rate went where a whole number "
    "belongs (d_model, d_ff, max_len, n_layers …). Compare the arguments of the call on that line, in "
    "order, with the parameters of the class it builds, or pass them by name (dropout=dropout).":
        "PyTorch가 크기 자리에서 float을 받았습니다. 드롭아웃 비율 같은 숫자가 정수가 와야 할 자리"
        "(d_model, d_ff, max_len, n_layers …)에 들어간 것입니다. 그 줄의 호출에 넘긴 인자들을, 만들려는 클래스의 "
        "매개변수와 순서대로 하나씩 비교하거나, 인자를 이름으로 넘기세요(dropout=dropout).",
    "The two sides of a matrix product do not line up: print both shapes. Two different sizes meeting "
    "(d_model where d_k is meant, or the reverse) mean a layer or a split of the wrong size; two axes of "
    "one tensor meeting mean a transpose of the wrong axes.":
        "행렬 곱의 양쪽 크기가 맞지 않습니다. 두 shape을 모두 출력해 보세요. 서로 다른 두 크기가 만난다면"
        "(d_k가 와야 할 곳에 d_model이 오거나 그 반대) 레이어나 헤드 나누기의 크기가 잘못된 것이고, "
        "한 텐서의 두 축이 만난다면 엉뚱한 축을 전치한 것입니다.",
    "The two sides of a batched matrix product do not line up: print both shapes; the leading (batch) "
    "axes must agree and only the last two meet. A transpose of the wrong axes (or `.T`, which reverses "
    "them all) does this.":
        "배치 행렬 곱의 양쪽 크기가 맞지 않습니다. 두 shape을 모두 출력해 보세요. 앞쪽의 (배치) 축들은 서로 같아야 하고, "
        "곱해지는 것은 마지막 두 축뿐입니다. 엉뚱한 축을 전치하면(또는 모든 축을 뒤집는 `.T`를 쓰면) 이렇게 됩니다.",
    "Two tensors do not line up: print their shapes and check which axes should meet.":
        "두 텐서의 크기가 맞지 않습니다. shape을 출력해 보고 어느 축끼리 만나야 하는지 확인하세요.",
    "gather and scatter need an index with as many axes as the tensor they work on: an index of shape "
    "(N,) for an (N, V) tensor needs an axis added, (N, 1).":
        "gather와 scatter의 인덱스는 대상 텐서와 축 개수가 같아야 합니다. (N, V) 텐서에 쓸 shape (N,)인 인덱스에는 "
        "축을 하나 더해 (N, 1)로 만들어야 합니다.",
    "Two tensors joined here have different numbers of axes. A reduction (sum, mean, max, argmax) drops "
    "the axis it reduces unless keepdim=True keeps it with size 1.":
        "여기서 이어 붙이는 두 텐서의 축 개수가 다릅니다. 축소 연산(sum, mean, max, argmax)은 keepdim=True로 "
        "크기 1인 축을 남기지 않는 한, 줄인 축을 없앱니다.",
    "This PyTorch operation does not take tensors of this dtype: print the dtypes of its inputs (a mask "
    "is bool; `&` and `|` need bool or integer tensors).":
        "이 PyTorch 연산은 이 dtype의 텐서를 받지 않습니다. 입력들의 dtype을 출력해 보세요(마스크는 bool이고, "
        "`&`와 `|`에는 bool 또는 정수 텐서가 필요합니다).",
    "A module is called that has no `forward` method: check the spelling of `def forward` and its "
    "indentation inside the class.":
        "`forward` 메서드가 없는 모듈을 호출했습니다. `def forward`의 철자와, 클래스 안에서의 들여쓰기를 확인하세요.",
    ".view needs memory laid out in order, which a transpose breaks; .reshape (or .contiguous() first) "
    "copes with that.":
        ".view는 메모리에 값이 순서대로 놓여 있어야 쓸 수 있는데, 전치하면 그 순서가 깨집니다. "
        ".reshape를 쓰면(또는 먼저 .contiguous()를 호출하면) 괜찮습니다.",
    "A view or reshape asks for a shape whose size differs from the tensor's: check the sizes you compute.":
        "view나 reshape로 요청한 shape의 전체 크기가 텐서의 크기와 다릅니다. 계산한 크기들을 확인하세요.",
    "permute needs one entry per axis, and the inputs may have more axes than you expect: count axes "
    "from the end.":
        "permute에는 축마다 값이 하나씩 필요한데, 입력의 축이 생각보다 많을 수 있습니다. 축을 끝에서부터 세세요.",
    "An axis index is too large for this tensor; negative axes (-1, -2) count from the end and work for "
    "any number of leading axes.":
        "축 번호가 이 텐서에 비해 너무 큽니다. 음수 축(-1, -2)은 끝에서부터 세므로, 앞쪽에 축이 몇 개 있든 동작합니다.",
    "A tensor made inside your code has a fixed dtype: create it with the inputs' dtype, or use a plain "
    "Python number.":
        "코드 안에서 만든 텐서의 dtype이 고정되어 있습니다. 입력의 dtype으로 만들거나, 평범한 파이썬 숫자를 쓰세요.",
    "A tensor made inside your code lives on a fixed device: create it on the inputs' device.":
        "코드 안에서 만든 텐서가 고정된 장치에 있습니다. 입력의 장치에 만드세요.",
    "An in-place change (an operation ending in _, or x /= …) hits a tensor autograd needs: work on a new "
    "tensor instead.":
        "제자리(in-place) 변경(_로 끝나는 연산이나 x /= …)이 autograd가 필요로 하는 텐서를 건드립니다. "
        "대신 새 텐서로 계산하세요.",
    "The call does not fit your signature: keep the parameters, and their order, exactly as the exercise "
    "gives them.":
        "호출이 여러분이 만든 시그니처와 맞지 않습니다. 매개변수와 그 순서를 과제에 주어진 그대로 두세요.",
    "The call does not fit your signature: keep the parameter names exactly as the exercise gives them.":
        "호출이 여러분이 만든 시그니처와 맞지 않습니다. 매개변수 이름을 과제에 주어진 그대로 두세요.",
    "Something that is not a tensor went where a tensor belongs. If it is a module, `nn.ReLU(h)` (say) "
    "builds a module, taking h as a setting, instead of applying one to h: build the module first, then "
    "call it on the tensor (or use the function form).":
        "텐서가 와야 할 자리에 텐서가 아닌 것이 들어갔습니다. 그것이 모듈이라면, 예를 들어 `nn.ReLU(h)`는 h에 "
        "모듈을 적용하는 것이 아니라 h를 설정값으로 받는 모듈을 새로 만듭니다. 모듈을 먼저 만든 다음 그 모듈을 "
        "텐서에 호출하세요(또는 함수 형태를 쓰세요).",
    "Something returned None: is a `return` missing in a function you call?":
        "무언가가 None을 반환했습니다. 호출하는 함수에 `return`이 빠져 있지 않나요?",
    "A name is used before it exists: define it inside your function, or run the cell that defines it "
    "first.":
        "아직 정의되지 않은 이름을 사용했습니다. 함수 안에서 정의하거나, 그 이름을 정의하는 셀을 먼저 실행하세요.",
    "`{name}` does not exist: is it a misspelling of `{close}`?":
        "`{name}`: 이런 이름은 없습니다. `{close}`의 오타인가요?",
}
