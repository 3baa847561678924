//===- RowGroups.cpp - Ops on the rows of a reduction, in one kernel ------===//
//
// Part of dlbridge.
//
//===----------------------------------------------------------------------===//

#include "ReductionEmitter.h"
#include "ReductionPatterns.h"

#include "LinalgBody.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Utils/Utils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace dlbridge;

namespace {

//===----------------------------------------------------------------------===//
// Row groups: consecutive ops on the same rows, in one kernel
//===----------------------------------------------------------------------===//

/// What a loop of a row group's member, or an index it accesses a buffer
/// with, ranges over: nothing (a loop of static extent 1, the index 0), the
/// group's row dimension `pos`, its column dimension `pos`, or anything else.
struct Index {
  enum Kind { Zero, Row, Column, Other } kind;
  unsigned pos = 0;

  bool operator==(const Index &other) const {
    return kind == other.kind && pos == other.pos;
  }
};

/// The element an operand of a member accesses in each iteration: indices,
/// in terms of the group's rows and columns, into `base`, which the operand
/// is or views through `memref.expand_shape`s (`?x1` views of a vector of
/// per-row values, in particular).
struct Access {
  Value base;
  SmallVector<Index> indices;

  bool operator==(const Access &other) const {
    return base == other.base && indices == other.indices;
  }
  bool operator!=(const Access &other) const { return !(*this == other); }

  /// Whether it names each of `rows` rows and `columns` columns exactly
  /// once, and otherwise only zeros: one element per iteration of those.
  bool isOnePerElement(unsigned rows, unsigned columns) const {
    SmallVector<unsigned> seenRows(rows), seenColumns(columns);
    for (Index index : indices) {
      if (index.kind == Index::Zero)
        continue;
      SmallVector<unsigned> &seen =
          index.kind == Index::Row ? seenRows : seenColumns;
      if (index.kind == Index::Other || index.pos >= seen.size())
        return false;
      ++seen[index.pos];
    }
    auto once = [](unsigned count) { return count == 1; };
    return llvm::all_of(seenRows, once) && llvm::all_of(seenColumns, once);
  }
};

/// A name for extent `dim` of `memref` such that equal names mean equal
/// extents: a static size, or where a dynamic one came from (the size
/// operand of an allocation or expansion, followed to the dimension of the
/// memref it was read from).
using ExtentKey = std::pair<Value, int64_t>;

ExtentKey getExtentKey(Value memref, int64_t dim) {
  while (true) {
    auto type = cast<MemRefType>(memref.getType());
    if (!type.isDynamicDim(dim))
      return {Value(), type.getDimSize(dim)};
    Operation *def = memref.getDefiningOp();
    Value size;
    if (auto alloc = dyn_cast_if_present<memref::AllocOp>(def))
      size = alloc.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    else if (auto alloca = dyn_cast_if_present<memref::AllocaOp>(def))
      size = alloca.getDynamicSizes()[type.getDynamicDimIndex(dim)];
    else if (auto expand = dyn_cast_if_present<memref::ExpandShapeOp>(def))
      size = dyn_cast<Value>(expand.getMixedOutputShape()[dim]);
    else if (auto cast = dyn_cast_if_present<memref::CastOp>(def);
             cast && isa<MemRefType>(cast.getSource().getType())) {
      memref = cast.getSource();
      continue;
    }
    if (!size)
      return {memref, dim};
    auto dimOp = size.getDefiningOp<memref::DimOp>();
    std::optional<int64_t> index =
        dimOp ? getConstantIntValue(dimOp.getIndex()) : std::nullopt;
    if (!index)
      return {size, -1};
    memref = dimOp.getSource();
    dim = *index;
  }
}

/// For each loop of `op`, the names of the extents of the operand
/// dimensions it indexes directly.
SmallVector<SmallVector<ExtentKey>> getLoopExtentKeys(linalg::LinalgOp op) {
  SmallVector<SmallVector<ExtentKey>> keys(op.getNumLoops());
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    for (auto [i, result] :
         llvm::enumerate(op.getMatchingIndexingMap(&operand).getResults()))
      if (auto dim = dyn_cast<AffineDimExpr>(result))
        keys[dim.getPosition()].push_back(getExtentKey(operand.get(), i));
  }
  return keys;
}

bool haveSameExtent(ArrayRef<ExtentKey> lhs, ArrayRef<ExtentKey> rhs) {
  return llvm::any_of(
      lhs, [&](const ExtentKey &key) { return llvm::is_contained(rhs, key); });
}

/// A row group's rows and columns: for each dimension (static 1s left
/// out), the names of its extent.
struct RowShape {
  SmallVector<SmallVector<ExtentKey>> rows;
  SmallVector<SmallVector<ExtentKey>> columns;
};

/// The shape of a group around `op`, a reduction over more than `splitRows`
/// rows (or a dynamic number) whose innermost loops reduce: its parallel
/// loops are the rows, its reduction loops the columns.
std::optional<RowShape> getAnchorShape(linalg::LinalgOp op, int64_t splitRows) {
  if (!matchReduction(op))
    return std::nullopt;
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<SmallVector<ExtentKey>> keys = getLoopExtentKeys(op);
  RowShape shape;
  bool fewRows = true;
  int64_t rows = 1;
  for (auto [range, iterator, key] :
       llvm::zip_equal(ranges, op.getIteratorTypesArray(), keys)) {
    if (range == 1)
      continue;
    if (!linalg::isParallelIterator(iterator)) {
      shape.columns.push_back(key);
      continue;
    }
    if (!shape.columns.empty())
      return std::nullopt;
    shape.rows.push_back(key);
    if (ShapedType::isDynamic(range))
      fewRows = false;
    else
      rows *= range;
  }
  if (shape.columns.empty() || (fewRows && rows <= splitRows))
    return std::nullopt;
  return shape;
}

