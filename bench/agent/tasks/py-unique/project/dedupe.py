def unique(items):
    """The items without repeats, in the order they first appear.
    >>> unique([3, 1, 3, 2, 1])
    [3, 1, 2]
    """
    pass
