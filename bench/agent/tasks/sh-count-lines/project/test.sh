#!/usr/bin/env bash
set -e
printf 'a\nb\nc\n' > /tmp/count-test-$$.txt
out=$(bash count.sh /tmp/count-test-$$.txt | tr -d ' ')
rm -f /tmp/count-test-$$.txt
[ "$out" = "3" ] || { echo "expected 3, got '$out'"; exit 1; }
echo ok
