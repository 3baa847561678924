// RUN: dl-opt %s --split-input-file --verify-diagnostics \
// RUN:   --dlbridge-offload-host-code | FileCheck %s

// What host code still does with tensor data runs in one-thread kernels, and
// host buffers are device buffers.

// CHECK-LABEL: func.func @total(
// CHECK-SAME: %[[A:[^:]*]]: memref<?xf32, strided<[?], offset: ?>>)
// CHECK: %[[OUT:.*]] = gpu.alloc () : memref<f32>
// The size, pure, moves before the run of data accesses it interrupted.
// CHECK: memref.dim %[[A]]
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: gpu.launch blocks({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]]) threads({{.*}}) in ({{.*}} = %[[ONE]], {{.*}} = %[[ONE]], {{.*}} = %[[ONE]])
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT]][] : memref<f32>
// CHECK-NEXT: scf.for
// CHECK: memref.load %[[A]]
// CHECK: memref.store %{{.*}}, %[[OUT]][]
// CHECK: gpu.terminator
// CHECK: %[[TMP:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.dealloc %[[TMP]] : memref<f32>
// CHECK-NOT: memref.alloc
// CHECK: return %[[OUT]]
func.func @total(%a: memref<?xf32, strided<[?], offset: ?>>) -> memref<f32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %out = memref.alloc() : memref<f32>
  memref.store %zero, %out[] : memref<f32>
  %n = memref.dim %a, %c0 : memref<?xf32, strided<[?], offset: ?>>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %a[%i] : memref<?xf32, strided<[?], offset: ?>>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[] : memref<f32>
  }
  %tmp = memref.alloc() : memref<f32>
  memref.dealloc %tmp : memref<f32>
  return %out : memref<f32>
}

// Existing launches are left as they are.
// CHECK-LABEL: func.func @launched(
// CHECK: gpu.launch
// CHECK-NEXT: memref.store
// CHECK-NEXT: gpu.terminator
// CHECK-NOT: gpu.launch
// CHECK: return
func.func @launched(%a: memref<f32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  gpu.launch blocks(%bx, %by, %bz) in (%x = %c1, %y = %c1, %z = %c1)
      threads(%tx, %ty, %tz) in (%x1 = %c1, %y1 = %c1, %z1 = %c1) {
    memref.store %zero, %a[] : memref<f32>
    gpu.terminator
  }
  return
}

// -----

// Pure operations on what a run read join it; the others move before it
// and stay on the host.
// CHECK-LABEL: func.func @compute_between(
// CHECK: %[[M:.*]] = arith.addi
// CHECK: gpu.launch
// CHECK-NEXT: vector.load
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: vector.store
// CHECK-NEXT: gpu.terminator
// CHECK: return %[[M]]
func.func @compute_between(%a: memref<4xf32>, %b: memref<4xf32>, %n: index) -> index {
  %c0 = arith.constant 0 : index
  %v = vector.load %a[%c0] : memref<4xf32>, vector<4xf32>
  %w = arith.mulf %v, %v : vector<4xf32>
  %m = arith.addi %n, %n : index
  vector.store %w, %b[%c0] : memref<4xf32>, vector<4xf32>
  return %m : index
}

// -----

// A scalar host code needs is read back: the kernel stores its bits into a
// device buffer of i64 words (zeroed first), host code copies it into its
// own buffer, waits for the stream and loads the word in its place.

// CHECK-LABEL: func.func @scalar_to_host(
// CHECK-SAME: %[[A:.*]]: memref<f32>)
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK: %[[BYTES:.*]] = gpu.alloc () : memref<8xi8>
// CHECK: %[[HALVES:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<8xi8> to memref<2xi32>
// CHECK: gpu.memset %[[HALVES]], %{{.*}} : memref<2xi32>, i32
// CHECK: %[[DEV:.*]] = memref.view %[[BYTES]][%{{.*}}][] : memref<8xi8> to memref<1xi64>
// CHECK: gpu.launch
// CHECK-NEXT: %[[X:.*]] = memref.load %[[A]][] : memref<f32>
// CHECK-NEXT: %[[BITS:.*]] = arith.bitcast %[[X]] : f32 to i32
// CHECK-NEXT: %[[WORD:.*]] = arith.extui %[[BITS]] : i32 to i64
// CHECK: memref.store %[[WORD]], %[[DEV]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT: gpu.terminator
// CHECK: memref.store %{{.*}}, %[[HOST]]
// CHECK-NEXT: gpu.memcpy %[[HOST]], %[[DEV]] : memref<1xi64>, memref<1xi64>
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK-NEXT: gpu.dealloc %[[BYTES]] : memref<8xi8>
// CHECK: %[[LOADED:.*]] = memref.load %[[HOST]][%{{.*}}] : memref<1xi64>
// CHECK-NEXT: %[[LOW:.*]] = arith.trunci %[[LOADED]] : i64 to i32
// CHECK-NEXT: %[[HOSTX:.*]] = arith.bitcast %[[LOW]] : i32 to f32
// CHECK-NEXT: return %[[HOSTX]] : f32
func.func @scalar_to_host(%a: memref<f32>) -> f32 {
  %x = memref.load %a[] : memref<f32>
  return %x : f32
}

