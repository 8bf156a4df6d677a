"""The packages, and where two of them live in the checkout.

The grammar and the vendored `dna` package keep the top-level folders
DESIGN.md gives them (`grammar/`, `vendor/`), and ship inside the packages
that read them, so a wheel carries them and `importlib.resources` finds them
in a wheel and in an editable checkout alike (hale_lang/resources.py).
Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

MAPPED = {"hale_lang.grammar": "grammar", "hale_runtime.vendor": "vendor"}

setup(
    packages=find_packages(include=["hale_lang*", "hale_runtime*"]) + list(MAPPED),
    package_dir=MAPPED,
)
