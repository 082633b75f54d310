# Sourced by the VMs' jobs (vm-lib.sh, Tests/Pi/pi-job.sh): loads hci_vhci
# and the kernel crypto bluetoothd needs, and creates the ecb(aes) and
# cmac(aes) instances up front: left to load on demand under emulation,
# hci0's reset times out about two times in three. Calls `finish` on failure.
load_vhci_and_crypto() {
    modprobe -a hci_vhci af_alg algif_hash algif_skcipher cmac ecb ecdh_generic || finish 10 "modprobe failed"
    python3 -c '
import socket
for kind, name in (("skcipher", "ecb(aes)"), ("hash", "cmac(aes)")):
    s = socket.socket(socket.AF_ALG, socket.SOCK_SEQPACKET)
    s.bind((kind, name))
    s.close()
' || finish 11 "AF_ALG instances failed"
}
