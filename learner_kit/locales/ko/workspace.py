"""Korean: what learner_kit/workspace.py (make lab) prints when it copies the course into the workspace."""

TRANSLATIONS = {
    "Copied {count} new file(s) from {release}/ into {workspace}/ (your existing files are untouched).":
        "{release}/ 폴더에서 새 파일 {count}개를 {workspace}/ 폴더로 복사했습니다(기존 파일은 건드리지 않았습니다).",
    "{workspace}/ is up to date; your work is untouched.":
        "{workspace}/ 폴더는 이미 최신 상태입니다. 작업한 내용은 그대로입니다.",
    "{release}/ not found: run this from the course repository.":
        "{release}/ 폴더가 없습니다. 과정 저장소 폴더에서 실행하세요.",
}
