# rknpu-bm on an RK3588 board. U-Boot's distro boot finds boot.scr (this
# file, compiled by mkimage) on the first FAT partition of the SD card or
# eMMC and runs it: load the firmware to its link address and jump there.
echo "rknpu-bm: loading rknpu.bin from ${devtype} ${devnum}:${distro_bootpart} to 0x00400000"
load ${devtype} ${devnum}:${distro_bootpart} 0x00400000 rknpu.bin
go 0x00400000
