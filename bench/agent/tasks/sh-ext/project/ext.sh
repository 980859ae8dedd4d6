#!/usr/bin/env bash
# Prints the extension of the file name $1, without the dot.
