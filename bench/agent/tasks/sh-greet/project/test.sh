#!/usr/bin/env bash
set -e
out=$(bash greet.sh Ada)
[ "$out" = "Hello, Ada!" ] || { echo "expected 'Hello, Ada!', got '$out'"; exit 1; }
echo ok
