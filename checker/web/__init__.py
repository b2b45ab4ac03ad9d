"""``hwcheck serve``: the interactive explorer (Flask app, page, JSON API, background search)."""
