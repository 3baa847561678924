// RUN: dl-opt %s --split-input-file --dlbridge-bools-as-bytes | FileCheck %s

// Loads and stores of i1 vectors access one byte per bool: loads read i8
// vectors and compare with zero, stores widen with zext.
// CHECK-LABEL: llvm.func @load_store(
// CHECK-SAME: %[[SRC:[^:]*]]: !llvm.ptr, %[[DST:[^:]*]]: !llvm.ptr)
// CHECK: %[[BYTES:.*]] = llvm.load %[[SRC]] {alignment = 1 : i64} : !llvm.ptr -> vector<8xi8>
// CHECK: %[[ZERO:.*]] = llvm.mlir.zero : vector<8xi8>
// CHECK: %[[BOOLS:.*]] = llvm.icmp "ne" %[[BYTES]], %[[ZERO]] : vector<8xi8>
// CHECK: %[[WIDE:.*]] = llvm.zext %[[BOOLS]] : vector<8xi1> to vector<8xi8>
// CHECK: llvm.store %[[WIDE]], %[[DST]] {alignment = 1 : i64} : vector<8xi8>, !llvm.ptr
llvm.func @load_store(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load %src {alignment = 1 : i64} : !llvm.ptr -> vector<8xi1>
  llvm.store %v, %dst {alignment = 1 : i64} : vector<8xi1>, !llvm.ptr
  llvm.return
}

// -----

// Scalable vectors too.
// CHECK-LABEL: llvm.func @scalable(
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> vector<[4]xi8>
// CHECK: llvm.zext %{{.*}} : vector<[4]xi1> to vector<[4]xi8>
llvm.func @scalable(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %v = llvm.load %src : !llvm.ptr -> vector<[4]xi1>
  llvm.store %v, %dst : vector<[4]xi1>, !llvm.ptr
  llvm.return
}

// -----

// Masked loads widen their pass-through values; masks stay i1.
// CHECK-LABEL: llvm.func @masked(
// CHECK-SAME: %[[P:[^:]*]]: !llvm.ptr, %[[M:[^:]*]]: vector<4xi1>, %[[PT:[^:]*]]: vector<4xi1>)
// CHECK: %[[PTB:.*]] = llvm.zext %[[PT]] : vector<4xi1> to vector<4xi8>
// CHECK: %[[L:.*]] = llvm.intr.masked.load %[[P]], %[[M]], %[[PTB]] {alignment = 1 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi8>) -> vector<4xi8>
// CHECK: %[[B:.*]] = llvm.icmp "ne" %[[L]]
// CHECK: %[[W:.*]] = llvm.zext %[[B]] : vector<4xi1> to vector<4xi8>
// CHECK: llvm.intr.masked.store %[[W]], %[[P]], %[[M]] {alignment = 1 : i32} : vector<4xi8>, vector<4xi1> into !llvm.ptr
llvm.func @masked(%p: !llvm.ptr, %m: vector<4xi1>, %pt: vector<4xi1>) {
  %v = llvm.intr.masked.load %p, %m, %pt {alignment = 1 : i32} : (!llvm.ptr, vector<4xi1>, vector<4xi1>) -> vector<4xi1>
  llvm.intr.masked.store %v, %p, %m {alignment = 1 : i32} : vector<4xi1>, vector<4xi1> into !llvm.ptr
  llvm.return
}

// -----

// Gathers and scatters.
// CHECK-LABEL: llvm.func @gather_scatter(
// CHECK: llvm.intr.masked.gather %{{.*}} : (vector<4x!llvm.ptr>, vector<4xi1>, vector<4xi8>) -> vector<4xi8>
// CHECK: llvm.icmp "ne"
// CHECK: llvm.intr.masked.scatter %{{.*}} : vector<4xi8>, vector<4xi1> into vector<4x!llvm.ptr>
llvm.func @gather_scatter(%ptrs: vector<4x!llvm.ptr>, %m: vector<4xi1>, %pt: vector<4xi1>) {
  %v = llvm.intr.masked.gather %ptrs, %m, %pt {alignment = 1 : i32} : (vector<4x!llvm.ptr>, vector<4xi1>, vector<4xi1>) -> vector<4xi1>
  llvm.intr.masked.scatter %v, %ptrs, %m {alignment = 1 : i32} : vector<4xi1>, vector<4xi1> into vector<4x!llvm.ptr>
  llvm.return
}

// -----

// Expanding loads and compressing stores.
// CHECK-LABEL: llvm.func @expand_compress(
// CHECK: "llvm.intr.masked.expandload"(%{{.*}}) : (!llvm.ptr, vector<4xi1>, vector<4xi8>) -> vector<4xi8>
// CHECK: llvm.icmp "ne"
// CHECK: "llvm.intr.masked.compressstore"(%{{.*}}) : (vector<4xi8>, !llvm.ptr, vector<4xi1>) -> ()
llvm.func @expand_compress(%p: !llvm.ptr, %m: vector<4xi1>, %pt: vector<4xi1>) {
  %v = "llvm.intr.masked.expandload"(%p, %m, %pt) : (!llvm.ptr, vector<4xi1>, vector<4xi1>) -> vector<4xi1>
  "llvm.intr.masked.compressstore"(%v, %p, %m) : (vector<4xi1>, !llvm.ptr, vector<4xi1>) -> ()
  llvm.return
}

// -----

// Scalar bools are bytes in LLVM already, and other element types are not
// bools: both are left alone.
// CHECK-LABEL: llvm.func @untouched(
// CHECK-NEXT: %[[S:.*]] = llvm.load %{{.*}} : !llvm.ptr -> i1
// CHECK-NEXT: %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> vector<4xi32>
// CHECK-NEXT: llvm.store %[[S]], %{{.*}} : i1, !llvm.ptr
// CHECK-NEXT: llvm.store %[[V]], %{{.*}} : vector<4xi32>, !llvm.ptr
llvm.func @untouched(%p: !llvm.ptr) {
  %s = llvm.load %p : !llvm.ptr -> i1
  %v = llvm.load %p : !llvm.ptr -> vector<4xi32>
  llvm.store %s, %p : i1, !llvm.ptr
  llvm.store %v, %p : vector<4xi32>, !llvm.ptr
  llvm.return
}
