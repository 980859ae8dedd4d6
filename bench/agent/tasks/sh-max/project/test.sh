#!/usr/bin/env bash
set -e
[ "$(bash max.sh 9 10)" = "10" ] || { echo "max.sh 9 10 printed $(bash max.sh 9 10)"; exit 1; }
[ "$(bash max.sh 3 1 2)" = "3" ] || { echo "max.sh 3 1 2 printed $(bash max.sh 3 1 2)"; exit 1; }
echo ok
