"""Eight people judging in eight headless Chromiums at once, on PostgreSQL, for a while.

Slow (30 s of judging each by default; ``RELKIT_SERVE_LOAD_SECONDS`` changes it; how fast
the server answers is bench/serve_bench.py's to measure, not this test's). Each browser
presses a grade, waits until the database has it, and goes on; at the end every
assessor's judgments are exactly the keys they pressed, in their assignment's order:
none lost, none applied twice (one history event each).
"""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path

import pytest
from sqlalchemy import text

from helpers import PG_URL, fresh_pg_database
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.store.tokens import issue
from serve_helpers import (
    chrome,
    chrome_paths,
    drawn,
    grade,
    judged,
    page_now,
    press,
    served,
    sign_in,
)

PEOPLE = [f"a{i}" for i in range(8)]
# 30 s: the browsers arrive 2 s apart (14 s for all eight), so every one judges while all
# the others do, about 15 keys each (a key takes 1.2 s of viewing plus the round trip):
# 100+ writes from eight connections at once, which is what a lost or doubled key needs.
# It was 120 s; longer only measured the same thing for longer.
SECONDS = float(os.environ.get("RELKIT_SERVE_LOAD_SECONDS", "30"))


@pytest.mark.slow
def test_eight_browsers_at_once_on_postgresql(tmp_path: Path) -> None:
    chrome_paths()
    if not PG_URL:
        if os.environ.get("RELKIT_REQUIRE_PG"):
            pytest.fail("RELKIT_REQUIRE_PG is set but RELKIT_TEST_PG is not")
        pytest.skip("PostgreSQL not available: set RELKIT_TEST_PG (see .ci/postgres)")
    url, drop = fresh_pg_database(PG_URL)
    try:
        run(url, tmp_path)
    finally:
        drop()


def run(db: str, tmp_path: Path) -> None:
    store = Store.open(db)
    topics = [Topic(str(100 + i), f"topic {i}") for i in range(len(PEOPLE))]
    docs = [Document(f"d{j:03d}", f"Title {j}", f"Text {j}.") for j in range(400)]
    store.create_collection("load", TREC_DL, topics, docs)
    store.import_pool([(t.id, d.id) for t in topics for d in docs], name="p")
    store.assign(PEOPLE)
    toks = {p: issue(store, p) for p in PEOPLE}
    pressed: dict[str, list[int]] = {p: [] for p in PEOPLE}
    errors: list[BaseException] = []
    with served(db, tmp_path) as server:

        def person(name: str) -> None:
            rng = random.Random(name)
            browser = chrome()
            try:
                sign_in(browser, server.url, toks[name], timeout=120)
                time.sleep(0.5)
                press(browser, "\ue007")
                stop = time.monotonic() + SECONDS   # judging time, after signing in
                since = 0.0
                while time.monotonic() < stop:
                    g = rng.randrange(4)
                    n = len(pressed[name])
                    drawn(browser, f"d{n:03d}", since, timeout=120)
                    time.sleep(1.2)           # longer than min_view (1 s): the key counts
                    since = page_now(browser)
                    grade(browser, str(g), lambda n=n: len(judged(db, name)) == n + 1,
                          f"{name}'s judgment {n + 1}")
                    pressed[name].append(g)
            except BaseException as exc:  # reported below, with the others
                errors.append(exc)
            finally:
                browser.quit()

        threads = [threading.Thread(target=person, args=(p,)) for p in PEOPLE]
        for t in threads:
            t.start()
            time.sleep(2)   # people arrive one after another, not in the same second
        for t in threads:
            t.join()
        log = server.log()
    assert not errors, (errors, log[-3000:])
    with store.engine.connect() as conn:
        events = dict(conn.execute(text(
            "SELECT a.name, count(*) FROM judgment_history h JOIN assessor a "
            "ON a.id = h.assessor_id GROUP BY a.name")).all())
    for p in PEOPLE:
        got = judged(db, p)
        assert [g for _, _, g in got] == pressed[p], p          # every key, in order
        assert [d for _, d, _ in got] == [f"d{j:03d}" for j in range(len(got))], p
        assert events.get(p, 0) == len(got), p                   # nothing applied twice
        assert len(got) > 0
    store.close()
