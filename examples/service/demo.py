"""The multi-tenant demo: a long batch job and a stream of short interactive ones.

    corescheduler serve --config examples/service/service.toml &
    python examples/service/demo.py            # (--url http://127.0.0.1:8088)

Submits the long job, then one short job every second; prints each short job's time
from submission to its end while the long one runs.  With fair sharing the short jobs
take a few seconds each; under FIFO (switch the pools on /scheduler) they would wait
for the long job's 12 × 4 s of work.
"""

from __future__ import annotations

import argparse
import json
import time
import tomllib
from pathlib import Path

from corescheduler.client import Client

HERE = Path(__file__).parent


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", default="http://127.0.0.1:8088")
    parser.add_argument("--token", default=None)
    parser.add_argument("--shorts", type=int, default=6)
    args = parser.parse_args()
    with Client(args.url, args.token) as client:
        long_job = client.submit(json.loads((HERE / "long-job.json").read_text()))
        print(f"{long_job['id']}: the long batch job, {long_job['maps']['total']} maps")
        short = tomllib.loads((HERE / "short-job.toml").read_text())
        submitted = {}
        for _ in range(args.shorts):
            time.sleep(1.0)
            job = client.submit(short)
            submitted[job["id"]] = time.monotonic()
        for job_id, t0 in submitted.items():
            job = client.wait(job_id, timeout=300, poll=0.2)
            print(f"{job_id}: {job['state']} in {time.monotonic() - t0:.1f} s, result {client.result(job_id)}")
        long_state = client.job(long_job["id"])
        print(f"{long_job['id']}: {long_state['state']}, maps {long_state['maps']['finished']}/"
              f"{long_state['maps']['total']} finished when the last short job ended")


if __name__ == "__main__":
    main()
