from pathlib import Path

import pytest

from rocmdoctor.parsers import ParseError, get_parser

OUTPUTS = Path(__file__).resolve().parents[2] / "tests/fixtures/outputs"


def sample(rel: str) -> str:
    return (OUTPUTS / rel).read_text()

from rocmdoctor.parsers.slurm import parse_listpids
from rocmdoctor.simnode.formats.system import render_scontrol_listpids


def test_real_sample():
    rows = parse_listpids(sample("slurm/listpids-babel.txt"))
    assert len(rows) == 10
    assert rows[0] == {"pid": 3786174, "jobid": "6422454", "stepid": "batch", "localid": 0, "globalid": 0}
    assert rows[1]["localid"] is None
    assert rows[7] == {"pid": -1, "jobid": "6422454", "stepid": "extern", "localid": 0, "globalid": 0}
    assert get_parser("scontrol_listpids") is parse_listpids


def test_render_matches_real_bytes():
    # the renderer must reproduce the real header and row padding byte for byte
    real = sample("slurm/listpids-babel.txt").splitlines(keepends=True)
    rows = parse_listpids("".join(real))
    assert render_scontrol_listpids(rows).splitlines(keepends=True) == real


def test_old_header_and_errors():
    old = "PID      JOBID    STEPID LOCALID GLOBALID\n166396   580      batch  0       0       \n"
    assert parse_listpids(old)[0]["pid"] == 166396
    assert parse_listpids("") == []
    with pytest.raises(ParseError, match="header"):
        parse_listpids("slurm_load_jobs error: Unable to contact slurm controller\n")
    with pytest.raises(ParseError, match="line 2"):
        parse_listpids("PID      JOBID    STEPID   LOCALID GLOBALID\nabc 1 2\n")
