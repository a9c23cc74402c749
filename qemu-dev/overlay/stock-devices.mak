# SPDX-License-Identifier: GPL-2.0-or-later
#
# x86_64-softmmu device list for the *stock* emulator (scripts/build-qemu
# with E810_QEMU_VARIANT=stock): QEMU's own devices only, no e810, plus
# QEMU's vfio-user client (-device vfio-user-pci), which runs our device
# core out of process (e810-vfio-user).  Used with --without-default-devices,
# so "default y" does not fire: everything needed is listed.  Copied as
# configs/devices/x86_64-softmmu/stock.mak into the stock source copy.

# Board: q35, as our emulator (e810-devices.mak).
CONFIG_Q35=y
# QEMU 10.2's q35 code references PXB/CXL symbols: without these it fails to link.
CONFIG_PXB=y
CONFIG_CXL=y
CONFIG_CXL_MEM_DEVICE=y
CONFIG_PCIE_PORT=y

CONFIG_VIRTIO_PCI=y
CONFIG_VIRTIO_NET=y
CONFIG_VIRTIO_SERIAL=y
CONFIG_VIRTIO_RNG=y
CONFIG_VIRTIO_BLK=y
CONFIG_VIRTIO_9P=y
CONFIG_SERIAL_ISA=y

# vfio-user client (hw/vfio-user/Kconfig: VFIO_USER depends on VFIO_PCI,
# which selects VFIO and EDID; VFIO depends on LINUX).
CONFIG_VFIO_PCI=y
CONFIG_VFIO_USER=y
