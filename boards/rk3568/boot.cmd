# rknpu-bm on an RK3566/RK3568 board (ROCK 3A, Radxa ZERO 3 class). U-Boot's
# distro boot finds boot.scr (this file, compiled by mkimage) on the first
# FAT partition of the SD card or eMMC and runs it. rknpu.uimg is the
# firmware as a U-Boot "standalone" image: bootm checks its CRC, copies it
# to its load address (0x00400000) and calls its entry there. It is staged
# at 256 MiB, clear of the firmware, its carve-out (0x20000000) and the
# trusted firmware, and inside the DRAM of a 1 GiB board.
echo "rknpu-bm: loading rknpu.uimg from ${devtype} ${devnum}:${distro_bootpart}"
load ${devtype} ${devnum}:${distro_bootpart} 0x10000000 rknpu.uimg
setenv autostart yes
bootm 0x10000000
echo "rknpu-bm: the firmware returned to U-Boot (built with -Don_exit=uboot)"
