"""nbgrader's bookkeeping in a grading worker at less cost, with the same results (issue 49).

A worker autogrades and writes the feedback of hundreds of notebooks in one process, and nbgrader pays on
every call for two things a long-lived process need pay for once:

- every nbgrader ``Gradebook`` makes an SQLAlchemy engine of its own (about eleven a notebook), and SQLAlchemy
  keeps its compiled statements per engine, so each query is compiled again. ``share_engines`` gives
  nbgrader's Gradebooks in this process one engine per database URL, as SQLAlchemy advises for a process's
  lifetime; ``Gradebook.close`` still disposes of that engine's pool (its connections), not of its cache;
- ``CheckCellMetadata`` (twice a notebook) validates each cell's nbgrader metadata with ``jsonschema.validate``,
  which first checks nbgrader's schema itself against JSON Schema's meta-schema, cell after cell.
  ``CheckCellMetadataCompiled`` checks the schema once per process and raises the same errors.
"""
import threading
import traceback

import sqlalchemy
from jsonschema.exceptions import best_match
from jsonschema.validators import validator_for
from nbgrader.nbgraderformat import MetadataValidator, ValidationError
from nbgrader.nbgraderformat.common import BaseMetadataValidator
from nbgrader.preprocessors import CheckCellMetadata

_ENGINES = {}  # {(database URL, create_engine's options): Engine}
_ENGINES_LOCK = threading.Lock()


def _engine_for(url, **options):
    """sqlalchemy.create_engine, made once per URL and options in this process."""
    key = (str(url), tuple(sorted(options.items())))
    with _ENGINES_LOCK:
        if key not in _ENGINES:
            _ENGINES[key] = sqlalchemy.create_engine(url, **options)
        return _ENGINES[key]


def share_engines():
    """From now on, nbgrader's Gradebooks in this process share one engine per database URL."""
    import nbgrader.api

    nbgrader.api.create_engine = _engine_for


_SCHEMA_VALIDATORS = {}  # {schema version: a jsonschema validator of nbgrader's cell metadata, its schema checked}


class _SchemaCheckedOnce(BaseMetadataValidator):
    def validate_cell(self, cell):
        meta = cell.metadata.get("nbgrader")
        if not isinstance(meta, dict) or meta.get("schema_version", 0) != self.schema_version:
            return super().validate_cell(cell)  # nbgrader's own: nothing to check, or its schema-version errors
        validator = _SCHEMA_VALIDATORS.get(self.schema_version)
        if validator is None:
            kind = validator_for(self.schema)
            kind.check_schema(self.schema)
            validator = _SCHEMA_VALIDATORS[self.schema_version] = kind(self.schema)
        error = best_match(validator.iter_errors(meta))  # as jsonschema.validate, less its check of the schema
        if error is not None:
            raise error
        return None


class CompiledMetadataValidator(MetadataValidator, _SchemaCheckedOnce):
    """nbgrader's MetadataValidator (its checks of the cells' types and ids unchanged), the schema checked once."""


class CheckCellMetadataCompiled(CheckCellMetadata):
    """nbgrader's CheckCellMetadata with CompiledMetadataValidator: the same errors, logged as nbgrader logs them."""

    def preprocess(self, nb, resources):
        try:
            CompiledMetadataValidator().validate_nb(nb)
        except ValidationError:
            self.log.error(traceback.format_exc())
            msg = "Notebook failed to validate; the nbgrader metadata may be corrupted."
            self.log.error(msg)
            raise ValidationError(msg)
        return nb, resources
