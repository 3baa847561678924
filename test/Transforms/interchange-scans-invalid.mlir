// RUN: dl-opt %s --pass-pipeline='builtin.module(func.func(dlbridge-interchange-scans{tile-size=0}))' \
// RUN:   -verify-diagnostics -split-input-file

// expected-error @+1 {{tile-size=0: expected at least 1}}
func.func @bad_tile_size() {
  return
}
