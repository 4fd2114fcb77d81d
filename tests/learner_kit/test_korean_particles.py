"""Korean particles chosen for the word they follow (learner_kit/particles.py), as a Korean writer would: never the
mechanical `은(는)`, and never `x + 1를` (issue 48)."""
import pytest

from learner_kit import particles
from learner_kit.i18n import speaking, tr


@pytest.mark.parametrize("written, read", [
    ("`mask`을(를) 확인하세요", "`mask`를 확인하세요"),            # 마스크: a vowel
    ("`x + 1`을(를) 넘깁니다", "`x + 1`을 넘깁니다"),              # 일: ㄹ
    ("`scores`은(는) 맞습니다", "`scores`는 맞습니다"),
    ("`self.norm`은(는) 맞습니다", "`self.norm`은 맞습니다"),       # 놈
    ("`attention`이(가) 다릅니다", "`attention`이 다릅니다"),        # 어텐션
    ("`model`(으)로 돌립니다", "`model`로 돌립니다"),               # 모델: ㄹ takes 로
    ("`key`(으)로 돌립니다", "`key`로 돌립니다"),
    ("`seq_len`(으)로 돌립니다", "`seq_len`으로 돌립니다"),          # 렌
    ("값(모양 (2, 3))을(를) 봅니다", "값(모양 (2, 3))을 봅니다"),     # the word before the parenthesis
    ("가중치을(를) 봅니다", "가중치를 봅니다"),
    ("점수과(와) 가중치", "점수와 가중치"),
    ("`w_k`을(를) 씁니다", "`w_k`를 씁니다"),                        # 케이
    ("`L`이(가) 깁니다", "`L`이 깁니다"),                            # 엘
    ("`2`을(를) 줍니다", "`2`를 줍니다"),
    ("`10`을(를) 줍니다", "`10`을 줍니다"),
])
def test_the_particle_fits_the_word(written, read):
    assert particles.resolve(written) == read


def test_where_nothing_tells_both_forms_stay():
    assert particles.resolve("을(를) 보세요") == "을(를) 보세요"
    assert particles.resolve("`→`을(를) 보세요") == "`→`을(를) 보세요"


def test_translated_sentences_are_resolved_once_filled_in():
    """A catalogue sentence that writes `{name}을(를)` reads right for each name it is given."""
    template = "your code calls `{name}` more times ({made}) than the reference ({wanted})."
    with speaking("ko"):
        assert "`softmax`를 기준" in tr(template, name="softmax", made=2, wanted=1)
        assert "`layer_norm`을 기준" in tr(template, name="layer_norm", made=2, wanted=1)
        assert "을(를)" not in tr(template, name="layer_norm", made=2, wanted=1)


def test_batch_means_batch():
    """배치 is the glossary's word for a batch (notebooks/ko/GLOSSARY.md); a sentence whose English speaks of no batch
    (an arrangement, an order) does not use it."""
    from learner_kit.i18n import translations

    stray = [english for english, korean in translations("ko").items()
             if "배치" in korean and "batch" not in english.lower() and "bmm" not in english.lower()]
    assert stray == [], stray
