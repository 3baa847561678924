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

/// One kernel for `group`, in place of its last member: a block per row,
/// whose threads run the members in order on that row. Reductions fold and
/// combine as lowerByRows does and leave the row's value in every thread;
/// ops on per-row values compute them in every thread; later members use
/// these values instead of reading them back, and thread 0 stores the last
/// one of each buffer. Ops on elements spread the row over the threads as
/// the reductions do: an element a member writes and a later one reads is
/// the same thread's, so no barriers separate the members.
void lowerRowGroup(const RowGroup &group, int64_t blockSize) {
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

  SmallVector<ReductionEmitter> emitters;
  SmallVector<Type> workgroupTypes;
  DenseMap<Value, size_t> lastWriter;
  for (auto [i, member] : llvm::enumerate(group.members)) {
    for (OpOperand &init : linalg::LinalgOp(member.op).getDpsInitsMutable())
      lastWriter[getRoot(init.get())] = i;
    if (!member.reduction)
      continue;
    const ReductionEmitter &emitter =
        emitters.emplace_back(*member.reduction, blockSize);
    if (emitter.numWarps > 1 &&
        !llvm::is_contained(workgroupTypes, emitter.getWorkgroupType()))
      workgroupTypes.push_back(emitter.getWorkgroupType());
  }

  emitRowKernel(
      b, loc, rows, blockSize, workgroupTypes,
      [&](OpBuilder &b, Location loc, gpu::LaunchOp launch,
          ValueRange workgroup, Value row) {
        Value tid = launch.getThreadIds().x;
        Value threads = launch.getBlockSize().x;
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
            gpu::BarrierOp::create(b, loc);
            written.clear();
            readBefore.clear();
          }
          written.insert(writes.begin(), writes.end());
          readBefore.insert(reads.begin(), reads.end());
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
              gpu::BarrierOp::create(b, loc);
          } else {
            const ReductionEmitter &reducer = *emitter++;
            OpOperand *init = op.getDpsInitOperand(0);
            Value initial = read(*init);
            if (!initial)
              initial = memref::LoadOp::create(
                  b, loc, init->get(),
                  applyMap(b, loc, op.getMatchingIndexingMap(init), ivs));
            SmallVector<Value> parallelIvs, reductionExtents;
            for (auto [index, iterator, iv] : llvm::zip_equal(
                     member.loops, op.getIteratorTypesArray(), ivs)) {
              if (linalg::isParallelIterator(iterator))
                parallelIvs.push_back(iv);
              else
                reductionExtents.push_back(index.kind == Index::Column
                                               ? columnExtents[index.pos]
                                               : one);
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
              gpu::BarrierOp::create(b, loc);
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
          Value first = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq,
                                              tid, zero);
          scf::IfOp::create(b, loc, first, [&](OpBuilder &then, Location loc) {
            for (auto [value, init] : stores)
              memref::StoreOp::create(
                  then, loc, value, init->get(),
                  applyMap(then, loc, op.getMatchingIndexingMap(init), ivs));
            scf::YieldOp::create(then, loc);
          });
        }
      });
  for (const RowMember &member : group.members)
    member.op->erase();
}

} // namespace

void dlbridge::fuseRowGroups(Operation *root, int64_t blockSize,
                             int64_t splitRows) {
  SmallVector<RowGroup, 0> groups;
  root->walk([&](Block *block) {
    Operation *parent = block->getParentOp();
    if (!isa<gpu::LaunchOp, gpu::GPUModuleOp>(parent) && !isInKernel(parent))
      llvm::append_range(groups, findRowGroups(*block, splitRows));
  });
  for (const RowGroup &group : groups)
    lowerRowGroup(group, blockSize);
}
