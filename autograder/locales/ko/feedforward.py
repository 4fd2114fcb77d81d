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
    "With its dropout set to drop everything (p=1, training mode), the FFN gives what it gives without "
    "dropout: the `dropout` submodule is never applied. It belongs on the hidden activations, before w_2.":
        "드롭아웃이 모든 값을 버리도록 설정해도(p=1, 학습 모드) FFN의 결과가 드롭아웃이 없을 때와 같습니다. "
        "`dropout` 하위 모듈이 한 번도 적용되지 않는다는 뜻입니다. 드롭아웃은 w_2에 들어가기 전의 은닉 활성값에 "
        "적용해야 합니다.",
    "With its dropout set to drop everything (p=1, training mode), every hidden activation is 0, so the "
    "output should be w_2's bias at every position; it differs by up to {gap:.3g}. Is dropout applied to "
    "the input, or to w_2's output, instead of between the ReLU and w_2?":
        "드롭아웃이 모든 값을 버리도록 설정하면(p=1, 학습 모드) 은닉 활성값이 모두 0이 되므로, 출력은 모든 "
        "위치에서 w_2의 bias와 같아야 합니다. 그런데 최대 {gap:.3g}만큼 차이가 납니다. 드롭아웃을 ReLU와 w_2 "
        "사이가 아니라 입력이나 w_2의 출력에 적용하고 있지 않나요?",
}
