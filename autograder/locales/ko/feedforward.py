"""Korean of autograder/checks/feedforward.py: PositionwiseFeedForward's hidden-check feedback."""
TRANSLATIONS = {
    "Run on x changed at position 0, your code raised {error}":
        "위치 0의 x를 바꿔 다시 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Changing x at position 0 changed the output at other positions: each position should go "
    "through the network on its own, without seeing the others.":
        "위치 0의 x만 바꿨는데 다른 위치의 출력까지 바뀌었습니다. 각 위치는 다른 위치를 보지 않고 "
        "혼자서 네트워크를 통과해야 합니다.",
    "Run with its dropout dropping everything (p=1, training mode), your code raised {error}":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 코드에서 예외가 발생했습니다: {error}",
    "Run with its dropout dropping everything (p=1, training mode), the FFN did not return a tensor of the "
    "input's shape.":
        "드롭아웃이 모든 값을 버리도록 설정해(p=1, 학습 모드) 실행하자 FFN이 입력과 같은 shape의 텐서를 "
        "반환하지 않았습니다.",
    "With its dropout set to drop everything (p=1, training mode), the FFN gives what it gives "
    "without dropout.":
        "드롭아웃이 모든 값을 버리도록 설정해도(p=1, 학습 모드) FFN의 결과가 드롭아웃이 없을 때와 같습니다.",
    "With its dropout set to drop everything (p=1, training mode), every hidden activation is 0, "
    "so the output should be w_2's bias at every position; it differs by up to {gap:.3g}.":
        "드롭아웃이 모든 값을 버리도록 설정하면(p=1, 학습 모드) 은닉 활성값이 모두 0이 되므로, 출력은 모든 "
        "위치에서 w_2의 bias와 같아야 합니다. 그런데 최대 {gap:.3g}만큼 차이가 납니다.",
    "In evaluation mode (after .eval()), your FFN gives another output each time it runs on the "
    "same x: something random acts outside training.":
        "평가 모드(.eval() 뒤)인데도 같은 x로 실행할 때마다 FFN의 출력이 달라집니다. 학습 중이 아닌데 무작위 "
        "연산이 작동하고 있습니다.",
    "With dropout p = {p} in training mode, the hidden activations that reach w_2 are scaled by "
    "1/(1-p)² = {twice:g} instead of 1/(1-p) = {once:g}, and only about {fraction:.0%} of them "
    "are kept.":
        "학습 모드에서 드롭아웃 p = {p}일 때 w_2에 들어가는 은닉 활성값이 1/(1-p) = {once:g}가 아니라 "
        "1/(1-p)² = {twice:g}배로 커지고, 약 {fraction:.0%}만 남습니다.",
    "Your results are those of an FFN whose dropout is called as F.dropout(h, p) without "
    "training=self.training, a dropout that does not switch off in evaluation mode; the `dropout` submodule "
    "switches off by itself.":
        "결과가 드롭아웃을 training=self.training 없이 F.dropout(h, p)로 호출하는 FFN의 결과와 같습니다. 그런 "
        "드롭아웃은 평가 모드에서도 꺼지지 않습니다. `dropout` 하위 모듈은 평가 모드에서 저절로 꺼집니다.",
    "The `dropout` submodule is never applied. It belongs on the hidden activations, before w_2.":
        "`dropout` 하위 모듈이 한 번도 적용되지 않습니다. 드롭아웃은 w_2에 들어가기 전의 은닉 활성값에 "
        "적용해야 합니다.",
    "Your results are those of an FFN whose dropout acts on another tensor than the hidden activations (the "
    "input, or w_2's output): it belongs between the ReLU and w_2 alone.":
        "결과가 드롭아웃을 은닉 활성값이 아닌 다른 텐서(입력이나 w_2의 출력)에 적용하는 FFN의 결과와 같습니다. "
        "드롭아웃은 ReLU와 w_2 사이에만 적용해야 합니다.",
    "Your results are those of an FFN in which dropout is applied twice. Apply the `dropout` submodule once, "
    "between the ReLU and w_2.":
        "결과가 드롭아웃을 두 번 적용하는 FFN의 결과와 같습니다. `dropout` 하위 모듈은 ReLU와 w_2 사이에 한 번만 "
        "적용하세요.",
}
