"""The parser index (name -> module, read from source) agrees with what importing
every module registers, so lazy loading finds each parser where it is."""

from __future__ import annotations

from rocmdoctor import parsers


def test_index_matches_the_registry() -> None:
    index = parsers._module_index()
    registered = parsers.parser_names()  # imports every module
    assert set(index) <= set(registered)
    for name in set(registered) - set(index):  # the generic ones, registered by the package itself
        assert parsers.get_parser(name).__module__ == "rocmdoctor.parsers"
    for name, module in index.items():
        fn = parsers.get_parser(name)
        assert fn is not None and fn.__module__ in (f"rocmdoctor.parsers.{module}", "rocmdoctor.parsers")


def test_unknown_parser_is_none() -> None:
    assert parsers.get_parser("no_such_parser") is None
