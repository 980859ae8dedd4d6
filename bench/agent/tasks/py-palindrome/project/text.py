def is_palindrome(s):
    """True when s reads the same backwards, ignoring case and non-alphanumeric characters."""
    kept = [c for c in s if c.isalnum()]
    return kept == kept[::-1]
