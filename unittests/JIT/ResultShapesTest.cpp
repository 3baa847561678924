//===- ResultShapesTest.cpp - Result sizes as expressions of arguments ----===//
//
// Part of dlbridge's unit tests. Each result size the compiler reads off an
// entry is evaluated for argument sizes and compared with what the IR
// computes; sizes computed from values are refused, naming the operation.
//
//===----------------------------------------------------------------------===//

#include "dlbridge/JIT/ResultShapes.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

using namespace dlbridge::jit;

namespace {

/// The value of node `k` for arguments whose sizes are `dims` (a scalar
/// argument's value as its only "size").
int64_t evaluate(const ResultShapes &shapes, size_t k,
                 const std::vector<std::vector<int64_t>> &dims) {
  const SizeNode &node = shapes.nodes[k];
  auto operand = [&](size_t i) {
    return evaluate(shapes, node.operands[i], dims);
  };
  if (node.op == "const")
    return node.value;
  if (node.op == "dim")
    return dims[node.arg][node.value];
  if (node.op == "arg")
    return dims[node.arg][0];
  if (node.op == "add")
    return operand(0) + operand(1);
  if (node.op == "sub")
    return operand(0) - operand(1);
  if (node.op == "mul")
    return operand(0) * operand(1);
  if (node.op == "floordiv" || node.op == "div")
    return operand(0) / operand(1); // the tests' sizes are not negative
  if (node.op == "ceildiv")
    return (operand(0) + operand(1) - 1) / operand(1);
  if (node.op == "min")
    return std::min(operand(0), operand(1));
  if (node.op == "max")
    return std::max(operand(0), operand(1));
  if (node.op == "lt")
    return operand(0) < operand(1);
  if (node.op == "select")
    return operand(0) ? operand(1) : operand(2);
  ADD_FAILURE() << "unexpected node " << node.op;
  return 0;
}

std::vector<int64_t> shapeOf(const ResultShapes &shapes, size_t result,
                             const std::vector<std::vector<int64_t>> &dims) {
  std::vector<int64_t> shape;
  for (size_t node : shapes.results[result])
    shape.push_back(evaluate(shapes, node, dims));
  return shape;
}

TEST(ResultShapesTest, TensorSizesFollowSlicesAndDestinations) {
  // x[1:] + 1 over a ?x? tensor, and a 4x? static-and-dynamic result.
  ResultShapes shapes = resultShapes(R"(
func.func @f(%x: tensor<?x?xf32>) -> (tensor<?x?xf32>, tensor<4x?xf32>)
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x?xf32>
  %m = tensor.dim %x, %c1 : tensor<?x?xf32>
  %start = arith.minsi %c1, %n : index
  %rows = arith.subi %n, %start : index
  %slice = tensor.extract_slice %x[%start, 0][%rows, %m][1, 1]
      : tensor<?x?xf32> to tensor<?x?xf32>
  %e = tensor.empty(%rows, %m) : tensor<?x?xf32>
  %r = linalg.copy ins(%slice : tensor<?x?xf32>) outs(%e : tensor<?x?xf32>)
      -> tensor<?x?xf32>
  %w = arith.muli %m, %n : index
  %s = tensor.empty(%w) : tensor<4x?xf32>
  return %r, %s : tensor<?x?xf32>, tensor<4x?xf32>
})",
                                     "");
  ASSERT_TRUE(shapes) << shapes.error;
  ASSERT_EQ(shapes.results.size(), 2u);
  EXPECT_EQ(shapeOf(shapes, 0, {{5, 3}}), (std::vector<int64_t>{4, 3}));
  EXPECT_EQ(shapeOf(shapes, 0, {{0, 7}}), (std::vector<int64_t>{0, 7}));
  EXPECT_EQ(shapeOf(shapes, 1, {{5, 3}}), (std::vector<int64_t>{4, 15}));
}

TEST(ResultShapesTest, AffineSizesAndIntegerScalars) {
  ResultShapes shapes = resultShapes(R"(
func.func @f(%a: memref<?xf32>, %k: i64) -> memref<?x?xf32>
    attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %twice = affine.apply affine_map<()[s0] -> (s0 * 2 + 1)>()[%n]
  %kk = arith.index_cast %k : i64 to index
  %r = memref.alloc(%twice, %kk) : memref<?x?xf32>
  return %r : memref<?x?xf32>
})",
                                     "f");
  ASSERT_TRUE(shapes) << shapes.error;
  EXPECT_EQ(shapeOf(shapes, 0, {{6}, {9}}), (std::vector<int64_t>{13, 9}));
}

TEST(ResultShapesTest, ScalarResultsHaveNoDims) {
  ResultShapes shapes = resultShapes(R"(
func.func @f(%a: memref<?xf32>) -> f32 attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xf32>
  return %v : f32
})",
                                     "");
  ASSERT_TRUE(shapes) << shapes.error;
  ASSERT_EQ(shapes.results.size(), 1u);
  EXPECT_TRUE(shapes.results[0].empty());
}

TEST(ResultShapesTest, SizesComputedFromValuesAreRefused) {
  ResultShapes shapes = resultShapes(R"(
func.func @f(%a: memref<?xi64>) -> memref<?xf32> attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %v = memref.load %a[%c0] : memref<?xi64>
  %n = arith.index_cast %v : i64 to index
  %r = memref.alloc(%n) : memref<?xf32>
  return %r : memref<?xf32>
})",
                                     "");
  ASSERT_FALSE(shapes);
  EXPECT_NE(shapes.error.find("result 0, dim 0"), std::string::npos)
      << shapes.error;
  EXPECT_NE(shapes.error.find("'memref.load' at <source>:4"), std::string::npos)
      << shapes.error;
}

TEST(ResultShapesTest, SeveralReturnBlocksAreRefused) {
  ResultShapes shapes = resultShapes(R"(
func.func @f(%a: memref<?xf32>, %c: i1) -> memref<?xf32>
    attributes {dlpack.entry} {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  return %a : memref<?xf32>
^bb2:
  return %a : memref<?xf32>
})",
                                     "");
  ASSERT_FALSE(shapes);
  EXPECT_NE(shapes.error.find("several blocks"), std::string::npos)
      << shapes.error;
}

TEST(ResultShapesTest, BadSourceAndEntryAreErrors) {
  EXPECT_NE(resultShapes("garbage", "").error.find("error"), std::string::npos);
  ResultShapes missing = resultShapes(R"(
func.func @f(%a: memref<?xf32>) attributes {dlpack.entry} { return })",
                                      "g");
  EXPECT_NE(missing.error.find("no 'dlpack.entry' function named @g"),
            std::string::npos)
      << missing.error;
}

} // namespace
