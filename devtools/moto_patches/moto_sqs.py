"""moto's SQS without O(queue) work per call: send, receive, delete and visibility changes.

Why: moto 5.2.5 keeps a queue's messages in one list and walks it on every call. `SendMessage`
reads `queue.attributes` to test one flag, and that property recomputes every attribute, the
approximate counts included (three walks of the list); `ReceiveMessage` builds the list of
visible messages, and reads the retention period through `get_queue_attributes` (all attributes
again) for each message it returns; `DeleteMessage` and `ChangeMessageVisibility` look for the
receipt handle message by message and rebuild the list. So n jobs through a queue cost O(n^2):
a 5,000-recipient batch did not finish in minutes. Real SQS costs the same at any depth.

How: `Queue._messages` becomes a `_Messages`, which moto's remaining code still uses as its list
(append, remove, iterate, len; PurgeQueue assigns a new list, which is wrapped again), and which
also keeps, in insertion order (moto's receive order), a map of receipt handles (current and
earlier ones, as `had_receipt_handle` accepts) and two heaps: messages receivable now, by
position, and the others by the moment they become receivable (visibility timeout, delay).
Every change of a message's visibility goes through the replaced methods, which tell the
container; a heap entry carries the message's version, so a stale entry is dropped when reached.
Send, receive, delete, visibility changes and GetQueueAttributes keep moto's rules and answers
(errors, receive counts, DLQ redrive at maxReceiveCount, retention, long polls); FIFO queues
(which the project does not use) take moto's own send and receive unchanged.
tests/local/test_moto_sqs.py replays random operations against moto's own code and this one.

Guard: `install()` checks the moto internals this relies on and raises if they changed, so a
moto upgrade stops the emulator (and its tests) loudly instead of answering differently.
"""

from __future__ import annotations

import heapq
import itertools
import string
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from copy import deepcopy
from typing import Any

import moto.sqs.models as sqs_models
from moto.sqs.exceptions import InvalidAttributeName, InvalidParameterValue, ReceiptHandleIsInvalid
from moto.sqs.models import Message, Queue, SQSBackend

from devtools.moto_patches import wakes
from devtools.moto_patches.guarded import GuardedPatch, Replacement

# What this patch relies on, as moto 5.2.5 writes it: the rules it copies, and every place that
# changes a message's visibility or the list of messages (so none goes around the container).
_EXPECTED_SOURCE = {
    "SQSBackend.send_message": (
        'if queue.attributes.get("ContentBasedDeduplication") == "true":',
        "message_id = str(random.uuid4())",
        "message.mark_sent(delay_seconds=delay_seconds)",
        "queue.add_message(message)",
    ),
    "SQSBackend.receive_message": (
        "for message in queue.messages:",
        "if message.group_id and queue.fifo_queue:",
        '>= queue.redrive_policy["maxReceiveCount"]',
        "message.mark_received(visibility_timeout=visibility_timeout)",
        "_filter_message_attributes(message_copy, message_attribute_names)",
        "if not self.is_message_valid_based_on_retention_period(",
        "queue._messages.remove(message)",
        "queue.dead_letter_queue.add_message(message)",
        "queue.wait_for_messages(1)",
    ),
    "SQSBackend.change_message_visibility": (
        "if given_visibility_timeout - message.sent_timestamp > 43200 * 1000:",
        "message.change_visibility(visibility_timeout)",
        "raise ReceiptHandleIsInvalid",
    ),
    "SQSBackend.get_queue_attributes": ('if "All" in attribute_names:',),
    "SQSBackend.is_message_valid_based_on_retention_period": ("retain_until <= unix_time()",),
    "SQSBackend.purge_queue": ("queue._messages = []",),
    "Queue.add_message": ("self._messages.append(message)", "self._messages_lock.notify_all()"),
    "Queue.delete_message": ("if receipt_handle in self.deleted_messages:", "self._messages = new_messages"),
    "Queue.__init__": ("self._messages: list[Message] = []", "self._messages_lock = Condition()"),
    "Message.visible": ("if current_time > self.visible_at:",),
    "Message.delayed": ("if current_time < self.delayed_until:",),
    "Message.mark_received": ("self.receipt_handle = generate_receipt_handle()",),
}
_LONG_POLL_STEP_SECONDS = 1  # moto's receive re-checks at least this often while it long-polls


def _moto(name: str) -> Any:
    """A name of moto.sqs.models, looked up at each call as moto's own code does: its clock and
    random source (tests replace the clock there, for moto's code and this alike)."""
    return vars(sqs_models)[name]


