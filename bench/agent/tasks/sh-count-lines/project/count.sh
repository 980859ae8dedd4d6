#!/usr/bin/env bash
# Prints how many lines the file $1 has.
exit 1
