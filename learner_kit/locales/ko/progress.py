"""Korean: the progress table of learner_kit/progress.py (show_progress, make progress)."""

TRANSLATIONS = {
    "notebook": "노트북",
    "unit": "단위",
    "visible test": "공개 테스트",
    "✓ passed": "✓ 통과",
    "· not started": "· 시작 전",
    "✗ failing": "✗ 실패",
    "? missing": "? 없음",
    "{passed} of {total} units pass their visible test.": "단위 {total}개 중 {passed}개가 공개 테스트를 통과합니다.",
    "No notebooks found: run `make lab` first (it copies the course into workspace/).":
        "노트북을 찾지 못했습니다. 먼저 `make lab`을 실행하세요(과정을 workspace/에 복사합니다).",
    "No notebooks in {workspace}/: run `make lab` first (it copies the course there).":
        "{workspace}/에 노트북이 없습니다. 먼저 `make lab`을 실행하세요(과정을 그곳에 복사합니다).",
    "({seconds:.1f} s; the notebooks as last saved)": "({seconds:.1f}초, 마지막으로 저장된 노트북 기준)",
    "The progress table could not be made:\n{output}": "진행 상황 표를 만들지 못했습니다:\n{output}",
    "its answer cell is missing": "정답 셀이 없습니다",
    "its cell stopped: {failure}": "셀 실행이 중간에 멈췄습니다: {failure}",
    "TimeoutError: the cell ran longer than {timeout} s": "TimeoutError: 셀이 {timeout}초 넘게 실행되었습니다",
    "cannot read {name}: {error_type}": "{name} 파일을 읽을 수 없습니다: {error_type}",
    "(notebook)": "(노트북)",
}
