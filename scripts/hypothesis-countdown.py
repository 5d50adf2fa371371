#!/usr/bin/env python3
"""The peer `workbench-bench explore` measures the Python kit's explore rate beside: Hypothesis's
stateful testing of an in-process countdown the size of Examples/countdown (two windows on one
countdown, three rules, one invariant), 400 examples of at most 30 steps. Prints the steps a
second it ran. Needs `pip install hypothesis`.
"""

import sys
import time

try:
    from hypothesis import HealthCheck, settings
    from hypothesis import strategies as st
    from hypothesis.stateful import RuleBasedStateMachine, invariant, rule
except ImportError:
    print("hypothesis is not installed (pip install hypothesis)", file=sys.stderr)
    sys.exit(2)

STEPS = [0]


class Countdown(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.left = 5000
        self.state = "idle"
        self.windows = [{"seen": 5000}, {"seen": 5000}]

    @rule(window=st.integers(0, 1))
    def start(self, window):
        STEPS[0] += 1
        self.state = "running"

    @rule(ms=st.sampled_from([10, 250, 1000, 5000]))
    def advance(self, ms):
        STEPS[0] += 1
        if self.state == "running":
            self.left = max(0, self.left - ms)
            for shown in self.windows:
                shown["seen"] = self.left

    @rule(window=st.integers(0, 1))
    def pause(self, window):
        STEPS[0] += 1
        self.state = "paused"

    @invariant()
    def windows_agree(self):
        assert self.windows[0]["seen"] == self.windows[1]["seen"]


Countdown.TestCase.settings = settings(
    max_examples=400, stateful_step_count=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
start = time.perf_counter()
Countdown.TestCase().runTest()
elapsed = time.perf_counter() - start
print(f"{STEPS[0] / elapsed:.0f} steps a second ({STEPS[0]} steps in {elapsed:.3f} s)")
