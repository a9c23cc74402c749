#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""An MPI job that checks its data (mpi4py; run under mpirun, every rank).

Each rank: an allreduce of the ranks; then ROUNDS rounds of a ring, every
rank sending BYTES of a pattern of its own (SHAKE-256 of rank and round)
to the next rank and checking what the previous one sent; then ranks 0 and
1 measure a ping-pong (4 KiB round trip, 1 MiB each way).  Prints one line
per rank ("mpi-check: rank R of N on HOST: ...") and rank 0's figures;
exits non-zero when anything differs.

Usage: mpirun ... python3 mpi-check.py [BYTES [ROUNDS]]
"""
import hashlib
import sys
import time

from mpi4py import MPI


def pattern(rank, rnd, n):
    return hashlib.shake_256(f'e810-mpi-{rank}-{rnd}'.encode()).digest(n)


def pingpong(comm, rank, size, reps):
    buf = bytearray(size)
    comm.Barrier()
    t0 = time.perf_counter()
    for _ in range(reps):
        if rank == 0:
            comm.Send([buf, MPI.BYTE], dest=1)
            comm.Recv([buf, MPI.BYTE], source=1)
        elif rank == 1:
            comm.Recv([buf, MPI.BYTE], source=0)
            comm.Send([buf, MPI.BYTE], dest=0)
    return (time.perf_counter() - t0) / reps


def main():
    nbytes = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 20
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    comm = MPI.COMM_WORLD
    rank, size = comm.Get_rank(), comm.Get_size()
    host = MPI.Get_processor_name()
    bad = []
    total = comm.allreduce(rank + 1)
    if total != size * (size + 1) // 2:
        bad.append(f'allreduce {total}, expected {size * (size + 1) // 2}')
    nxt, prv = (rank + 1) % size, (rank - 1) % size
    got = bytearray(nbytes)
    for rnd in range(rounds):
        comm.Sendrecv([pattern(rank, rnd, nbytes), MPI.BYTE], dest=nxt,
                      recvbuf=[got, MPI.BYTE], source=prv)
        if got != pattern(prv, rnd, nbytes):
            first = next(i for i in range(nbytes) if got[i] != pattern(prv, rnd, nbytes)[i])
            bad.append(f'round {rnd}: data from rank {prv} differs at byte {first}')
            break
    lat = bw = None
    if size > 1:
        lat = pingpong(comm, rank, 4096, 100)
        t = pingpong(comm, rank, 1 << 20, 10)
        bw = 2 * (1 << 20) / t / 1e6
    ok = comm.allreduce(0 if bad else 1) == size
    print(f'mpi-check: rank {rank} of {size} on {host}: allreduce and {rounds} ring rounds of '
          f'{nbytes} bytes ' + ('verified' if not bad else 'FAILED: ' + '; '.join(bad)), flush=True)
    if rank == 0 and lat is not None:
        print(f'mpi-check: ping-pong g0-g1: 4 KiB round trip {lat * 1e6:.0f} us, '
              f'1 MiB {bw:.1f} MB/s', flush=True)
    if rank == 0:
        print(f'mpi-check: {"all ranks verified" if ok else "a rank failed"}', flush=True)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
