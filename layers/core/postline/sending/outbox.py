"""The send's outbox: a message stored to go out now gets its dispatch job from the messages
table's stream, not from the request that stored it.

A send stores its message (the body's item, the message, its `queued` event) and answers 202;
SendOutboxFunction, fed by the messages table's stream (the INSERT of a message item whose
schedule is `now`: the template's FilterCriteria), sends the jobs of the messages it is given to
the send queue. So no SQS call is on a send's path, and a stored message always gets its job:
the stream keeps the insert until the function has queued it (a failed batch is retried, for
up to the stream's 24 hours), where a send queueing the job itself had to queue it before the
store (a message stored without its job would never go out) and so could leave a job naming a
message never stored. A record delivered twice queues its job twice: the dispatcher delivers
what a job finds still pending, under the message's lease, so once.

A scheduled message's job is still made by its send (a delayed message or a schedule named by
message id, so cancelling it finds it); a message whose every recipient was rejected before
send has nothing to queue.
"""

from __future__ import annotations

from collections.abc import Iterable

from postline.sending.dispatch_job import DispatchJob
from postline.sending.domain import PENDING, Message, Schedule
from postline.sending.ports import DispatchQueue
from postline.shared.ports import Clock


def goes_out_now(message: Message) -> bool:
    """Whether a message just stored is the outbox's to queue: not waiting for its send_at, and with
    a recipient left to deliver."""
    return message.schedule is Schedule.NOW and any(state in PENDING for state in message.recipients.values())


class Outbox:
    """Queues the dispatch jobs of the messages the stream shows stored."""

    def __init__(self, queue: DispatchQueue, clock: Clock) -> None:
        self._queue = queue
        self._clock = clock

    def relay(self, inserted: Iterable[Message]) -> int:
        """Queues a job for each inserted message that goes out now; the number queued. Raises what
        the queue raises: the stream gives the batch again."""
        now = self._clock.now()
        jobs = [
            DispatchJob(message_id=message.id, account_id=message.account_id, enqueued_at=now)
            for message in inserted
            if goes_out_now(message)
        ]
        if jobs:
            self._queue.enqueue(jobs)
        return len(jobs)
