"""Korean: the mistakes' texts (read from their entries in learner_kit/mistakes.py, by the same ids as
learner_kit/messages.py CATALOGUE) and the sentences of messages.py."""
from learner_kit.mistakes import texts

# id -> (what is wrong, why it matters and a hint): the Korean texts of learner_kit/mistakes.py's entries.
CATALOGUE = texts("ko")

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
