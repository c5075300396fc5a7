"""A value captured from a log goes into a printed confirm command only when it is a plain word: the reader pastes
those commands into a shell, and a log line is not trusted."""

from __future__ import annotations

from rocmdoctor.catalog.loader import load_catalog
from rocmdoctor.engine.signatures import match_text


def _sig(sig_id: str):
    return next(s for s in load_catalog().signatures if s.id == sig_id)


def test_a_plain_captured_name_is_filled_in() -> None:
    # cp2k/cp2k#2869's compiler line
    line = "offload_runtime.h:344:19: error: use of undeclared identifier 'hipDeviceSetLimit'; did you mean 'hipDeviceGetLimit'?"
    m = match_text([_sig("hip-api-undeclared-in-installed-headers")], line)[0]
    assert m.commands[0].startswith("grep -rn hipDeviceSetLimit ")


def test_a_captured_value_with_shell_characters_stays_out_of_the_command() -> None:
    from rocmdoctor.engine.signatures import _fill

    template = "dnf provides '{pkg}'; ls /opt/rocm*/lib/{lib}*"
    assert _fill(template, {"pkg": "rocm-hip-devel", "lib": "libamdhip64.so.6"}, shell=True) == \
        "dnf provides 'rocm-hip-devel'; ls /opt/rocm*/lib/libamdhip64.so.6*"
    filled = _fill(template, {"pkg": "x'; reboot; '", "lib": "$(reboot)"}, shell=True)
    assert filled == "dnf provides '<pkg>'; ls /opt/rocm*/lib/<lib>*"
    # in prose (means) the value is quoted text, not a command
    assert _fill("needs {pkg}", {"pkg": "a b"}) == "needs a b"
