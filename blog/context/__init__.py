"""What a page shows beside its own fields, assembled for its template.

The page models call in here from ``get_context``; nothing here imports them:
a builder is handed the page, and reaches its model through it.
"""
