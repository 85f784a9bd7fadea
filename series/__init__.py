"""Kept for its migrations only: it made the ``series_seriespage`` table.

``SeriesPage`` belongs to ``blog`` since blog migration 0008, which took it
over without touching the table or its rows. Django needs this app installed
to know the migrations that made the table, on new and old databases alike.
"""
