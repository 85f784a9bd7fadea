"""No code: the old migrations of the series table, kept so existing databases migrate.

They made the ``series_seriespage`` table. ``SeriesPage`` belongs to ``blog``
since blog migration 0008, which took it over without touching the table or its
rows. Django needs this app installed to know the migrations that made the
table, on new and old databases alike.
"""
