// RUN: dl-opt %s -split-input-file -verify-diagnostics --dlbridge-lower-assertions

// Early returns need a CFG: structured regions are diagnosed.

func.func @assert_in_scf(%n: index, %ok: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{inside 'scf.for' cannot return early from its function; lower structured control flow first (convert-scf-to-cf)}}
    dlpack.assert %ok, shape_mismatch, "in a loop"
  }
  return
}

// -----

func.func private @fails(%ok: i1) {
  dlpack.assert %ok, shape_mismatch, "fails"
  return
}

func.func @call_in_scf(%n: index, %ok: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @+1 {{calls @fails, which may return early, inside 'scf.for'}}
    func.call @fails(%ok) : (i1) -> ()
  }
  return
}

// -----

// The runtime function declared with another type: diagnosed, not assumed.

// expected-error @+1 {{redefinition of function 'dlrt_check_failed' of different type '!llvm.func<void (i32, ptr, i32, ptr)>' is prohibited}}
llvm.func @dlrt_check_failed(i32)

func.func @assert_with_bad_declaration(%ok: i1) {
  dlpack.assert %ok, shape_mismatch, "x"
  return
}

// -----

// A symbol of the runtime function's name that is not an llvm.func.

// expected-error @+1 {{'func.func' op takes the name of the libdlrt function '!llvm.func<void (i32, ptr, i32, ptr)>' @dlrt_check_failed that generated code calls; rename it}}
func.func private @dlrt_check_failed(i32)

func.func @assert_with_func_named_like_runtime(%ok: i1) {
  dlpack.assert %ok, shape_mismatch, "x"
  return
}
