#!/usr/bin/env bash
# Prints the largest of its arguments (integers).
best=$1
for n in "$@"; do
  if [[ $n > $best ]]; then
    best=$n
  fi
done
echo "$best"
