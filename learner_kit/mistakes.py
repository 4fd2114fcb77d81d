"""Every known mistake, one entry each: its message in both languages, the knob that reproduces it, where it is taught.

Decides grades: the hidden checks, grading or the sandbox import it (tests/learner_kit/test_learner_kit_imports.py).

A misconception id (../shared/COURSE.md section 4, plus the four generic ids of learner_kit.messages.EXTRA_IDS)
is one `Mistake` here, holding all that belongs to it:

- its message: `en` and `ko`, each (what is wrong, in one line; why it matters and a hint, in a sentence or two).
  learner_kit.messages.CATALOGUE and the Korean catalogue (learner_kit/locales/ko/catalogue.py) are read from
  these entries;
- `knob`: the knob of the hidden checks whose setting reproduces it, as "module:knobbed reference.knob" (a string:
  the learner kit never imports the grader). A mistake that no setting of the reference can make says why in
  `no_knob` instead, one of the reasons of NO_KNOB;
- `taught`: the section of the notebook source that teaches it, in both editions (notebooks/<id>.md and
  notebooks/ko/<id>.md).

tests/learner_kit/test_mistake_catalogue.py holds the four together: every id the checks can emit has an entry, every entry an
id the checks emit, its knob found in the checks' registry (autograder.checks.core.UNITS, the capstone's units)
naming that id, its section and marker in both editions' sources.
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class Section:
    """Where a notebook teaches a mistake: the notebook's id, the number of its `## N.` heading (0: the
    introduction, before the first `##` heading), and a marker, text that this section holds in both editions
    (the id itself where the notebook names it, else the code it is about)."""

    notebook: str
    number: int
    marker: str


# Why a mistake has no knob: a knob is a setting of the reference, and these are found otherwise.
GUARD = "guard"
GENERIC = "generic"
DEVICE = "device"
NO_KNOB = {
    GUARD: "found by a guard around the learner's code before any result is compared (the stub left in place, an "
           "input changed in place, a forbidden built-in, the checks tampered with): no setting of the reference "
           "computes it",
    GENERIC: "a symptom, said when no known mistake explains a failure (a knob's id replaces it when one does): it "
             "names what is wrong, not one mistake a knob could make",
    DEVICE: "found by running the unit with its inputs on another device: the reference makes its tensors where its "
            "inputs are, and no setting of it puts one elsewhere",
}


@dataclass(frozen=True)
class Mistake:
    """One misconception id and all that belongs to it (see the module's docstring)."""

    id: str
    en: tuple  # (what is wrong, why it matters and a hint), in English
    ko: tuple  # the same, in Korean
    taught: Section
    knob: str = ""  # "autograder.checks.<family>:<knobbed reference>.<knob>"
    no_knob: str = ""  # where there is no knob: a key of NO_KNOB


_MISTAKES = (
    # ------------------------------------------------ scaled_dot_product_attention
    Mistake(
        "sdpa-no-scale",
        en=("The scores match Q·Kᵀ without the 1/√d_k factor.",
            ("Without scaling, dot products grow with d_k and push the softmax into a nearly one-hot "
             "region where gradients vanish. Look again at where the paper puts 1/√d_k.")),
        ko=("점수가 1/√d_k를 곱하지 않은 Q·Kᵀ 그대로입니다.",
            ("스케일링을 하지 않으면 내적 값이 d_k에 따라 커져서 소프트맥스가 원-핫(one-hot)에 가까운 영역으로 "
             "밀려나고, 그곳에서는 기울기가 사라집니다. 논문에서 1/√d_k가 어디에 들어가는지 다시 살펴보세요.")),
        taught=Section("01-attention", 3, "sdpa-no-scale"),
        knob="autograder.checks.attention:_sdpa.scale",
    ),
    Mistake(
        "sdpa-scale-dk",
        en=("The scores are divided by d_k, not by √d_k.",
            ("A dot product of d_k unit-variance terms has variance d_k; the scaling should bring its "
             "standard deviation back to about 1. Dividing by d_k over-flattens the attention.")),
        ko=("점수를 √d_k가 아니라 d_k로 나누었습니다.",
            ("분산이 1인 항 d_k개로 이루어진 내적의 분산은 d_k입니다. 스케일링은 그 표준편차를 다시 1 정도로 되돌려야 합니다. "
             "d_k로 나누면 어텐션이 지나치게 평평해집니다.")),
        taught=Section("01-attention", 3, "sdpa-scale-dk"),
        knob="autograder.checks.attention:_sdpa.scale",
    ),
    Mistake(
        "sdpa-softmax-dim",
        en=("The softmax normalises over the wrong axis (not over the keys).",
            ("Each query needs a distribution over the keys, so each row of the weights (one query, "
             "axis -2) must sum to 1 over axis -1. Check which axis your softmax runs over.")),
        ko=("소프트맥스가 키 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
            ("쿼리마다 키들에 대한 분포가 필요하므로, 가중치의 각 행(쿼리 하나, 축 -2)은 축 -1을 따라 합이 1이어야 합니다. "
             "소프트맥스를 어느 축에 적용했는지 확인하세요.")),
        taught=Section("01-attention", 6, "sdpa-softmax-dim"),
        knob="autograder.checks.attention:_sdpa.softmax_dim",
    ),
    Mistake(
        "sdpa-mask-inverted",
        en=("The mask is applied the wrong way round: positions marked True are blocked.",
            ("In this course True means 'may attend' and False means 'blocked'. Check which positions "
             "your code changes.")),
        ko=("마스크를 거꾸로 적용했습니다. True로 표시된 위치가 가려집니다.",
            "이 과정에서 True는 '어텐션할 수 있음', False는 '가려짐'을 뜻합니다. 코드가 어느 위치의 값을 바꾸는지 확인하세요."),
        taught=Section("01-attention", 4, "sdpa-mask-inverted"),
        knob="autograder.checks.attention:_sdpa.mask_use",
    ),
    Mistake(
        "sdpa-mask-ignored",
        en=("The mask has no effect on the result.",
            ("Blocked keys (mask False) must get weight exactly 0. Make sure the masked scores are the "
             "ones you keep: masked_fill returns a new tensor and leaves its input as it was.")),
        ko=("마스크가 결과에 아무 영향을 주지 않습니다.",
            ("가려진 키(마스크가 False인 키)의 가중치는 정확히 0이어야 합니다. 마스킹한 점수가 실제로 남아서 다음 단계에 쓰이는지 확인하세요. "
             "masked_fill은 새 텐서를 반환할 뿐, 입력은 그대로 둡니다.")),
        taught=Section("01-attention", 6, "sdpa-mask-ignored"),
        knob="autograder.checks.attention:_sdpa.mask_use",
    ),
    Mistake(
        "sdpa-mask-after-softmax",
        en=("The mask is applied after the softmax.",
            ("Changing the weights after normalising leaves rows that no longer sum to 1 (or holds huge "
             "negative weights). Block positions while they are still scores, so that the softmax "
             "itself gives them weight 0.")),
        ko=("마스크를 소프트맥스 다음에 적용했습니다.",
            ("정규화한 뒤에 가중치를 바꾸면 행의 합이 더 이상 1이 되지 않습니다(또는 아주 큰 음수 가중치가 남습니다). "
             "아직 점수일 때 위치를 가려서, 소프트맥스가 스스로 그 위치에 가중치 0을 주게 하세요.")),
        taught=Section("01-attention", 4, "sdpa-mask-after-softmax"),
        knob="autograder.checks.attention:_sdpa.mask_use",
    ),
    Mistake(
        "sdpa-mask-fill-zero",
        en=("Blocked scores are set to 0 instead of a very negative number.",
            ("A score of 0 still becomes a positive weight after the softmax (e⁰ = 1), so blocked keys "
             "keep receiving attention. Which score gives a weight of exactly 0 after exp?")),
        ko=("가려진 위치의 점수를 아주 큰 음수가 아니라 0으로 채웠습니다.",
            ("점수 0도 소프트맥스를 거치면 양의 가중치가 되므로(e⁰ = 1), 가려진 키가 여전히 어텐션을 받습니다. "
             "exp를 거친 뒤 가중치가 정확히 0이 되는 점수는 무엇일까요?")),
        taught=Section("01-attention", 4, "sdpa-mask-fill-zero"),
        knob="autograder.checks.attention:_sdpa.fill",
    ),
    Mistake(
        "sdpa-key-transpose",
        en=("The key is transposed on the wrong axes (or not at all).",
            ("Q·Kᵀ pairs every query with every key, so only the last two axes of the key swap, "
             "whatever batch or head axes come first. Counting axes from the end makes the same code "
             "work for 3-D and 4-D inputs.")),
        ko=("키를 엉뚱한 축으로 전치했습니다(또는 전치하지 않았습니다).",
            ("Q·Kᵀ는 모든 쿼리를 모든 키와 짝짓습니다. 그러니 앞에 배치 축이나 헤드 축이 몇 개 있든 키의 마지막 두 축만 "
             "서로 바뀌어야 합니다. 축을 끝에서부터 세면 같은 코드가 3차원 입력과 4차원 입력 모두에서 동작합니다.")),
        taught=Section("01-attention", 6, "sdpa-key-transpose"),
        knob="autograder.checks.attention:_sdpa.key_axes",
    ),
    Mistake(
        "sdpa-returns-scores",
        en=("The weights you return are the scores before the softmax.",
            ("The second result is the attention weights themselves: non-negative, each row summing to "
             "1 over the allowed keys. Return the tensor you multiply the values with.")),
        ko=("반환한 가중치가 소프트맥스를 거치기 전의 점수입니다.",
            ("두 번째 반환값은 어텐션 가중치 그 자체입니다. 음수가 없고, 각 행을 허용된 키들에 걸쳐 더하면 1입니다. "
             "밸류에 곱하는 바로 그 텐서를 반환하세요.")),
        taught=Section("01-attention", 6, "sdpa-returns-scores"),
        knob="autograder.checks.attention:_sdpa.returns",
    ),
    # ------------------------------------------------ split/merge heads, MultiHeadAttention
    Mistake(
        "heads-split-no-transpose",
        en=("The heads are split by reshaping straight to (B, n_head, L, d_k).",
            ("Memory is laid out as (B, L, d_model), so a direct reshape cuts across positions and "
             "mixes them inside a head. Cut the feature axis into heads where it is, then move the "
             "head axis.")),
        ko=("헤드를 나눌 때 곧바로 (B, n_head, L, d_k)로 reshape했습니다.",
            ("메모리에는 값이 (B, L, d_model) 순서로 놓여 있어서, 곧바로 reshape하면 위치의 경계를 가로질러 잘리고 "
             "한 헤드 안에 여러 위치가 섞입니다. 특성 축을 제자리에서 헤드별로 자른 다음, 헤드 축을 옮기세요.")),
        taught=Section("02-multi-head", 2, "heads-split-no-transpose"),
        knob="autograder.checks.heads:_split.transpose",
    ),
    Mistake(
        "heads-merge-no-transpose",
        en=("The heads are merged by reshaping straight to (B, L, d_model).",
            ("In (B, n_head, L, d_k) the features of one position sit in different heads; flattening "
             "directly mixes positions. Bring the axes back to position-major order before flattening.")),
        ko=("헤드를 합칠 때 곧바로 (B, L, d_model)로 reshape했습니다.",
            ("(B, n_head, L, d_k)에서는 한 위치의 특성들이 여러 헤드에 흩어져 있어서, 그대로 펼치면 위치들이 섞입니다. "
             "펼치기 전에 축을 위치 축이 앞에 오는 순서로 되돌리세요.")),
        taught=Section("02-multi-head", 3, "heads-merge-no-transpose"),
        knob="autograder.checks.heads:_merge.transpose",
    ),
    Mistake(
        "mha-kv-use-wq",
        en=("Keys or values are projected with w_q.",
            ("Queries, keys and values each have their own projection (w_q, w_k, w_v); sharing w_q "
             "makes the heads compare and mix the wrong features. Check which layer you apply to each "
             "input.")),
        ko=("키나 밸류를 w_q로 투영했습니다.",
            ("쿼리, 키, 밸류에는 저마다 투영(w_q, w_k, w_v)이 따로 있습니다. w_q를 함께 쓰면 헤드가 엉뚱한 특성을 비교하고 "
             "섞게 됩니다. 각 입력에 어떤 레이어를 적용했는지 확인하세요.")),
        taught=Section("02-multi-head", 4, "mha-kv-use-wq"),
        knob="autograder.checks.heads:_MultiHeadAttention.projections",
    ),
    Mistake(
        "mha-no-output-proj",
        en=("The output projection w_o is not applied.",
            ("After the heads are merged, w_o mixes what the heads found back into d_model features. "
             "Check the last step of your forward.")),
        ko=("출력 투영 w_o를 적용하지 않았습니다.",
            ("헤드를 합친 뒤에는 w_o가 각 헤드가 찾아낸 내용을 다시 d_model개의 특성으로 섞어 줍니다. "
             "forward의 마지막 단계를 확인하세요.")),
        taught=Section("02-multi-head", 4, "mha-no-output-proj"),
        knob="autograder.checks.heads:_MultiHeadAttention.output_projection",
    ),
    Mistake(
        "mha-scale-dmodel",
        en=("The scores are scaled by √d_model instead of √d_k.",
            ("Each head takes dot products of d_k-dimensional vectors, so the scaling uses the "
             "per-head size d_k = d_model // n_head.")),
        ko=("점수를 √d_k가 아니라 √d_model로 스케일링했습니다.",
            "각 헤드는 d_k차원 벡터끼리 내적하므로, 스케일링에는 헤드 하나의 크기인 d_k = d_model // n_head를 씁니다."),
        taught=Section("02-multi-head", 4, "mha-scale-dmodel"),
        knob="autograder.checks.heads:_MultiHeadAttention.scale",
    ),
    Mistake(
        "mha-qkv-swapped",
        en=("The query, key and value arguments are used in the wrong roles.",
            ("In cross-attention query, key and value are different tensors, and the key may be longer "
             "than the query. Check which argument goes through which projection, and the order of "
             "the parameters of forward.")),
        ko=("query, key, value 인자를 서로 엉뚱한 역할로 썼습니다.",
            ("크로스 어텐션에서는 query, key, value가 서로 다른 텐서이고, key가 query보다 길 수도 있습니다. "
             "어느 인자가 어느 투영을 거치는지, 그리고 forward의 매개변수 순서를 확인하세요.")),
        taught=Section("02-multi-head", 4, "mha-qkv-swapped"),
        knob="autograder.checks.heads:_MultiHeadAttention.roles",
    ),
    # ------------------------------------------------ LayerNorm, AddNorm
    Mistake(
        "layernorm-eps-outside-sqrt",
        en=("eps is added outside the square root.",
            ("nn.LayerNorm divides by √(var + eps); moving eps outside changes the result when the "
             "variance is small. Check where eps goes.")),
        ko=("eps를 제곱근 바깥에서 더했습니다.",
            ("nn.LayerNorm은 √(var + eps)로 나눕니다. eps를 바깥으로 빼면 분산이 작을 때 결과가 달라집니다. "
             "eps가 들어갈 자리를 확인하세요.")),
        taught=Section("03-add-norm", 1, "layernorm-eps-outside-sqrt"),
        knob="autograder.checks.norm:_LayerNorm.eps_inside",
    ),
    Mistake(
        "layernorm-unbiased-var",
        en=("The variance is the unbiased one (it divides by n − 1).",
            ("Layer normalisation uses the biased variance (divide by n), as nn.LayerNorm does. "
             "torch.var's default is the unbiased one: look at its `correction` argument.")),
        ko=("분산을 불편 분산(n − 1로 나눈 값)으로 구했습니다.",
            ("레이어 정규화는 nn.LayerNorm처럼 편향 분산(n으로 나눈 값)을 씁니다. torch.var는 기본값이 불편 분산이니 "
             "`correction` 인자를 살펴보세요.")),
        taught=Section("03-add-norm", 1, "layernorm-unbiased-var"),
        knob="autograder.checks.norm:_LayerNorm.correction",
    ),
    Mistake(
        "layernorm-wrong-dim",
        en=("The mean and variance are taken over the wrong axis.",
            ("Each position is normalised over its own d_model features: the statistics run over the "
             "last axis and keep it, so that they broadcast back.")),
        ko=("평균과 분산을 엉뚱한 축에서 구했습니다.",
            ("각 위치는 자기 d_model개 특성에 대해 정규화됩니다. 통계량은 마지막 축을 따라 구하되, "
             "다시 브로드캐스팅될 수 있도록 그 축을 남겨 두어야 합니다.")),
        taught=Section("03-add-norm", 1, "layernorm-wrong-dim"),
        knob="autograder.checks.norm:_LayerNorm.dims",
    ),
    Mistake(
        "layernorm-no-affine",
        en=("gamma and beta are not applied.",
            ("After normalising, LayerNorm scales by gamma and shifts by beta, learned per feature; "
             "without them the layer cannot undo the normalisation where that helps.")),
        ko=("gamma와 beta를 적용하지 않았습니다.",
            ("LayerNorm은 정규화한 다음, 특성마다 학습되는 gamma를 곱하고 beta를 더합니다. 이 둘이 없으면 정규화를 되돌리는 "
             "편이 나은 곳에서도 레이어가 그렇게 하지 못합니다.")),
        taught=Section("03-add-norm", 1, "layernorm-no-affine"),
        knob="autograder.checks.norm:_LayerNorm.affine",
    ),
    Mistake(
        "addnorm-no-residual",
        en=("The residual connection is missing: only the sublayer output is normalised.",
            ("Add & Norm adds the sublayer's output to its input x before normalising; the residual "
             "path is what lets signal and gradients pass through deep stacks.")),
        ko=("잔차 연결이 빠져서, 서브레이어의 출력만 정규화합니다.",
            ("Add & Norm은 정규화하기 전에 서브레이어의 출력을 그 입력 x에 더합니다. 이 잔차 경로 덕분에 층을 깊이 쌓아도 "
             "신호와 기울기가 끝까지 전달됩니다.")),
        taught=Section("03-add-norm", 4, "addnorm-no-residual"),
        knob="autograder.checks.norm:_AddNorm.residual",
    ),
    Mistake(
        "addnorm-norm-before-add",
        en=("The result is x + norm(sublayer_out) instead of norm(x + sublayer_out).",
            ("In the paper's post-norm layout the sum of the input and the (dropped-out) sublayer "
             "output is what gets normalised.")),
        ko=("결과가 norm(x + sublayer_out)이 아니라 x + norm(sublayer_out)입니다.",
            "논문의 post-norm 구조에서 정규화되는 것은 입력과 (드롭아웃을 거친) 서브레이어 출력의 합입니다."),
        taught=Section("03-add-norm", 4, "addnorm-norm-before-add"),
        knob="autograder.checks.norm:_AddNorm.norm_first",
    ),
    # ------------------------------------------------ PositionwiseFeedForward
    Mistake(
        "ffn-no-activation",
        en=("There is no ReLU between the two linear layers.",
            ("Two linear layers in a row are one linear map; the non-linearity between them is what "
             "lets the network compute more than that.")),
        ko=("두 선형 레이어 사이에 ReLU가 없습니다.",
            ("선형 레이어 두 개를 연달아 쓰면 결국 선형 변환 하나일 뿐입니다. 그 사이에 비선형성이 있어야 "
             "네트워크가 그보다 많은 것을 계산할 수 있습니다.")),
        taught=Section("04-feed-forward", 1, "ffn-no-activation"),
        knob="autograder.checks.feedforward:_FeedForward.hidden_relu",
    ),
    Mistake(
        "ffn-activation-after-output",
        en=("The ReLU is applied after the second linear layer.",
            ("The activation belongs between w_1 and w_2; after w_2 it clips every negative output to "
             "0, which the residual stream needs.")),
        ko=("ReLU를 두 번째 선형 레이어 뒤에 적용했습니다.",
            ("활성화 함수는 w_1과 w_2 사이에 들어갑니다. w_2 뒤에 두면 음수 출력이 모두 0으로 잘리는데, "
             "잔차 스트림에는 그 음수 값도 필요합니다.")),
        taught=Section("04-feed-forward", 1, "ffn-activation-after-output"),
        knob="autograder.checks.feedforward:_FeedForward.output_relu",
    ),
    # ------------------------------------------------ Embeddings, PositionalEncoding, Encoder
    Mistake(
        "embed-no-scale",
        en=("The embeddings are not scaled by √d_model: they come out multiplied by another factor, or by none.",
            ("The paper scales the embeddings by √d_model so that the positional encoding, whose "
             "values lie in [−1, 1], does not drown them.")),
        ko=("임베딩의 배율이 √d_model이 아닙니다. 다른 수가 곱해졌거나 아무것도 곱해지지 않았습니다.",
            "논문은 임베딩에 √d_model을 곱해서, 값이 [−1, 1] 범위에 있는 위치 인코딩에 임베딩이 묻히지 않게 합니다."),
        taught=Section("05-encoder", 1, "embed-no-scale"),
        knob="autograder.checks.encoder:_Embeddings.scale",
    ),
    Mistake(
        "pe-sin-cos-swapped",
        en=("sin and cos are swapped.",
            "Even features (0, 2, 4, …) take the sine and odd features the cosine of the same angle."),
        ko=("sin과 cos이 뒤바뀌었습니다.",
            "짝수 번째 특성(0, 2, 4, …)에는 사인을, 홀수 번째 특성에는 같은 각도의 코사인을 씁니다."),
        taught=Section("05-encoder", 2, "pe-sin-cos-swapped"),
        knob="autograder.checks.encoder:_PositionalEncoding.sin_even",
    ),
    Mistake(
        "pe-wrong-frequency",
        en=("The frequencies of the positional encoding are wrong.",
            ("Feature pair i (features 2i and 2i+1) shares one frequency, 1 / 10000^(2i/d_model). Check "
             "the exponent and that both features of a pair use it.")),
        ko=("위치 인코딩의 주파수가 틀렸습니다.",
            ("특성 쌍 i(특성 2i와 2i+1)는 주파수 1 / 10000^(2i/d_model) 하나를 함께 씁니다. 지수를 확인하고, "
             "한 쌍의 두 특성이 모두 그 주파수를 쓰는지도 확인하세요.")),
        taught=Section("05-encoder", 2, "pe-wrong-frequency"),
        knob="autograder.checks.encoder:_PositionalEncoding.frequency",
    ),
    Mistake(
        "encoder-prenorm",
        en=("The layer normalises before each sublayer (pre-norm), not after the residual add.",
            ("This course follows the paper's post-norm layout: each sublayer's output is added to "
             "its input, and the sum is normalised.")),
        ko=("레이어가 잔차 덧셈 뒤가 아니라 각 서브레이어 앞에서 정규화합니다(pre-norm).",
            "이 과정은 논문의 post-norm 구조를 따릅니다. 각 서브레이어의 출력을 그 입력에 더한 다음, 그 합을 정규화합니다."),
        taught=Section("05-encoder", 3, "encoder-prenorm"),
        knob="autograder.checks.encoder:_EncoderLayer.prenorm",
    ),
    Mistake(
        "encoder-no-residual",
        en=("A residual connection is missing in the encoder layer.",
            ("Each sublayer's output is added to its input before the norm; without it, the layer "
             "forgets its input and deep stacks train badly.")),
        ko=("인코더 레이어에 잔차 연결이 하나 빠졌습니다.",
            ("각 서브레이어의 출력은 정규화 전에 그 입력에 더해집니다. 이것이 없으면 레이어가 입력을 잊어버리고, "
             "층을 깊이 쌓았을 때 학습이 잘 되지 않습니다.")),
        taught=Section("05-encoder", 3, "encoder-no-residual"),
        knob="autograder.checks.encoder:_EncoderLayer.residual",
    ),
    Mistake(
        "encoder-mask-ignored",
        en=("The mask does not reach self-attention.",
            ("Padding must stay invisible to every layer: pass the mask on to each layer and to its "
             "self-attention.")),
        ko=("마스크가 셀프 어텐션까지 전달되지 않습니다.",
            "패딩은 어느 레이어에서도 보이지 않아야 합니다. 마스크를 각 레이어와 그 안의 셀프 어텐션에 넘겨 주세요."),
        taught=Section("05-encoder", 3, "encoder-mask-ignored"),
        knob="autograder.checks.encoder:_EncoderLayer.use_mask",
    ),
    Mistake(
        "encoder-shared-layers",
        en=("The stack repeats one layer object instead of n_layers independent layers.",
            ("Repeating the same object (for example with a list multiplied by n) shares its weights, "
             "so every layer is the same. Each layer needs its own parameters.")),
        ko=("서로 독립인 레이어 n_layers개가 아니라 레이어 객체 하나를 반복해서 쌓았습니다.",
            ("같은 객체를 반복하면(예를 들어 리스트에 n을 곱해서) 가중치가 공유되어 모든 레이어가 똑같아집니다. "
             "레이어마다 자기 파라미터가 따로 있어야 합니다.")),
        taught=Section("05-encoder", 4, "encoder-shared-layers"),
        knob="autograder.checks.encoder:_Encoder.shared",
    ),
    # ------------------------------------------------ masks
    Mistake(
        "mask-causal-diagonal-blocked",
        en=("The look-ahead mask also blocks the diagonal: a position cannot see itself.",
            ("Position i may attend to positions 0 … i, itself included; only later positions are "
             "blocked.")),
        ko=("룩어헤드 마스크가 대각선까지 가려서, 각 위치가 자기 자신을 볼 수 없습니다.",
            "위치 i는 자기 자신을 포함해 위치 0 … i에 어텐션할 수 있습니다. 가려지는 것은 그 뒤의 위치들뿐입니다."),
        taught=Section("06-masks", 2, "mask-causal-diagonal-blocked"),
        knob="autograder.checks.masks:_subsequent.diagonal",
    ),
    Mistake(
        "mask-causal-transposed",
        en=("The look-ahead mask lets positions see the future and blocks the past.",
            ("Rows are queries and columns keys: row i may see columns 0 … i. Check which triangle "
             "your mask keeps.")),
        ko=("룩어헤드 마스크가 미래를 보여 주고 과거를 가립니다.",
            "행은 쿼리, 열은 키입니다. 행 i는 열 0 … i를 볼 수 있습니다. 마스크가 어느 쪽 삼각형을 남기는지 확인하세요."),
        taught=Section("06-masks", 2, "mask-causal-transposed"),
        knob="autograder.checks.masks:_subsequent.upper",
    ),
    Mistake(
        "mask-pad-wrong-axis",
        en=("The padding mask has its new axes in the wrong place.",
            ("Padding blocks keys, the last axis of the scores (B, n_head, L_q, L_k): the mask must "
             "broadcast over heads and queries and line up with the keys.")),
        ko=("패딩 마스크에 새로 추가한 축의 위치가 틀렸습니다.",
            ("패딩 마스크가 가리는 것은 키, 곧 점수 (B, n_head, L_q, L_k)의 마지막 축입니다. 마스크는 헤드 축과 쿼리 축을 "
             "따라 브로드캐스팅되고, 키 축과는 나란히 맞아야 합니다.")),
        taught=Section("06-masks", 1, "mask-pad-wrong-axis"),
        knob="autograder.checks.masks:_pad_mask.axes",
    ),
    Mistake(
        "mask-pad-inverted",
        en=("The padding mask is True at padding.",
            "True means 'may attend': real tokens are True and padding is False."),
        ko=("패딩 마스크가 패딩 위치에서 True입니다.",
            "True는 '어텐션할 수 있음'을 뜻합니다. 실제 토큰은 True, 패딩은 False입니다."),
        taught=Section("06-masks", 1, "`False`"),
        knob="autograder.checks.masks:_pad_mask.inverted",
    ),
    Mistake(
        "mask-tgt-missing-pad",
        en=("The target mask blocks the future but not padding.",
            ("The target mask combines both rules: a key is visible only if it is not padding and not "
             "in the future.")),
        ko=("타깃 마스크가 미래는 가리지만 패딩은 가리지 않습니다.",
            "타깃 마스크는 두 규칙을 합친 것입니다. 키는 패딩도 아니고 미래도 아닐 때만 보입니다."),
        taught=Section("06-masks", 3, "mask-tgt-missing-pad"),
        knob="autograder.checks.masks:_tgt_mask.pad",
    ),
    Mistake(
        "mask-tgt-missing-causal",
        en=("The target mask lets positions see the future.",
            ("While training, the decoder sees the whole target at once; the look-ahead part of the "
             "mask is what stops position i from reading the tokens it must predict, whatever padding it also blocks.")),
        ko=("타깃 마스크로는 위치들이 미래를 볼 수 있습니다.",
            ("학습할 때 디코더는 타깃 전체를 한 번에 봅니다. 마스크가 패딩을 어떻게 가리든, 위치 i가 자기가 예측해야 할 "
             "토큰을 읽지 못하게 막는 것은 마스크의 룩어헤드 부분입니다.")),
        taught=Section("06-masks", 3, "mask-tgt-missing-causal"),
        knob="autograder.checks.masks:_tgt_mask.causal",
    ),
    Mistake(
        "mask-fixed-device",
        en=("The mask is created on a fixed device, not on the device of its input.",
            ("On a GPU the mask must live where the scores are. Create it on the input's device (or the "
             "`device` argument).")),
        ko=("마스크를 입력의 장치가 아니라 고정된 장치에 만들었습니다.",
            ("GPU에서는 마스크가 점수와 같은 장치에 있어야 합니다. 마스크를 입력의 장치(또는 `device` 인자)에 "
             "만드세요.")),
        taught=Section("06-masks", 1, "mask-fixed-device"),
        no_knob=DEVICE,
    ),
    # ------------------------------------------------ DecoderLayer, Decoder
    Mistake(
        "decoder-cross-qkv-swapped",
        en=("Cross-attention takes its queries from memory, or its keys and values from x.",
            ("In cross-attention the decoder asks the questions: queries come from x, keys and values "
             "from the encoder's output (memory).")),
        ko=("크로스 어텐션이 쿼리를 memory에서 가져오거나, 키와 밸류를 x에서 가져옵니다.",
            "크로스 어텐션에서 질문을 던지는 쪽은 디코더입니다. 쿼리는 x에서, 키와 밸류는 인코더의 출력(memory)에서 옵니다."),
        taught=Section("07-decoder", 1, "memory"),
        knob="autograder.checks.decoder:_DecoderLayer.cross_roles",
    ),
    Mistake(
        "decoder-masks-swapped",
        en=("src_mask and tgt_mask are used in each other's place.",
            ("Self-attention over the target uses tgt_mask; cross-attention over the source uses "
             "src_mask.")),
        ko=("src_mask와 tgt_mask를 서로 바꿔 썼습니다.",
            "타깃에 대한 셀프 어텐션에는 tgt_mask를, 소스에 대한 크로스 어텐션에는 src_mask를 씁니다."),
        taught=Section("07-decoder", 2, "src_mask"),
        knob="autograder.checks.decoder:_DecoderLayer.masks_swapped",
    ),
    Mistake(
        "decoder-self-attn-unmasked",
        en=("The decoder's self-attention ignores the target mask, so positions see the future.",
            "Without the look-ahead mask, training lets each position read the token it must predict."),
        ko=("디코더의 셀프 어텐션이 타깃 마스크를 무시해서, 각 위치가 미래를 봅니다.",
            "룩어헤드 마스크가 없으면 학습 중에 각 위치가 자기가 예측해야 할 토큰을 읽을 수 있습니다."),
        taught=Section("07-decoder", 3, "decoder-self-attn-unmasked"),
        knob="autograder.checks.decoder:_DecoderLayer.self_masked",
    ),
    Mistake(
        "decoder-sublayer-order",
        en=("The decoder's sublayers run in the wrong order.",
            ("A decoder layer runs masked self-attention, then cross-attention, then the feed-forward "
             "network, each with its own residual add and norm.")),
        ko=("디코더의 서브레이어들이 잘못된 순서로 실행됩니다.",
            ("디코더 레이어는 마스크드 셀프 어텐션, 크로스 어텐션, 피드포워드 네트워크 순서로 실행되며, "
             "각각 자기 잔차 덧셈과 정규화를 거칩니다.")),
        taught=Section("07-decoder", 2, "norm3"),
        knob="autograder.checks.decoder:_DecoderLayer.order",
    ),
    # ------------------------------------------------ Generator, Transformer
    Mistake(
        "generator-softmax",
        en=("The generator returns probabilities, not log-probabilities.",
            "The loss and greedy decoding expect log-probabilities over the vocabulary."),
        ko=("제너레이터가 로그 확률이 아니라 확률을 반환합니다.",
            "손실과 그리디 디코딩은 어휘 전체에 대한 로그 확률을 받는다고 가정합니다."),
        taught=Section("08-generator", 1, "log_softmax"),
        knob="autograder.checks.generator:_Generator.output",
    ),
    Mistake(
        "generator-logits",
        en=("The generator returns raw logits, not log-probabilities.",
            "After the projection the scores still need normalising over the vocabulary, in log space."),
        ko=("제너레이터가 로그 확률이 아니라 정규화되지 않은 로짓을 그대로 반환합니다.",
            "투영을 거친 점수는 아직 정규화되지 않았습니다. 어휘 축을 따라, 로그 공간에서 정규화해야 합니다."),
        taught=Section("08-generator", 1, "logits"),
        knob="autograder.checks.generator:_Generator.output",
    ),
    Mistake(
        "generator-wrong-dim",
        en=("The log-softmax normalises over the wrong axis.",
            "Each position needs a distribution over the vocabulary, the last axis."),
        ko=("로그 소프트맥스가 어휘 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
            "각 위치에는 어휘에 대한 분포가 필요합니다. 어휘는 마지막 축입니다."),
        taught=Section("08-generator", 1, "generator-wrong-dim"),
        knob="autograder.checks.generator:_Generator.dim",
    ),
    Mistake(
        "transformer-tgt-uses-src-embed",
        en=("The target tokens are embedded with src_embed.",
            ("Source and target have their own vocabularies and embeddings: the decoder's input goes "
             "through tgt_embed.")),
        ko=("타깃 토큰을 src_embed로 임베딩했습니다.",
            "소스와 타깃은 어휘도 임베딩도 저마다 따로 있습니다. 디코더의 입력은 tgt_embed를 거쳐야 합니다."),
        taught=Section("08-generator", 2, "transformer-tgt-uses-src-embed"),
        knob="autograder.checks.generator:_Transformer.tgt_embedding",
    ),
    # ------------------------------------------------ additive attention
    Mistake(
        "additive-no-tanh",
        en=("The additive score has no tanh between the projections and v.",
            ("The score is vᵀ tanh(W_q q + W_k k). With no non-linearity there, vᵀ(W_q q + W_k k) splits into a "
             "query part plus a key part, and a non-linearity after v keeps every query ranking the keys in the same "
             "order; a relu in the tanh's place computes another score than the paper's.")),
        ko=("가산 어텐션의 점수에서 투영과 v 사이에 tanh가 없습니다.",
            ("점수는 vᵀ tanh(W_q q + W_k k)입니다. 그 자리에 비선형성이 없으면 vᵀ(W_q q + W_k k)가 쿼리 부분과 키 부분의 "
             "합으로 갈라지고, v 뒤의 비선형성으로는 모든 쿼리가 여전히 같은 순서로 키의 순위를 매깁니다. tanh 자리에 "
             "relu를 쓰면 논문과 다른 점수를 계산합니다.")),
        taught=Section("09-additive-attention", 1, "additive-no-tanh"),
        knob="autograder.checks.additive:_AdditiveAttention.activation",
    ),
    Mistake(
        "additive-softmax-dim",
        en=("The softmax normalises over the wrong axis (not over the keys).",
            "Each query needs a distribution over the keys: every row of the weights sums to 1."),
        ko=("소프트맥스가 키 축이 아닌 엉뚱한 축을 따라 정규화합니다.",
            "쿼리마다 키들에 대한 분포가 필요합니다. 가중치의 각 행은 합이 1이어야 합니다."),
        taught=Section("09-additive-attention", 2, "additive-softmax-dim"),
        knob="autograder.checks.additive:_AdditiveAttention.softmax_dim",
    ),
    Mistake(
        "additive-mask-ignored",
        en=("The mask has no effect on the additive attention.",
            "Blocked keys (mask False) must get weight exactly 0, as in scaled dot-product attention."),
        ko=("마스크가 가산 어텐션에 아무 영향을 주지 않습니다.",
            "스케일드 닷-프로덕트 어텐션에서와 마찬가지로, 가려진 키(마스크가 False인 키)의 가중치는 정확히 0이어야 합니다."),
        taught=Section("09-additive-attention", 2, "additive-mask-ignored"),
        knob="autograder.checks.additive:_AdditiveAttention.use_mask",
    ),
    # ------------------------------------------------ capstone units
    Mistake(
        "batch-no-shift",
        en=("The decoder input and the target are not shifted against each other.",
            "With teacher forcing the decoder reads tokens 0 … n−1 and must predict tokens 1 … n."),
        ko=("디코더 입력과 타깃이 서로 한 칸 어긋나 있지 않습니다.",
            "티처 포싱(teacher forcing)에서 디코더는 토큰 0 … n−1을 읽고 토큰 1 … n을 예측해야 합니다."),
        taught=Section("10-train", 2, "batch-no-shift"),
        knob="autograder.checks.train:_make_batch.shift",
    ),
    Mistake(
        "loss-counts-padding",
        en=("The loss counts positions whose target is padding.",
            ("Padding is not part of the sequence: rows whose target is the pad token contribute "
             "nothing.")),
        ko=("손실에 타깃이 패딩인 위치까지 포함됩니다.",
            "패딩은 시퀀스의 일부가 아닙니다. 타깃이 패드 토큰인 행은 손실에 아무것도 보태지 않아야 합니다."),
        taught=Section("10-train", 3, "loss-counts-padding"),
        knob="autograder.checks.train:_LabelSmoothingLoss.zero_pad_rows",
    ),
    Mistake(
        "noam-no-warmup",
        en=("The learning-rate schedule has no warm-up.",
            "The Noam rate grows linearly for `warmup` steps, then decays as 1/√step."),
        ko=("학습률 스케줄에 워밍업이 없습니다.",
            "Noam 학습률은 `warmup` 스텝 동안 선형으로 커진 다음, 1/√step에 비례해 줄어듭니다."),
        taught=Section("10-train", 4, "noam-no-warmup"),
        knob="autograder.checks.train:_noam.warm_up",
    ),
    Mistake(
        "greedy-no-feedback",
        en=("Greedy decoding does not feed its own predictions back.",
            "At each step the decoder reads everything produced so far, the newest token included."),
        ko=("그리디 디코딩이 자기 예측을 다시 입력으로 넣지 않습니다.",
            "디코더는 매 스텝마다 지금까지 만든 토큰을, 가장 최근 토큰까지 포함해 모두 읽습니다."),
        taught=Section("10-train", 5, "greedy-no-feedback"),
        knob="autograder.checks.train:_greedy.feedback",
    ),
    # ------------------------------------------------ any unit
    Mistake(
        "not-implemented",
        en=("This unit is not implemented yet: it still raises NotImplementedError.",
            ("Replace the `raise NotImplementedError()` line with your code, run that cell, then run "
             "this test again.")),
        ko=("이 단위는 아직 구현되지 않아서, 여전히 NotImplementedError가 발생합니다.",
            "`raise NotImplementedError()` 줄을 여러분의 코드로 바꾸고 그 셀을 실행한 다음, 이 테스트를 다시 실행하세요."),
        taught=Section("01-attention", 0, "raise NotImplementedError()"),
        no_knob=GUARD,
    ),
    Mistake(
        "runtime-error",
        en=("Your code raised an error on a valid input.",
            "The error and a hint about its usual cause follow."),
        ko=("올바른 입력을 넣었는데 코드에서 오류가 났습니다.",
            "아래에 오류 내용과, 이런 오류가 흔히 생기는 원인을 짚는 힌트가 이어집니다."),
        taught=Section("05-encoder", 1, "runtime-error"),
        no_knob=GENERIC,
    ),
    Mistake(
        "shape",
        en=("A result has the wrong shape or dtype.",
            ("Print the shape after each step on a small input and compare it with the shapes the "
             "exercise gives.")),
        ko=("결과의 shape이나 dtype이 틀렸습니다.",
            "작은 입력으로 단계마다 shape을 출력해 보고, 과제에 나온 shape과 비교하세요."),
        taught=Section("01-attention", 1, "| shape |"),
        no_knob=GENERIC,
    ),
    Mistake(
        "nan",
        en=("A result contains NaN (not a number).",
            ("NaN usually comes from −inf meeting −inf or 0 (−inf · 0, −inf − (−inf), a softmax over a "
             "row that is all −inf), or from 0/0 and the square root of a negative number.")),
        ko=("결과에 NaN(not a number)이 들어 있습니다.",
            ("NaN은 보통 −inf가 −inf나 0과 만날 때(−inf · 0, −inf − (−inf), 모든 값이 −inf인 행의 소프트맥스), "
             "또는 0/0이나 음수의 제곱근에서 생깁니다.")),
        taught=Section("01-attention", 4, "NaN"),
        no_knob=GENERIC,
    ),
    Mistake(
        "device",
        en=("Your code creates a tensor on a fixed device, so it fails when the inputs live elsewhere.",
            ("On a GPU every tensor of an operation must be on the same device. Create new tensors on "
             "the inputs' device (…_like functions, device=x.device) or use plain Python numbers.")),
        ko=("코드가 고정된 장치에 텐서를 만들어서, 입력이 다른 장치에 있으면 실패합니다.",
            ("GPU에서는 한 연산에 쓰이는 텐서가 모두 같은 장치에 있어야 합니다. 새 텐서는 입력의 장치에 만들거나"
             "(…_like 함수, device=x.device) 평범한 파이썬 숫자를 쓰세요.")),
        taught=Section("01-attention", 6, '"device")'),
        no_knob=DEVICE,
    ),
    Mistake(
        "inplace-input",
        en=("Your code changes one of its inputs in place.",
            ("The caller still needs its tensors (and autograd may too). Operations ending in _ and "
             "augmented assignments like x /= … modify a tensor; work on a new tensor instead.")),
        ko=("코드가 입력 중 하나를 제자리(in-place)에서 바꿉니다.",
            ("호출한 쪽은 자기 텐서가 그대로 필요합니다(autograd도 그럴 수 있습니다). _로 끝나는 연산이나 x /= … 같은 "
             "복합 대입은 텐서를 직접 바꾸니, 대신 새 텐서로 계산하세요.")),
        taught=Section("01-attention", 6, "scaled_dot_product_attention-hidden-values"),
        no_knob=GUARD,
    ),
    Mistake(
        "forbidden-builtin",
        en=("The exercise's work is done by a PyTorch built-in.",
            ("This exercise is about writing that computation yourself; the built-in is welcome "
             "afterwards, to compare with.")),
        ko=("과제에서 직접 작성해야 할 계산을 PyTorch 내장 기능이 대신하고 있습니다.",
            ("이 과제의 목적은 그 계산을 직접 작성해 보는 것입니다. 내장 기능은 다 만든 뒤에 결과를 비교해 볼 때 "
             "얼마든지 쓰세요.")),
        taught=Section("01-attention", 6, "forbidden-builtin"),
        no_knob=GUARD,
    ),
    Mistake(
        "tampering",
        en=("The checking code, or something it relies on, was changed or bypassed.",
            ("Tests run against the real PyTorch and NumPy functions and against your own code only. "
             "Remove whatever replaces them or calls the grader's implementation.")),
        ko=("검사 코드나 검사 코드가 의존하는 무언가가 바뀌었거나 우회되었습니다.",
            ("테스트는 실제 PyTorch와 NumPy 함수, 그리고 여러분이 작성한 코드만으로 실행됩니다. 그것들을 바꿔치기하거나 "
             "채점기의 구현을 호출하는 코드를 지우세요.")),
        taught=Section("01-attention", 6, "scaled_dot_product_attention-hidden-values"),
        no_knob=GUARD,
    ),
    # ------------------------------------------------ generic, not tied to one mistake
    Mistake(
        "wrong-values",
        en=("The results have the right shape but the wrong values.",
            "Compare each step with the formula of the exercise on a tiny input you can check by hand."),
        ko=("결과의 shape은 맞지만 값이 틀렸습니다.",
            "손으로 확인할 수 있는 아주 작은 입력으로, 각 단계를 과제의 식과 비교해 보세요."),
        taught=Section("01-attention", 6, '"values")'),
        no_knob=GENERIC,
    ),
    Mistake(
        "wrong-gradients",
        en=("The gradients that flow back through your code are wrong.",
            ("The forward values are right, so something stops or changes the gradient: .detach(), "
             ".data, .item(), NumPy, torch.no_grad(), or an in-place change to a tensor autograd needs.")),
        ko=("코드를 거쳐 역전파되는 기울기가 틀렸습니다.",
            ("순전파 값은 맞으니, 무언가가 기울기를 끊거나 바꾸고 있습니다. 흔한 원인은 .detach(), .data, .item(), "
             "NumPy, torch.no_grad(), 그리고 autograd가 필요로 하는 텐서를 제자리에서 바꾸는 코드입니다.")),
        taught=Section("01-attention", 6, '"grad")'),
        no_knob=GENERIC,
    ),
    Mistake(
        "wrong-interface",
        en=("Your code does not have the names, arguments or results the exercise asks for.",
            ("The grader calls your code with the signature of the exercise, copies weights by "
             "submodule name and reads results where the exercise says. Keep those exactly as given.")),
        ko=("코드의 이름, 인자, 반환값이 과제에서 요구하는 것과 다릅니다.",
            ("채점기는 과제의 시그니처대로 코드를 호출하고, 하위 모듈 이름으로 가중치를 복사하며, 과제에서 정한 곳에서 "
             "결과를 읽습니다. 이름과 인자, 반환값은 주어진 그대로 두세요.")),
        taught=Section("02-multi-head", 4, "wrong-interface"),
        no_knob=GENERIC,
    ),
    Mistake(
        "property-violated",
        en=("A property that every correct answer has does not hold.",
            "The detail below says which one; it often points straight at the step that goes wrong."),
        ko=("올바른 답이라면 반드시 지키는 성질 하나가 깨졌습니다.",
            "어떤 성질인지는 아래에 나옵니다. 그 설명이 잘못된 단계를 곧바로 가리키는 경우가 많습니다."),
        taught=Section("01-attention", 6, "property-violated"),
        no_knob=GENERIC,
    ),
)

MISTAKES = {mistake.id: mistake for mistake in _MISTAKES}


def texts(lang):
    """{id: (what is wrong, why and a hint)} in `lang` ("en" or "ko"), in the order of the entries."""
    return {mistake.id: getattr(mistake, lang) for mistake in _MISTAKES}
