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

# The other fix shapes under the same starved pressure, by their own rules
# (issue 39; tests/lab/pressure_check.py check_shape): about 3 minutes each
# under TCG, make test-long's.
.PHONY: test-lab-pressure-shapes
test-lab-pressure-shapes: $(BUILD)/fgraphtop lab-image
	FGT_PRESSURE_CHECK= tests/lab/pressure.sh -k lab-shape-single -k lab-shape-pinned
TEST_LONG_TARGETS += test-lab-pressure-shapes
