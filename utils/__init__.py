"""Helpers the course notebooks import: set-up, the exercise checker, diagrams, benchmarks, the release tool.

Each module has one job; the teaching lives in the notebooks. Import `utils.setup` first: it decides
whether Triton runs on the GPU or in its CPU interpreter, which must be settled before any kernel exists.
"""
