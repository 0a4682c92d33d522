# rknpu-bm over the network on a board, for the edit-build-run loop: U-Boot's
# distro boot falls through to dhcp when no disk has a boot.scr, fetches
# boot.scr.uimg (this file, compiled by mkimage) from the TFTP server the
# DHCP answer names and runs it. By hand at the U-Boot prompt:
#   dhcp ${scriptaddr} boot.scr.uimg; source ${scriptaddr}
# Serve build/images/rk3588.tftp/ (scripts/make-image.sh) over TFTP.
echo "rknpu-bm: fetching rknpu.uimg from ${serverip}"
tftpboot 0x10000000 rknpu.uimg
setenv autostart yes
bootm 0x10000000
echo "rknpu-bm: the firmware returned to U-Boot (built with -Don_exit=uboot)"