/// What each loop of `op` ranges over as a member of a group of `shape`, if
/// it can be one: a reduction's parallel loops (static 1s aside) are the
/// rows, its reduction loops, all after them, the columns; an all-parallel
/// op's loops are the rows, or the rows and then the columns.
std::optional<SmallVector<Index>> classifyLoops(linalg::LinalgOp op,
                                                const RowShape &shape) {
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  SmallVector<SmallVector<ExtentKey>> keys = getLoopExtentKeys(op);
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  SmallVector<unsigned> wide;
  for (auto [d, range] : llvm::enumerate(ranges))
    if (range != 1)
      wide.push_back(d);
  size_t rows = shape.rows.size();
  size_t all = rows + shape.columns.size();
  bool reduces = op.getNumReductionLoops() != 0;
  if (wide.size() != all && (reduces || wide.size() != rows))
    return std::nullopt;
  SmallVector<Index> loops(ranges.size(), Index{Index::Zero});
  for (auto [i, d] : llvm::enumerate(wide)) {
    bool isRow = i < rows;
    if (reduces && linalg::isParallelIterator(iterators[d]) != isRow)
      return std::nullopt;
    unsigned pos = isRow ? i : i - rows;
    if (!haveSameExtent(keys[d], isRow ? shape.rows[pos] : shape.columns[pos]))
      return std::nullopt;
    loops[d] = {isRow ? Index::Row : Index::Column, pos};
  }
  return loops;
}

/// The element `operand` of `op` accesses, `loops` saying what each loop
/// of `op` ranges over; through expansions whose every group has at most
/// one dimension that is not a static 1.
Access getAccess(linalg::LinalgOp op, OpOperand &operand,
                 ArrayRef<Index> loops) {
  Access access{operand.get(), {}};
  for (AffineExpr result : op.getMatchingIndexingMap(&operand).getResults()) {
    Index index{Index::Other};
    if (auto dim = dyn_cast<AffineDimExpr>(result))
      index = loops[dim.getPosition()];
    else if (auto constant = dyn_cast<AffineConstantExpr>(result);
             constant && constant.getValue() == 0)
      index = {Index::Zero};
    access.indices.push_back(index);
  }
  while (auto expand = access.base.getDefiningOp<memref::ExpandShapeOp>()) {
    MemRefType type = expand.getResultType();
    SmallVector<Index> indices;
    for (const ReassociationIndices &group : expand.getReassociationIndices()) {
      Index index{Index::Zero};
      unsigned wide = 0;
      for (int64_t dim : group) {
        if (type.getDimSize(dim) == 1)
          continue;
        index = access.indices[dim];
        ++wide;
      }
      if (wide > 1)
        return access;
      indices.push_back(index);
    }
    access = {expand.getSrc(), indices};
  }
  return access;
}

struct RowMember {
  /// A row reduction, an op on per-row values (domain: the rows) or an op
  /// on the elements of rows (rows and columns).
  enum Kind { Reduce, PerRow, PerElement } kind;
  linalg::LinalgOp op;
  std::optional<Reduction> reduction;
  /// What each loop of `op` ranges over.
  SmallVector<Index> loops;
  /// Whether it loads a per-row value that it then writes: every thread
  /// must have loaded it before thread 0 stores.
  bool loadsOwnRow = false;
};

/// Linalg ops on buffers that one kernel runs, a block per row, each
/// member in turn on the block's row. For that every buffer that members
/// write must be accessed by all members, before and after the write, at
/// the same element in each iteration (the same per-row element or, for
/// ops on elements, the same element of the row, which the same thread
/// handles in every member); per-row buffers moreover not before the
/// member that first writes them.
class RowGroup {
public:
  explicit RowGroup(RowShape shape) : shape(std::move(shape)) {}

  /// Adds `op` as the last member if it can be one.
  bool tryAdd(linalg::LinalgOp op);

  /// Whether one kernel is better than today's: a reduction and more.
  bool isWorthFusing() const {
    return members.size() >= 2 &&
           llvm::any_of(members, [](const RowMember &member) {
             return member.kind == RowMember::Reduce;
           });
  }

  RowShape shape;
  SmallVector<RowMember> members;

private:
  /// How members write each buffer (by root, see getRoot).
  DenseMap<Value, Access> written;
  /// How members access each buffer.
  DenseMap<Value, SmallVector<Access>> accessed;
};