// -----

func.func @stack(%a: memref<4xf32>) {
  // expected-error @below {{allocates on the host stack in host code}}
  %b = memref.alloca() : memref<4xf32>
  return
}

// -----

func.func @copy(%a: memref<4xf32>, %b: memref<4xf32>) {
  // expected-error @below {{copies buffers in host code}}
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The ownership flags and addresses lower-deallocations keeps for its
// dealloc_helper are host memory: allocated, written and read on the host;
// the buffer they decide to free is a device buffer.

func.func private @dealloc_helper(memref<?xindex>, memref<?xi1>)

// CHECK-LABEL: func.func @bookkeeping(
// CHECK-NOT: gpu.memcpy
// CHECK: %[[BUF:.*]] = gpu.alloc
// CHECK: %[[FLAGS:.*]] = memref.alloc() : memref<1xi1>
// CHECK-NOT: gpu.launch
// CHECK: memref.store %{{.*}}, %[[FLAGS]]
// CHECK: call @dealloc_helper
// CHECK: %[[OWNED:.*]] = memref.load %[[FLAGS]]
// CHECK: scf.if %[[OWNED]]
// CHECK-NEXT: gpu.dealloc %[[BUF]]
// CHECK: memref.dealloc %[[FLAGS]]
func.func @bookkeeping(%n: index) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %true = arith.constant true
  %buf = memref.alloc(%n) : memref<?xf32>
  %addrs = memref.alloc() : memref<1xindex>
  %flags = memref.alloc() : memref<1xi1>
  %p = memref.extract_aligned_pointer_as_index %buf : memref<?xf32> -> index
  memref.store %p, %addrs[%c0] : memref<1xindex>
  memref.store %true, %flags[%c0] : memref<1xi1>
  %a = memref.cast %addrs : memref<1xindex> to memref<?xindex>
  %f = memref.cast %flags : memref<1xi1> to memref<?xi1>
  call @dealloc_helper(%a, %f) : (memref<?xindex>, memref<?xi1>) -> ()
  %owned = memref.load %flags[%c0] : memref<1xi1>
  scf.if %owned {
    memref.dealloc %buf : memref<?xf32>
  }
  memref.dealloc %addrs : memref<1xindex>
  memref.dealloc %flags : memref<1xi1>
  return
}

// -----

// A compaction: the count of positive elements (a loop on the host, so in
// a kernel) sizes the result, which host code allocates; the fill is a
// second kernel that takes the count as a parameter.

// CHECK-LABEL: func.func @compact(
// CHECK-SAME: %[[A:.*]]: memref<?xf32>)
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK: %[[DEV:.*]] = memref.view {{.*}} to memref<1xi64>
// CHECK: gpu.launch
// CHECK: %[[COUNT:.*]] = scf.for
// CHECK: %[[WORD:.*]] = arith.index_cast %[[COUNT]] : index to i64
// CHECK: memref.store %[[WORD]], %[[DEV]]
// CHECK: gpu.terminator
// CHECK: gpu.memcpy %[[HOST]], %[[DEV]]
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[LOADED:.*]] = memref.load %[[HOST]]
// CHECK-NEXT: %[[N:.*]] = arith.index_cast %[[LOADED]] : i64 to index
// CHECK-NEXT: %[[OUT:.*]] = gpu.alloc (%[[N]]) : memref<?xf32>
// CHECK: gpu.launch
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[OUT]]
// CHECK: gpu.terminator
// CHECK-NOT: gpu.memcpy
// CHECK: return %[[OUT]]
func.func @compact(%a: memref<?xf32>) -> memref<?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %n = memref.dim %a, %c0 : memref<?xf32>
  %count = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> index {
    %x = memref.load %a[%i] : memref<?xf32>
    %pos = arith.cmpf ogt, %x, %zero : f32
    %next = arith.addi %k, %c1 : index
    %k2 = arith.select %pos, %next, %k : index
    scf.yield %k2 : index
  }
  %out = memref.alloc(%count) : memref<?xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%k = %c0) -> index {
    %x = memref.load %a[%i] : memref<?xf32>
    %pos = arith.cmpf ogt, %x, %zero : f32
    %k2 = scf.if %pos -> index {
      memref.store %x, %out[%k] : memref<?xf32>
      %next = arith.addi %k, %c1 : index
      scf.yield %next : index
    } else {
      scf.yield %k : index
    }
    scf.yield %k2 : index
  }
  return %out : memref<?xf32>
}

