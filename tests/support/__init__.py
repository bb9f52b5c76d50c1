"""Helpers the test suites share."""