class _Messages:
    """A queue's messages in moto's order, with receivable ones a heap pop away.

    moto's code uses it as the list it was (append, remove, iteration, len); the patched methods
    also use `find`, `changed` and `receivable`. Callers hold the queue's `_messages_lock`.
    """

    def __init__(self, messages: Iterable[Message] = ()) -> None:
        self._position: dict[Message, int] = {}  # insertion-ordered: moto's receive order
        self._version: dict[Message, int] = {}
        self._at: dict[int, Message] = {}  # position -> message
        self._handles: dict[str, Message] = {}
        self._ready: list[tuple[int, int]] = []  # (position, version): receivable now
        self._later: list[tuple[float, int, int]] = []  # (receivable from, in ms; position, version)
        self._counter = itertools.count()
        for message in messages:
            self.append(message)

    # -- the list moto knows ----------------------------------------------------------------

    def append(self, message: Message) -> None:
        position = next(self._counter)
        self._position[message] = position
        self._at[position] = message
        for handle in message.all_receipt_handles:
            if handle is not None:
                self._handles[handle] = message
        self.changed(message)

    def remove(self, message: Message) -> None:
        position = self._position.pop(message, None)
        if position is None:
            raise ValueError("the message is not in the queue")
        del self._at[position]
        del self._version[message]
        for handle in message.all_receipt_handles:
            if self._handles.get(handle) is message:  # type: ignore[arg-type]
                del self._handles[handle]  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[Message]:
        return iter(list(self._position))  # a snapshot: moto's callers may change the queue meanwhile

    def __len__(self) -> int:
        return len(self._position)

    def __contains__(self, message: object) -> bool:
        return message in self._position

    # -- what the patch adds ----------------------------------------------------------------

    def find(self, receipt_handle: str) -> Message | None:
        """The message that has or had this receipt handle (moto's `had_receipt_handle`)."""
        return self._handles.get(receipt_handle)

    def changed(self, message: Message) -> None:
        """Call after a message's visibility, delay or receipt handle changed."""
        if message.receipt_handle is not None:
            self._handles[message.receipt_handle] = message
        version = self._version[message] = self._version.get(message, -1) + 1
        receivable_from = max(message.visible_at, message.delayed_until)
        heapq.heappush(self._later, (receivable_from, self._position[message], version))

    def receivable(self) -> Iterator[Message]:
        """Messages receivable now (visible and not delayed), in moto's order. Each message is
        yielded once; one the caller leaves as it was must be passed to `changed` again."""
        self._release()
        while self._ready:
            position, version = heapq.heappop(self._ready)
            message = self._current(position, version)
            if message is not None:
                yield message

    def any_receivable(self) -> bool:
        self._release()
        while self._ready and self._current(*self._ready[0]) is None:
            heapq.heappop(self._ready)
        return bool(self._ready)

    def _release(self) -> None:
        """Moves messages whose wait has passed from `_later` to `_ready`."""
        now = _moto("unix_time_millis")()
        not_yet = []
        while self._later and self._later[0][0] <= now:
            entry = heapq.heappop(self._later)
            message = self._current(entry[1], entry[2])
            if message is None:
                continue
            if message.visible and not message.delayed:  # moto's own tests (visible is strictly after)
                heapq.heappush(self._ready, (entry[1], entry[2]))
            else:
                not_yet.append(entry)
        for entry in not_yet:
            heapq.heappush(self._later, entry)

    def _current(self, position: int, version: int) -> Message | None:
        message = self._at.get(position)
        if message is None or self._version[message] != version:
            return None
        return message


def _messages_get(queue: Queue) -> _Messages:
    messages = vars(queue).get("_messages")
    if not isinstance(messages, _Messages):  # a queue created before install, or given a plain list
        messages = vars(queue)["_messages"] = _Messages(messages or ())
    return messages


def _messages_set(queue: Queue, messages: Iterable[Message]) -> None:
    vars(queue)["_messages"] = messages if isinstance(messages, _Messages) else _Messages(messages)


# -- the replaced methods ----------------------------------------------------------------------


