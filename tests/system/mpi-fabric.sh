#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
#
# System test (--full): tests/system/mpi.sh's MPI job on four guests on one
# switch, iWARP: every rank's ring data checked, every guest's irdma
# counters showing the ring's bytes.
MODES=${MODES-} MPI_GUESTS=${MPI_GUESTS:-4}
. "$(dirname "$0")/mpi.sh"
