"""Tests of hub/: class-live, the hub service of the live view."""
