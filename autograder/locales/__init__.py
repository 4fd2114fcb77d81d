"""Translations of the hidden checks' sentences, one package per language (see learner_kit.i18n)."""
