// RUN: dl-opt %s -split-input-file -verify-diagnostics

// One case per verifier rule of the dlpack dialect.

// expected-error @+1 {{lanes must be in [1, 65535], got 0}}
func.func @dtype_zero_lanes() attributes {d = #dlpack.dtype<float, 32, lanes = 0>}

// -----

// expected-error @+1 {{DLPack has no 12-bit 'float' dtype}}
func.func @dtype_bad_width() attributes {d = #dlpack.dtype<float, 12>}

// -----

// expected-error @+1 {{DLPack has no 1-bit 'bool' dtype}}
func.func @dtype_bool_is_a_byte() attributes {d = #dlpack.dtype<bool, 1>}

// -----

// expected-error @+1 {{parameter name must not be empty}}
func.func @param_empty_name() attributes {p = #dlpack.param<"" : memref<?xf32>, read>}

// -----

// expected-error @+1 {{parameter 'x' must be a memref, integer, float or index, got 'tensor<4xf32>'}}
func.func @param_tensor_type() attributes {p = #dlpack.param<"x" : tensor<4xf32>, read>}

// -----

// expected-error @+1 {{scalar parameter 'a' must have access 'none', got 'read'}}
func.func @param_scalar_access() attributes {p = #dlpack.param<"a" : f32, read>}

// -----

// expected-error @+1 {{dtype #dlpack.dtype<int, 32> does not describe scalar parameter 'a' of type 'f32'}}
func.func @param_scalar_dtype() attributes {p = #dlpack.param<"a" : f32, none, dtype = <int, 32>>}

// -----

// expected-error @+1 {{parameter 'x': element type 'index' has no DLPack dtype}}
func.func @param_index_elements() attributes {p = #dlpack.param<"x" : memref<?xindex>, read>}

// -----

// expected-error @+1 {{parameter 'x': vector element type 'vector<2x2xf32>' has no DLPack dtype: DLPack lanes are one-dimensional}}
func.func @param_vector_rank() attributes {p = #dlpack.param<"x" : memref<?xvector<2x2xf32>>, read>}

// -----

// expected-error @+1 {{parameter 'x': sub-byte element type 'f4E2M1FN' cannot cross the DLPack boundary}}
func.func @param_sub_byte() attributes {p = #dlpack.param<"x" : memref<?xf4E2M1FN>, read>}

// -----

// expected-error @+1 {{parameter 'x': dtype #dlpack.dtype<float, 32> does not describe element type 'i32'}}
func.func @param_dtype_mismatch() attributes {p = #dlpack.param<"x" : memref<?xi32>, read, dtype = <float, 32>>}

// -----

// expected-error @+1 {{parameter 'x': layout affine_map<(d0, d1) -> (d1, d0)> cannot cross the DLPack boundary: expected the identity or a strided layout}}
func.func @param_affine_layout() attributes {p = #dlpack.param<"x" : memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>, read>}

// -----

// expected-error @+1 {{parameter 'x': memory space 1 : i64 cannot cross the DLPack boundary}}
func.func @param_memory_space() attributes {p = #dlpack.param<"x" : memref<?xf32, 1>, read>}

// -----

func.func @check_scalar(%t: !dlpack.tensor, %ctx: !dlpack.context) {
  // expected-error @+1 {{'dlpack.check' op checks tensors, but parameter 'a' is a scalar of type 'f32'}}
  %s = dlpack.check %t, %ctx for argument 0 as <"a" : f32, none>
  return
}

// -----

func.func @check_negative_index(%t: !dlpack.tensor, %ctx: !dlpack.context) {
  // expected-error @+1 {{'dlpack.check' op attribute 'index' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  %s = dlpack.check %t, %ctx for argument -1 as <"x" : memref<?xf32>, read>
  return
}

// -----

func.func @unpack_index_elements(%t: !dlpack.tensor) {
  // expected-error @+1 {{'dlpack.unpack' op element type 'index' has no DLPack dtype}}
  %m = dlpack.unpack %t : !dlpack.tensor to memref<?xindex>
  return
}

// -----

func.func @unpack_affine_layout(%t: !dlpack.tensor) {
  // expected-error @+1 {{'dlpack.unpack' op layout affine_map<(d0, d1) -> (d1, d0)> cannot cross the DLPack boundary}}
  %m = dlpack.unpack %t : !dlpack.tensor to memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>
  return
}

// -----

func.func @pack_dtype_mismatch(%m: memref<4xf32>, %ctx: !dlpack.context) {
  // expected-error @+1 {{'dlpack.pack' op dtype #dlpack.dtype<uint, 32> does not describe element type 'f32'}}
  %r = dlpack.pack %m, %ctx {dtype = #dlpack.dtype<uint, 32>} : memref<4xf32> to !dlpack.managed
  return
}

// -----

func.func @pack_sub_byte(%m: memref<4xf4E2M1FN>, %ctx: !dlpack.context) {
  // expected-error @+1 {{'dlpack.pack' op sub-byte element type 'f4E2M1FN' cannot cross the DLPack boundary}}
  %r = dlpack.pack %m, %ctx : memref<4xf4E2M1FN> to !dlpack.managed
  return
}

// -----

func.func @load_arg_memref(%args: !llvm.ptr) {
  // expected-error @+1 {{'dlpack.load_arg' op result #0 must be}}
  %m = dlpack.load_arg %args[0] : memref<?xf32>
  return
}

// -----

func.func @store_result_borrowed(%t: !dlpack.tensor, %results: !llvm.ptr) {
  // expected-error @+1 {{'dlpack.store_result' op operand #0 must be}}
  dlpack.store_result %t, %results[0] : !dlpack.tensor
  return
}

// -----

// expected-error @+1 {{'dlpack.signature' op refers to @missing, which is not a function}}
dlpack.signature @s for @missing on <cpu> arguments [] results []

// -----

func.func @two_args(%a: memref<?xf32>, %b: f32) {
  return
}
// expected-error @+1 {{'dlpack.signature' op has 1 argument records, but @two_args has 2 arguments}}
dlpack.signature @s for @two_args on <cpu> arguments [#dlpack.param<"a" : memref<?xf32>, read>] results []

// -----

func.func @one_arg(%a: memref<?xf32>) {
  return
}
// expected-error @+1 {{'dlpack.signature' op argument record 0 has type 'memref<4xf32>', but argument 0 of @one_arg is 'memref<?xf32>'}}
dlpack.signature @s for @one_arg on <cpu> arguments [#dlpack.param<"a" : memref<4xf32>, read>] results []

// -----

func.func @returns(%a: memref<?xf32>) -> f32 {
  %c = arith.constant 0.0 : f32
  return %c : f32
}
// expected-error @+1 {{'dlpack.signature' op has 0 result records, but @returns has 1 results}}
dlpack.signature @s for @returns on <cpu> arguments [#dlpack.param<"a" : memref<?xf32>, read>] results []

// -----

func.func @nested() {
  // expected-error @+1 {{'dlpack.signature' op expects parent op 'builtin.module'}}
  "dlpack.signature"() <{sym_name = "s", function = @nested, device = #dlpack.device<cpu>, arg_params = [], result_params = []}> : () -> ()
  return
}

// -----

// expected-error @+1 {{'dlpack.entry' must be a unit attribute}}
func.func @entry_not_unit() attributes {dlpack.entry = 1 : i32} {
  return
}

// -----

// expected-error @+1 {{'dlpack.entry' applies to functions only}}
module attributes {dlpack.entry} {
}

// -----

// expected-error @+1 {{'dlpack.bogus' is not an operation attribute of the dlpack dialect}}
func.func @unknown_op_attr() attributes {dlpack.bogus} {
  return
}

// -----

func.func @in_bounds_not_unit(%t: tensor<?xf32>, %i: index) -> f32 {
  // expected-error @+1 {{'dlpack.in_bounds' must be a unit attribute}}
  %v = tensor.extract %t[%i] {dlpack.in_bounds = 1 : i32} : tensor<?xf32>
  return %v : f32
}

// -----

// expected-error @+1 {{'dlpack.name' of argument 0 must be a non-empty string}}
func.func @empty_name(%a: memref<?xf32> {dlpack.name = ""}) {
  return
}

// -----

// expected-error @+1 {{'dlpack.dtype' of argument 0 must be a #dlpack.dtype}}
func.func @dtype_not_dtype(%a: memref<?xi8> {dlpack.dtype = "uint8"}) {
  return
}

// -----

// expected-error @+1 {{'dlpack.dtype' applies to memref and tensor arguments, but argument 0 is 'i8'}}
func.func @dtype_on_scalar(%a: i8 {dlpack.dtype = #dlpack.dtype<uint, 8>}) {
  return
}

// -----

// expected-error @+1 {{argument 0: dtype #dlpack.dtype<uint, 16> does not describe element type 'i8'}}
func.func @dtype_mismatch(%a: memref<?xi8> {dlpack.dtype = #dlpack.dtype<uint, 16>}) {
  return
}

// -----

// expected-error @+1 {{argument 0: dtype #dlpack.dtype<uint, 32> does not describe element type 'f32'}}
func.func @tensor_dtype_mismatch(%a: tensor<?xf32> {dlpack.dtype = #dlpack.dtype<uint, 32>}) {
  return
}

// -----

// expected-error @+1 {{'dlpack.bogus' is not a dlpack attribute of arguments}}
func.func @unknown_arg_attr(%a: memref<?xf32> {dlpack.bogus}) {
  return
}

// -----

// expected-error @+1 {{'dlpack.dtype' applies to memref and tensor results, but result 0 is 'f32'}}
func.func @dtype_on_scalar_result() -> (f32 {dlpack.dtype = #dlpack.dtype<float, 32>}) {
  %c = arith.constant 0.0 : f32
  return %c : f32
}

// -----

func.func @assert_placeholder_out_of_range(%ok: i1, %n: index) {
  // expected-error @+1 {{message refers to value 1, but the op has 1 value}}
  dlpack.assert %ok, shape_mismatch, "{0} and {1}" (%n : index)
  return
}

// -----

func.func @assert_unclosed_placeholder(%ok: i1, %n: index) {
  // expected-error @+1 {{message has a '{' at 5 that starts no placeholder}}
  dlpack.assert %ok, shape_mismatch, "size {0" (%n : index)
  return
}

// -----

func.func @assert_stray_brace(%ok: i1) {
  // expected-error @+1 {{message has a '}' at 2 that closes no placeholder}}
  dlpack.assert %ok, shape_mismatch, "a } b"
  return
}

// -----

func.func @assert_not_a_placeholder(%ok: i1, %n: index) {
  // expected-error @+1 {{message has a '{' at 0 that starts no placeholder}}
  dlpack.assert %ok, shape_mismatch, "{n}" (%n : index)
  return
}

// -----

func.func @assert_float_value(%ok: i1, %x: f32) {
  // expected-error @+1 {{must be variadic of signless integer or index}}
  dlpack.assert %ok, shape_mismatch, "{0}" (%x : f32)
  return
}

// -----

func.func @assert_unknown_status(%ok: i1) {
  // expected-error @+1 {{expected}}
  dlpack.assert %ok, rank_mismatch, "message"
  return
}

// -----

// What a dlpack.entry function may take and return: each refusal is at the
// parameter and says what to use instead.

// expected-error @+1 {{'func.func' @declaration (dlpack.entry) is a declaration: give it a body}}
func.func private @declaration(%m: memref<?xf32>) attributes {dlpack.entry}

// -----

// expected-error @+1 {{'func.func' @index_elements (dlpack.entry) argument 0: element type 'index' has no DLPack dtype: use i64 or i32 (index has no fixed width)}}
func.func @index_elements(%m: memref<?xindex>) attributes {dlpack.entry} {
  return
}

// -----

func.func @f128_scalar(
    // expected-error @+1 {{'func.func' @f128_scalar (dlpack.entry) argument 1: scalar type 'f128' has no DLPack dtype: use f16, bf16, f32, f64 or an f8 type}}
    %m: tensor<?xf32>, %x: f128) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @i128_elements (dlpack.entry) argument 0: element type 'i128' has no DLPack dtype: use i1 (bool) or an integer of 8, 16, 32 or 64 bits}}
func.func @i128_elements(%m: tensor<4xi128>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @sub_byte (dlpack.entry) argument 0: sub-byte element type 'f4E2M1FN' cannot cross the DLPack boundary: pass the packed data as i8 and unpack it in the function}}
func.func @sub_byte(%m: memref<8xf4E2M1FN>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @unranked (dlpack.entry) argument 0: unranked type 'tensor<*xf32>' cannot cross the DLPack boundary: give it a rank (sizes may be dynamic, e.g. tensor<?x?xf32>)}}
func.func @unranked(%t: tensor<*xf32>) attributes {dlpack.entry} {
  return
}

// -----

#CSR = #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>
// expected-error @+1 {{'func.func' @sparse (dlpack.entry) argument 0: tensor type 'tensor<4x4xf32, #sparse_tensor.encoding<{ map = (d0, d1) -> (d0 : dense, d1 : compressed) }>>' has an encoding, which DLPack cannot describe: DLPack tensors are dense}}
func.func @sparse(%t: tensor<4x4xf32, #CSR>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @affine_layout (dlpack.entry) argument 0: layout affine_map<(d0, d1) -> (d1, d0)> cannot cross the DLPack boundary: expected the identity or a strided layout; take a strided memref and apply the map in the function's indexing}}
func.func @affine_layout(%m: memref<4x4xf32, affine_map<(d0, d1) -> (d1, d0)>>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @memory_space (dlpack.entry) argument 0: memory space 3 : i64 cannot cross the DLPack boundary: remove it}}
func.func @memory_space(%m: memref<4xf32, 3>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @tuple (dlpack.entry) argument 0: type 'tuple<f32, f32>' cannot cross the DLPack boundary, which takes ranked tensors, memrefs and integer, float or index scalars: pass each element of the tuple as its own value}}
func.func @tuple(%t: tuple<f32, f32>) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @pointer (dlpack.entry) argument 0: type '!llvm.ptr' cannot cross the DLPack boundary, which takes ranked tensors, memrefs and integer, float or index scalars: pass the buffer as a memref}}
func.func @pointer(%p: !llvm.ptr) attributes {dlpack.entry} {
  return
}

// -----

// expected-error @+1 {{'func.func' @returns_vector (dlpack.entry) result 0: type 'vector<4xf32>' cannot cross the DLPack boundary, which takes ranked tensors, memrefs and integer, float or index scalars: pass a tensor or memref of the vector's shape and read it with vector.transfer_read}}
func.func @returns_vector() -> vector<4xf32> attributes {dlpack.entry} {
  %v = arith.constant dense<1.0> : vector<4xf32>
  return %v : vector<4xf32>
}

// -----

// expected-error @+1 {{'func.func' @complex_scalar (dlpack.entry) argument 0: type 'complex<f32>' cannot cross the DLPack boundary, which takes ranked tensors, memrefs and integer, float or index scalars: pass a 0-d tensor or memref of 'complex<f32>'}}
func.func @complex_scalar(%c: complex<f32>) attributes {dlpack.entry} {
  return
}
