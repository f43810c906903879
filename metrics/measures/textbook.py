"""relkit textbook measures (filled in below)."""
