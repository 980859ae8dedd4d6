def count_words(text):
    """How many times each word occurs in text, as a dict."""
    counts = {}
    for word in text.split(" "):
        counts[word] = counts.get(word, 0) + 1
    return counts
