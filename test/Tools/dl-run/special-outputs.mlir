// An output (-o) that is not a regular file is never replaced: a FIFO or a
// character device is written in place, a symbolic link keeps pointing at
// its file (which is replaced atomically), and a directory, a socket or a
// link to nothing is refused with every output left as it was.
// REQUIRES: numpy
// RUN: rm -rf %t && mkdir -p %t
// RUN: %python -c "import numpy as np; np.save('%t/x.npy', np.arange(4, dtype=np.float32))"

// A FIFO gets the array through the pipe and stays a FIFO.
// RUN: mkfifo %t/fifo
// RUN: %python -c "import threading, numpy as np; out = {}; t = threading.Thread(target=lambda: out.update(a=open('%t/fifo', 'rb').read())); t.start(); import subprocess; subprocess.run(['dl-run', '%s', '--entry', 'twice', '-i', '%t/x.npy', '-o', '%t/fifo'], check=True); t.join(); open('%t/from-fifo.npy', 'wb').write(out['a'])"
// RUN: test -p %t/fifo
// RUN: %python %S/check.py %t/from-fifo.npy "2 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME
// SAME: ok: float32 (4,)

// /dev/null takes it and stays a character device.
// RUN: dl-run %s --entry twice -i %t/x.npy -o /dev/null
// RUN: test -c /dev/null

// /dev/stdout on a pipe carries the array to the reader.
// RUN: dl-run %s --entry twice -i %t/x.npy -o /dev/stdout | %python -c "import sys; open('%t/from-stdout.npy', 'wb').write(sys.stdin.buffer.read())"
// RUN: %python %S/check.py %t/from-stdout.npy "2 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME

// A symbolic link to a file: the file is replaced, the link stays a link.
// RUN: echo old > %t/target.npy && ln -s target.npy %t/link.npy
// RUN: dl-run %s --entry twice -i %t/x.npy -o %t/link.npy
// RUN: test -L %t/link.npy
// RUN: %python %S/check.py %t/target.npy "2 * x" x=%t/x.npy | FileCheck %s --check-prefix=SAME

// A directory, a link to nothing and a socket are refused, and leave them as
// they were.
// RUN: mkdir %t/dir
// RUN: not dl-run %s --entry twice -i %t/x.npy -o %t/dir 2>&1 | FileCheck %s --check-prefix=DIR
// DIR: dl-run: result 0 'y': cannot write '{{.*}}dir': it is a directory (no output was written)
// RUN: test -d %t/dir
// RUN: ln -s nowhere/y.npy %t/dangling
// RUN: not dl-run %s --entry twice -i %t/x.npy -o %t/dangling 2>&1 | FileCheck %s --check-prefix=DANGLING
// DANGLING: cannot write '{{.*}}dangling': it is a symbolic link to a missing file
// RUN: test -L %t/dangling
// RUN: %python -c "import socket; s = socket.socket(socket.AF_UNIX); s.bind('%t/sock')"
// RUN: not dl-run %s --entry twice -i %t/x.npy -o %t/sock 2>&1 | FileCheck %s --check-prefix=SOCKET
// SOCKET: cannot write '{{.*}}sock': it is a socket
// RUN: test -S %t/sock

#id = affine_map<(i) -> (i)>
func.func @twice(%x: tensor<?xf32> {dlpack.name = "x"})
    -> (tensor<?xf32> {dlpack.name = "y"}) attributes {dlpack.entry} {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %two : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %y : tensor<?xf32>
}
