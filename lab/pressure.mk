# The memory-pressure scenario (tests/lab/pressure.sh): real GFP_NOWAIT
# failures on lab-fixed and lab-fixed-plus, fgraphtop's counts against the
# kernel's own kmem events. Two boots, about 2 minutes each under TCG.
#
# Not in make test yet: the guest's disk (lab/run.sh -d) needs the lab
# kernels built with CONFIG_BLOCK, BLK_DEV, VIRTIO_MENU, VIRTIO_PCI,
# VIRTIO_BLK and EXT2_FS, and adding them to lab/config/lab.config re-keys
# every lab kernel: all of them rebuild, which a fresh 2-core machine cannot
# fit into make test's budget beside this round's new kernels. Build them with
# those options (FGT_CACHE of its own) and run it by hand meanwhile.
.PHONY: test-lab-pressure
test-lab-pressure: $(BUILD)/fgraphtop lab-image
	tests/lab/pressure.sh
