"""In-memory caches with pluggable eviction policies."""
