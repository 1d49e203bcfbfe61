"""The course's benchmark (run.py) and its results page (tables.py): see benchmarks/README.md."""
