"""What the scripts and the tests share: a server of the demo blog, its pages.

The tests import from here; nothing here imports from the tests.
"""
