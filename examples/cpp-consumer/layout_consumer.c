/*===- layout_consumer.c - Use libdlrt alone, from C ----------------------===*
 *
 * Part of dlbridge. Asks the runtime's compactness rule about two layouts of
 * one 2x3 array; exits 0 when it answers as DLPack defines.
 *
 *===----------------------------------------------------------------------===*/

#include "dlbridge/Runtime/dlrt.h"

#include <stdio.h>

int main(void) {
  float data[6] = {0};
  int64_t shape[2] = {2, 3};
  int64_t rowMajor[2] = {3, 1}, transposed[2] = {1, 2};
  DLTensor tensor = {data,  {kDLCPU, 0}, 2, {kDLFloat, 32, 1},
                     shape, rowMajor,    0};
  int compact = dlrt_is_compact(&tensor);
  tensor.strides = transposed;
  int transposedCompact = dlrt_is_compact(&tensor);
  printf("row-major compact: %d, transposed compact: %d\n", compact,
         transposedCompact);
  return compact == 1 && transposedCompact == 0 ? 0 : 1;
}
