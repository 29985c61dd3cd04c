# The memory-pressure scenario (tests/lab/pressure.sh): real GFP_NOWAIT
# failures on lab-fixed and lab-fixed-plus, fgraphtop's counts against the
# kernel's own kmem events, and `fgraphtop check --trigger` under the same
# pressure on lab-fixed. Three boots, about 2 minutes each under TCG.
#
# The guest's disk (lab/run.sh -d) needs the block layer, virtio-blk and ext2
# in every lab kernel: lab/config/lab.config has them.
.PHONY: test-lab-pressure
test-lab-pressure: $(BUILD)/fgraphtop lab-image
	tests/lab/pressure.sh
TEST_TARGETS += test-lab-pressure
