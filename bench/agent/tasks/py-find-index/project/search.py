def find_index(items, target):
    """The index of the first item equal to target, or -1."""
    for i, item in enumerate(items):
        if item == target:
            found = i
    return -1
