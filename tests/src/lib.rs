//! End-to-end tests of the real app live in `tests/`; this library is empty.
