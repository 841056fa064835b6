"""How optchat-spec is built and released: the one list of the files each
artefact ships (`release.files`), the version a build carries
(`release.version`), the wheel and sdist (`release.wheel`, served to pip by
the in-tree PEP 517 backend `release.backend`), the single-file runner
`optchat-spec.pyz` (`release.zipapp`), and `python -m release dist|cut`
(RELEASING.md). Standard library only: a build needs nothing but Python."""
