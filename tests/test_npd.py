"""node-problem-detector plugin protocol: exit 0/1/2 and a message within max_output_length."""

from __future__ import annotations

from rocmdoctor.fleet.npd import MAX_OUTPUT, NONOK, OK, UNKNOWN, npd_message, npd_status, truncate
from rocmdoctor.status import State
from rocmdoctor.fleet.sweep import HostResult, SweepResult


def _sweep(*hosts: HostResult) -> SweepResult:
    return SweepResult(hosts, ("gpu-not-visible",), "2025-01-01T00:00:00+00:00", 1.0, 64, 30.0, None)


def test_status_mapping() -> None:
    assert npd_status(_sweep(HostResult("local", State.PASS))) == OK
    assert npd_status(_sweep(HostResult("local", State.WARN, message="w"))) == OK
    assert npd_status(_sweep(HostResult("local", State.FAIL, message="f"))) == NONOK
    assert npd_status(_sweep(HostResult("local", State.UNKNOWN, "timeout", "t"))) == UNKNOWN
    assert npd_status(_sweep(HostResult("a", State.UNKNOWN, "timeout", "t"), HostResult("b", State.FAIL))) == NONOK


def test_message_is_one_line_within_the_limit_and_never_half_a_character() -> None:
    long = "GPU 3: " + "✖ température élevée\n" * 20
    msg = npd_message(_sweep(HostResult("local", State.FAIL, message=long)))
    assert "\n" not in msg and len(msg.encode()) <= MAX_OUTPUT and msg.startswith("NonOK: GPU 3: ✖")
    msg.encode("utf-8").decode("utf-8")  # valid UTF-8
    assert truncate("ab✖cd", 4) == "a..."  and truncate("short", 80) == "short"
    two = npd_message(_sweep(HostResult("a", State.PASS), HostResult("b", State.FAIL, message="amdgpu gone")))
    assert two == "NonOK: b: amdgpu gone"
