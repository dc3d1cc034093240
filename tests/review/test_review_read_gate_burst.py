"""Review (session 15) of the read gate: waiting reads were ordered by their caller's cost when
each was asked, so a caller that sends a burst of reads while its cost is still 0 (its first
ones, or after its cost decayed) queued every one of them ahead of any later reader at cost 0 —
an occasional reader (a job's status poll) waited behind the whole burst, however long each
read took.  A waiting read now takes its place by its caller's cost when the turn is given
(the cost its earlier reads ran up meanwhile), so the occasional reader waits for one of them."""

from __future__ import annotations

import asyncio

from service.test_read_gate import App, Clock, _call, _settle

from corescheduler.service.gate import ReadGate, ReadTurns


def test_a_burst_at_cost_zero_does_not_queue_ahead_of_an_occasional_reader() -> None:
    async def run() -> None:
        clock = Clock()

        class Costly(App):
            """Each read takes 10 ms of the clock."""

            async def __call__(self, scope: dict, receive: object, send: object) -> None:
                clock.now += 0.01
                await super().__call__(scope, receive, send)

        app = Costly()
        gate = ReadGate(app, ReadTurns(clock=clock, probe=False))
        hold = "/api/v1/jobs/hold"
        app.release = {hold: asyncio.Event()}
        blocker = _call(gate, hold, 5001)  # another host's read holds the turn
        await _settle()
        burst = [_call(gate, f"/api/v1/jobs/{i}/tasks", 6000) for i in range(20)]  # a hostile host, cost 0
        await _settle()
        poll = _call(gate, "/api/v1/jobs/mine", 7000)  # an occasional reader, asked last
        await _settle()
        app.release[hold].set()
        await asyncio.wait_for(asyncio.gather(blocker, poll, *burst), 10)
        order = [p for p in app.done if p != hold]
        assert order.index("/api/v1/jobs/mine") <= 1, order
        # the burst's own reads keep their order
        assert [p for p in order if p != "/api/v1/jobs/mine"] == [f"/api/v1/jobs/{i}/tasks" for i in range(20)]

    asyncio.run(run())