// -----

// Every scalar type tensor data has, read back by one kernel into one
// buffer of words: integers sign-extended (i1 zero-extended), indices
// cast, floats by their bits, complex numbers as two words.

// CHECK-LABEL: func.func @every_type(
// CHECK: %[[HOST:.*]] = memref.alloca() : memref<8xi64>
// CHECK: gpu.alloc () : memref<64xi8>
// CHECK: memref.view {{.*}} to memref<16xi32>
// CHECK: %[[DEV:.*]] = memref.view {{.*}} to memref<8xi64>
// CHECK: gpu.launch
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: arith.extsi %{{.*}} : i8 to i64
// CHECK: arith.index_cast %{{.*}} : index to i64
// CHECK: arith.bitcast %{{.*}} : f16 to i16
// CHECK: arith.extui %{{.*}} : i16 to i64
// CHECK: arith.bitcast %{{.*}} : bf16 to i16
// CHECK: arith.bitcast %{{.*}} : f64 to i64
// CHECK: complex.re %{{.*}} : complex<f32>
// CHECK: complex.im %{{.*}} : complex<f32>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[DEV]]
// CHECK-NEXT: gpu.terminator
// CHECK: gpu.memcpy %[[HOST]], %[[DEV]] : memref<8xi64>, memref<8xi64>
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: arith.trunci %{{.*}} : i64 to i1
// CHECK: arith.trunci %{{.*}} : i64 to i8
// CHECK: arith.index_cast %{{.*}} : i64 to index
// CHECK: arith.bitcast %{{.*}} : i16 to f16
// CHECK: arith.bitcast %{{.*}} : i16 to bf16
// CHECK: arith.bitcast %{{.*}} : i64 to f64
// CHECK: %[[Z:.*]] = complex.create %{{.*}}, %{{.*}} : complex<f32>
// CHECK: call @use(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[Z]])
func.func private @use(i1, i8, index, f16, bf16, f64, complex<f32>)
func.func @every_type(%b: memref<i1>, %i: memref<i8>, %n: memref<index>,
                      %h: memref<f16>, %g: memref<bf16>, %d: memref<f64>,
                      %z: memref<complex<f32>>) {
  %vb = memref.load %b[] : memref<i1>
  %vi = memref.load %i[] : memref<i8>
  %vn = memref.load %n[] : memref<index>
  %vh = memref.load %h[] : memref<f16>
  %vg = memref.load %g[] : memref<bf16>
  %vd = memref.load %d[] : memref<f64>
  %vz = memref.load %z[] : memref<complex<f32>>
  call @use(%vb, %vi, %vn, %vh, %vg, %vd, %vz) : (i1, i8, index, f16, bf16, f64, complex<f32>) -> ()
  return
}

// -----

// Host control flow that launches kernels and reads data: each iteration
// reads its scalar back (and waits) before the host branches on it; the
// host buffer is on the stack once, in the entry block, not per iteration.

// CHECK-LABEL: func.func @read_in_loop(
// CHECK-SAME: %[[FLAGS:[^:]*]]: memref<?xi1>
// CHECK-NEXT: %[[HOST:.*]] = memref.alloca() : memref<1xi64>
// CHECK: scf.for %[[I:.*]] =
// CHECK: gpu.launch
// CHECK-NEXT: %[[F:.*]] = memref.load %[[FLAGS]][%[[I]]]
// CHECK-NEXT: %[[WORD:.*]] = arith.extui %[[F]] : i1 to i64
// CHECK: gpu.memcpy %[[HOST]]
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[LOADED:.*]] = memref.load %[[HOST]]
// CHECK-NEXT: %[[HOSTF:.*]] = arith.trunci %[[LOADED]] : i64 to i1
// CHECK-NEXT: scf.if %[[HOSTF]] {
// CHECK-NEXT: gpu.launch
// CHECK-NOT: memref.alloca
// CHECK: return
func.func @read_in_loop(%flags: memref<?xi1>, %x: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %flags, %c0 : memref<?xi1>
  scf.for %i = %c0 to %n step %c1 {
    %f = memref.load %flags[%i] : memref<?xi1>
    scf.if %f {
      gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
          threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
        %v = memref.load %x[] : memref<f32>
        %w = arith.addf %v, %v : f32
        memref.store %w, %x[] : memref<f32>
        gpu.terminator
      }
    }
  }
  return
}

