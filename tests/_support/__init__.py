"""Helpers shared by several test modules (imported as ``tests._support.<module>``); test
modules import from here, never from each other."""