def _send_message(
    self: SQSBackend,
    queue_name: str,
    message_body: str,
    message_attributes: dict[str, Any] | None = None,
    delay_seconds: int | None = None,
    deduplication_id: str | None = None,
    group_id: str | None = None,
    system_attributes: dict[str, Any] | None = None,
    validate_group_id: bool = True,
) -> Message:
    """moto's send_message, without reading every attribute of the queue for one FIFO flag."""
    queue = self.get_queue(queue_name)
    if queue.fifo_queue:
        return _PATCH.original(_SEND)(  # type: ignore[no-any-return]
            self,
            queue_name,
            message_body,
            message_attributes,
            delay_seconds,
            deduplication_id,
            group_id,
            system_attributes,
            validate_group_id,
        )
    self._validate_message(
        queue,
        message_body=message_body,
        delay_seconds=int(delay_seconds or 0),
        deduplication_id=deduplication_id,
        group_id=group_id,
        validate_group_id=validate_group_id,
    )
    delay = int(delay_seconds) if delay_seconds is not None else int(queue.delay_seconds)  # type: ignore[attr-defined]
    message = Message(str(_moto("random").uuid4()), message_body, system_attributes)
    # A standard queue has no ContentBasedDeduplication attribute: moto's check is always false.
    if deduplication_id is not None:
        message.deduplication_id = deduplication_id
        message.sequence_number = "".join(_moto("random").choice(string.digits) for _ in range(20))
    if group_id is not None:
        message.group_id = group_id
    if message_attributes:
        message.message_attributes = message_attributes
    if delay > sqs_models.MAXIMUM_MESSAGE_DELAY:
        raise InvalidParameterValue(
            f"Value {delay} for parameter DelaySeconds is invalid. Reason: DelaySeconds must be >= 0 and <= 900."
        )
    message.mark_sent(delay_seconds=delay)
    queue.add_message(message)
    return message


def _receive_message(
    self: SQSBackend,
    queue_name: str,
    count: int,
    wait_seconds_timeout: int,
    visibility_timeout: int,
    message_attribute_names: list[str] | None = None,
) -> list[Message]:
    """moto's receive_message, reading only the messages it returns (and those it moves to the DLQ)."""
    queue = self.get_queue(queue_name)
    if queue.fifo_queue:
        return _PATCH.original(_RECEIVE)(  # type: ignore[no-any-return]
            self, queue_name, count, wait_seconds_timeout, visibility_timeout, message_attribute_names
        )
    names = message_attribute_names or []
    polling_end = _moto("unix_time")() + wait_seconds_timeout
    started = wakes.epoch()  # the runtime's stop ends a long poll early (wakes.py)
    result: list[Message] = []
    while not result:
        if wait_seconds_timeout and (_moto("unix_time")() > polling_end or wakes.epoch() != started):
            break
        to_dlq: list[Message] = []
        with queue._messages_lock:
            messages = _messages_get(queue)
            for message in messages.receivable():
                queue.pending_messages.discard(message)  # visible again: its consumer timed out
                redrive = queue.redrive_policy
                if (
                    queue.dead_letter_queue is not None
                    and redrive
                    and message.approximate_receive_count >= redrive["maxReceiveCount"]
                ):
                    messages.remove(message)
                    to_dlq.append(message)
                    continue
                queue.pending_messages.add(message)
                message.mark_received(visibility_timeout=visibility_timeout)
                messages.changed(message)
                message_copy = deepcopy(message)  # as moto: the answer's attribute filter leaves the message alone
                sqs_models._filter_message_attributes(message_copy, names)
                if not _within_retention(queue, message):
                    break  # moto's rule: an expired message ends the receive (it stays, received)
                result.append(message_copy)
                if len(result) >= count:
                    break
        for message in to_dlq:
            queue.dead_letter_queue.add_message(message)  # type: ignore[union-attr]
        if not result:
            if wait_seconds_timeout == 0:
                break
            with queue._messages_lock:
                queue._messages_lock.wait_for(
                    lambda: _messages_get(queue).any_receivable() or wakes.epoch() != started,
                    timeout=_LONG_POLL_STEP_SECONDS,
                )
    return result


def _within_retention(queue: Queue, message: Message) -> bool:
    """moto's is_message_valid_based_on_retention_period, without computing every attribute."""
    retain_until = queue.message_retention_period + (message.sent_timestamp or 0) / 1000  # type: ignore[attr-defined]
    return bool(retain_until > _moto("unix_time")())


def _is_message_valid_based_on_retention_period(self: SQSBackend, queue_name: str, message: Message) -> bool:
    return _within_retention(self.get_queue(queue_name), message)


DELETED_HANDLES_KEPT = 1024  # per queue: the receipt handles of the latest deleted messages


class _DeletedHandles(set[str]):
    """moto's `Queue.deleted_messages`, which remembers every handle of every message ever deleted
    (so that a repeated delete succeeds) and so grew with each message through the queue: the
    latest DELETED_HANDLES_KEPT only. A repeat comes from a consumer retrying its delete within
    seconds; an older handle of a deleted message is then unknown, as moto says of any handle.
    A set still, with moto's `update`, so moto's own code (the patch uninstalled) uses it as before."""

    def __init__(self, handles: Iterable[str | None] = ()) -> None:
        super().__init__()
        self._order: deque[str] = deque()
        self.update(handles)

    def update(self, *handles: Iterable[str | None]) -> None:
        for handle in itertools.chain(*handles):
            if handle is not None and handle not in self:
                self.add(handle)
                self._order.append(handle)
        while len(self._order) > DELETED_HANDLES_KEPT:
            self.discard(self._order.popleft())


