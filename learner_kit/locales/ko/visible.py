"""Korean: the sentences of learner_kit/visible.py (the visible cases' labels are in the fingerprints)."""

TRANSLATIONS = {
    "All visible tests passed for {unit}.": "{unit}: 공개 테스트를 모두 통과했습니다.",
    "Note: your {unit} is right: built from simple stand-ins for {names}, it gives what the exercise's "
    "{unit} gives with them. With your own {names} it does not, so fix {names} first (its test above "
    "says how).":
        "참고: 여러분의 {unit} 자체는 맞습니다. {names} 자리에 간단한 대역(stand-in)을 넣어 만들면, 같은 대역으로 "
        "만든 올바른 {unit} 클래스와 같은 결과가 나옵니다. 여러분이 만든 {names} 클래스를 쓰면 결과가 "
        "달라지므로, {names}부터 고치세요(고칠 방법은 위의 테스트가 알려 줍니다).",
    "Note: your {unit} passes with a correct {names}; with your own {names} it gives other results. "
    "Fix {names} first (the test above says how).":
        "참고: 올바른 {names} 함수와 함께 쓰면 여러분의 {unit} 코드는 통과합니다. 하지만 여러분이 만든 {names} "
        "함수와 함께 쓰면 다른 결과가 나옵니다. {names}부터 고치세요(고칠 방법은 위의 테스트가 알려 줍니다).",
    "Note: your {unit} passes with a correct {names}; with your own {names} it gives other results. "
    "Fix {names} first (the tests above say how).":
        "참고: 올바른 {names} 함수와 함께 쓰면 여러분의 {unit} 코드는 통과합니다. 하지만 여러분이 만든 {names} "
        "함수와 함께 쓰면 다른 결과가 나옵니다. {names}부터 고치세요(고칠 방법은 위의 테스트들이 알려 줍니다).",
}
