"""Korean: each module holds TRANSLATIONS, {English template: Korean template}, for one module of the checks."""