bool RowGroup::tryAdd(linalg::LinalgOp op) {
  if (!op.hasPureBufferSemantics() || op->getNumResults() != 0 ||
      op.getNumDpsInits() == 0 ||
      llvm::any_of(op.getIndexingMapsArray(),
                   [](AffineMap map) { return map.getNumSymbols() != 0; }))
    return false;
  for (Operation &bodyOp : op->getRegion(0).front().without_terminator())
    if (bodyOp.getNumRegions() != 0 || !isMemoryEffectFree(&bodyOp))
      return false;
  std::optional<SmallVector<Index>> loops = classifyLoops(op, shape);
  if (!loops)
    return false;
  RowMember member{RowMember::PerRow, op, std::nullopt, *loops};
  if (op.getNumReductionLoops() != 0) {
    member.kind = RowMember::Reduce;
    member.reduction = matchReduction(op);
    if (!member.reduction)
      return false;
  } else if (llvm::any_of(*loops, [](Index index) {
               return index.kind == Index::Column;
             })) {
    member.kind = RowMember::PerElement;
  }
  unsigned rows = shape.rows.size();
  unsigned outColumns =
      member.kind == RowMember::PerElement ? shape.columns.size() : 0;

  DenseMap<Value, Access> writes;
  for (OpOperand &init : op.getDpsInitsMutable()) {
    Access access = getAccess(op, init, *loops);
    Value root = getRoot(init.get());
    if (!access.isOnePerElement(rows, outColumns) ||
        !writes.try_emplace(root, access).second)
      return false;
    auto previous = written.find(root);
    if (previous != written.end()) {
      if (previous->second != access)
        return false;
      continue;
    }
    for (const Access &earlier : accessed.lookup(root))
      if (outColumns == 0 || earlier != access)
        return false;
  }
  for (OpOperand &operand : op->getOpOperands()) {
    if (!isa<MemRefType>(operand.get().getType()))
      continue;
    Value root = getRoot(operand.get());
    auto write = written.find(root);
    bool own = write == written.end();
    if (own && (write = writes.find(root)) == writes.end())
      continue;
    if (write->second != getAccess(op, operand, *loops))
      return false;
    if (own && outColumns == 0 &&
        !op.getMatchingBlockArgument(&operand).use_empty())
      member.loadsOwnRow = true;
  }

  for (OpOperand &operand : op->getOpOperands())
    if (isa<MemRefType>(operand.get().getType()))
      accessed[getRoot(operand.get())].push_back(
          getAccess(op, operand, *loops));
  written.insert(writes.begin(), writes.end());
  members.push_back(std::move(member));
  return true;
}

/// The row groups worth fusing in `block`: around each row reduction, the
/// longest run of members before and after it, with only ops that commute
/// with members between them.
SmallVector<RowGroup, 0> findRowGroups(Block &block, int64_t splitRows) {
  SmallVector<Operation *> ops =
      llvm::map_to_vector(block, [](Operation &op) { return &op; });
  SmallVector<RowGroup, 0> groups;
  size_t next = 0;
  while (next < ops.size()) {
    std::optional<RowShape> shape;
    size_t anchor = next;
    for (; anchor < ops.size(); ++anchor) {
      if (auto op = dyn_cast<linalg::LinalgOp>(ops[anchor]))
        shape = getAnchorShape(op, splitRows);
      if (shape)
        break;
    }
    if (!shape)
      break;
    auto mayJoin = [&](Operation *op) {
      auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
      return touchesNoBuffer(op) ||
             (linalgOp && classifyLoops(linalgOp, *shape));
    };
    size_t start = anchor;
    while (start > next && mayJoin(ops[start - 1]))
      --start;
    RowGroup group(*shape);
    size_t end = start;
    for (; end < ops.size(); ++end) {
      auto op = dyn_cast<linalg::LinalgOp>(ops[end]);
      if ((op && group.tryAdd(op)) || touchesNoBuffer(ops[end]))
        continue;
      if (end > anchor)
        break;
      // A member before the anchor that conflicts with earlier ones: the
      // group starts again with it.
      group = RowGroup(*shape);
      if (op)
        group.tryAdd(op);
    }
    if (group.isWorthFusing())
      groups.push_back(std::move(group));
    next = std::max(end, anchor + 1);
  }
  return groups;
}

/// An elementwise member on the block's row: each thread on the elements
/// `tid`, `tid + threads`, ... or, where the row's operands are contiguous
/// and aligned, on chunks of 16 bytes of them (vector loads and stores),
/// then the tail element by element. `getIvs` gives the member's loop
/// indices at column indices, `read` the per-row values known.
void emitPerElement(
    OpBuilder &b, Location loc, const RowMember &member,
    function_ref<SmallVector<Value>(const RowMember &, ArrayRef<Value>)> getIvs,
    ArrayRef<Value> columnExtents, Value length, Value tid, Value threads,
    function_ref<Value(OpOperand &)> read) {
  linalg::LinalgOp op = member.op;
  auto emitElements = [&](OpBuilder &b, Location loc, Value first, Value step) {
    scf::ForOp::create(
        b, loc, first, length, step, ValueRange{},
        [&](OpBuilder &b, Location loc, Value k, ValueRange) {
          SmallVector<Value> ivs =
              getIvs(member, delinearize(b, loc, k, columnExtents));
          for (auto [value, init] :
               llvm::zip_equal(emitLinalgBody(b, loc, op, ivs, read),
                               op.getDpsInitsMutable()))
            memref::StoreOp::create(
                b, loc, value, init.get(),
                applyMap(b, loc, op.getMatchingIndexingMap(&init), ivs));
          scf::YieldOp::create(b, loc);
        });
  };
  VectorOperands vector;
  auto column = llvm::find_if(
      member.loops, [](Index index) { return index.kind == Index::Column; });
  if (columnExtents.size() == 1 && column + 1 == member.loops.end())
    vector = findVectorOperands(op, member.loops.size() - 1);
  if (vector.operands.empty() ||
      !llvm::all_of(op.getDpsInitsMutable(),
                    [&](OpOperand &init) { return vector.contains(&init); })) {
    emitElements(b, loc, tid, threads);
    return;
  }
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value lanes = arith::ConstantIndexOp::create(b, loc, vector.lanes);
  Value aligned = vector.emitIsAligned(b, loc, op, getIvs(member, {zero}));
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &then, Location loc) {
        Value vectorEnd = arith::SubIOp::create(
            then, loc, length,
            arith::RemUIOp::create(then, loc, length, lanes));
        scf::ForOp::create(
            then, loc, arith::MulIOp::create(then, loc, tid, lanes), vectorEnd,
            arith::MulIOp::create(then, loc, threads, lanes), ValueRange{},
            [&](OpBuilder &inner, Location loc, Value start, ValueRange) {
              SmallVector<Value> ivs = getIvs(member, {start});
              DenseMap<OpOperand *, Value> vectors =
                  emitVectorLoads(inner, loc, op, vector, ivs);
              SmallVector<SmallVector<Value>> results(op.getNumDpsInits());
              for (int64_t lane = 0; lane < vector.lanes; ++lane) {
                Value k = arith::AddIOp::create(
                    inner, loc, start,
                    arith::ConstantIndexOp::create(inner, loc, lane));
                for (auto [result, value] : llvm::zip_equal(
                         results,
                         emitLinalgBody(
                             inner, loc, op, getIvs(member, {k}),
                             readLane(inner, loc, vectors, lane, read))))
                  result.push_back(value);
              }
              for (auto [init, values] :
                   llvm::zip_equal(op.getDpsInitsMutable(), results))
                vector::StoreOp::create(
                    inner, loc,
                    vector::FromElementsOp::create(
                        inner, loc, vector.getType(&init), values),
                    init.get(),
                    applyMap(inner, loc, op.getMatchingIndexingMap(&init), ivs),
                    /*nontemporal=*/false, llvm::Align(vector.getBytes(&init)));
              scf::YieldOp::create(inner, loc);
            });
        emitElements(then, loc,
                     arith::AddIOp::create(then, loc, vectorEnd, tid), threads);
        scf::YieldOp::create(then, loc);
      },
      [&](OpBuilder &otherwise, Location loc) {
        emitElements(otherwise, loc, tid, threads);
        scf::YieldOp::create(otherwise, loc);
      });
}

