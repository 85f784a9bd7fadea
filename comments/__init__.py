"""Readers' comments on posts: threads, Markdown with math, held for moderation."""
