#!/bin/sh
# expect_output.sh EXPECTED COMMAND [ARGS...]: runs the command and passes only if it exits with
# status 0 and its standard output is exactly EXPECTED (one line). CTest's PASS_REGULAR_EXPRESSION
# alone would ignore the exit status: a program that printed the line and then failed would pass.
expected=$1
shift
output=$("$@")
status=$?
if [ "$status" -ne 0 ]; then
  echo "expect_output: '$*' exited with status $status (output: '$output')" >&2
  exit 1
fi
if [ "$output" != "$expected" ]; then
  echo "expect_output: '$*' printed '$output', expected '$expected'" >&2
  exit 1
fi
echo "$output"