// -----

// A loop whose condition reads data and whose body launches: the condition
// is read back each time round.

// CHECK-LABEL: func.func @while_positive(
// CHECK: scf.while
// CHECK: gpu.launch
// CHECK: memref.load
// CHECK: gpu.memcpy
// CHECK-NEXT: llvm.call @dlrt_call_synchronize()
// CHECK: %[[GO:.*]] = arith.trunci %{{.*}} : i64 to i1
// CHECK-NEXT: scf.condition(%[[GO]])
func.func @while_positive(%x: memref<f32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  scf.while : () -> () {
    %v = memref.load %x[] : memref<f32>
    %go = arith.cmpf ogt, %v, %zero : f32
    scf.condition(%go)
  } do {
    gpu.launch blocks(%bx, %by, %bz) in (%gx = %c1, %gy = %c1, %gz = %c1)
        threads(%tx, %ty, %tz) in (%sx = %c1, %sy = %c1, %sz = %c1) {
      %v = memref.load %x[] : memref<f32>
      %one = arith.constant 1.0 : f32
      %w = arith.subf %v, %one : f32
      memref.store %w, %x[] : memref<f32>
      gpu.terminator
    }
    scf.yield
  }
  return
}

// -----

// Only scalars are read back: a vector host code uses is refused.
func.func @vector_to_host(%a: memref<4xf32>) -> vector<4xf32> {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'vector.load' op accesses tensor data in host code and host code uses its result, of type 'vector<4xf32>', but a CUDA entry's tensors live in device memory and only scalars (integers and floats of at most 64 bits, indices, complex numbers) are copied back to the host; compute this inside a gpu.launch (or with linalg ops, which become kernels), or compile the function for the CPU}}
  %v = vector.load %a[%c0] : memref<4xf32>, vector<4xf32>
  // expected-note @below {{the result is used here, by 'func.return'}}
  return %v : vector<4xf32>
}

// -----

// Nor is an integer wider than a word.
func.func @wide_to_host(%a: memref<i128>) -> i128 {
  // expected-error @below {{of type 'i128', but a CUDA entry's tensors live in device memory and only scalars}}
  %v = memref.load %a[] : memref<i128>
  // expected-note @below {{the result is used here, by 'func.return'}}
  return %v : i128
}

// -----

// The shape operand of a reshape in host code is host memory: the host
// stores the sizes, the reshape views device data without reading it, and
// the size the host loads again is not a read of device data.

// CHECK-LABEL: func.func @flatten(
// CHECK-SAME: %[[A:.*]]: memref<?x?xf32>
// CHECK: %[[SHAPE:.*]] = memref.alloc() : memref<1xindex>
// CHECK-NEXT: memref.store %{{.*}}, %[[SHAPE]]
// CHECK-NEXT: %[[FLAT:.*]] = memref.reshape %[[A]](%[[SHAPE]])
// CHECK-NEXT: %[[N:.*]] = memref.load %[[SHAPE]]
// CHECK-NOT: gpu.memcpy
// CHECK: gpu.launch
// CHECK: memref.load %[[FLAT]]
// CHECK: gpu.terminator
// CHECK: memref.dealloc %[[SHAPE]]
func.func @flatten(%a: memref<?x?xf32>, %out: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %r = memref.dim %a, %c0 : memref<?x?xf32>
  %c = memref.dim %a, %c1 : memref<?x?xf32>
  %size = arith.muli %r, %c : index
  %shape = memref.alloc() : memref<1xindex>
  memref.store %size, %shape[%c0] : memref<1xindex>
  %flat = memref.reshape %a(%shape) : (memref<?x?xf32>, memref<1xindex>) -> memref<?xf32>
  %n = memref.load %shape[%c0] : memref<1xindex>
  memref.store %zero, %out[] : memref<f32>
  scf.for %i = %c0 to %n step %c1 {
    %x = memref.load %flat[%i] : memref<?xf32>
    %acc = memref.load %out[] : memref<f32>
    %s = arith.addf %x, %acc : f32
    memref.store %s, %out[] : memref<f32>
  }
  memref.dealloc %shape : memref<1xindex>
  return
}

// -----

