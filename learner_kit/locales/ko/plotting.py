"""Korean: the words of the figures learner_kit/plotting.py draws."""

TRANSLATIONS = {
    "Attention weights": "어텐션 가중치",
    "Attention per head": "헤드별 어텐션",
    "Mask": "마스크",
    "head {number}": "헤드 {number}",
    "key (attended to)": "키 (어텐션 대상)",
    "query (attending)": "쿼리 (어텐션 주체)",
}
