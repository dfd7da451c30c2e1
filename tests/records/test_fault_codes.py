"""Every fault code is in the record contract, with the kind and the loss the code gives a fault.

docs/records.md "### Fault codes" is the table a reader of records goes by;
``waraq.referee.match.faults`` is what the referee writes. They must say the same.
Which code each misbehaviour actually gets is checked where the misbehaving bots
provoke it (tests/match/test_faults.py, test_hostile_bytes.py, test_hello.py).
"""

from __future__ import annotations

import re

import pytest

from tests.support import ROOT
from waraq.referee.match.faults import NATURES, Fault, FaultCode, FaultKind

RECORDS_DOC = (ROOT / "docs" / "records.md").read_text()


def documented_codes() -> dict[str, tuple[str, str]]:
    """The rows of the codes table: code -> (its kind column, its lost column)."""
    start = RECORDS_DOC.index("\n### Fault codes\n")
    end = RECORDS_DOC.index("\n### ", start + 1)
    rows = re.findall(r"^\| `([a-z_]+)` \| .* \| (.+?) \| (yes|no) \|$", RECORDS_DOC[start:end], re.M)
    return {code: (kind, lost) for code, kind, lost in rows}


def test_the_table_is_found_and_lists_each_code_once():
    start = RECORDS_DOC.index("\n### Fault codes\n")
    rows = re.findall(r"^\| `([a-z_]+)` \|", RECORDS_DOC[start : RECORDS_DOC.index("\n### ", start + 1)], re.M)
    assert len(rows) > 20 and len(rows) == len(set(rows))


def test_every_code_is_documented_and_every_documented_code_exists():
    assert sorted(documented_codes()) == sorted(code.value for code in FaultCode)


@pytest.mark.parametrize("code", list(FaultCode), ids=str)
def test_the_document_gives_each_code_its_kind_and_whether_the_seat_is_lost(code):
    kind, lost = documented_codes()[code.value]
    assert kind == (f"`{code.kind}`" if code.kind else "the first fault's")
    assert lost == ("yes" if code.lost else "no")


def test_codes_are_snake_case_and_their_names_spell_them():
    for code in FaultCode:
        assert re.fullmatch(r"[a-z]+(_[a-z]+)*", code.value), code
        assert code.name.lower() == code.value


def test_a_fault_takes_its_kind_and_its_loss_from_its_code():
    late = Fault(FaultCode.BANK_SPENT, "replied after 512 ms and its time bank is spent")
    assert (late.kind, late.lost, late.code) == (FaultKind.TIMEOUT, False, "bank_spent")
    gone = Fault(FaultCode.NO_REPLY, "no reply within 600 ms (deadline + bank)")
    assert (gone.kind, gone.lost) == (FaultKind.TIMEOUT, True)
    assert str(gone) == "TIMEOUT: no reply within 600 ms (deadline + bank)"


def test_asking_a_lost_seat_again_repeats_the_first_faults_kind():
    first = Fault(FaultCode.REPLY_TOO_BIG, "a message over the referee's limit of 65536 bytes")
    again = Fault.again(first)
    assert (again.code, again.kind, again.lost) == (FaultCode.SEAT_ALREADY_LOST, FaultKind.MALFORMED, True)
    assert again.detail == "seat already lost: a message over the referee's limit of 65536 bytes"
    with pytest.raises(ValueError, match="seat_already_lost"):
        Fault(FaultCode.SEAT_ALREADY_LOST, "no first fault named")


def test_the_codes_at_opening_are_the_startup_ones_and_the_two_of_the_stream():
    opening = {code for code in FaultCode if code.at_opening}
    startup = {code for code, nature in NATURES.items() if nature.kind is FaultKind.STARTUP}
    assert opening == startup | {FaultCode.OPEN_TIMED_OUT, FaultCode.OPEN_FAILED}
    assert all(code.lost for code in opening)  # a seat that did not open is asked nothing
