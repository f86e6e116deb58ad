"""Property: a cron schedule's next run is the first later minute that it names (checked minute by minute)."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.api.timespec import Schedule, parse_schedule


def _field(low: int, high: int) -> st.SearchStrategy[str]:
    values = st.integers(low, high).map(str)
    ranges = st.tuples(st.integers(low, high), st.integers(low, high)).map(lambda t: f"{min(t)}-{max(t)}")
    steps = st.integers(1, 7).map(lambda s: f"*/{s}")
    part = st.one_of(st.just("*"), values, ranges, steps)
    return st.lists(part, min_size=1, max_size=3).map(",".join)


SCHEDULES = st.tuples(_field(0, 59), _field(0, 23), _field(1, 28), st.just("*"), _field(0, 6)).map(" ".join)


def _matches(schedule: Schedule, t: datetime) -> bool:
    day, weekday = t.day in schedule.days, (t.isoweekday() % 7) in schedule.weekdays
    days = (day or weekday) if schedule.either_day else (day and weekday)
    return t.minute in schedule.minutes and t.hour in schedule.hours and t.month in schedule.months and days


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(SCHEDULES, st.datetimes(datetime(2020, 1, 1), datetime(2030, 1, 1)))
def test_next_run_is_the_first_matching_minute(text: str, after: datetime) -> None:
    """No minute between ``after`` and the next run matches; the next run does."""
    schedule = parse_schedule(text)
    found = schedule.next_after(after)
    assert found is not None
    assert found > after
    assert _matches(schedule, found)
    t = after.replace(second=0, microsecond=0) + timedelta(minutes=1)
    while t < found:
        assert not _matches(schedule, t)
        t += timedelta(minutes=1)
