/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * E810 device core: the entry points the host (QEMU glue or unit tests)
 * calls.  The top of the core: no block includes this header.
 */
#ifndef E810_H
#define E810_H

#include "dev.h"

/* Lifetime */
void e810_core_init(E810Core *c, const E810Host *host, const uint8_t mac[6]);
void e810_core_cleanup(E810Core *c);
/*
 * Makes @c function @pf of @a's card (another core's c->adapter), before
 * the guest runs: PF_FUNC_RID reads @pf, the port it drives is @pf, and
 * every function of the card lists the others in VALID_FUNCTIONS.  False
 * if @pf is out of range or taken.  A core leaves its card at cleanup.
 */
bool e810_core_join(E810Core *c, E810Adapter *a, unsigned pf);
void e810_core_reset(E810Core *c, E810ResetType type);

/* BAR0 access; @size is 1, 2, 4 or 8 bytes. */
uint64_t e810_mmio_read(E810Core *c, uint64_t addr, unsigned size);
void e810_mmio_write(E810Core *c, uint64_t addr, uint64_t val, unsigned size);

/* The wire */
bool e810_can_receive(E810Core *c);
/* Returns @len if the frame was consumed (delivered or counted as dropped). */
size_t e810_receive(E810Core *c, const uint8_t *frame, size_t len);
void e810_set_link(E810Core *c, bool up);
/* Frames the host queued and then handed on: e810_tx_drained(), with the
 * frame output in txsched.h. */

/*
 * Saved state (snapshots, migration; the format is in snap.h).  Call
 * these with the device quiet (the VM stopped).
 *
 * e810_core_unmigratable: why the state cannot be saved now (a message
 * for the user), or NULL.  e810_core_save appends the state to @w; false
 * (with the reason in @err) when it cannot be saved.  e810_core_load
 * replaces the device's state with the stream's: false with a message in
 * @err on any bad or truncated stream, the device then left as after a
 * power-on reset.  e810_core_resume restarts deferred work once the VM
 * runs again.
 */
struct E810SnapW;
const char *e810_core_unmigratable(E810Core *c);
bool e810_core_save(E810Core *c, struct E810SnapW *w, char *err, size_t n);
bool e810_core_load(E810Core *c, const void *buf, size_t len, char *err,
                    size_t n);
void e810_core_resume(E810Core *c);

#endif