/// Points operands at other values for as long as it lives: members are
/// emitted reading their cached rows through their own operands.
class OperandSubstitution {
public:
  OperandSubstitution() = default;
  OperandSubstitution(const OperandSubstitution &) = delete;
  OperandSubstitution &operator=(const OperandSubstitution &) = delete;
  ~OperandSubstitution() {
    for (auto [operand, value] : llvm::reverse(saved))
      operand->set(value);
  }

  void replace(OpOperand &operand, Value value) {
    saved.push_back({&operand, operand.get()});
    operand.set(value);
  }

private:
  SmallVector<std::pair<OpOperand *, Value>> saved;
};

/// An input row that several members read, kept in dynamic shared memory:
/// before `firstReader` runs, the block copies the row into the buffer's
/// slice of it, and every member then reads it there instead of in device
/// memory. A softmax, which reads `x` for its max, its sum and its output,
/// reads it once.
struct CachedRow {
  Value root;
  /// The first member that reads the row, and its operand that does.
  size_t firstReader;
  OpOperand *operand;
  int64_t elementBytes;
};

/// Whether `map` names each of the `columns` column loops of `loops` once:
/// then the element an operand reads at the columns' indices is
/// `sum(column[p] * stride(p))` in a row-major row.
bool namesEachColumnOnce(AffineMap map, ArrayRef<Index> loops,
                         unsigned columns) {
  SmallVector<unsigned> seen(columns);
  for (AffineExpr result : map.getResults()) {
    auto dim = dyn_cast<AffineDimExpr>(result);
    if (!dim)
      continue;
    Index index = loops[dim.getPosition()];
    if (index.kind == Index::Column)
      ++seen[index.pos];
  }
  return llvm::all_of(seen, [](unsigned count) { return count == 1; });
}

/// The rows of inputs (buffers no member writes) that two or more members
/// read whole, each at the same element per iteration.
SmallVector<CachedRow> findCachedRows(const RowGroup &group) {
  unsigned rows = group.shape.rows.size();
  unsigned columns = group.shape.columns.size();
  DenseSet<Value> written;
  for (const RowMember &member : group.members)
    for (OpOperand &init : linalg::LinalgOp(member.op).getDpsInitsMutable())
      written.insert(getRoot(init.get()));
  struct Readers {
    SmallVector<std::pair<size_t, OpOperand *>> operands;
    std::optional<Access> access;
    bool cacheable = true;
  };
  llvm::MapVector<Value, Readers> readers;
  for (auto [i, member] : llvm::enumerate(group.members)) {
    if (member.kind == RowMember::PerRow)
      continue;
    linalg::LinalgOp op = member.op;
    for (OpOperand *operand : op.getDpsInputOperands()) {
      auto type = dyn_cast<MemRefType>(operand->get().getType());
      AffineMap map = op.getMatchingIndexingMap(operand);
      bool wholeRow =
          llvm::any_of(llvm::enumerate(member.loops), [&](auto loop) {
            return loop.value().kind == Index::Column &&
                   map.isFunctionOfDim(loop.index());
          });
      if (!type || !wholeRow ||
          op.getMatchingBlockArgument(operand).use_empty())
        continue;
      Value root = getRoot(operand->get());
      if (written.contains(root))
        continue;
      Readers &entry = readers[root];
      Access access = getAccess(op, *operand, member.loops);
      if (!getVectorElementBytes(type.getElementType()) ||
          !access.isOnePerElement(rows, columns) ||
          !namesEachColumnOnce(map, member.loops, columns) ||
          (entry.access && *entry.access != access))
        entry.cacheable = false;
      entry.access = access;
      entry.operands.push_back({i, operand});
    }
  }
  SmallVector<CachedRow> cached;
  for (auto &[root, entry] : readers) {
    auto distinctMembers =
        llvm::to_vector(llvm::make_first_range(entry.operands));
    if (!entry.cacheable || llvm::none_of(distinctMembers, [&](size_t i) {
          return i != distinctMembers.front();
        }))
      continue;
    OpOperand *operand = entry.operands.front().second;
    cached.push_back({root, entry.operands.front().first, operand,
                      getVectorElementBytes(
                          getElementTypeOrSelf(operand->get().getType()))});
  }
  return cached;
}

