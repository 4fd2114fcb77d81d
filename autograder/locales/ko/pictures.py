"""Korean of autograder/checks/pictures.py: the attention-map figure's titles and axis labels."""
TRANSLATIONS = {
    "your {name}": "여러분의 {name}",
    "expected {name}": "올바른 {name}",
    "yours − expected": "여러분의 값 − 올바른 값",
    "key": "키",
    "query": "쿼리",
}
