"""A deleted subaccount's purge (subaccounts/purge_service.py) over in-memory fakes: the job made in
the deletion's transaction, bounded steps through the phases in order, progress recorded so a run
cut short resumes where it stopped, and the organisation's `subaccount.purged` entry at the end."""

from __future__ import annotations

from postline.subaccounts.domain import PurgePhase
from postline.subaccounts.purge_service import STEP, PurgeService
from tests.fakes.subaccounts import StoredData

from .test_subaccounts import create, organisation
from .world import World


def _deleted(world: World) -> tuple[str, str, PurgeService, StoredData]:
    parent, _ = organisation(world)
    sub = create(world, parent, "acme")
    account = world.store.get_account(sub.id)
    assert account is not None
    data = StoredData()
    data.hold(sub.id, "domains", 2)
    data.hold(sub.id, "list_members", STEP + 5)  # two steps
    data.hold(sub.id, "suppressions", 3)
    data.hold(sub.id, "items", 7)
    data.hold("someone-else", "items", 4)
    world.subaccounts.delete(world.console_principal(parent), "acme")
    service = PurgeService(
        jobs=world.subaccount_store, keys=world.store, domains=data, data=data, ids=world.ids, clock=world.clock
    )
    return parent.id, sub.id, service, data


def test_deleting_stores_a_purge_job_in_its_first_phase(world: World) -> None:
    parent_id, sub_id, _, _ = _deleted(world)
    [job] = world.subaccount_store.due_purges(10)
    assert (job.account_id, job.parent_account_id, job.slug, job.phase) == (sub_id, parent_id, "acme", PurgePhase.KEYS)


def test_a_purge_removes_everything_of_its_account_a_bounded_step_at_a_time(world: World) -> None:
    parent_id, sub_id, service, data = _deleted(world)
    [job] = world.subaccount_store.due_purges(10)
    phases = []
    current = job
    while current is not None:
        phases.append(current.phase)
        current = service.step(current)
    assert list(dict.fromkeys(phases)) == list(PurgePhase)  # every phase, in order
    assert all(not things for (account, _), things in data.held.items() if account == sub_id)
    assert len(data.held[("someone-else", "items")]) == 4  # nobody else's
    assert world.subaccount_store.due_purges(10) == []
    [entry] = [
        e for e in world.audit.list_page(parent_id, page=1, per_page=10).items if e.action == "subaccount.purged"
    ]
    assert (entry.target, entry.actor_type.value) == (sub_id, "system")
    assert entry.details == f"acme: removed 2 domains, {STEP + 5} list_members, 3 suppressions, 7 items"


def test_a_run_cut_short_resumes_where_it_stopped(world: World) -> None:
    _, sub_id, service, data = _deleted(world)
    budget = iter([100.0, 100.0, 100.0, 0.0])  # three steps, then out of time
    assert service.run(lambda: next(budget, 0.0)) == 3  # keys counted; none: domains counted; removed
    [job] = world.subaccount_store.due_purges(10)
    assert job.phase is PurgePhase.DOMAINS and job.removed == {"keys": 0, "domains": 2}  # recorded, not lost
    assert data.held[(sub_id, "domains")] == []
    assert service.run(lambda: 100.0) > 0  # the next run finishes it
    assert world.subaccount_store.due_purges(10) == []
    assert all(not things for (account, _), things in data.held.items() if account == sub_id)
    assert service.run(lambda: 100.0) == 0  # nothing left to do


class RunDied(BaseException):
    """The worker's invocation dying (not an error the service catches)."""


def test_a_step_that_dies_after_removing_and_before_recording_counts_exactly(world: World) -> None:
    parent_id, _, service, data = _deleted(world)
    [job] = world.subaccount_store.due_purges(10)
    remove = data.purge_domains

    def remove_then_die(account_id: str, limit: int) -> int:
        remove(account_id, limit)
        raise RunDied

    data.purge_domains = remove_then_die  # type: ignore[method-assign]
    current = job
    while current is not None:
        try:
            current = service.step(current)
        except RunDied:
            data.purge_domains = remove  # type: ignore[method-assign]
            [current] = world.subaccount_store.due_purges(10)  # the next run: the job as recorded
    [entry] = [
        e for e in world.audit.list_page(parent_id, page=1, per_page=10).items if e.action == "subaccount.purged"
    ]
    assert entry.details == f"acme: removed 2 domains, {STEP + 5} list_members, 3 suppressions, 7 items"