/// Where each cached row's slice of dynamic shared memory starts, in bytes,
/// rows of `length` elements each taking a multiple of 16 bytes; and their
/// total, from `b`'s insertion point (host or kernel alike).
std::pair<SmallVector<Value>, Value> getCacheOffsets(OpBuilder &b, Location loc,
                                                     ArrayRef<CachedRow> cached,
                                                     Value length) {
  Value total = arith::ConstantIndexOp::create(b, loc, 0);
  Value sixteen = arith::ConstantIndexOp::create(b, loc, kVectorBytes);
  SmallVector<Value> offsets;
  for (const CachedRow &row : cached) {
    offsets.push_back(total);
    Value bytes = arith::MulIOp::create(
        b, loc, length,
        arith::ConstantIndexOp::create(b, loc, row.elementBytes));
    Value padded = arith::MulIOp::create(
        b, loc, arith::CeilDivUIOp::create(b, loc, bytes, sixteen), sixteen);
    total = arith::AddIOp::create(b, loc, total, padded);
  }
  return {offsets, total};
}

/// A view of the cached row `flat` (1-d, row-major in the columns) that
/// `operand` of `member`, indexed through its map, reads as it reads its own
/// buffer: stride 0 along the rows, the row-major strides along the columns.
Value viewAsOperand(OpBuilder &b, Location loc, Value flat,
                    const RowMember &member, OpOperand &operand,
                    ArrayRef<Value> columnExtents) {
  linalg::LinalgOp op = member.op;
  auto type = cast<MemRefType>(operand.get().getType());
  AffineMap map = op.getMatchingIndexingMap(&operand);
  SmallVector<OpFoldResult> sizes, strides;
  SmallVector<int64_t> staticStrides;
  for (auto [dim, result] : llvm::enumerate(map.getResults())) {
    sizes.push_back(memref::getMixedSize(b, loc, operand.get(), dim));
    auto loop = dyn_cast<AffineDimExpr>(result);
    Index index = loop ? member.loops[loop.getPosition()] : Index{Index::Zero};
    if (index.kind != Index::Column) {
      strides.push_back(b.getIndexAttr(0));
      staticStrides.push_back(0);
      continue;
    }
    if (index.pos + 1 == columnExtents.size()) {
      strides.push_back(b.getIndexAttr(1));
      staticStrides.push_back(1);
      continue;
    }
    strides.push_back(product(b, loc, columnExtents.drop_front(index.pos + 1)));
    staticStrides.push_back(ShapedType::kDynamic);
  }
  auto viewType =
      MemRefType::get(type.getShape(), type.getElementType(),
                      StridedLayoutAttr::get(b.getContext(), 0, staticStrides),
                      cast<MemRefType>(flat.getType()).getMemorySpace());
  return memref::ReinterpretCastOp::create(b, loc, viewType, flat,
                                           b.getIndexAttr(0), sizes, strides);
}

/// Copies the row of `row.operand` that the block works on into `flat`:
/// each thread 16 bytes at a time, four chunks in flight, where the row is
/// contiguous and aligned (as members move it), else element by element.
void emitFillCache(
    OpBuilder &b, Location loc, const RowMember &member, OpOperand &operand,
    Value flat, ArrayRef<Value> columnExtents, Value length, Value tid,
    Value threads,
    function_ref<SmallVector<Value>(const RowMember &, ArrayRef<Value>)>
        getIvs) {
  linalg::LinalgOp op = member.op;
  AffineMap map = op.getMatchingIndexingMap(&operand);
  Value source = operand.get();
  auto emitElements = [&](OpBuilder &b, Location loc, Value first) {
    scf::ForOp::create(b, loc, first, length, threads, ValueRange{},
                       [&](OpBuilder &b, Location loc, Value k, ValueRange) {
                         SmallVector<Value> ivs = getIvs(
                             member, delinearize(b, loc, k, columnExtents));
                         Value value = memref::LoadOp::create(
                             b, loc, source, applyMap(b, loc, map, ivs));
                         memref::StoreOp::create(b, loc, value, flat, k);
                         scf::YieldOp::create(b, loc);
                       });
  };
  VectorOperands vector;
  auto column = llvm::find_if(
      member.loops, [](Index index) { return index.kind == Index::Column; });
  unsigned last = member.loops.size() - 1;
  if (columnExtents.size() == 1 && column - member.loops.begin() == last &&
      map.getResults().back() == getAffineDimExpr(last, b.getContext()))
    vector = findVectorOperands(op, last);
  if (!vector.contains(&operand)) {
    emitElements(b, loc, tid);
    return;
  }
  int64_t bytes = getVectorElementBytes(getElementTypeOrSelf(source.getType()));
  int64_t lanes = kVectorBytes / bytes;
  constexpr int64_t kChunks = 4;
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value aligned = emitIsAligned(b, loc, source,
                                applyMap(b, loc, map, getIvs(member, {zero})),
                                kVectorBytes);
  VectorType vectorType =
      VectorType::get({lanes}, getElementTypeOrSelf(source.getType()));
  scf::IfOp::create(
      b, loc, aligned,
      [&](OpBuilder &then, Location loc) {
        Value lanesValue = arith::ConstantIndexOp::create(then, loc, lanes);
        Value vectorEnd = arith::SubIOp::create(
            then, loc, length,
            arith::RemUIOp::create(then, loc, length, lanesValue));
        Value stride = arith::MulIOp::create(then, loc, threads, lanesValue);
        Value span = arith::MulIOp::create(
            then, loc, stride,
            arith::ConstantIndexOp::create(then, loc, kChunks));
        Value firstChunk = arith::MulIOp::create(then, loc, tid, lanesValue);
        // Whole groups of four chunks: all loads, then all stores.
        Value groups = arith::DivUIOp::create(then, loc, vectorEnd, span);
        Value groupsEnd = arith::MulIOp::create(then, loc, groups, span);
        scf::ForOp::create(
            then, loc, firstChunk, groupsEnd, span, ValueRange{},
            [&](OpBuilder &inner, Location loc, Value start, ValueRange) {
              SmallVector<std::pair<Value, Value>> loaded;
              for (int64_t i = 0; i < kChunks; ++i) {
                Value k = arith::AddIOp::create(
                    inner, loc, start,
                    arith::MulIOp::create(
                        inner, loc, stride,
                        arith::ConstantIndexOp::create(inner, loc, i)));
                Value value = vector::LoadOp::create(
                    inner, loc, vectorType, source,
                    applyMap(inner, loc, map, getIvs(member, {k})),
                    /*nontemporal=*/false, llvm::Align(kVectorBytes));
                loaded.push_back({k, value});
              }
              for (auto [k, value] : loaded)
                vector::StoreOp::create(inner, loc, value, flat, k,
                                        /*nontemporal=*/false,
                                        llvm::Align(kVectorBytes));
              scf::YieldOp::create(inner, loc);
            });
        scf::ForOp::create(
            then, loc, arith::AddIOp::create(then, loc, groupsEnd, firstChunk),
            vectorEnd, stride, ValueRange{},
            [&](OpBuilder &inner, Location loc, Value k, ValueRange) {
              Value value = vector::LoadOp::create(
                  inner, loc, vectorType, source,
                  applyMap(inner, loc, map, getIvs(member, {k})),
                  /*nontemporal=*/false, llvm::Align(kVectorBytes));
              vector::StoreOp::create(inner, loc, value, flat, k,
                                      /*nontemporal=*/false,
                                      llvm::Align(kVectorBytes));
              scf::YieldOp::create(inner, loc);
            });
        emitElements(then, loc,
                     arith::AddIOp::create(then, loc, vectorEnd, tid));
        scf::YieldOp::create(then, loc);
      },
      [&](OpBuilder &otherwise, Location loc) {
        emitElements(otherwise, loc, tid);
        scf::YieldOp::create(otherwise, loc);
      });
}

