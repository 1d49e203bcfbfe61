"""Learner submissions, right and wrong, that the checker's tests run: one module per exercise id."""
