"""Reproducible benchmarks of the harness9 daemon: start-up, per-turn overhead, tools, memory.

Every figure is compared with a floor measured in the same run, interleaved with it, as the
median of several repetitions; `python -m benchmarks --help` shows how to run them.
"""
