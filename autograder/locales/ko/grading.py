"""Korean of the grader's own sentences about a submission (autograder/grading/run/verify.py, combine.py).

What stopped a notebook is a field of its records now; records written before that field are still read by
fragments of these messages in both languages (outputs/failures.py: LIMITS, NOT_GRADED): keep the fragments it lists
when you edit them.
"""
TRANSLATIONS = {
    "Not graded: the notebook's code could not be run ({failure}).":
        "채점되지 않음: 노트북의 코드를 실행할 수 없었습니다 ({failure}).",
    "Not graded: the run of this notebook stopped before this cell ({failure}).":
        "채점되지 않음: 이 셀에 이르기 전에 노트북 실행이 멈췄습니다 ({failure}).",
    "Not graded: internal grading error ({error}).":
        "채점되지 않음: 채점기 내부 오류입니다 ({error}).",
    " (the answer cell of {unit} stopped with {error})":
        " ({unit}의 정답 셀이 {error}(으)로 멈췄습니다)",
    "nbgrader could not run this notebook to the end ({failure}); graded outside the notebook kernel only.":
        "nbgrader가 이 노트북을 끝까지 실행하지 못했습니다 ({failure}). 노트북 커널 밖에서만 채점했습니다.",
    "No points: the test did not pass.": "점수 없음: 테스트를 통과하지 못했습니다.",
    "This test passed.": "이 테스트를 통과했습니다.",
    "The test did not pass.": "테스트를 통과하지 못했습니다.",
    "This cell was not judged.": "이 셀은 채점되지 않았습니다.",
    "The run of this notebook for its outputs stopped ({why}): the cells after that point show no output; "
    "no points depend on them.":
        "출력을 보여 주려고 노트북을 실행하다가 멈췄습니다 ({why}). 그 뒤의 셀은 출력이 없습니다. "
        "점수는 이 출력과 상관없습니다.",
    "it held more than {mb} MiB of memory and was stopped":
        "메모리를 {mb} MiB 넘게 사용해서 멈췄습니다",
    # the one sentence of a notebook out of time (sandbox_servers/budget.py's out_of_time)
    "it ran past its time budget of {seconds} s and was stopped": "시간 예산 {seconds}초를 넘겨서 멈췄습니다",
    "its process was ended by {signal}": "프로세스가 {signal} 신호로 끝났습니다",
    "its process exited (status {status}), e.g. through os._exit":
        "프로세스가 종료되었습니다(상태 {status}). os._exit 같은 호출이 있는지 보세요",
    "Your {unit} is right: with correct versions of {names} it gives what it should, so this cell keeps its points. "
    "In your notebook its test uses your own {names}, which its own test finds wrong: fix {names} first.":
        "{unit}은(는) 맞습니다: {names}의 올바른 버전과 함께 쓰면 나와야 할 결과를 내므로 이 셀은 점수를 그대로 받습니다. "
        "노트북에서는 이 테스트가 여러분의 {names}을(를) 쓰는데, 그 테스트에서 틀렸다고 나옵니다. {names}부터 고치세요.",
    " The grader started the notebook's code again for the cells after this one.":
        " 채점기는 이 셀 다음 셀들을 위해 노트북 코드를 다시 시작했습니다.",
}
