"""Korean of autograder/checks/masks.py: the mask units' case labels."""
TRANSLATIONS = {
    "tokens {shape} with padding (pad_idx 0) at the end of some rows": "일부 행의 끝에 패딩(pad_idx 0)이 있는 tokens {shape}",
    "tokens {shape} with pad_idx=1 (0 is an ordinary token there)": "pad_idx=1인 tokens {shape} (여기서는 0이 일반 토큰)",
    "size 5 and a device": "size 5, device 인자 지정",
}
