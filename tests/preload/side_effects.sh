#!/bin/sh
# side_effects.sh environment: prints CUDA_DEVICE_MAX_CONNECTIONS as this shell and a child of it
# see it, for preload.side_effects_environment: a program that never calls CUDA sees nothing of a
# preloaded libacs (docs/design.md rule 14).
case "$1" in
  environment) echo "${CUDA_DEVICE_MAX_CONNECTIONS-unset} $(sh -c 'echo "${CUDA_DEVICE_MAX_CONNECTIONS-unset}"')" ;;
  *) echo "usage: side_effects.sh environment" >&2; exit 2 ;;
esac
