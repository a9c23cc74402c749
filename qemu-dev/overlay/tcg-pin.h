/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * e810-overlay: a fix for a race in QEMU's multi-threaded TCG, included
 * by system/physmem.c (qemu-dev/overlay/apply, docs/status.md "A QEMU TCG
 * race outside the device").
 *
 * A softmmu TLB entry names its MemoryRegionSection by an index into the
 * address space dispatch it was filled from; QEMU 10.x looks that index
 * up again (iotlb_to_section) in the address space's *current* dispatch.
 * A memory-map change on another thread (a PCI BAR or command register
 * written by the other vCPU or the device's own reset) installs a new
 * dispatch at once, while the TLB flush it queues for this vCPU runs only
 * when the vCPU leaves its translated code: an MMIO access through an
 * entry filled before the change reads the index against the new table
 * ("section_index < d->map.sections_nb" aborts QEMU, or a smaller index
 * names the wrong region).
 *
 * The fix: each vCPU fills and looks up its TLB entries through one
 * FlatView, pinned (a reference held) when its TLB is flushed on its own
 * thread, so every entry and every lookup between two flushes agree.  A
 * map change is seen by the vCPU at its next flush, which the change
 * itself queues, as QEMU already did for the RAM pages of the TLB.
 */
#ifndef E810_OVERLAY_TCG_PIN_H
#define E810_OVERLAY_TCG_PIN_H

/* The dispatch of @cpuas's pinned FlatView, @cur until one is pinned. */
static inline AddressSpaceDispatch *e810_tlb_dispatch(CPUAddressSpace *cpuas,
                                                      AddressSpaceDispatch *cur)
{
    FlatView *fv = qatomic_read(&cpuas->e810_pinned);

    return fv ? flatview_to_dispatch(fv) : cur;
}

/* On the vCPU's thread, right after its TLB flush: pin the current map. */
static inline void e810_tlb_pin(CPUAddressSpace *cpuas)
{
    FlatView *old = cpuas->e810_pinned;

    qatomic_set(&cpuas->e810_pinned, address_space_get_flatview(cpuas->as));
    if (old) {
        flatview_unref(old);
    }
}

#endif
