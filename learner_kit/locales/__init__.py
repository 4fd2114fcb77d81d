"""Translations of the learner kit's sentences, one package per language (see learner_kit.i18n)."""