def _deleted(queue: Queue) -> _DeletedHandles:
    deleted = vars(queue).get("deleted_messages")
    if not isinstance(deleted, _DeletedHandles):  # moto's set: a queue created before install, or restored
        deleted = vars(queue)["deleted_messages"] = _DeletedHandles(deleted or ())
    return deleted


def _delete_message(self: Queue, receipt_handle: str) -> None:
    """moto's Queue.delete_message, finding the message by its handle instead of walking the queue."""
    if receipt_handle in _deleted(self):
        return  # already deleted: moto ignores a repeat
    with self._messages_lock:
        messages = _messages_get(self)
        message = messages.find(receipt_handle)
        if message is None:
            raise ReceiptHandleIsInvalid()
        messages.remove(message)
    self.pending_messages.discard(message)
    _deleted(self).update(message.all_receipt_handles)


def _change_message_visibility(self: SQSBackend, queue_name: str, receipt_handle: str, visibility_timeout: int) -> None:
    """moto's change_message_visibility, finding the message by its handle."""
    queue = self.get_queue(queue_name)
    with queue._messages_lock:
        messages = _messages_get(queue)
        message = messages.find(receipt_handle)
        if message is None:
            raise ReceiptHandleIsInvalid
        given_visibility_timeout = _moto("unix_time_millis")() + int(visibility_timeout) * 1000
        if given_visibility_timeout - message.sent_timestamp > 43200 * 1000:
            raise InvalidParameterValue(
                f"Value {visibility_timeout} for parameter VisibilityTimeout is invalid. Reason: Total "
                "VisibilityTimeout for the message is beyond the limit [43200 seconds]"
            )
        message.change_visibility(visibility_timeout)
        messages.changed(message)
        if message.visible and message in queue.pending_messages:
            queue.pending_messages.remove(message)


def _get_queue_attributes(self: SQSBackend, queue_name: str, attribute_names: list[str]) -> dict[str, Any]:
    """moto's get_queue_attributes, computing the attributes (three walks of the queue) once, not
    twice per name asked for."""
    queue = self.get_queue(queue_name)
    if not attribute_names:
        return {}
    valid_names = ["All", *queue.BASE_ATTRIBUTES, *queue.FIFO_ATTRIBUTES, *queue.KMS_ATTRIBUTES]
    invalid_name = next((name for name in attribute_names if name not in valid_names), None)
    if invalid_name or invalid_name == "":
        raise InvalidAttributeName(invalid_name)
    every = queue.attributes
    if "All" in attribute_names:
        return every
    return {name: every[name] for name in attribute_names if every.get(name) is not None}


# -- install -----------------------------------------------------------------------------------


def _own(qualified: str) -> Callable[[], Any]:
    """Finds `Owner.name` as the class defines it (a property: its getter)."""
    owner_name, name = qualified.split(".")
    owner = {"SQSBackend": SQSBackend, "Queue": Queue, "Message": Message}[owner_name]

    def find() -> Any:
        attribute = vars(owner)[name]
        return attribute.fget if isinstance(attribute, property) else attribute

    return find


_SEND = Replacement(SQSBackend, "send_message", _send_message)
_RECEIVE = Replacement(SQSBackend, "receive_message", _receive_message)
_PATCH = GuardedPatch(
    "devtools/moto_patches/moto_sqs.py",
    [
        _SEND,
        _RECEIVE,
        Replacement(SQSBackend, "change_message_visibility", _change_message_visibility),
        Replacement(SQSBackend, "get_queue_attributes", _get_queue_attributes),
        Replacement(
            SQSBackend, "is_message_valid_based_on_retention_period", _is_message_valid_based_on_retention_period
        ),
        Replacement(Queue, "delete_message", _delete_message),
        # Added: a queue's `_messages` list becomes its _Messages container; uninstalled, queues keep
        # their _Messages, which moto's own code uses as the list it was.
        Replacement(Queue, "_messages", property(_messages_get, _messages_set)),
    ],
    {qualified: (_own(qualified), lines) for qualified, lines in _EXPECTED_SOURCE.items()},
    holds={"moto.sqs.models.MAXIMUM_MESSAGE_DELAY": lambda: vars(sqs_models).get("MAXIMUM_MESSAGE_DELAY") == 900},
)
install, uninstall, installed, check_internals = (
    _PATCH.install,
    _PATCH.uninstall,
    _PATCH.installed,
    _PATCH.check_internals,
)
