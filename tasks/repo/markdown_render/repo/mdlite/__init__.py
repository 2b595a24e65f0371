"""A deliberately small Markdown subset."""
