def grade(score):
    """The letter for a score from 0 to 100: "A" for 90 and above, "B" for 80-89,
    "C" for 70-79, "D" for 60-69 and "F" below 60."""
    pass