// A buffer host code chooses (an entry's result: the loop's own buffer, or
// a copy of it) cannot come back from the device: the scf.if stays host
// control flow, and the copy in its branch is a kernel of its own.

// CHECK-LABEL: func.func @choose_buffer(
// CHECK-SAME: %[[A:[^:]*]]: memref<f32>, %[[OWNED:.*]]: i1)
// CHECK: gpu.launch
// CHECK-NEXT: memref.load %[[A]]
// CHECK: gpu.terminator
// CHECK: %[[R:.*]] = scf.if %[[OWNED]] -> (memref<f32>) {
// CHECK-NEXT: scf.yield %[[A]]
// CHECK-NEXT: } else {
// CHECK-NEXT: %[[COPY:.*]] = gpu.alloc () : memref<f32>
// CHECK: gpu.launch
// CHECK-NEXT: %[[V:.*]] = memref.load %[[A]][]
// CHECK-NEXT: memref.store %[[V]], %[[COPY]][]
// CHECK: scf.yield %[[COPY]]
// CHECK: return %[[R]]
func.func @choose_buffer(%a: memref<f32>, %owned: i1) -> memref<f32> {
  %one = arith.constant 1.0 : f32
  %x = memref.load %a[] : memref<f32>
  %y = arith.addf %x, %one : f32
  memref.store %y, %a[] : memref<f32>
  %r = scf.if %owned -> memref<f32> {
    scf.yield %a : memref<f32>
  } else {
    %copy = memref.alloc() : memref<f32>
    %v = memref.load %a[] : memref<f32>
    memref.store %v, %copy[] : memref<f32>
    scf.yield %copy : memref<f32>
  }
  return %r : memref<f32>
}

// -----

// A buffer host code chooses on a flag in device memory (an scf.if folded to
// an arith.select of two buffers): the flag is read back and the select stays
// host code.

// CHECK-LABEL: func.func @select_buffer(
// CHECK-SAME: %[[A:[^:]*]]: memref<?xf32>, %[[B:[^:]*]]: memref<?xf32>, %[[F:[^:]*]]: memref<i1>)
// CHECK: gpu.launch
// CHECK: memref.load %[[F]][]
// CHECK: gpu.terminator
// CHECK: %[[LOADED:.*]] = memref.load
// CHECK-NEXT: %[[FLAG:.*]] = arith.trunci %[[LOADED]] : i64 to i1
// CHECK-NEXT: %[[R:.*]] = arith.select %[[FLAG]], %[[A]], %[[B]] : memref<?xf32>
// CHECK-NEXT: return %[[R]]
func.func @select_buffer(%a: memref<?xf32>, %b: memref<?xf32>, %f: memref<i1>) -> memref<?xf32> {
  %c = memref.load %f[] : memref<i1>
  %r = arith.select %c, %a, %b : memref<?xf32>
  return %r : memref<?xf32>
}

// -----

// A loop that yields a fresh buffer each iteration (a running sum carried as
// a 0-d array) stays host code, which allocates; its body's accesses run in
// a kernel per iteration, and the cast of what it yields stays on the host.

// CHECK-LABEL: func.func @running_sum(
// CHECK-SAME: %[[A:[^:]*]]: memref<?xf64>, %[[INIT:[^:]*]]: memref<f64>
// CHECK: %[[SUM:.*]] = scf.for {{.*}} iter_args(%[[ACC:.*]] = %[[INIT]]) -> (memref<f64>)
// CHECK: %[[NEW:.*]] = gpu.alloc () : memref<f64>
// CHECK: gpu.launch
// CHECK: memref.load %[[A]]
// CHECK: memref.load %[[ACC]][]
// CHECK: memref.store %{{.*}}, %[[NEW]][]
// CHECK: gpu.terminator
// CHECK: scf.yield %[[NEW]] : memref<f64>
// CHECK-NOT: gpu.launch
// CHECK: %[[CAST:.*]] = memref.cast %[[SUM]]
// CHECK: return %[[CAST]]
func.func @running_sum(%a: memref<?xf64>, %init: memref<f64>, %n: index)
    -> memref<f64, strided<[], offset: ?>> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sum = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (memref<f64>) {
    %new = memref.alloc() : memref<f64>
    %x = memref.load %a[%i] : memref<?xf64>
    %s = memref.load %acc[] : memref<f64>
    %t = arith.addf %x, %s : f64
    memref.store %t, %new[] : memref<f64>
    scf.yield %new : memref<f64>
  }
  %cast = memref.cast %sum : memref<f64> to memref<f64, strided<[], offset: ?>>
  return %cast : memref<f64, strided<[], offset: ?>>
}
