def mean(xs):
    """The arithmetic mean of xs."""
    return sum(xs) / len(xs)


def total(xs):
    return sum(xs)
