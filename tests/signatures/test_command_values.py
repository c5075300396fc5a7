"""A value captured from a log goes into a printed confirm command only when it is a plain word: the reader pastes
those commands into a shell, and a log line is not trusted."""

from __future__ import annotations

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.line_match import match_text


def _sig(sig_id: str):
    return next(s for s in load_catalog().signatures if s.id == sig_id)


def test_a_plain_captured_name_is_filled_in() -> None:
    # cp2k/cp2k#2869's compiler line
    line = "offload_runtime.h:344:19: error: use of undeclared identifier 'hipDeviceSetLimit'; did you mean 'hipDeviceGetLimit'?"
    m = match_text([_sig("hip-api-undeclared-in-installed-headers")], line)[0]
    assert m.commands[0].startswith("grep -rln hipDeviceSetLimit ")


def test_a_captured_value_with_shell_characters_stays_out_of_the_command() -> None:
    from rocmdoctor.engine.line_match import _fill

    template = "dnf provides '{pkg}'; ls /opt/rocm*/lib/{lib}*"
    assert _fill(template, {"pkg": "rocm-hip-devel", "lib": "libamdhip64.so.6"}, shell=True) == \
        "dnf provides 'rocm-hip-devel'; ls /opt/rocm*/lib/libamdhip64.so.6*"
    filled = _fill(template, {"pkg": "x'; reboot; '", "lib": "$(reboot)"}, shell=True)
    assert filled == "dnf provides '<pkg>'; ls /opt/rocm*/lib/<lib>*"
    # in prose (means) the value is quoted text, not a command
    assert _fill("needs {pkg}", {"pkg": "a b"}) == "needs a b"


def test_braces_that_name_no_captured_group_stay_in_the_command() -> None:
    # a regex's repeat count and kubectl's jsonpath are the command's own braces, not placeholders
    sig = _sig("rocprof-compute-grbm-gui-active-zero")
    m = match_text([sig], sig.examples[0])[0]
    assert any("W[0-9]{8}|E[0-9]{8}" in c for c in m.commands), m.commands
    sig = _sig("gpu-operator-pre-upgrade-check-failed")
    m = match_text([sig], sig.examples[0])[0]
    assert any("{end}" in c for c in m.commands), m.commands


def test_every_placeholder_in_a_reading_names_a_group_or_is_left_as_written() -> None:
    """Across the catalogue: a {word} in a signature's text is either one of its pattern's groups (filled in)
    or stays verbatim; none is silently dropped."""
    import re

    from rocmdoctor.engine.line_match import _group_names

    for sig in load_catalog().signatures:
        names = _group_names(tuple(sig.patterns))
        m = match_text([sig], sig.examples[0])
        if not m:
            continue
        texts = (sig.means, *sig.commands)
        filled = (m[0].means, *m[0].commands)
        for before, after in zip(texts, filled):
            for word in set(re.findall(r"\{(\w+)\}", before)) - names:
                assert "{" + word + "}" in after, (sig.id, word, after)
