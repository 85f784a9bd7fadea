import pytest

# Its asserts report what they compared, as a test module's do.
pytest.register_assert_rewrite("tests.search.posts")
