# rknpu-bm on QEMU virt (aarch64) under Debian's qemu_arm64 U-Boot. Distro
# boot finds boot.scr (this file, compiled by mkimage) on the first FAT
# partition of the virtio disk and runs it. rknpu.uimg is the firmware as a
# U-Boot "standalone" image: bootm checks its CRC, copies it to its load
# address (0x40400000, U-Boot's kernel_addr_r) and calls its entry.
# bootm rather than go: the go of Debian 12's U-Boot 2023.01 never returns
# from its console flush on QEMU's PL011.
echo "rknpu-bm: loading rknpu.uimg from ${devtype} ${devnum}:${distro_bootpart}"
load ${devtype} ${devnum}:${distro_bootpart} 0x48000000 rknpu.uimg
setenv autostart yes
bootm 0x48000000
echo "rknpu-bm: the firmware returned to U-Boot (built with -Don_exit=uboot)"
