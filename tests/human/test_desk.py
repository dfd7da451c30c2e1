"""A person's desk: the page's answers reach the seat's question out, and nothing else does."""

from __future__ import annotations

import asyncio

import pytest

from waraq.referee.human.desk import Door, Person, Refused
from waraq.referee.match.seats import LineLost
from waraq.v1 import bot_pb2 as pb


def _start(match: str = "m-1", seat: int = 2) -> pb.RefereeMessage:
    return pb.RefereeMessage(start=pb.MatchStart(match_id=match, game="hokm", seat=seat, players=4))


def _question(seq: int, match: str = "m-1", seat: int = 2) -> bytes:
    message = pb.RefereeMessage(decision=pb.DecisionRequest(seq=seq, kind="PLAY", match_id=match, seat=seat))
    message.decision.legal.add(card="7H")
    return message.SerializeToString()


def _reply(seq: int, card: str = "7H") -> dict:
    return {"reply": {"seq": seq, "action": {"card": card}}}


async def _asked(person: Person, seq: int = 1):
    line = person.line()
    await line.write(_start())
    await line.write(_question(seq))
    return line


def test_an_answer_to_the_question_out_reaches_the_seat_as_a_bot_message():
    async def go():
        person = Person("ana")
        line = await _asked(person, seq=3)
        person.answer("m-1", 2, _reply(3))
        return await line.read(), person.events

    message, events = asyncio.run(go())
    assert message.reply.seq == 3 and message.reply.action.card == "7H"
    # The page was sent the protocol's messages in its JSON mapping, then told the answer was taken.
    assert [e.get("door") or next(iter(e["message"])) for e in events] == ["start", "decision", Door.ANSWERED]
    assert events[1]["message"]["decision"]["legal"] == [{"card": "7H"}]


@pytest.mark.parametrize(
    ("match", "seat", "message", "status", "words"),
    [
        ("m-2", 2, _reply(1), 404, "no seat 2 in match 'm-2'"),
        ("m-1", 0, _reply(1), 404, "no seat 0"),
        ("m-1", 2, _reply(2), 409, "seq 1"),
        ("m-1", 2, {"reply": {"seq": "x"}}, 400, "not a BotMessage"),
        ("m-1", 2, {"hello": 1}, 400, "not a BotMessage"),
        ("m-1", 2, ["reply"], 400, "JSON object"),
        ("m-1", 2, {}, 409, "seq 1"),
    ],
)
def test_an_answer_to_no_question_out_or_not_a_reply_is_refused_and_the_question_stays_out(
    match, seat, message, status, words
):
    async def go():
        person = Person("ana")
        line = await _asked(person)
        with pytest.raises(Refused) as refused:
            person.answer(match, seat, message)
        person.answer("m-1", 2, _reply(1))  # the question is still out: the right answer is taken
        return refused.value, await line.read()

    refused, message_read = asyncio.run(go())
    assert refused.status == status and words in str(refused)
    assert message_read.reply.seq == 1


def test_a_question_answered_once_takes_no_second_answer():
    async def go():
        person = Person("ana")
        await _asked(person)
        person.answer("m-1", 2, _reply(1))
        person.answer("m-1", 2, _reply(1))

    with pytest.raises(Refused, match="no question out"):
        asyncio.run(go())


def test_a_seat_closed_by_the_referee_tells_the_page_and_wakes_the_read():
    async def go():
        person = Person("ana")
        line = await _asked(person)
        reading = asyncio.ensure_future(line.read())
        await asyncio.sleep(0)
        line.cancel()
        with pytest.raises(LineLost):
            await reading
        with pytest.raises(Refused):
            person.answer("m-1", 2, _reply(1))
        return person.events

    events = asyncio.run(go())
    assert events[-1]["door"] == Door.LOST


def test_a_page_waiting_for_news_gets_it_at_once_and_a_closed_desk_answers_at_once():
    async def go():
        person = Person("ana")
        waiting = asyncio.ensure_future(person.after(0, 30.0))
        await asyncio.sleep(0)
        assert not waiting.done()
        line = person.line()
        await line.write(_start())
        got = await asyncio.wait_for(waiting, 5)
        again = asyncio.ensure_future(person.after(len(person.events), 30.0))
        await asyncio.sleep(0)
        person.close()
        return got, await asyncio.wait_for(again, 5), person.opened.is_set()

    got, after_close, opened = asyncio.run(go())
    assert [e["n"] for e in got] == [0] and after_close == [] and opened


def test_two_people_have_tokens_of_their_own_and_guessable_ones_find_nobody():
    from waraq.referee.human.desk import Desk

    desk = Desk()
    ana, bo = desk.person("ana"), desk.person("bo")
    assert ana.token != bo.token and len(ana.token) >= 22
    assert desk.by_token(ana.token) is ana and desk.by_token(bo.token) is bo
    assert desk.by_token("") is None and desk.by_token(ana.token[:-1]) is None
