"""Korean of autograder/checks/encoder.py: the labels and feedback of Embeddings, PositionalEncoding, EncoderLayer,
Encoder (and of the stack checks Decoder shares)."""
TRANSLATIONS = {
    "tokens ({batch}, {length}), ids from {low} to {high}": "tokens ({batch}, {length}), id는 {low}부터 {high}까지",
    "x ({batch}, {length}, {d_model}) with max_len {max_len}": "x ({batch}, {length}, {d_model}), max_len {max_len}",
    "x of zeros ({batch}, {length}, {d_model}) with max_len {max_len}":
        "0으로 채운 x ({batch}, {length}, {d_model}), max_len {max_len}",
    "x ({batch}, {length}, {d_model}) with a padding mask (B, 1, 1, L): rows of {first} and {second} real "
    "tokens":
        "패딩 마스크 (B, 1, 1, L)가 있는 x ({batch}, {length}, {d_model}): 행별 실제 토큰 {first}개와 {second}개",
    "x ({batch}, {length}, {d_model}) with a mask of shape (B, 1, L, L)":
        "shape이 (B, 1, L, L)인 마스크가 있는 x ({batch}, {length}, {d_model})",
    "x ({batch}, {length}, {d_model}) without a mask": "마스크가 없는 x ({batch}, {length}, {d_model})",
    "Run again with other values at the padded positions of x, your code raised {error}":
        "x의 패딩 위치에 다른 값을 넣고 다시 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run again with other values at the padded positions of x, your code returned something of another "
    "shape.":
        "x의 패딩 위치에 다른 값을 넣고 다시 실행하자 코드가 shape이 다른 결과를 반환했습니다.",
    "Changing only what the padded positions of x hold (mask False) changed the output at a real position "
    "({where}, by {gap:.3g}). Padding must be invisible to every real token.":
        "x의 패딩 위치(mask False)에 든 값만 바꿨는데 실제 토큰 위치의 출력이 바뀌었습니다({where}에서 {gap:.3g}만큼). "
        "패딩은 어떤 실제 토큰에게도 보이지 않아야 합니다.",
    "encoder": "인코더",
    "decoder": "디코더",
    "Reading the {stack}'s `layers` raised {error}": "{stack}의 `layers`를 읽는 중에 예외가 발생했습니다: {error}",
    "The {stack} should keep its layers in an nn.ModuleList called `layers`.":
        "{stack}는 레이어들을 `layers`라는 이름의 nn.ModuleList에 담아야 합니다.",
    "Built with n_layers={n_layers}, `layers` holds {count} layers.":
        "n_layers={n_layers} 값으로 만들었는데 `layers`에 레이어가 {count}개 들어 있습니다.",
    "The {stack}'s `layers` has {count} slots but only {distinct} distinct layer objects.":
        "{stack}의 `layers`에 자리는 {count}개인데, 서로 다른 레이어 객체는 {distinct}개뿐입니다.",
    "The {stack}'s `layers` has {count} slots but only {distinct} distinct layer object.":
        "{stack}의 `layers`에 자리는 {count}개인데, 서로 다른 레이어 객체는 {distinct}개뿐입니다.",
    "Building PositionalEncoding({d_model}, max_len={max_len}) raised {error}":
        "PositionalEncoding({d_model}, max_len={max_len}) 모듈을 만드는 중에 예외가 발생했습니다: {error}",
    "The table `pe` is a parameter: it is fixed, so it belongs in a buffer.":
        "테이블 `pe`가 파라미터로 되어 있습니다. 학습하지 않는 고정된 값이므로 버퍼에 두어야 합니다.",
    "The table `pe` is an attribute, not a buffer: keep it with self.register_buffer('pe', ...) so that "
    "it moves with .to(device) and is saved with the model, but is never trained.":
        "테이블 `pe`가 버퍼가 아니라 일반 속성입니다. self.register_buffer('pe', ...)로 저장하세요. 그래야 "
        ".to(device)로 함께 옮겨지고 모델과 함께 저장되면서도 학습되지는 않습니다.",
    "The table `pe` is missing, not a buffer: keep it with self.register_buffer('pe', ...) so that it "
    "moves with .to(device) and is saved with the model, but is never trained.":
        "테이블 `pe`가 없습니다. self.register_buffer('pe', ...)로 버퍼에 저장하세요. 그래야 .to(device)로 함께 "
        "옮겨지고 모델과 함께 저장되면서도 학습되지는 않습니다.",
    "each position's row turns with the pair index (sin and cos of "
    "k·v at pair k): the position went into the frequency, the pair "
    "index into the angle.":
        "각 위치의 행이 쌍 인덱스에 따라 회전합니다(쌍 k에서 k·v의 sin과 cos). 위치가 주파수 자리에, 쌍 인덱스가 "
        "각도 자리에 들어갔습니다.",
    "it holds sines and cosines of the position, but features {features} hold the other one: "
    "feature 2i takes sin(pos / 10000^(2i/d_model)) and feature 2i+1 its cosine, interleaved.":
        "위치의 sin과 cos 값이 들어 있기는 하지만, 특성 {features}에는 서로 반대 함수가 들어 있습니다. 특성 2i에는 "
        "sin(pos / 10000^(2i/d_model)), 특성 2i+1에는 그 cos이 번갈아 들어가야 합니다.",
    "it holds sines and cosines of the position, but feature {features} holds the other one: "
    "feature 2i takes sin(pos / 10000^(2i/d_model)) and feature 2i+1 its cosine, interleaved.":
        "위치의 sin과 cos 값이 들어 있기는 하지만, 특성 {features}에는 서로 반대 함수가 들어 있습니다. 특성 2i에는 "
        "sin(pos / 10000^(2i/d_model)), 특성 2i+1에는 그 cos이 번갈아 들어가야 합니다.",
    "features {features} turn at other frequencies than 1/10000^(2i/d_model): feature {c} goes as "
    "{wave}({w:.4g}·pos) where it should be {wave}({paper_w:.4g}·pos).":
        "특성 {features}의 주파수가 1/10000^(2i/d_model)과 다릅니다. 특성 {c}의 값은 {wave}({w:.4g}·pos)를 "
        "따르는데, {wave}({paper_w:.4g}·pos)여야 합니다.",
    "features {features} are 0 at every position: each feature holds a sine or a cosine of the position (sin at "
    "the even features 2i, cos at the odd ones 2i+1).":
        "특성 {features}의 값이 모든 위치에서 0입니다. 각 특성에는 위치의 사인 또는 코사인이 들어가야 합니다(짝수 특성 "
        "2i에는 sin, 홀수 특성 2i+1에는 cos).",
    "feature {features} is 0 at every position: each feature holds a sine or a cosine of the position (sin at "
    "the even features 2i, cos at the odd ones 2i+1).":
        "특성 {features}의 값이 모든 위치에서 0입니다. 각 특성에는 위치의 사인 또는 코사인이 들어가야 합니다(짝수 특성 "
        "2i에는 sin, 홀수 특성 2i+1에는 cos).",
    "feature {features} turns at other frequencies than 1/10000^(2i/d_model): feature {c} goes as "
    "{wave}({w:.4g}·pos) where it should be {wave}({paper_w:.4g}·pos).":
        "특성 {features}의 주파수가 1/10000^(2i/d_model)과 다릅니다. 특성 {c}의 값은 {wave}({w:.4g}·pos)를 "
        "따르는데, {wave}({paper_w:.4g}·pos)여야 합니다.",
    "The buffer `pe` has shape {shape}; it should be (1, max_len, d_model) = {expected}.":
        "버퍼 `pe`의 shape이 {shape}입니다. 올바른 shape은 (1, max_len, d_model) = {expected}입니다.",
    "In the table your __init__ builds, {difference}": "__init__이 만든 테이블을 보면, {difference}",
    "In the table your __init__ builds, {sentence} {difference}": "__init__이 만든 테이블을 보면, {sentence} {difference}",
    "The table `pe` is not the sinusoidal encoding: {sentence} {difference}":
        "테이블 `pe`가 사인파 위치 인코딩이 아닙니다. {sentence} {difference}",
    "The table `pe` is not the sinusoidal encoding: {difference}":
        "테이블 `pe`가 사인파 위치 인코딩이 아닙니다. {difference}",
    "Run with its dropout dropping everything (p=1, training mode), your code raised {error}":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with its dropout dropping everything (p=1, training mode), forward did not return a tensor of x's "
    "shape.":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 forward가 x와 같은 shape의 텐서를 "
        "반환하지 않았습니다.",
    "Run with every dropout dropping everything (p=1, training mode), your code raised {error}":
        "모든 드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with every dropout dropping everything (p=1, training mode), the layer did not return a tensor of "
    "x's shape.":
        "모든 드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 레이어가 x와 같은 shape의 텐서를 "
        "반환하지 않았습니다.",
    "Printing your {unit} raised {error}": "작성한 {unit}를 print하는 중에 예외가 발생했습니다: {error}",
    " and {count} more": " 외 {count}개",
    "Built with dropout={rate}, your {unit} has dropouts with another rate: {listed}. Pass `dropout` on "
    "to every sublayer you build.":
        "dropout={rate} 값으로 만들었는데, 작성한 {unit}에 비율이 다른 드롭아웃이 있습니다: {listed}. 직접 만드는 "
        "모든 서브레이어에 `dropout`을 넘겨 주세요.",
    "Built with dropout={rate}, your {unit} has dropouts with another rate: {listed}. Pass `dropout` on "
    "to every layer you build.":
        "dropout={rate} 값으로 만들었는데, 작성한 {unit}에 비율이 다른 드롭아웃이 있습니다: {listed}. 직접 만드는 "
        "모든 레이어에 `dropout`을 넘겨 주세요.",
    "With its dropout set to drop everything (p=1, training mode), forward returns what it returns without dropout.":
        "드롭아웃이 모든 값을 버리도록 설정해도(p=1, 학습 모드) forward의 결과가 드롭아웃이 없을 때와 같습니다.",
    "The `dropout` submodule is never applied. It belongs on the sum x + pe.":
        "`dropout` 하위 모듈이 한 번도 적용되지 않습니다. 드롭아웃은 합 x + pe에 적용해야 합니다.",
    "With its dropout set to drop everything (p=1, training mode), forward should return zeros, since dropout acts "
    "on the whole sum x + pe; yours keeps values up to {largest:.3g}.":
        "드롭아웃이 모든 값을 버리도록 설정하면(p=1, 학습 모드) 드롭아웃이 합 x + pe 전체에 작용하므로 forward는 0을 반환해야 합니다. 그런데 최대 {largest:.3g}인 값이 "
        "남아 있습니다.",
    "Your results are those of a PositionalEncoding whose dropout acts on one of the two terms only (x or pe): it "
    "belongs on the whole sum x + pe.":
        "결과가 드롭아웃을 두 항 중 하나(x 또는 pe)에만 적용하는 PositionalEncoding의 결과와 같습니다. 드롭아웃은 합 x + pe 전체에 적용해야 합니다.",
    "With every dropout set to drop everything (p=1, training mode), both sublayers' outputs should vanish before "
    "their residual adds, leaving norm2(norm1(x)); yours differs by up to {gap:.3g}.":
        "모든 드롭아웃이 모든 값을 버리도록 설정하면(p=1, 학습 모드) 두 서브레이어의 출력이 잔차 연결로 더해지기 전에 사라져 norm2(norm1(x))만 남아야 합니다. 그런데 최대 "
        "{gap:.3g}만큼 차이가 납니다.",
    "Your results are those of an EncoderLayer in which {names} is never applied: each sublayer's output goes "
    "through its own dropout (dropout1, dropout2) before its residual add.":
        "결과가 {names}을(를) 한 번도 적용하지 않는 EncoderLayer의 결과와 같습니다. 각 서브레이어의 출력은 잔차 연결로 더해지기 전에 자기 드롭아웃(dropout1, "
        "dropout2)을 거쳐야 합니다.",
    "Your results are those of an EncoderLayer in which {names} are never applied: each sublayer's output goes "
    "through its own dropout (dropout1, dropout2) before its residual add.":
        "결과가 {names}을(를) 한 번도 적용하지 않는 EncoderLayer의 결과와 같습니다. 각 서브레이어의 출력은 잔차 연결로 더해지기 전에 자기 드롭아웃(dropout1, "
        "dropout2)을 거쳐야 합니다.",
    "Your results are those of an EncoderLayer whose dropout1 or dropout2 acts on another term than its sublayer's "
    "output (x, the sum, or the norm's output): each belongs on its sublayer's output alone, before the residual add.":
        "결과가 dropout1이나 dropout2를 서브레이어의 출력이 아닌 다른 항(x, 합, 또는 정규화의 출력)에 적용하는 EncoderLayer의 결과와 같습니다. 각 드롭아웃은 잔차 연결로 "
        "더해지기 전의 자기 서브레이어 출력에만 적용해야 합니다.",
}
