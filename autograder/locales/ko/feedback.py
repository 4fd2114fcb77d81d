"""Korean of the feedback page's own sentences (autograder/grading/bookkeeping/preprocessors.py) and words
(autograder/grading/feedback_page.page_words: nbgrader's feedback template in the notebook's language)."""
TRANSLATIONS = {
    "See above, at {aspect}: the same mistake.": "위의 {aspect} 항목을 보세요. 같은 실수입니다.",
    "Score:": "점수:",
    "test": "테스트",
    "points": "점수",
    "feedback": "피드백",
    "Top": "맨 위로",
    "Comment": "코멘트",
    "Comments:": "코멘트:",
    "Test cell": "테스트 셀",
    "Coding free-response": "자유 코딩 답안",
    "Written response": "서술형 답안",
    "Task": "과제",
    "Late submission penalty": "늦은 제출 감점",
    "Student's answer": "제출한 답안",
    "Student's task": "제출한 과제",
    "Grade cell:": "채점 셀:",
    "In [{count}]:": "입력 [{count}]:",
    "Out[{count}]:": "출력 [{count}]:",
    "{size:,} bytes": "{size:,}바이트",
    "a size that cannot be read": "크기를 읽을 수 없는 이미지",
    "{width} x {height} pixels": "{width} x {height} 픽셀",
    "[the attached image {name} ({why}) was left out of this page: over its limit]":
        "[첨부 이미지 {name}({why}): 한도를 넘어 이 페이지에서 뺐습니다]",
    "[an image ({why}) was left out of this page: over its limit]": "[이미지({why}): 한도를 넘어 이 페이지에서 뺐습니다]",
}
