"""Korean of the class report's and the LMS export's sentences (autograder/grading/outputs/class_report/, lms_export.py)."""
TRANSLATIONS = {
    # class_report/
    "Open the notebook in JupyterLab and go to the section named here (its table of contents lists the sections); "
    "the text under the section's heading begins as quoted.":
        "JupyterLab에서 노트북을 열고 여기 적힌 절로 가세요(목차에 절이 나열됩니다). 절 제목 아래 글은 인용한 대로 "
        "시작합니다.",
    "The {kept} submission(s) with timings come from {count} run(s): {runs}.":
        "시간 기록이 있는 제출물 {kept}개는 실행 {count}번에서 나왔습니다: {runs}.",
    "the course": "이 강좌",
    "{first} to {last} ({count} assignments)": "{first}부터 {last}까지 (과제 {count}개)",
    "{course}: class report of {date}": "{course}: {date} 반 보고서",
    "Made {made} from results.json. Which notebook of the course, and which section, teaches each unit is said "
    "under Misconceptions.":
        "{made}에 results.json으로 만들었습니다. 각 단위를 가르치는 강좌 노트북과 절은 '오개념' 아래에 적혀 있습니다.",
    "an unnamed run": "이름 없는 실행",
    "No timings: which run graded what, and when, is unknown (no OUT/logs/tasks.jsonl, and no timings kept in "
    "OUT/state/).":
        "시간 기록 없음: 어느 실행이 언제 무엇을 채점했는지 알 수 없습니다(OUT/logs/tasks.jsonl이 없고 OUT/state/에도 "
        "시간 기록이 없습니다).",
    "Runs whose results are kept (a resumed or repeated run grades only what changed)":
        "결과가 보관된 실행 (이어서 하거나 다시 한 실행은 바뀐 것만 채점합니다)",
    "Results in {folder}": "결과 위치: {folder}",
    "of the runs above, kept in OUT/state/": "위 실행들의 기록, OUT/state/에 보관",
    "of the run above": "위 실행의 기록",
    "{missing} other submission(s) have none (graded by a version of the grader that kept no timings, or never "
    "graded).":
        "다른 제출물 {missing}개는 시간 기록이 없습니다(시간 기록을 남기지 않던 채점기 버전으로 채점했거나, 채점되지 "
        "않았습니다).",
    "run started": "실행 시작",
    "submissions": "제출물",
    "workers": "작업자",
    "wall time (s)": "경과 시간(초)",
    "Time per notebook (seconds, all phases, {source})": "노트북당 시간(초, 모든 단계, {source})",
    "Where each unit is taught": "각 단위를 가르치는 곳",
    "... {count} more line(s) in its grading log": "... 채점 기록에 {count}줄 더 있습니다",
    "Taught in {notebook}, section “{title}”.": "{notebook}의 “{title}” 절에서 가르칩니다.",
    # lms_export.py
    "{path}: the roster has no student_id column (nbgrader's student id) and no SIS Login ID column to take it from":
        "{path}: 명단에 student_id 열(nbgrader 학생 id)도, 대신 쓸 SIS Login ID 열도 없습니다",
    " and {count} more": " 외 {count}명",
    "{count} student(s) graded but not in the roster: {names}. Their row in gradebook.csv keeps nbgrader's id in "
    "SIS Login ID and leaves ID and SIS User ID blank, so the LMS matches them by login only, or not at all: add them "
    "to the roster (student_id = nbgrader's id).":
        "채점되었지만 명단에 없는 학생 {count}명: {names}. gradebook.csv의 이 학생들 행은 SIS Login ID에 nbgrader id를 "
        "두고 ID와 SIS User ID를 비워 두므로, LMS는 로그인으로만 맞추거나 아예 맞추지 못합니다. 명단에 추가하세요"
        "(student_id = nbgrader id).",
    "{count} student(s) of the roster have no submission: {names}. They get a row with blank scores, not 0 (the LMS "
    "leaves them ungraded); enter 0 in the LMS where a missing submission should count 0.":
        "명단에 있지만 제출물이 없는 학생 {count}명: {names}. 이 학생들의 행은 점수가 0이 아니라 빈칸입니다(LMS는 "
        "채점 안 됨으로 둡니다). 미제출을 0점으로 쳐야 하면 LMS에서 0을 입력하세요.",
    "{path}: the roster cannot be read ({error})": "{path}: 명단을 읽을 수 없습니다 ({error})",
    "{path}: the student id {student} is in the roster twice": "{path}: 학생 id {student}가 명단에 두 번 있습니다",
    "{count} graded id(s) differ only in case from an id of the roster (graded / roster): {pairs}. Ids are compared "
    "exactly: correct the roster's student_id (or the folder's name) if they are the same learner.":
        "채점된 id {count}개가 명단의 id와 대소문자만 다릅니다(채점 / 명단): {pairs}. id는 정확히 같아야 맞춰집니다. "
        "같은 학생이라면 명단의 student_id(또는 폴더 이름)를 고치세요.",
}
