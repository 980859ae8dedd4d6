#!/usr/bin/env bash
set -e
[ "$(bash ext.sh report.tar.gz)" = "gz" ] || { echo "report.tar.gz gave '$(bash ext.sh report.tar.gz)'"; exit 1; }
[ "$(bash ext.sh notes.txt)" = "txt" ] || { echo "notes.txt gave '$(bash ext.sh notes.txt)'"; exit 1; }
[ "$(bash ext.sh Makefile)" = "" ] || { echo "Makefile gave '$(bash ext.sh Makefile)'"; exit 1; }
echo ok
