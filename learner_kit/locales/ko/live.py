"""Korean of learner_kit/live.py: the class's live view on the JupyterHub."""
TRANSLATIONS = {
    "Your visible tests' outcomes are no longer sent to the instructor's live view (live.on() sends them again).":
        "이제 공개 테스트의 결과를 강사의 실시간 화면으로 보내지 않습니다(live.on()을 실행하면 다시 보냅니다).",
    "TRANSFORMER_LIVE=off is set for this kernel: nothing is sent until it is unset.":
        "이 커널에는 TRANSFORMER_LIVE=off가 설정되어 있습니다: 이 설정을 없앨 때까지 아무것도 보내지 않습니다.",
    "Your visible tests' outcomes are sent to the instructor's live view again (live.off() stops it).":
        "공개 테스트의 결과를 다시 강사의 실시간 화면으로 보냅니다(live.off()를 실행하면 멈춥니다).",
    "Outcomes are sent only on the class's JupyterHub: here nothing is sent.":
        "결과는 수업의 JupyterHub에서만 보냅니다: 여기서는 아무것도 보내지 않습니다.",
    "Could not save the choice in {path} ({error}): it holds for this kernel only.":
        "선택을 {path}에 저장하지 못했습니다({error}): 이 커널에서만 적용됩니다.",
    "This test's outcome (its unit, and passed or the mistake's id; never your code) goes to your "
    "instructor's live view of the class; to stop that, run `from learner_kit import live; live.off()`.":
        "이 테스트의 결과(단위 이름과, 통과 또는 실수의 id. 여러분의 코드는 보내지 않습니다)는 강사가 보는 수업의 "
        "실시간 화면으로 갑니다. 멈추려면 `from learner_kit import live; live.off()`를 실행하세요.",
}