/// One kernel for `group`, in place of its last member: a block per row,
/// whose threads run the members in order on that row. Reductions fold and
/// combine as lowerByRows does and leave the row's value in every thread;
/// ops on per-row values compute them in every thread; later members use
/// these values instead of reading them back, and thread 0 stores the last
/// one of each buffer. Ops on elements spread the row over the threads as
/// the reductions do: an element a member writes and a later one reads is
/// the same thread's, so no barriers separate the members.
void lowerRowGroup(const RowGroup &group, const RowGroupOptions &options) {
  int64_t blockSize = options.blockSize;
  int64_t rowBlockSize = options.rowBlockSize;
  int64_t rowCacheBytes = options.rowCacheBytes;
  linalg::LinalgOp last = group.members.back().op;
  OpBuilder b(last);
  Location loc = b.getFusedLoc(
      llvm::map_to_vector(group.members, [](const RowMember &member) {
        return member.op->getLoc();
      }));

  // A reduction has a loop for every row and column.
  const RowMember &anchor =
      *llvm::find_if(group.members, [](const RowMember &member) {
        return member.kind == RowMember::Reduce;
      });
  SmallVector<Value> rowExtents(group.shape.rows.size());
  SmallVector<Value> columnExtents(group.shape.columns.size());
  for (auto [range, index] :
       llvm::zip_equal(linalg::LinalgOp(anchor.op).createLoopRanges(b, loc),
                       anchor.loops)) {
    if (index.kind == Index::Row)
      rowExtents[index.pos] =
          getValueOrCreateConstantIndexOp(b, loc, range.size);
    else if (index.kind == Index::Column)
      columnExtents[index.pos] =
          getValueOrCreateConstantIndexOp(b, loc, range.size);
  }
  Value rows = product(b, loc, rowExtents);
  Value length = product(b, loc, columnExtents);

  SmallVector<CachedRow> cached;
  if (rowCacheBytes > 0)
    cached = findCachedRows(group);
  // Rows that fit get the cache; the kernel asks for it only for them.
  Value sharedBytes;
  if (!cached.empty()) {
    Value total = getCacheOffsets(b, loc, cached, length).second;
    Value fits = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, total,
        arith::ConstantIndexOp::create(b, loc, rowCacheBytes));
    sharedBytes = arith::IndexCastOp::create(
        b, loc, b.getI32Type(),
        arith::SelectOp::create(b, loc, fits, total,
                                arith::ConstantIndexOp::create(b, loc, 0)));
  }

  SmallVector<ReductionEmitter> emitters;
  SmallVector<Type> workgroupTypes;
  DenseMap<Value, size_t> lastWriter;
  for (auto [i, member] : llvm::enumerate(group.members)) {
    for (OpOperand &init : linalg::LinalgOp(member.op).getDpsInitsMutable())
      lastWriter[getRoot(init.get())] = i;
    if (!member.reduction)
      continue;
    const ReductionEmitter &emitter =
        emitters.emplace_back(*member.reduction, rowBlockSize);
    if (emitter.numWarps > 1 &&
        !llvm::is_contained(workgroupTypes, emitter.getWorkgroupType()))
      workgroupTypes.push_back(emitter.getWorkgroupType());
  }

  // A warp per row for short rows: their own reductions need no barrier,
  // and none of the block's threads idle.
  SmallVector<ReductionEmitter> warpEmitters;
  for (const RowMember &member : group.members)
    if (member.reduction)
      warpEmitters.emplace_back(*member.reduction, kWarpSize);

  // The members on `row`, by thread `tid` of the `threads` on it:
  // `warpRows`, the lanes of a warp, which order their accesses to the
  // row's buffers with warp barriers instead of block barriers.
  auto emitRow = [&](OpBuilder &b, Location loc, Value row, Value tid,
                     Value threads, ValueRange workgroup,
                     ArrayRef<ReductionEmitter> emitters, bool warpRows) {
    auto barrier = [&](OpBuilder &b, Location loc) {
      if (!warpRows) {
        gpu::BarrierOp::create(b, loc);
        return;
      }
      NVVM::SyncWarpOp::create(
          b, loc, arith::ConstantIntOp::create(b, loc, b.getI32Type(), -1));
    };
    Value zero = arith::ConstantIndexOp::create(b, loc, 0);
    Value one = arith::ConstantIndexOp::create(b, loc, 1);
    SmallVector<Value> rowIvs = delinearize(b, loc, row, rowExtents);
    // The row's per-row values so far, by buffer (root).
    DenseMap<Value, Value> known;
    auto read = [&](OpOperand &operand) {
      if (!isa<MemRefType>(operand.get().getType()))
        return Value();
      return known.lookup(getRoot(operand.get()));
    };
    // Loop indices of `member` at the row and `columnIvs` (none: only
    // rows are needed).
    auto getIvs = [&](const RowMember &member, ArrayRef<Value> columnIvs) {
      return llvm::map_to_vector(member.loops, [&](Index index) {
        if (index.kind == Index::Row)
          return rowIvs[index.pos];
        if (index.kind == Index::Column)
          return columnIvs.empty() ? Value() : columnIvs[index.pos];
        return zero;
      });
    };
    // The members on the row, reading cached rows from `flats` (one
    // per entry of `cached`) where given.
    auto emitMembers = [&](OpBuilder &b, Location loc, ArrayRef<Value> flats) {
      // Per-row values of one emission do not dominate the other's.
      known.clear();
      const ReductionEmitter *emitter = emitters.begin();
      // Buffers of whole rows members share: vector and element-wise
      // loops give a thread different elements of the row, so a member
      // that reads or writes what an earlier one wrote, or writes what an
      // earlier one read, waits for the block first.
      llvm::SmallDenseSet<Value> written, readBefore;
      for (auto [i, member] : llvm::enumerate(group.members)) {
        linalg::LinalgOp op = member.op;
        SmallVector<Value> reads, writes;
        for (OpOperand &operand : op->getOpOperands()) {
          AffineMap map = op.getMatchingIndexingMap(&operand);
          bool wholeRow =
              llvm::any_of(llvm::enumerate(member.loops), [&](auto loop) {
                return loop.value().kind == Index::Column &&
                       map.isFunctionOfDim(loop.index());
              });
          if (!wholeRow || !isa<MemRefType>(operand.get().getType()))
            continue;
          Value root = getRoot(operand.get());
          if (op.isDpsInit(&operand))
            writes.push_back(root);
          if (!op.getMatchingBlockArgument(&operand).use_empty())
            reads.push_back(root);
        }
        auto wasWritten = [&](Value root) { return written.contains(root); };
        if (llvm::any_of(reads, wasWritten) ||
            llvm::any_of(writes, wasWritten) ||
            llvm::any_of(writes, [&](Value root) {
              return readBefore.contains(root);
            })) {
          barrier(b, loc);
          written.clear();
          readBefore.clear();
        }
        written.insert(writes.begin(), writes.end());
        readBefore.insert(reads.begin(), reads.end());
        // Rows this member reads first are copied in, which every thread
        // must have finished (and finished reading the block's previous
        // row) before any reads them.
        OperandSubstitution substitution;
        if (!flats.empty()) {
          bool fills = false;
          for (auto [row, flat] : llvm::zip_equal(cached, flats)) {
            if (row.firstReader != i)
              continue;
            if (!fills)
              barrier(b, loc);
            fills = true;
            emitFillCache(b, loc, member, *row.operand, flat, columnExtents,
                          length, tid, threads, getIvs);
          }
          if (fills)
            barrier(b, loc);
          for (OpOperand &operand : op->getOpOperands()) {
            if (!isa<MemRefType>(operand.get().getType()))
              continue;
            Value root = getRoot(operand.get());
            for (auto [row, flat] : llvm::zip_equal(cached, flats))
              if (row.root == root)
                substitution.replace(operand,
                                     viewAsOperand(b, loc, flat, member,
                                                   operand, columnExtents));
          }
        }
        SmallVector<Value> values;
        if (member.kind == RowMember::PerElement) {
          emitPerElement(b, loc, member, getIvs, columnExtents, length, tid,
                         threads, read);
          continue;
        }
        SmallVector<Value> ivs = getIvs(member, {});
        if (member.kind == RowMember::PerRow) {
          values = emitLinalgBody(b, loc, op, ivs, read);
          if (member.loadsOwnRow)
            barrier(b, loc);
        } else {
          const ReductionEmitter &reducer = *emitter++;
          OpOperand *init = op.getDpsInitOperand(0);
          Value initial = read(*init);
          if (!initial)
            initial = memref::LoadOp::create(
                b, loc, init->get(),
                applyMap(b, loc, op.getMatchingIndexingMap(init), ivs));
          SmallVector<Value> parallelIvs, reductionExtents;
          for (auto [index, iterator, iv] :
               llvm::zip_equal(member.loops, op.getIteratorTypesArray(), ivs)) {
            if (linalg::isParallelIterator(iterator))
              parallelIvs.push_back(iv);
            else
              reductionExtents.push_back(
                  index.kind == Index::Column ? columnExtents[index.pos] : one);
          }
          Value partial =
              reducer.emitRowPartial(b, loc, parallelIvs, reductionExtents,
                                     length, tid, threads, read);
          Value buffer;
          if (reducer.numWarps > 1)
            buffer = workgroup[llvm::find(workgroupTypes,
                                          reducer.getWorkgroupType()) -
                               workgroupTypes.begin()];
          Value total = reducer.emitBlockReduce(b, loc, partial, tid, buffer);
          if (member.loadsOwnRow && reducer.numWarps == 1)
            barrier(b, loc);
          values.push_back(reducer.emitCombine(b, initial, total));
        }
        SmallVector<std::pair<Value, OpOperand *>> stores;
        for (auto [value, init] :
             llvm::zip_equal(values, op.getDpsInitsMutable())) {
          Value root = getRoot(init.get());
          known[root] = value;
          if (lastWriter.lookup(root) == i)
            stores.push_back({value, &init});
        }
        if (stores.empty())
          continue;
        Value first =
            arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, tid, zero);
        scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location loc) {
          for (auto [value, init] : stores)
            memref::StoreOp::create(
                then, loc, value, init->get(),
                applyMap(then, loc, op.getMatchingIndexingMap(init), ivs));
          scf::YieldOp::create(then, loc);
        });
      }
    };
    if (cached.empty() || warpRows) {
      emitMembers(b, loc, {});
      return;
    }
    auto [offsets, total] = getCacheOffsets(b, loc, cached, length);
    Value fits = arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ule, total,
        arith::ConstantIndexOp::create(b, loc, rowCacheBytes));
    scf::IfOp::create(
        b, loc, fits,
        [&](OpBuilder &then, Location loc) {
          auto workgroupSpace = gpu::AddressSpaceAttr::get(
              then.getContext(), gpu::AddressSpace::Workgroup);
          Value shared = gpu::DynamicSharedMemoryOp::create(
              then, loc,
              MemRefType::get({ShapedType::kDynamic}, then.getI8Type(),
                              MemRefLayoutAttrInterface(), workgroupSpace));
          SmallVector<Value> flats;
          for (auto [row, offset] : llvm::zip_equal(cached, offsets)) {
            Type element = getElementTypeOrSelf(row.operand->get().getType());
            Value view = memref::ViewOp::create(
                then, loc,
                MemRefType::get({ShapedType::kDynamic}, element,
                                MemRefLayoutAttrInterface(), workgroupSpace),
                shared, offset, ValueRange{length});
            // Generic pointers from here: convert-vector-to-llvm, which
            // runs before convert-gpu-to-nvvm, cannot map GPU address
            // spaces, and NVPTX infers the shared space back.
            flats.push_back(memref::MemorySpaceCastOp::create(
                then, loc, MemRefType::get({ShapedType::kDynamic}, element),
                view));
          }
          emitMembers(then, loc, flats);
          scf::YieldOp::create(then, loc);
        },
        [&](OpBuilder &otherwise, Location loc) {
          emitMembers(otherwise, loc, {});
          scf::YieldOp::create(otherwise, loc);
        });
  };

  auto emitBlockRows = [&](OpBuilder &b) {
    emitRowKernel(
        b, loc, rows, rowBlockSize, workgroupTypes,
        [&](OpBuilder &b, Location loc, gpu::LaunchOp launch,
            ValueRange workgroup, Value row) {
          emitRow(b, loc, row, launch.getThreadIds().x, launch.getBlockSize().x,
                  workgroup, emitters,
                  /*warpRows=*/false);
        },
        sharedBytes);
  };
  auto emitWarpRows = [&](OpBuilder &b) {
    emitWarpRowKernel(b, loc, rows, blockSize,
                      [&](OpBuilder &b, Location loc, Value row, Value lane) {
                        Value lanes =
                            arith::ConstantIndexOp::create(b, loc, kWarpSize);
                        emitRow(b, loc, row, lane, lanes, {}, warpEmitters,
                                /*warpRows=*/true);
                      });
  };
  // A block of threads on a row of 64 floats left most of them idle (a
  // softmax over float32[4194304, 64] ran at 5 % of copy bandwidth).
  std::optional<int64_t> staticLength = getConstantIntValue(length);
  if (options.warpRowLength == 0)
    emitBlockRows(b);
  else if (staticLength)
    *staticLength <= options.warpRowLength ? emitWarpRows(b) : emitBlockRows(b);
  else
    scf::IfOp::create(
        b, loc,
        arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ule, length,
            arith::ConstantIndexOp::create(b, loc, options.warpRowLength)),
        [&](OpBuilder &then, Location loc) {
          emitWarpRows(then);
          scf::YieldOp::create(then, loc);
        },
        [&](OpBuilder &otherwise, Location loc) {
          emitBlockRows(otherwise);
          scf::YieldOp::create(otherwise, loc);
        });
  for (const RowMember &member : group.members)
    member.op->erase();
}

} // namespace

void dlbridge::fuseRowGroups(Operation *root, const RowGroupOptions &options) {
  SmallVector<RowGroup, 0> groups;
  root->walk([&](Block *block) {
    Operation *parent = block->getParentOp();
    if (!isa<gpu::LaunchOp, gpu::GPUModuleOp>(parent) && !isInKernel(parent))
      llvm::append_range(groups, findRowGroups(*block, options.splitRows));
  });
  for (const RowGroup &group : groups)
    lowerRowGroup(group, options);
}
