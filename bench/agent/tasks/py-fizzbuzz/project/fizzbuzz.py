def fizzbuzz(n):
    """Return "Fizz" if n is divisible by 3, "Buzz" if by 5, "FizzBuzz" if by both,
    and otherwise n as a string.
    >>> fizzbuzz(9)
    'Fizz'
    >>> fizzbuzz(7)
    '7'
    """
    pass
