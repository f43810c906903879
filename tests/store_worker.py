"""A writer process for the durability and concurrency tests.

    python tests/store_worker.py DB_URL ASSESSOR SEED ROUNDS

Records a judgment for every item of the assessor's topics, ROUNDS times over
(each round revises the last), and prints ``ack ASSESSOR TOPIC DOC GRADE VERSION`` only
after ``record`` has returned, i.e. after the commit. The parent compares
what was acknowledged with what is in the database.
"""

from __future__ import annotations

import random
import sys

from relkit.judging.store.assign import Store


def main() -> int:
    url, who, seed, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    rng = random.Random(seed)
    store = Store.open(url)
    view = store.assessor(who)
    work = [(t.key, i.doc) for t in view.topics() for i in view.items(t.key)]
    print("ready", flush=True)
    for _ in range(rounds):
        for topic, doc in work:
            grade = rng.randint(0, 3)
            out = view.record(topic=topic, doc=doc, grade=grade, dwell_ms=rng.randint(0, 9999))
            sys.stdout.write(f"ack {who} {topic} {doc} {grade} {out.version}\n")
            sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
