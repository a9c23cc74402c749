# SPDX-License-Identifier: GPL-2.0-or-later
#
# x86_64-softmmu device list for the e810 test emulator (used with
# --without-default-devices, so nothing is enabled unless listed here or
# selected by something listed here; "imply" does not fire in that mode).
# Linked as configs/devices/x86_64-softmmu/e810.mak by qemu-dev/overlay/apply.

# Board: q35 (selects ICH9 LPC, AHCI, ISA serial for ttyS0, fw_cfg DMA).
CONFIG_Q35=y
# QEMU 10.2's q35 code references PXB/CXL symbols: without these it fails to link.
CONFIG_PXB=y
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y

# PCIe root port to put the e810 behind.
CONFIG_PCIE_PORT=y

# virtio for the guest images: net, console/serial, rng, disk.
CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_VIRTIO_RNG=y
CONFIG_VIRTIO_BLK=y
# virtio-9p: a host folder shared into the guests (their builds, --rdma-core).
CONFIG_VIRTIO_9P=y

# ISA serial (already selected by PC; listed so it survives board changes).
CONFIG_SERIAL_ISA=y

# Our device.
CONFIG_E810=y

# QEMU's vfio-user client (-device vfio-user-pci): the same emulator also
# runs the device out of process (e810-vfio-user, scripts/vm
# --device-backend vfio-user).  VFIO_USER depends on VFIO_PCI, which
# selects VFIO and EDID; "default y" does not fire here, so both are listed.
CONFIG_VFIO_PCI=y
CONFIG_VFIO_USER=y
